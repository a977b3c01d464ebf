// The environment (src/settings.cpp): each parser, white-box, accepts exactly what README's table
// of variables says, the whole text or nothing; and in a process of its own, a malformed variable
// is one warning, then the default.
#include "support/catch.hpp"
#include "support/disk_cache_tools.hpp"
#include "support/scratch.hpp"

#include "settings.hpp"

#include <fcntl.h>
#include <grp.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

namespace {

using jet::jit_policy;
using jet::detail::log_level;

// The shape parsed, as "threads,ilp,vec" (vec 0: as wide as 16 bytes allow), or "refused".
std::string shape(std::string_view text) {
  const auto s = jet::detail::parse_kernel_shape(text);
  return s ? std::to_string(s->threads) + "," + std::to_string(s->ilp) + "," + std::to_string(s->vec) : "refused";
}

}  // namespace

TEST_CASE("settings: numbers are decimal digits only, and must fit", "[cpu][settings]") {
  using jet::detail::parse_decimal;
  CHECK(parse_decimal("0") == 0u);
  CHECK(parse_decimal("30000") == 30000u);
  CHECK(parse_decimal("18446744073709551615") == 18446744073709551615u);
  for (const char* bad : {"", "18446744073709551616", "-1", "+1", " 1", "1 ", "12abc", "0x10", "1e3", "1,000"}) {
    INFO(bad);
    CHECK_FALSE(parse_decimal(bad));
  }
}

TEST_CASE("settings: JET_KERNEL_SHAPE is threads (a multiple of 32, 32 to 1024), ilp (1 to 16) and a vector width",
          "[cpu][settings]") {
  CHECK(shape("256,4") == "256,4,0");
  CHECK(shape("32,1") == "32,1,0");
  CHECK(shape("1024,16") == "1024,16,0");
  CHECK(shape("256,4,2") == "256,4,2");
  CHECK(shape("128,1,1") == "128,1,1");
  CHECK(shape("128,1,16") == "128,1,16");
  // The values the issue found accepted: a negative count that wrapped to 256, trailing junk, and
  // a count that wrapped to 8 in 32 bits.
  CHECK(shape("-4294967040,2") == "refused");
  CHECK(shape("256,4junk") == "refused");
  CHECK(shape("4294967552,2") == "refused");
  CHECK(shape("256,4294967304") == "refused");
  for (const char* bad : {"", "256", "256,", ",4", "256,4,", "256,4,3", "256,4,0", "256,4,32", "256,4,2,1", "255,4",
                          "0,4", "16,4", "2048,4", "256,0", "256,17", " 256,4", "256, 4", "256;4"}) {
    INFO(bad);
    CHECK(shape(bad) == "refused");
  }
}

TEST_CASE("settings: JET_INTERPRETER_ELEMENTS is 1 to 16", "[cpu][settings]") {
  using jet::detail::parse_interpreter_elements;
  CHECK(parse_interpreter_elements("1") == 1u);
  CHECK(parse_interpreter_elements("8") == 8u);
  CHECK(parse_interpreter_elements("16") == 16u);
  for (const char* bad : {"8abc", "4294967304", "0", "17", "-8", "8.0", " 8"}) {
    INFO(bad);
    CHECK_FALSE(parse_interpreter_elements(bad));
  }
}

TEST_CASE("settings: words are matched whole, ignoring case", "[cpu][settings]") {
  using jet::detail::parse_jit_policy;
  using jet::detail::parse_log_level;
  using jet::detail::parse_on_off;
  CHECK(parse_on_off("off") == false);
  CHECK(parse_on_off("OFF") == false);
  CHECK(parse_on_off("On") == true);
  CHECK(parse_log_level("info") == log_level::info);
  CHECK(parse_log_level("INFO") == log_level::info);
  CHECK(parse_log_level("warning") == log_level::warning);
  CHECK(parse_jit_policy("Interpret") == jit_policy::interpret);
  for (const char* bad : {"", "0", "no", "false", "offf", " off", "of"}) {
    INFO(bad);
    CHECK_FALSE(parse_on_off(bad));
  }
  for (const char* bad : {"", "debug", "1", "information", "inf"}) {
    INFO(bad);
    CHECK_FALSE(parse_log_level(bad));
  }
  CHECK_FALSE(parse_jit_policy("synchronous"));
}

TEST_CASE("a malformed variable is one warning naming it, its value and what is accepted, then the default",
          "[cpu][settings]") {
  jet::test::scratch_directory scratch;
  const std::filesystem::path log = scratch / "log";
  // Five compiles, each reading the kernel shape, the outline cost and the log level; the cache's
  // bound read once.
  const pid_t filler = jet::test::start_filler(
      scratch / "cache", 5, 0,
      {"JET_KERNEL_SHAPE=-4294967040,2", "JET_CACHE_MAX_BYTES=12abc", "JET_OUTLINE_COST=64k", "JET_LOG=INFO"}, log);
  CHECK(jet::test::exit_code_of(filler) == 0);
  const std::string printed = jet::test::read_file(log);
  INFO(printed);
  using jet::test::lines_with;
  CHECK(lines_with(printed,
                   "jet: warning: JET_KERNEL_SHAPE=\"-4294967040,2\" is not valid (want <threads>,<ilp>[,<vec>]: "
                   "threads a multiple of 32 from 32 to 1024, ilp 1 to 16, vec 1, 2, 4, 8 or 16); using jet's "
                   "default shape") == 1);
  CHECK(lines_with(printed,
                   "jet: warning: JET_CACHE_MAX_BYTES=\"12abc\" is not valid (want a number of bytes, in "
                   "decimal digits); keeping the cache within 1 GiB") == 1);
  CHECK(lines_with(printed,
                   "jet: warning: JET_OUTLINE_COST=\"64k\" is not valid (want a cost, in decimal digits); using "
                   "jet's default") == 1);
  CHECK(lines_with(printed, "jet: warning: ") == 3);
  CHECK(lines_with(printed, "jet: compiled `") == 5);  // JET_LOG=INFO is info: words ignore case
}

namespace {

// What the probe prints, run as user `uid` with the path variables naming planted paths (its setuid
// bit, if it has one, applies).
std::string probe_output(const std::filesystem::path& probe, uid_t uid, const std::filesystem::path& output) {
  const pid_t child = ::fork();
  REQUIRE(child >= 0);
  if (child == 0) {
    const int out = ::open(output.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (out < 0 || ::dup2(out, 1) < 0 || ::setgroups(0, nullptr) != 0 || ::setgid(uid) != 0 || ::setuid(uid) != 0)
      ::_exit(100);
    char* argv[] = {const_cast<char*>(probe.c_str()), nullptr};
    char* environment[] = {const_cast<char*>("JET_CUDA_DRIVER=/planted/driver.so"),
                           const_cast<char*>("JET_CACHE_DIR=/planted/cache"), const_cast<char*>("HOME=/planted"),
                           nullptr};
    ::execve(probe.c_str(), argv, environment);
    ::_exit(101);
  }
  CHECK(jet::test::exit_code_of(child) == 0);
  return jet::test::read_file(output);
}

}  // namespace

TEST_CASE("a setuid program ignores the variables that name paths", "[cpu][settings]") {
  if (::geteuid() != 0) {
    WARN("not root: cannot make a setuid program for another user to run, not checked");
    return;
  }
  jet::test::scratch_directory scratch;
  const std::filesystem::path probe = scratch / "probe", directory = probe.parent_path();
  std::filesystem::copy_file(JET_SETUID_PROBE, probe);
  REQUIRE(::chmod(directory.c_str(), 0755) == 0);
  REQUIRE(::chmod(probe.c_str(), 04755) == 0);  // setuid root
  struct statvfs filesystem;
  if (::statvfs(probe.c_str(), &filesystem) != 0 || (filesystem.f_flag & ST_NOSUID)) {
    WARN(directory.string() + " is on a filesystem mounted nosuid, not checked");
    return;
  }
  constexpr uid_t nobody = 65534;
  CHECK(probe_output(probe, nobody, scratch / "setuid") == "driver libcuda.so.1\ncache directory \n");
  REQUIRE(::chmod(probe.c_str(), 0755) == 0);  // the same program, not setuid, reads them
  CHECK(probe_output(probe, nobody, scratch / "plain") ==
        "driver /planted/driver.so\ncache directory /planted/cache\n");
}
