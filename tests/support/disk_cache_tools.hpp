// What the disk cache tests share: files read and damaged, stderr captured, a directory's
// entries listed, jet::stats() counted, and cache fillers started in processes of their own.
#pragma once

#include "catch.hpp"
#include "cubin.hpp"
#include "stderr_capture.hpp"
#include "text.hpp"

#include "compile/cached_compile.hpp"
#include "compile/disk_cache.hpp"

#include <jet/jet.hpp>

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <ostream>
#include <sstream>
#include <string>
#include <vector>

extern char** environ;

namespace jet::test {

namespace fs = std::filesystem;

inline std::string read_file(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// Overwrites the file in place, as damage would (no rename: same file, same mode).
inline void overwrite_file(const fs::path& p, const std::string& content) {
  std::ofstream(p, std::ios::binary | std::ios::trunc) << content;
}

// The names in a directory that are cache entries, and those that are anything else.
struct listing {
  std::vector<std::string> entries, others;
  std::uintmax_t entry_bytes = 0;
};
inline listing list_directory(const fs::path& directory) {
  listing l;
  for (const fs::directory_entry& e : fs::directory_iterator(directory)) {
    const std::string name = e.path().filename().string();
    if (e.is_regular_file() && name.ends_with(".cubin")) {
      l.entries.push_back(name);
      l.entry_bytes += e.file_size();
    } else {
      l.others.push_back(name);
    }
  }
  return l;
}

template <class E> jet::detail::cache_key key_of(const E& e) {
  return jet::detail::cache_key_for(jet::source(e), hopper.value);
}

template <class E> fs::path entry_path_of(const E& e) {
  return jet::detail::active_disk_cache()->entry_path(key_of(e));
}

struct counts {
  std::uint64_t compiles, disk_hits, disk_writes;
  friend bool operator==(const counts&, const counts&) = default;
};
inline std::ostream& operator<<(std::ostream& out, const counts& c) {
  return out << "{compiles " << c.compiles << ", disk hits " << c.disk_hits << ", disk writes " << c.disk_writes << "}";
}
// What jet::stats() counted since `before`.
inline counts counted_since(const jet::statistics& before) {
  const jet::statistics now = jet::stats();
  return {now.compiles - before.compiles, now.disk_hits - before.disk_hits, now.disk_writes - before.disk_writes};
}

// Compiles e with no disk entry for it; then e's entry holds a valid cubin.
template <class E> void compile_fresh(const E& e) {
  const jet::compiled_kernel k = jet::compile(e, hopper);
  REQUIRE(is_cubin(k));
  REQUIRE_FALSE(k.from_disk_cache);
}

// The cache filler started on `directory` for its first `count` expressions from `first` on, with
// `environment` added to this process's and its stderr in `stderr_file`, if one is named.
inline pid_t start_filler(const fs::path& directory, int count, int first,
                          const std::vector<std::string>& environment = {}, const fs::path& stderr_file = {}) {
  std::vector<std::string> env(environment);  // first: getenv finds these before this process's own
  for (char** v = environ; *v; ++v) env.emplace_back(*v);
  std::vector<char*> envp;
  for (std::string& v : env) envp.push_back(v.data());
  envp.push_back(nullptr);
  std::string program = JET_CACHE_FILLER, dir = directory.string(), n = std::to_string(count),
              from = std::to_string(first);
  char* argv[] = {program.data(), dir.data(), n.data(), from.data(), nullptr};
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  if (!stderr_file.empty())
    posix_spawn_file_actions_addopen(&actions, 2, stderr_file.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
  pid_t pid = -1;
  const int failed = posix_spawn(&pid, program.c_str(), &actions, nullptr, argv, envp.data());
  posix_spawn_file_actions_destroy(&actions);
  REQUIRE(failed == 0);
  return pid;
}

inline int exit_code_of(pid_t pid) {
  int status = 0;
  if (::waitpid(pid, &status, 0) != pid || !WIFEXITED(status)) return -1;
  return WEXITSTATUS(status);
}

inline std::size_t lines_with(const std::string& text, const std::string& part) {
  std::istringstream in(text);
  std::size_t n = 0;
  for (std::string line; std::getline(in, line);) n += contains(line, part);
  return n;
}

}  // namespace jet::test
