#include "disk_cache.hpp"

#include "codegen.hpp"
#include "compiler.hpp"
#include "interpreter.hpp"
#include "kernel_cache.hpp"

#include <jet/detail/kernel_desc.hpp>
#include <jet/runtime.hpp>

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <future>
#include <mutex>
#include <system_error>
#include <tuple>
#include <unordered_map>
#include <utility>
#include <vector>

namespace jet::detail {
namespace {

namespace fs = std::filesystem;

void warn(const std::string& message) { std::fprintf(stderr, "jet: warning: %s\n", message.c_str()); }

std::string errno_text() { return std::generic_category().message(errno); }

double ms_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
}

std::string format_ms(double ms) {
  char text[32];
  std::snprintf(text, sizeof text, "%.1f ms", ms);
  return text;
}

std::uint64_t fnv1a_bytes(std::string_view bytes) {
  std::uint64_t h = fnv1a_basis;
  for (unsigned char c : bytes) h = fnv1a(h, c);
  return h;
}

// A file descriptor closed when it goes out of scope.
struct unique_fd {
  int fd;
  explicit unique_fd(int fd) : fd(fd) {}
  unique_fd(const unique_fd&) = delete;
  unique_fd& operator=(const unique_fd&) = delete;
  ~unique_fd() {
    if (fd >= 0) ::close(fd);
  }
};

// --- Entries ------------------------------------------------------------------------------------
// An entry file: the magic line, the key's and the cubin's sizes (8 bytes each, little-endian), the
// key, the cubin, then a 64-bit FNV-1a of everything before it.

constexpr std::string_view entry_magic = "jet kernel cache entry, format 1\n";
constexpr std::size_t entry_header = entry_magic.size() + 16, entry_trailer = 8;
constexpr std::size_t largest_entry = std::size_t{256} << 20;  // far beyond any cubin jet makes
constexpr std::string_view entry_suffix = ".cubin";
constexpr std::string_view temporary_prefix = ".tmp-";
// A temporary file this old was left by a writer that died; eviction removes it.
constexpr std::chrono::seconds abandoned_after{3600};

void append_u64(std::string& out, std::uint64_t v) {
  for (int i = 0; i < 8; ++i) out += static_cast<char>((v >> (8 * i)) & 0xff);
}

std::uint64_t read_u64(std::string_view at) {
  std::uint64_t v = 0;
  for (int i = 0; i < 8; ++i) v |= std::uint64_t{static_cast<unsigned char>(at[i])} << (8 * i);
  return v;
}

std::string encode_entry(const std::string& key, std::string_view cubin) {
  std::string entry(entry_magic);
  append_u64(entry, key.size());
  append_u64(entry, cubin.size());
  entry += key;
  entry += cubin;
  append_u64(entry, fnv1a_bytes(entry));
  return entry;
}

// The cubin in `entry` when it is a whole, intact entry for `key`; otherwise `problem` says why not.
struct decoded_entry {
  std::string_view cubin;
  std::string problem;
};
decoded_entry decode_entry(std::string_view entry, const std::string& key) {
  if (entry.size() < entry_header + entry_trailer || !entry.starts_with(entry_magic))
    return {{}, "is not a jet kernel cache entry"};
  const std::uint64_t key_size = read_u64(entry.substr(entry_magic.size()));
  const std::uint64_t cubin_size = read_u64(entry.substr(entry_magic.size() + 8));
  const std::size_t body = entry.size() - entry_header - entry_trailer;
  if (key_size > body || cubin_size != body - key_size) return {{}, "is truncated, or longer than it says"};
  if (read_u64(entry.substr(entry.size() - entry_trailer)) != fnv1a_bytes(entry.substr(0, entry.size() - entry_trailer)))
    return {{}, "fails its checksum"};
  if (entry.substr(entry_header, key_size) != key)
    return {{}, "holds another kernel's cubin, or one from another NVRTC or jet version"};
  return {entry.substr(entry_header + key_size, cubin_size), {}};
}

std::string entry_name(const cache_key& key) {
  char name[17];
  std::snprintf(name, sizeof name, "%016llx", static_cast<unsigned long long>(key.hash));
  return name + std::string(entry_suffix);
}

bool is_entry_name(std::string_view name) {
  return name.size() == 16 + entry_suffix.size() && name.ends_with(entry_suffix) &&
         std::all_of(name.begin(), name.begin() + 16, [](char c) { return std::isxdigit(static_cast<unsigned char>(c)); });
}

// --- Trust --------------------------------------------------------------------------------------

// Why a file or directory must not be trusted, or empty: it must be this user's and writable by
// no one else, or another user could plant a cubin that jet would run.
std::string ownership_problem(const struct stat& s) {
  if (s.st_uid != geteuid())
    return "is owned by uid " + std::to_string(s.st_uid) + ", not by this user (uid " + std::to_string(geteuid()) + ")";
  if (s.st_mode & (S_IWGRP | S_IWOTH)) {
    char mode[8];
    std::snprintf(mode, sizeof mode, "%04o", static_cast<unsigned>(s.st_mode & 07777));
    return std::string("is writable by group or others (mode ") + mode + ")";
  }
  return {};
}

std::string directory_problem(int fd) {
  struct stat s;
  if (::fstat(fd, &s) != 0) return "cannot be examined: " + errno_text();
  if (!S_ISDIR(s.st_mode)) return "is not a directory";
  return ownership_problem(s);
}

// Why `name` (relative to dir_fd) could not be opened without following a symlink; errno says.
std::string open_problem(int dir_fd, const char* name) {
  const std::string reason = errno_text();
  struct stat s;
  if (::fstatat(dir_fd, name, &s, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(s.st_mode)) return "is a symbolic link";
  return "cannot be opened: " + reason;
}

// Creates `directory` and its missing parents, each 0700 from the start. Empty, or why not.
std::string make_directories(const fs::path& directory) {
  fs::path prefix;
  for (const fs::path& part : directory) {
    prefix /= part;
    if (::mkdir(prefix.c_str(), 0700) != 0 && errno != EEXIST)
      return "cannot be created (" + prefix.string() + ": " + errno_text() + ")";
  }
  return {};
}

// The whole content of the entry open as `fd`, or why it is not to be read.
std::string read_entry_file(int fd, std::string& content) {
  struct stat s;
  if (::fstat(fd, &s) != 0) return "cannot be examined: " + errno_text();
  if (!S_ISREG(s.st_mode)) return "is not a regular file";
  if (std::string problem = ownership_problem(s); !problem.empty()) return problem;
  if (static_cast<std::uint64_t>(s.st_size) > largest_entry) return "is too large for a jet kernel cache entry";
  content.resize(static_cast<std::size_t>(s.st_size));
  std::size_t done = 0;
  while (done < content.size()) {
    const ssize_t n = ::read(fd, content.data() + done, content.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return n < 0 ? "cannot be read: " + errno_text() : "shrank while being read";
    done += static_cast<std::size_t>(n);
  }
  return {};
}

// Writes `content` into a new file `name` (0600) in the directory `dir_fd`. Empty, or why not
// (and then no such file is left). No fsync: after a crash an entry may be lost or garbled, which
// the checksum detects, and a cache is not worth a disk flush per kernel.
std::string write_new_file(int dir_fd, const std::string& name, std::string_view content) {
  unique_fd file(::openat(dir_fd, name.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600));
  if (file.fd < 0) return "cannot create " + name + ": " + errno_text();
  std::string problem;
  for (std::size_t done = 0; done < content.size() && problem.empty();) {
    const ssize_t n = ::write(file.fd, content.data() + done, content.size() - done);
    if (n >= 0) done += static_cast<std::size_t>(n);
    else if (errno != EINTR) problem = "cannot write " + name + ": " + errno_text();
  }
  if (::close(std::exchange(file.fd, -1)) != 0 && problem.empty()) problem = "cannot write " + name + ": " + errno_text();
  if (!problem.empty()) ::unlinkat(dir_fd, name.c_str(), 0);
  return problem;
}

}  // namespace

// --- The cache directory ------------------------------------------------------------------------

cache_key cache_key_for(const std::string& source, int arch) {
  std::string text = "jet code generator " + std::to_string(codegen_version) + "\nnvrtc " + nvrtc_version() +
                     "\narch sm_" + std::to_string(arch) + "\noptions";
  for (const std::string& option : compile_options(arch)) text += " " + option;
  text += "\nsource\n" + source;
  const std::uint64_t hash = fnv1a_bytes(text);
  return {std::move(text), hash};
}

disk_cache::disk_cache(fs::path directory, int fd, std::uint64_t max_bytes)
    : directory_(std::move(directory)), fd_(fd), max_bytes_(max_bytes) {}

disk_cache::~disk_cache() { ::close(fd_); }

std::shared_ptr<disk_cache> disk_cache::open(const fs::path& directory, std::uint64_t max_bytes) {
  std::string problem = make_directories(directory);
  // O_NOFOLLOW: the directory itself must not be a symlink, which could lead anywhere.
  unique_fd fd(problem.empty() ? ::open(directory.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC) : -1);
  if (problem.empty()) problem = fd.fd < 0 ? open_problem(AT_FDCWD, directory.c_str()) : directory_problem(fd.fd);
  if (problem.empty()) return std::shared_ptr<disk_cache>(new disk_cache(directory, std::exchange(fd.fd, -1), max_bytes));
  warn("the kernel cache directory " + directory.string() + " " + problem + "; caching kernels in memory only");
  return nullptr;
}

bool disk_cache::trusted() const {
  if (refused_.load()) return false;
  const std::string problem = directory_problem(fd_);
  if (problem.empty()) return true;
  if (!refused_.exchange(true))
    warn("the kernel cache directory " + directory_.string() + " " + problem + " now; caching kernels in memory only");
  return false;
}

fs::path disk_cache::entry_path(const cache_key& key) const { return directory_ / entry_name(key); }

std::optional<std::string> disk_cache::load(const cache_key& key) const {
  if (!trusted()) return std::nullopt;  // checked again just before loading
  const std::string name = entry_name(key);
  // O_NOFOLLOW: a symlink planted under an entry's name is not followed. O_NONBLOCK: a FIFO
  // planted there does not block the open (and is then refused as not a regular file).
  unique_fd file(::openat(fd_, name.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC));
  std::string problem, content;
  if (file.fd < 0) {
    if (errno == ENOENT) return std::nullopt;
    problem = open_problem(fd_, name.c_str());
  } else {
    problem = read_entry_file(file.fd, content);
  }
  decoded_entry entry;
  if (problem.empty()) problem = (entry = decode_entry(content, key.text)).problem;
  if (!problem.empty()) {
    warn("the kernel cache entry " + entry_path(key).string() + " " + problem + "; compiling the kernel again");
    return std::nullopt;
  }
  ::futimens(file.fd, nullptr);  // used now: least recently used entries are evicted first
  return std::string(entry.cubin);
}

bool disk_cache::store(const cache_key& key, std::string_view cubin) const {
  if (!trusted()) return false;
  static std::atomic<std::uint64_t> stores{0};
  const std::string name = entry_name(key);
  const std::string temporary = std::string(temporary_prefix) + name + "." + std::to_string(::getpid()) + "." +
                                std::to_string(stores.fetch_add(1));
  // Written under a name of its own, then renamed over the entry: rename is atomic, so readers see
  // the previous entry or this one, whole, and writers racing for one entry all succeed.
  std::string problem = write_new_file(fd_, temporary, encode_entry(key.text, cubin));
  if (problem.empty() && ::renameat(fd_, temporary.c_str(), fd_, name.c_str()) != 0) {
    problem = "cannot rename " + temporary + " to " + name + ": " + errno_text();
    ::unlinkat(fd_, temporary.c_str(), 0);
  }
  if (!problem.empty()) {
    warn("cannot store a kernel in the cache directory " + directory_.string() + ": " + problem);
    return false;
  }
  evict_over_bound();
  return true;
}

void disk_cache::evict_over_bound() const {
  struct entry {
    std::timespec used;
    std::uint64_t bytes;
    std::string name;
  };
  std::vector<entry> entries;
  std::uint64_t total = 0;
  // A descriptor of its own: readdir moves the directory offset, which others using fd_ share.
  const int listing_fd = ::openat(fd_, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  DIR* listing = listing_fd >= 0 ? ::fdopendir(listing_fd) : nullptr;  // owns listing_fd from here
  if (!listing) {
    if (listing_fd >= 0) ::close(listing_fd);
    return;
  }
  const std::time_t abandoned = std::time(nullptr) - abandoned_after.count();
  while (const dirent* d = ::readdir(listing)) {
    const std::string_view name = d->d_name;
    struct stat s;
    if (::fstatat(fd_, d->d_name, &s, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISREG(s.st_mode)) continue;
    if (is_entry_name(name)) {
      entries.push_back({s.st_mtim, static_cast<std::uint64_t>(s.st_size), std::string(name)});
      total += static_cast<std::uint64_t>(s.st_size);
    } else if (name.starts_with(temporary_prefix) && s.st_mtime < abandoned) {
      ::unlinkat(fd_, d->d_name, 0);
    }
  }
  ::closedir(listing);
  if (total <= max_bytes_) return;
  std::sort(entries.begin(), entries.end(), [](const entry& a, const entry& b) {
    return std::tie(a.used.tv_sec, a.used.tv_nsec, a.name) < std::tie(b.used.tv_sec, b.used.tv_nsec, b.name);
  });
  for (const entry& e : entries) {
    if (total <= max_bytes_) break;
    // Another process may have evicted it already; either way it no longer counts.
    ::unlinkat(fd_, e.name.c_str(), 0);
    total -= e.bytes;
  }
}

// --- The process's cache ------------------------------------------------------------------------
namespace {

std::uint64_t max_bytes_from_environment() {
  constexpr std::uint64_t one_gib = std::uint64_t{1} << 30;
  const char* text = std::getenv("JET_CACHE_MAX_BYTES");
  if (!text) return one_gib;
  std::uint64_t bytes = 0;
  const char* end = text + std::strlen(text);
  if (const auto parsed = std::from_chars(text, end, bytes); parsed.ec == std::errc() && parsed.ptr == end && end != text)
    return bytes;
  warn("JET_CACHE_MAX_BYTES=" + std::string(text) + " is not a number of bytes; keeping the cache within 1 GiB");
  return one_gib;
}

// $JET_CACHE_DIR (empty: no cache), else $XDG_CACHE_HOME/jet, else ~/.cache/jet; empty with no
// home to put it in.
fs::path directory_from_environment() {
  if (const char* directory = std::getenv("JET_CACHE_DIR")) return directory;
  // The XDG specification says to ignore a relative XDG_CACHE_HOME.
  if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg == '/') return fs::path(xdg) / "jet";
  if (const char* home = std::getenv("HOME"); home && *home) return fs::path(home) / ".cache" / "jet";
  return {};
}

std::shared_ptr<const disk_cache> open_cache(const fs::path& directory) {
  if (directory.empty()) return nullptr;
  return disk_cache::open(directory, max_bytes_from_environment());
}

struct process_disk_cache {
  std::mutex mutex;
  bool chosen = false;  // by the environment on first use, or by a set_disk_cache* call
  std::shared_ptr<const disk_cache> cache;

  void choose(std::shared_ptr<const disk_cache> c) {
    std::lock_guard lock(mutex);
    cache = std::move(c);
    chosen = true;
  }
};
process_disk_cache& process_cache() {
  static process_disk_cache c;
  return c;
}

// Loads and compiles in progress in this process, by key text: a thread asking for a cubin that
// another thread is getting waits for it rather than compiling it again.
struct cubins_in_flight {
  std::mutex mutex;
  std::unordered_map<std::string, std::shared_future<cached_cubin>> by_key;

  // The future for key's cubin, and whether the caller is the one to fulfill `promise` for it.
  std::pair<std::shared_future<cached_cubin>, bool> join(const std::string& key, std::promise<cached_cubin>& promise) {
    std::lock_guard lock(mutex);
    const auto [it, first] = by_key.try_emplace(key, promise.get_future().share());
    return {it->second, first};
  }
  void leave(const std::string& key) {
    std::lock_guard lock(mutex);
    by_key.erase(key);
  }
};
cubins_in_flight& in_flight() {
  static cubins_in_flight f;
  return f;
}

std::optional<cached_cubin> load_from_disk(const std::shared_ptr<const disk_cache>& disk, const cache_key& key, int arch,
                                           const std::string& expression) {
  const auto start = std::chrono::steady_clock::now();
  if (!disk) return std::nullopt;
  std::optional<std::string> image = disk->load(key);
  if (!image) return std::nullopt;
  stats_counters().disk_hits.fetch_add(1, std::memory_order_relaxed);
  log_info("disk cache hit for `" + expression + "` (sm_" + std::to_string(arch) + ") in " + format_ms(ms_since(start)));
  return cached_cubin{std::move(*image), 0, true};
}

cached_cubin load_or_compile(const cache_key& key, const std::string& source, int arch, const std::string& expression,
                             kernel_origin origin) {
  counters& c = stats_counters();
  const std::string target = "sm_" + std::to_string(arch);
  const std::shared_ptr<const disk_cache> disk = active_disk_cache();
  if (std::optional<cached_cubin> hit = load_from_disk(disk, key, arch, expression)) return std::move(*hit);
  cubin binary = compile_to_cubin(source, arch, expression, origin);
  c.compiles.fetch_add(1, std::memory_order_relaxed);
  c.compile_ms.fetch_add(binary.compile_ms, std::memory_order_relaxed);
  const bool stored = disk && disk->store(key, binary.image);
  if (stored) c.disk_writes.fetch_add(1, std::memory_order_relaxed);
  log_info("compiled `" + expression + "` for " + target + " in " + format_ms(binary.compile_ms) +
           (stored ? ", stored in " + disk->directory().string() : ""));
  return {std::move(binary.image), binary.compile_ms, false};
}

}  // namespace

// JET_LOG=info: one line on stderr per compile and per disk hit, with its time, and per
// evaluation that the interpreter runs or cannot run.
void log_info(const std::string& message) {
  static const bool enabled = [] {
    const char* level = std::getenv("JET_LOG");
    return level && std::string_view(level) == "info";
  }();
  if (enabled) std::fprintf(stderr, "jet: %s\n", message.c_str());
}

void prepare_compiles() {
  active_disk_cache();
  in_flight();
}

std::shared_ptr<const disk_cache> active_disk_cache() {
  process_disk_cache& p = process_cache();
  std::lock_guard lock(p.mutex);
  if (!p.chosen) {
    p.cache = open_cache(directory_from_environment());
    p.chosen = true;
  }
  return p.cache;
}

cached_cubin cached_compile(const std::string& source, int arch, const std::string& expression, kernel_origin origin) {
  const cache_key key = cache_key_for(source, arch);
  std::promise<cached_cubin> promise;
  const auto [result, getting_it_here] = in_flight().join(key.text, promise);
  if (getting_it_here) {
    try {
      promise.set_value(load_or_compile(key, source, arch, expression, origin));
    } catch (...) {
      promise.set_exception(std::current_exception());
    }
    in_flight().leave(key.text);
  }
  return result.get();  // a compile_error reaches every thread that waited for it
}

std::optional<cached_cubin> cached_on_disk(const std::string& source, int arch, const std::string& expression) {
  return load_from_disk(active_disk_cache(), cache_key_for(source, arch), arch, expression);
}

}  // namespace jet::detail

namespace jet {

void set_disk_cache(bool enabled) {
  detail::process_cache().choose(enabled ? detail::open_cache(detail::directory_from_environment()) : nullptr);
}

void set_disk_cache_directory(const std::string& directory) {
  detail::process_cache().choose(detail::open_cache(directory));
}

std::string disk_cache_directory() {
  const auto cache = detail::active_disk_cache();
  return cache && cache->trusted() ? cache->directory().string() : std::string();
}

}  // namespace jet
