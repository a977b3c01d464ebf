// Scratch directories for tests, and the disk cache put back where the environment says after a
// test pointed it elsewhere: tests never touch the user's cache.
#pragma once

#include "catch.hpp"

#include <jet/detail/core.hpp>

#include <stdlib.h>

#include <filesystem>
#include <string>
#include <system_error>

namespace jet::test {

/// A new, empty directory (0700) under the system's temporary directory, removed with all it
/// holds at the end of its scope.
class scratch_directory {
 public:
  scratch_directory() {
    std::string name = (std::filesystem::temp_directory_path() / "jet-test-XXXXXX").string();
    REQUIRE(::mkdtemp(name.data()) != nullptr);
    path_ = name;
  }
  scratch_directory(const scratch_directory&) = delete;
  scratch_directory& operator=(const scratch_directory&) = delete;
  ~scratch_directory() {
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
  }
  std::filesystem::path operator/(const std::string& name) const { return path_ / name; }

 private:
  std::filesystem::path path_;
};

/// At the end of its scope, jet's disk cache goes back where the environment says (under CTest,
/// build/test-cache).
struct restore_disk_cache {
  restore_disk_cache() = default;
  restore_disk_cache(const restore_disk_cache&) = delete;
  restore_disk_cache& operator=(const restore_disk_cache&) = delete;
  ~restore_disk_cache() { jet::set_disk_cache(true); }
};

}  // namespace jet::test
