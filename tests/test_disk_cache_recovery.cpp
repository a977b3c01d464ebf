// The disk cache when its directory changes under it: removed, full, a directory or a large
// foreign file where an entry goes, a bound of 0 bytes. Each is recovered from, or skipped at
// little cost, with one warning however many kernels are compiled.
#include "support/catch.hpp"
#include "support/cubin.hpp"
#include "support/disk_cache_tools.hpp"
#include "support/operands.hpp"
#include "support/scratch.hpp"

#include "compile/cached_compile.hpp"
#include "compile/disk_cache.hpp"

#include <jet/jet.hpp>

#include <fcntl.h>
#include <sys/resource.h>
#include <unistd.h>

#include <csignal>
#include <cstdint>
#include <fstream>
#include <string>

namespace {

namespace fs = std::filesystem;
using jet::detail::cache_key;
using jet::detail::disk_cache;
using namespace jet::test;  // the disk cache tests' tools, operands and scratch directories

constexpr std::uint64_t one_gib = std::uint64_t{1} << 30;

// Bytes this process has read (every read call on any file), from /proc/self/io.
std::uint64_t bytes_read_by_this_process() {
  std::ifstream io("/proc/self/io");
  for (std::string field; io >> field;) {
    std::uint64_t value = 0;
    io >> value;
    if (field == "rchar:") return value;
  }
  FAIL("/proc/self/io has no rchar");
  return 0;
}

// Run in a child process: three stores while no file may grow past 10000 bytes (their writes fail,
// as on a full disk), then one with that lifted. Exits 0 when the three failed and the last
// stored; its stderr goes to `log`.
int store_past_file_size_limit(const fs::path& directory, const fs::path& log) {
  const int log_fd = ::open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
  if (log_fd < 0 || ::dup2(log_fd, 2) < 0) return 10;
  const auto cache = disk_cache::open(directory, one_gib);
  if (!cache) return 11;
  std::signal(SIGXFSZ, SIG_IGN);  // a write past the limit fails with EFBIG, rather than killing
  rlimit unlimited{}, limited{};
  if (::getrlimit(RLIMIT_FSIZE, &unlimited) != 0) return 12;
  limited = {10000, unlimited.rlim_max};
  if (::setrlimit(RLIMIT_FSIZE, &limited) != 0) return 13;
  const std::string cubin(100000, 'c');
  for (std::uint64_t k = 0; k < 3; ++k)
    if (cache->store({"source " + std::to_string(k), k}, cubin)) return 14;
  if (::setrlimit(RLIMIT_FSIZE, &unlimited) != 0) return 15;
  return cache->store({"source 3", 3}, cubin) ? 0 : 16;
}

}  // namespace

TEST_CASE("a cache directory removed while in use is created again, with one warning", "[cpu][disk_cache]") {
  scratch_directory scratch;
  const restore_disk_cache restore;
  const fs::path directory = scratch / "cache";
  jet::set_disk_cache_directory(directory.string());
  auto x = jet::test::fake_view<float>(), y = jet::test::fake_view<float>();
  compile_fresh(x * y + 2.0f);
  fs::remove_all(directory);
  SECTION("removed") {}
  SECTION("removed, and made again by someone else") {
    fs::create_directory(directory);
    fs::permissions(directory, fs::perms::owner_all);
  }
  const jet::statistics before = jet::stats();
  const std::string warnings = stderr_of([&] {
    compile_fresh(jet::abs(x) - y);
    compile_fresh(jet::exp(y) * x);
    compile_fresh(x / (y + x));
  });
  CHECK(warnings ==
        "jet: warning: the kernel cache directory " + directory.string() + " was removed; created it again\n");
  CHECK(counted_since(before) == counts{3, 0, 3});
  CHECK(list_directory(directory).entries.size() == 3);
  CHECK(jet::disk_cache_directory() == directory.string());
}

TEST_CASE("stores that fail (a full disk) warn once, and later stores try again", "[cpu][disk_cache]") {
  scratch_directory scratch;
  const fs::path directory = scratch / "cache", log = scratch / "stderr";
  const pid_t child = ::fork();
  REQUIRE(child >= 0);
  if (child == 0) ::_exit(store_past_file_size_limit(directory, log));
  CHECK(exit_code_of(child) == 0);
  const std::string warnings = read_file(log);
  INFO(warnings);
  CHECK(lines_with(warnings, "jet: warning: ") == 1);
  CHECK(lines_with(warnings, "jet: warning: cannot store a kernel in the cache directory " + directory.string() +
                                 ": cannot write .jet-tmp-") == 1);
  CHECK(lines_with(warnings, "File too large (later failures to store are not reported)") == 1);
  CHECK(list_directory(directory).entries.size() == 1);
  CHECK(list_directory(directory).others.empty());  // no temporary file left
}

TEST_CASE("a directory in an entry's place: an empty one is removed, another skipped with one warning",
          "[cpu][disk_cache]") {
  scratch_directory scratch;
  const restore_disk_cache restore;
  jet::set_disk_cache_directory((scratch / "cache").string());
  auto x = jet::test::fake_view<float>(), y = jet::test::fake_view<float>();
  const auto e = jet::cos(x) * y - x;
  const fs::path entry = entry_path_of(e);
  const std::string warning = "jet: warning: the kernel cache entry " + entry.string();
  SECTION("empty") {
    fs::create_directory(entry);
    const std::string warnings = stderr_of([&] { compile_fresh(e); });
    CHECK(warnings == warning + " was an empty directory; removed it, compiling the kernel again\n");
    CHECK(jet::compile(e, hopper).from_disk_cache);
  }
  SECTION("holding a file") {
    fs::create_directories(entry / "notes");
    const jet::statistics before = jet::stats();
    const std::string warnings = stderr_of([&] {
      for (int i = 0; i < 3; ++i) compile_fresh(e);
    });
    CHECK(warnings == warning + " is a directory; compiling the kernel, and not storing it, while it is there\n");
    CHECK(counted_since(before) == counts{3, 0, 0});
    CHECK(fs::is_directory(entry / "notes"));
  }
}

TEST_CASE("a large file named like an entry is refused from its first bytes, unread, and replaced",
          "[cpu][disk_cache]") {
  scratch_directory scratch;
  const auto cache = disk_cache::open(scratch / "cache", one_gib);
  REQUIRE(cache);
  const cache_key key{"a source", 0x1234};
  const fs::path entry = cache->entry_path(key);
  overwrite_file(entry, "junk, not an entry\n");
  fs::resize_file(entry, std::uintmax_t{256} << 20);  // 256 MiB (sparse), the largest an entry may be
  const std::uint64_t read_before = bytes_read_by_this_process();
  const std::string warnings = stderr_of([&] { CHECK_FALSE(cache->load(key)); });
  CHECK(bytes_read_by_this_process() - read_before < (std::uint64_t{1} << 20));
  CHECK(warnings == "jet: warning: the kernel cache entry " + entry.string() +
                        " is not a jet kernel cache entry; compiling the kernel again\n");
  REQUIRE(cache->store(key, "a cubin"));
  CHECK(cache->load(key) == "a cubin");
}

TEST_CASE("a cache bounded to 0 bytes (JET_CACHE_MAX_BYTES=0) stores nothing and counts no write",
          "[cpu][disk_cache]") {
  scratch_directory scratch;
  const auto cache = disk_cache::open(scratch / "cache", 0);
  REQUIRE(cache);
  const std::string warnings = stderr_of([&] { CHECK_FALSE(cache->store({"a source", 1}, "a cubin")); });
  CHECK(warnings.empty());
  CHECK(fs::is_empty(scratch / "cache"));

  const fs::path log = scratch / "log";
  CHECK(exit_code_of(start_filler(scratch / "zero", 5, 0, {"JET_CACHE_MAX_BYTES=0", "JET_LOG=info"}, log)) == 0);
  const std::string logged = read_file(log);
  CHECK(lines_with(logged, "jet: compiled `") == 5);
  CHECK(lines_with(logged, "stored in") == 0);
  CHECK(lines_with(logged, "warning") == 0);
  CHECK(fs::is_empty(scratch / "zero"));
}
