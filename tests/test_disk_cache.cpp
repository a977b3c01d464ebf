// The disk cache, on the compile-only path (no GPU): entries stored once and loaded after, atomic
// writes, damaged, stale and planted entries never used, untrusted directories refused, the size
// bound, and many threads and processes filling one cache at once. Every test uses a scratch
// directory of its own.
#include "support/catch.hpp"
#include "support/cubin.hpp"
#include "support/disk_cache_tools.hpp"
#include "support/numbered_expressions.hpp"
#include "support/operands.hpp"
#include "support/scratch.hpp"
#include "support/stderr_capture.hpp"

#include "codegen/elementwise.hpp"
#include "codegen/geometry.hpp"
#include "codegen/spelling.hpp"
#include "compile/compiler.hpp"
#include "compile/cached_compile.hpp"
#include "compile/disk_cache.hpp"

#include <jet/jet.hpp>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <ctime>
#include <optional>
#include <string>
#include <thread>
#include <vector>

namespace {

namespace fs = std::filesystem;
using namespace jet::test;  // the disk cache tests' tools, operands and scratch directories

// Compiles e whose entry is not to be used: a warning, a compile and a valid entry that the next
// compile loads.
template <class E> void check_replaced(const E& e, const std::string& why) {
  const fs::path entry = entry_path_of(e);
  const jet::statistics before = jet::stats();
  jet::compiled_kernel k;
  const std::string warnings = stderr_of([&] { k = jet::compile(e, hopper); });
  INFO(warnings);
  CHECK(contains(warnings, "jet: warning: the kernel cache entry " + entry.string() + " " + why));
  CHECK(contains(warnings, "compiling the kernel again"));
  CHECK(is_cubin(k));
  CHECK_FALSE(k.from_disk_cache);
  CHECK(counted_since(before) == counts{1, 0, 1});
  CHECK(fs::is_regular_file(fs::symlink_status(entry)));
  const jet::compiled_kernel again = jet::compile(e, hopper);
  CHECK(again.from_disk_cache);
  CHECK(again.cubin == k.cubin);
}

}  // namespace

TEST_CASE("a kernel is compiled and stored once, then loaded from the disk cache", "[cpu][disk_cache]") {
  scratch_directory scratch;
  const restore_disk_cache restore;
  const fs::path directory = scratch / "made" / "cache";
  jet::set_disk_cache_directory(directory.string());
  REQUIRE(jet::disk_cache_directory() == directory.string());
  CHECK((fs::status(scratch / "made").permissions() & fs::perms::all) == fs::perms::owner_all);
  CHECK((fs::status(directory).permissions() & fs::perms::all) == fs::perms::owner_all);

  auto x = jet::test::fake_view<float>(), y = jet::test::fake_view<float>();
  const auto e = jet::relu(x) * y - 1.0f;
  jet::statistics before = jet::stats();
  const jet::compiled_kernel first = jet::compile(e, hopper);
  CHECK(is_cubin(first));
  CHECK_FALSE(first.from_disk_cache);
  CHECK(first.compile_ms > 0);
  CHECK(counted_since(before) == counts{1, 0, 1});
  const listing stored = list_directory(directory);
  REQUIRE(stored.entries.size() == 1);
  CHECK(stored.others.empty());  // no temporary file left
  CHECK((fs::status(directory / stored.entries[0]).permissions() & fs::perms::all) ==
        (fs::perms::owner_read | fs::perms::owner_write));

  before = jet::stats();
  const jet::compiled_kernel second = jet::compile(e, hopper);
  CHECK(second.from_disk_cache);
  CHECK(second.compile_ms == 0);
  CHECK(second.cubin == first.cubin);
  CHECK(second.source == first.source);
  CHECK(counted_since(before) == counts{0, 1, 0});
  CHECK(jet::stats().memory_hits == before.memory_hits);

  SECTION("turned off, jet compiles and stores nothing") {
    jet::set_disk_cache(false);
    CHECK(jet::disk_cache_directory().empty());
    before = jet::stats();
    CHECK_FALSE(jet::compile(e, hopper).from_disk_cache);
    CHECK(counted_since(before) == counts{1, 0, 0});
  }
}

TEST_CASE("the key names the source, NVRTC's version and options, the architecture and jet's code generator",
          "[cpu][disk_cache]") {
  auto x = jet::test::fake_view<float>(), y = jet::test::fake_view<float>();
  const jet::detail::cache_key key = key_of(x + y);
  CHECK(contains(key.text, jet::source(x + y)));
  CHECK(contains(key.text, "\nnvrtc " + jet::detail::nvrtc_version() + "\n"));
  for (const std::string& option : jet::detail::compile_options(hopper.value)) CHECK(contains(key.text, option));
  CHECK(contains(key.text, "arch sm_90"));
  CHECK(contains(key.text, "jet code generator " + std::to_string(jet::detail::codegen_version) + "\n"));
  CHECK(key.hash != key_of(x - y).hash);
  CHECK(key.hash != jet::detail::cache_key_for(jet::source(x + y), 80).hash);
}

TEST_CASE("writes are atomic: a reader sees a whole entry, the previous one or the new one", "[cpu][disk_cache]") {
  scratch_directory scratch;
  const auto cache = jet::detail::disk_cache::open(scratch / "cache", std::uint64_t{1} << 30);
  REQUIRE(cache);
  const jet::detail::cache_key key = jet::detail::cache_key_for("a source", 90);
  const std::string small(1000, 's'), large(300000, 'L');
  REQUIRE(cache->store(key, small));
  std::atomic<bool> writing{true};
  std::atomic<int> torn{0}, loads{0};
  const std::string warnings = stderr_of([&] {
    std::jthread reader([&] {
      while (writing) {
        const std::optional<std::string> got = cache->load(key);
        torn += !got || (*got != small && *got != large);
        ++loads;
      }
    });
    for (int i = 0; i < 300; ++i) REQUIRE(cache->store(key, i % 2 ? small : large));
    writing = false;
  });
  CHECK(warnings.empty());
  CHECK(torn == 0);
  CHECK(loads > 0);
  const listing l = list_directory(scratch / "cache");
  CHECK(l.entries.size() == 1);
  CHECK(l.others.empty());
}

TEST_CASE("a truncated, corrupt or foreign entry is replaced, with a warning", "[cpu][disk_cache]") {
  scratch_directory scratch;
  const restore_disk_cache restore;
  jet::set_disk_cache_directory((scratch / "cache").string());
  auto x = jet::test::fake_view<float>(), y = jet::test::fake_view<float>();
  const auto e = jet::abs(x) * y + x;
  compile_fresh(e);
  const fs::path entry = entry_path_of(e);
  std::string bytes = read_file(entry);
  REQUIRE(bytes.size() > 200);

  SECTION("truncated") {
    overwrite_file(entry, bytes.substr(0, bytes.size() / 2));
    check_replaced(e, "is truncated");
  }
  SECTION("empty") {
    overwrite_file(entry, "");
    check_replaced(e, "is not a jet kernel cache entry");
  }
  SECTION("a byte of the cubin flipped") {
    bytes[bytes.size() - 100] ^= 0x20;
    overwrite_file(entry, bytes);
    check_replaced(e, "fails its checksum");
  }
  SECTION("a byte of the recorded key flipped") {
    bytes[bytes.find("nvrtc")] ^= 0x20;
    overwrite_file(entry, bytes);
    check_replaced(e, "fails its checksum");
  }
  SECTION("a foreign file") {
    overwrite_file(entry,
                   "\x7f"
                   "ELF, but not an entry jet wrote\n");
    check_replaced(e, "is not a jet kernel cache entry");
  }
}

TEST_CASE("an entry recorded for another NVRTC, another jet or another kernel is never used", "[cpu][disk_cache]") {
  scratch_directory scratch;
  const restore_disk_cache restore;
  jet::set_disk_cache_directory((scratch / "cache").string());
  auto x = jet::test::fake_view<float>(), y = jet::test::fake_view<float>();
  const auto e = (x - y) / y;
  const jet::detail::cache_key key = key_of(e);
  std::string recorded = key.text;
  auto replace = [&](const std::string& from, const std::string& to) {
    REQUIRE(contains(recorded, from));
    recorded.replace(recorded.find(from), from.size(), to);
  };
  const std::string generator = "jet code generator " + std::to_string(jet::detail::codegen_version) + "\n";
  SECTION("an older NVRTC") { replace("\nnvrtc " + jet::detail::nvrtc_version() + "\n", "\nnvrtc 11.0\n"); }
  SECTION("an older jet") {
    replace(generator, "jet code generator " + std::to_string(jet::detail::codegen_version - 1) + "\n");
  }
  SECTION("another kernel whose key has the same hash") { recorded = key_of((x - y) * y).text; }
  // A whole, intact entry under e's name, recorded for the other key, with a cubin jet must not load.
  REQUIRE(jet::detail::active_disk_cache()->store({recorded, key.hash},
                                                  "\x7f"
                                                  "ELF stale"));
  check_replaced(e, "holds another kernel's cubin, or one from another NVRTC or jet version");
  CHECK(jet::compile(e, hopper).cubin !=
        "\x7f"
        "ELF stale");
}

TEST_CASE("a cache directory that others could write to is refused: memory only, with a warning", "[cpu][disk_cache]") {
  scratch_directory scratch;
  const restore_disk_cache restore;
  const fs::path directory = scratch / "cache";
  fs::create_directory(directory);
  auto x = jet::test::fake_view<float>(), y = jet::test::fake_view<float>();
  const auto e = jet::exp(x) - y;
  std::string expected;
  SECTION("world-writable") {
    fs::permissions(directory, fs::perms::all);
    expected = "is writable by group or others (mode 0777)";
  }
  SECTION("group-writable") {
    fs::permissions(directory, fs::perms::owner_all | fs::perms::group_all);
    expected = "is writable by group or others (mode 0770)";
  }
  SECTION("another user's") {
    if (::geteuid() != 0) {
      WARN("not root: cannot give a directory to another user, not checked");
      return;
    }
    REQUIRE(::chown(directory.c_str(), 65534, 65534) == 0);
    expected = "is owned by uid 65534, not by this user (uid 0)";
  }
  const std::string warnings = stderr_of([&] { jet::set_disk_cache_directory(directory.string()); });
  CHECK(warnings == "jet: warning: the kernel cache directory " + directory.string() + " " + expected +
                        "; caching kernels in memory only\n");
  CHECK(jet::disk_cache_directory().empty());
  const jet::statistics before = jet::stats();
  const jet::compiled_kernel k = jet::compile(e, hopper);
  CHECK(is_cubin(k));
  CHECK_FALSE(k.from_disk_cache);
  CHECK(counted_since(before) == counts{1, 0, 0});
  CHECK(fs::is_empty(directory));
}

TEST_CASE("the directory is checked again before each load", "[cpu][disk_cache]") {
  scratch_directory scratch;
  const restore_disk_cache restore;
  const fs::path directory = scratch / "cache";
  jet::set_disk_cache_directory(directory.string());
  auto x = jet::test::fake_view<float>(), y = jet::test::fake_view<float>();
  const auto e = jet::sqrt(x) * y * y;
  compile_fresh(e);
  fs::permissions(directory, fs::perms::all);  // an entry could now have been planted
  jet::compiled_kernel k;
  const std::string warnings = stderr_of([&] { k = jet::compile(e, hopper); });
  CHECK(contains(warnings, directory.string() + " is writable by group or others (mode 0777) now"));
  CHECK_FALSE(k.from_disk_cache);
  CHECK(jet::disk_cache_directory().empty());
  fs::permissions(directory, fs::perms::owner_all);
  CHECK_FALSE(jet::compile(e, hopper).from_disk_cache);  // refused for the rest of the process
}

TEST_CASE("symlinks are not followed: not as the directory, not as an entry", "[cpu][disk_cache]") {
  scratch_directory scratch;
  const restore_disk_cache restore;
  auto x = jet::test::fake_view<float>(), y = jet::test::fake_view<float>();
  const auto e = jet::sigmoid(x) + y * 3.0f;

  SECTION("the cache directory is a symlink") {
    fs::create_directory(scratch / "real");
    fs::permissions(scratch / "real", fs::perms::owner_all);
    fs::create_directory_symlink(scratch / "real", scratch / "link");
    const std::string warnings = stderr_of([&] { jet::set_disk_cache_directory((scratch / "link").string()); });
    CHECK(contains(warnings, (scratch / "link").string() + " is a symbolic link; caching kernels in memory only"));
    CHECK(jet::disk_cache_directory().empty());
  }
  SECTION("an entry is a symlink to a valid entry elsewhere") {
    jet::set_disk_cache_directory((scratch / "elsewhere").string());
    compile_fresh(e);
    const fs::path target = entry_path_of(e);
    const std::string target_bytes = read_file(target);
    jet::set_disk_cache_directory((scratch / "cache").string());
    const fs::path planted = entry_path_of(e);
    fs::create_symlink(target, planted);
    check_replaced(e, "is a symbolic link");
    CHECK(read_file(target) == target_bytes);
  }
}

TEST_CASE("the cache stays within its bound, evicting the least recently used entries", "[cpu][disk_cache]") {
  scratch_directory scratch;
  const fs::path directory = scratch / "cache";
  std::vector<jet::detail::cache_key> keys;
  for (char k : std::string("abcd")) keys.push_back(jet::detail::cache_key_for(std::string("source ") + k, 90));
  const std::string cubin(1000, 'c');
  std::uintmax_t entry_bytes = 0;
  {
    const auto probe = jet::detail::disk_cache::open(directory, std::uint64_t{1} << 30);
    REQUIRE(probe->store(keys[0], cubin));
    entry_bytes = fs::file_size(probe->entry_path(keys[0]));
  }
  const auto cache = jet::detail::disk_cache::open(directory, entry_bytes * 7 / 2);  // room for three
  REQUIRE(cache->store(keys[1], cubin));
  REQUIRE(cache->store(keys[2], cubin));
  // Used 300, 200 and 100 seconds ago: file times are too coarse to order entries stored at once.
  for (int k = 0; k < 3; ++k) {
    const timespec used[2] = {{std::time(nullptr) - 300 + 100 * k, 0}, {std::time(nullptr) - 300 + 100 * k, 0}};
    REQUIRE(::utimensat(AT_FDCWD, cache->entry_path(keys[k]).c_str(), used, 0) == 0);
  }
  // Temporary files: one jet left an hour ago is removed, one being written now is not. Files jet
  // did not write are never removed, whatever their names and ages: the directory may be shared
  // (JET_CACHE_DIR=~/scratch), and a file named like an entry does not count towards the bound.
  const std::string written = read_file(cache->entry_path(keys[0]));
  const std::string foreign_entry = "0123456789abcdef.cubin";
  overwrite_file(directory / ".jet-tmp-abandoned", written);
  overwrite_file(directory / ".jet-tmp-in-progress", written);
  overwrite_file(directory / ".jet-tmp-not-an-entry", "notes");
  overwrite_file(directory / ".tmp-notes.txt", "notes");
  overwrite_file(directory / foreign_entry, std::string(entry_bytes, 'n'));
  const std::time_t two_hours_ago = std::time(nullptr) - 7200;
  for (const char* old : {".jet-tmp-abandoned", ".jet-tmp-not-an-entry", ".tmp-notes.txt", foreign_entry.c_str()}) {
    const timespec abandoned[2] = {{two_hours_ago, 0}, {two_hours_ago, 0}};  // the least recently used
    REQUIRE(::utimensat(AT_FDCWD, (directory / old).c_str(), abandoned, 0) == 0);
  }

  REQUIRE(cache->load(keys[0]) == cubin);  // the oldest is used now: b is the least recently used
  REQUIRE(cache->store(keys[3], cubin));
  CHECK(fs::exists(cache->entry_path(keys[0])));
  CHECK_FALSE(fs::exists(cache->entry_path(keys[1])));
  CHECK(fs::exists(cache->entry_path(keys[2])));
  CHECK(fs::exists(cache->entry_path(keys[3])));
  CHECK(list_directory(directory).entry_bytes - entry_bytes <= entry_bytes * 7 / 2);  // the foreign file aside
  CHECK_FALSE(fs::exists(directory / ".jet-tmp-abandoned"));
  CHECK(fs::exists(directory / ".jet-tmp-in-progress"));
  CHECK(read_file(directory / ".jet-tmp-not-an-entry") == "notes");
  CHECK(read_file(directory / ".tmp-notes.txt") == "notes");
  CHECK(read_file(directory / foreign_entry) == std::string(entry_bytes, 'n'));
}

TEST_CASE("8 threads compiling the same 100 expressions compile each kernel once", "[cpu][disk_cache][threads]") {
  scratch_directory scratch;
  const restore_disk_cache restore;
  jet::set_disk_cache_directory((scratch / "cache").string());
  const auto calls = jet::test::numbered_compiles<jet::test::numbered_expression_count>(jet::test::fake_view<float>(),
                                                                                        jet::test::fake_view<float>());
  const jet::statistics before = jet::stats();
  std::atomic<std::size_t> failed{0};
  {
    std::vector<std::jthread> threads;
    // Each thread in its own order: at any moment, threads on the same kernel and on others.
    for (std::size_t t = 0; t < 8; ++t)
      threads.emplace_back([&, t] { failed += jet::test::failed_compiles(calls, 13 * t); });
  }
  CHECK(failed == 0);
  const counts c = counted_since(before);
  CHECK(c.compiles == calls.size());
  CHECK(c.disk_writes == calls.size());
  CHECK(c.disk_hits <= 7 * calls.size());
  CHECK(list_directory(scratch / "cache").entries.size() == calls.size());
}

TEST_CASE("8 processes filling one cache at once all succeed and leave a valid cache", "[cpu][disk_cache][processes]") {
  scratch_directory scratch;
  const restore_disk_cache restore;
  const fs::path directory = scratch / "cache";
  constexpr int expressions = 50;
  std::vector<pid_t> fillers;
  // In pairs, from four places: two processes always race for the same entries, and the pairs
  // soon find entries that another pair stored (which keeps the test to seconds on two cores).
  for (int p = 0; p < 8; ++p) fillers.push_back(start_filler(directory, expressions, p % 4 * expressions / 4));
  for (pid_t pid : fillers) CHECK(exit_code_of(pid) == 0);

  const listing l = list_directory(directory);
  CHECK(l.entries.size() == expressions);
  CHECK(l.others.empty());
  jet::set_disk_cache_directory(directory.string());
  const jet::statistics before = jet::stats();
  auto x = jet::test::fake_view<float>(), y = jet::test::fake_view<float>();
  const std::string warnings = stderr_of([&] {
    jet::test::for_each_numbered_expression<expressions>(x, y, [&](std::size_t, const auto& e) {
      const jet::compiled_kernel k = jet::compile(e, hopper);
      CHECK(is_cubin(k));
      CHECK(k.from_disk_cache);
    });
  });
  CHECK(warnings.empty());
  CHECK(counted_since(before) == counts{0, expressions, 0});
}

TEST_CASE("JET_LOG=info logs each compile and disk hit, and JET_CACHE_MAX_BYTES bounds the cache",
          "[cpu][disk_cache]") {
  scratch_directory scratch;
  const fs::path log = scratch / "log";
  auto run_filler = [&](const fs::path& directory, int count, const std::string& setting) {
    CHECK(exit_code_of(start_filler(directory, count, 0, {setting}, log)) == 0);
    return read_file(log);
  };
  const std::string compiled = run_filler(scratch / "logged", 5, "JET_LOG=info");
  CHECK(lines_with(compiled, "jet: compiled `") == 5);
  CHECK(lines_with(compiled, "jet: compiling `") == 5);  // when each starts, and how big it is
  CHECK(lines_with(compiled, " nodes, ") == 5);
  CHECK(lines_with(compiled, " ms, stored in " + (scratch / "logged").string()) == 5);
  const std::string loaded = run_filler(scratch / "logged", 5, "JET_LOG=info");
  CHECK(lines_with(loaded, "jet: disk cache hit for `") == 5);
  CHECK(lines_with(loaded, "(sm_90) in ") == 5);

  constexpr std::uintmax_t bound = 30000;
  CHECK(run_filler(scratch / "bounded", 10, "JET_CACHE_MAX_BYTES=" + std::to_string(bound)).empty());
  const listing l = list_directory(scratch / "bounded");
  CHECK(l.entry_bytes <= bound);
  CHECK(!l.entries.empty());
  CHECK(l.entries.size() < 10);
}
