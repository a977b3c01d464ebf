#include "settings.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstdio>
#include <cstdlib>
#include <initializer_list>
#include <utility>

namespace jet::detail {

void print_warning(const std::string& message) { std::fprintf(stderr, "jet: warning: %s\n", message.c_str()); }

void log_info(const std::string& message) {
  if (log_level_setting() == log_level::info) std::fprintf(stderr, "jet: %s\n", message.c_str());
}

namespace {

bool equals_ignoring_case(std::string_view a, std::string_view b) {
  return std::ranges::equal(a, b, [](char x, char y) {
    return std::tolower(static_cast<unsigned char>(x)) == std::tolower(static_cast<unsigned char>(y));
  });
}

// The value paired with the word `text` is, ignoring case.
template <class T>
std::optional<T> parse_word(std::string_view text, std::initializer_list<std::pair<std::string_view, T>> words) {
  for (const auto& [word, value] : words)
    if (equals_ignoring_case(text, word)) return value;
  return std::nullopt;
}

std::optional<unsigned> parse_in_range(std::string_view text, unsigned lowest, unsigned highest) {
  const std::optional<std::uint64_t> n = parse_decimal(text);
  if (!n || *n < lowest || *n > highest) return std::nullopt;
  return static_cast<unsigned>(*n);
}

// The variable's value when it is set and not empty.
std::optional<std::string_view> value_of(const char* name) {
  const char* text = std::getenv(name);
  if (!text || !*text) return std::nullopt;
  return text;
}

// The variable's value parsed, when it is set and not empty; a value that does not parse is one
// warning, saying what is accepted and what jet does `instead`.
template <class Parse> auto parsed_value_of(const char* name, Parse parse, std::string_view accepted,
                                            std::string_view instead) -> decltype(parse(std::string_view())) {
  const std::optional<std::string_view> text = value_of(name);
  if (!text) return std::nullopt;
  if (auto value = parse(*text)) return value;
  print_warning(std::string(name) + "=\"" + std::string(*text) + "\" is not valid (" + std::string(accepted) + "); " +
                std::string(instead));
  return std::nullopt;
}

// A path from a variable, not read in a setuid or setgid program, where the environment is the
// caller's and the privileges are not: a library or directory it names would be trusted with them.
const char* path_variable(const char* name) { return ::secure_getenv(name); }

}  // namespace

std::optional<std::uint64_t> parse_decimal(std::string_view text) {
  if (text.empty() || !std::ranges::all_of(text, [](char c) { return c >= '0' && c <= '9'; })) return std::nullopt;
  std::uint64_t n = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), n);
  if (error != std::errc() || end != text.data() + text.size()) return std::nullopt;  // too large
  return n;
}

std::optional<kernel_shape_choice> parse_kernel_shape(std::string_view text) {
  const std::size_t comma = text.find(',');
  if (comma == std::string_view::npos) return std::nullopt;
  const std::size_t second = text.find(',', comma + 1);
  const std::optional<unsigned> threads = parse_in_range(text.substr(0, comma), 32, 1024);
  const std::optional<unsigned> ilp = parse_in_range(text.substr(comma + 1, second - comma - 1), 1, 16);
  std::optional<unsigned> vec = 0u;
  if (second != std::string_view::npos) vec = parse_in_range(text.substr(second + 1), 1, 16);
  if (!threads || *threads % 32 != 0 || !ilp || !vec || (*vec & (*vec - 1))) return std::nullopt;
  return kernel_shape_choice{*threads, *ilp, *vec};
}

std::optional<unsigned> parse_interpreter_elements(std::string_view text) { return parse_in_range(text, 1, 16); }

std::optional<jit_policy> parse_jit_policy(std::string_view text) {
  return parse_word<jit_policy>(
      text, {{"sync", jit_policy::sync}, {"async", jit_policy::async}, {"interpret", jit_policy::interpret}});
}

std::optional<bool> parse_on_off(std::string_view text) {
  return parse_word<bool>(text, {{"on", true}, {"off", false}});
}

std::optional<log_level> parse_log_level(std::string_view text) {
  return parse_word<log_level>(text, {{"warning", log_level::warning}, {"info", log_level::info}});
}

std::optional<kernel_shape_choice> kernel_shape_setting() {
  static const std::optional<kernel_shape_choice> shape = parsed_value_of(
      "JET_KERNEL_SHAPE", parse_kernel_shape,
      "want <threads>,<ilp>[,<vec>]: threads a multiple of 32 from 32 to 1024, ilp 1 to 16, vec 1, 2, 4, 8 or 16",
      "using jet's default shape");
  return shape;
}

std::optional<unsigned> interpreter_elements_setting() {
  static const std::optional<unsigned> elements = parsed_value_of(
      "JET_INTERPRETER_ELEMENTS", parse_interpreter_elements, "want 1 to 16", "using each interpreter's default");
  return elements;
}

std::optional<std::uint64_t> outline_cost_setting() {
  static const std::optional<std::uint64_t> cost =
      parsed_value_of("JET_OUTLINE_COST", parse_decimal, "want a cost, in decimal digits", "using jet's default");
  return cost;
}

jit_policy jit_policy_setting() {
  static const jit_policy policy =
      parsed_value_of("JET_JIT", parse_jit_policy, "want sync, async or interpret", "using async")
          .value_or(jit_policy::async);
  return policy;
}

bool memory_pool_setting() {
  static const bool pool =
      parsed_value_of("JET_MEMORY_POOL", parse_on_off, "want on or off", "using the memory pool").value_or(true);
  return pool;
}

bool fft_callbacks_setting() {
  static const bool on =
      parsed_value_of("JET_FFT_CALLBACKS", parse_on_off, "want on or off", "storing FFT operands first")
          .value_or(false);
  return on;
}

log_level log_level_setting() {
  static const log_level level =
      parsed_value_of("JET_LOG", parse_log_level, "want warning or info", "logging warnings only")
          .value_or(log_level::warning);
  return level;
}

std::uint64_t cache_max_bytes_setting() {
  constexpr std::uint64_t one_gib = std::uint64_t{1} << 30;
  static const std::uint64_t bytes =
      parsed_value_of("JET_CACHE_MAX_BYTES", parse_decimal, "want a number of bytes, in decimal digits",
                      "keeping the cache within 1 GiB")
          .value_or(one_gib);
  return bytes;
}

const std::filesystem::path& cache_directory_setting() {
  static const std::filesystem::path directory = []() -> std::filesystem::path {
    if (const char* directory = path_variable("JET_CACHE_DIR")) return directory;
    // The XDG specification says to ignore a relative XDG_CACHE_HOME.
    if (const char* xdg = path_variable("XDG_CACHE_HOME"); xdg && *xdg == '/')
      return std::filesystem::path(xdg) / "jet";
    if (const char* home = path_variable("HOME"); home && *home) return std::filesystem::path(home) / ".cache" / "jet";
    return {};
  }();
  return directory;
}

const std::string& cuda_driver_setting() {
  static const std::string library = [] {
    const char* library = path_variable("JET_CUDA_DRIVER");
    return std::string(library && *library ? library : "libcuda.so.1");
  }();
  return library;
}

}  // namespace jet::detail
