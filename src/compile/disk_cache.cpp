// The cache directory and its entries: trust, loads, atomic stores, eviction of what jet wrote.
#include "compile/disk_cache.hpp"

#include "settings.hpp"

#include <jet/detail/kernel_desc.hpp>

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <mutex>
#include <random>
#include <system_error>
#include <tuple>
#include <utility>
#include <vector>

namespace jet::detail {
namespace {

namespace fs = std::filesystem;

std::string errno_text() { return std::generic_category().message(errno); }

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
// An entry is written under a temporary name of this prefix, then renamed into place.
constexpr std::string_view temporary_prefix = ".jet-tmp-";
// A temporary file this old was left by a writer that died; eviction removes it.
constexpr std::chrono::seconds abandoned_after{3600};
constexpr std::string_view not_an_entry = "is not a jet kernel cache entry";

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
    return {{}, std::string(not_an_entry)};
  const std::uint64_t key_size = read_u64(entry.substr(entry_magic.size()));
  const std::uint64_t cubin_size = read_u64(entry.substr(entry_magic.size() + 8));
  const std::size_t body = entry.size() - entry_header - entry_trailer;
  if (key_size > body || cubin_size != body - key_size) return {{}, "is truncated, or longer than it says"};
  if (read_u64(entry.substr(entry.size() - entry_trailer)) !=
      fnv1a_bytes(entry.substr(0, entry.size() - entry_trailer)))
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
         std::all_of(name.begin(), name.begin() + 16,
                     [](char c) { return std::isxdigit(static_cast<unsigned char>(c)); });
}

// A name no other writer uses: the entry's, this process's id and a number drawn at random once
// per process, then counted up.
std::string temporary_name(const std::string& entry) {
  static std::atomic<std::uint64_t> next{(std::uint64_t{std::random_device{}()} << 32) | std::random_device{}()};
  char unique[48];
  std::snprintf(unique, sizeof unique, ".%ld.%016llx", static_cast<long>(::getpid()),
                static_cast<unsigned long long>(next.fetch_add(1)));
  return std::string(temporary_prefix) + entry + unique;
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

std::string directory_problem(const struct stat& s) {
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

// `directory`, created if need be, opened into `fd` and checked; empty, or why it is not to be used.
std::string open_directory(const fs::path& directory, int& fd) {
  std::string problem = make_directories(directory);
  // O_NOFOLLOW: the directory itself must not be a symlink, which could lead anywhere.
  unique_fd opened(problem.empty() ? ::open(directory.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC) : -1);
  struct stat s;
  if (problem.empty() && opened.fd < 0) problem = open_problem(AT_FDCWD, directory.c_str());
  if (problem.empty())
    problem = ::fstat(opened.fd, &s) != 0 ? "cannot be examined: " + errno_text() : directory_problem(s);
  if (problem.empty()) fd = std::exchange(opened.fd, -1);
  return problem;
}

// Reads exactly `size` bytes into `into`; empty, or why not.
std::string read_exactly(int fd, char* into, std::size_t size) {
  for (std::size_t done = 0; done < size;) {
    const ssize_t n = ::read(fd, into + done, size - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return n < 0 ? "cannot be read: " + errno_text() : "shrank while being read";
    done += static_cast<std::size_t>(n);
  }
  return {};
}

// The whole content of the entry open as `fd`, or why it is not to be read. Its magic is read
// first: a large file that is no entry is refused without reading the rest.
std::string read_entry_file(int fd, std::string& content) {
  struct stat s;
  if (::fstat(fd, &s) != 0) return "cannot be examined: " + errno_text();
  if (!S_ISREG(s.st_mode)) return "is not a regular file";
  if (std::string problem = ownership_problem(s); !problem.empty()) return problem;
  const auto size = static_cast<std::uint64_t>(s.st_size);
  if (size < entry_header + entry_trailer) return std::string(not_an_entry);
  if (size > largest_entry) return "is too large for a jet kernel cache entry";
  char magic[entry_magic.size()];
  if (std::string problem = read_exactly(fd, magic, sizeof magic); !problem.empty()) return problem;
  if (std::string_view(magic, sizeof magic) != entry_magic) return std::string(not_an_entry);
  content.assign(magic, sizeof magic);
  content.resize(static_cast<std::size_t>(size));
  return read_exactly(fd, content.data() + sizeof magic, content.size() - sizeof magic);
}

// Whether `name` in dir_fd is a regular file of this user that begins as jet's entries do: a file
// jet wrote, which eviction may remove (the directory may hold other files, under any names).
bool written_by_jet(int dir_fd, const char* name) {
  unique_fd file(::openat(dir_fd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC));
  struct stat s;
  if (file.fd < 0 || ::fstat(file.fd, &s) != 0 || !S_ISREG(s.st_mode) || s.st_uid != geteuid()) return false;
  char magic[entry_magic.size()];
  return read_exactly(file.fd, magic, sizeof magic).empty() && std::string_view(magic, sizeof magic) == entry_magic;
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
    if (n >= 0)
      done += static_cast<std::size_t>(n);
    else if (errno != EINTR)
      problem = "cannot write " + name + ": " + errno_text();
  }
  if (::close(std::exchange(file.fd, -1)) != 0 && problem.empty())
    problem = "cannot write " + name + ": " + errno_text();
  if (!problem.empty()) ::unlinkat(dir_fd, name.c_str(), 0);
  return problem;
}

}  // namespace

// --- The cache directory ------------------------------------------------------------------------

cache_key cache_key_of(std::string text) {
  const std::uint64_t hash = fnv1a_bytes(text);
  return {std::move(text), hash};
}

namespace {
std::shared_ptr<const int> share_fd(int fd) {
  return std::shared_ptr<const int>(new int(fd), [](const int* p) {
    ::close(*p);
    delete p;
  });
}
}  // namespace

disk_cache::disk_cache(fs::path directory, shared_fd fd, std::uint64_t max_bytes)
    : directory_(std::move(directory)), max_bytes_(max_bytes), fd_(std::move(fd)) {}

std::shared_ptr<disk_cache> disk_cache::open(const fs::path& directory, std::uint64_t max_bytes) {
  int fd = -1;
  const std::string problem = open_directory(directory, fd);
  if (problem.empty()) return std::shared_ptr<disk_cache>(new disk_cache(directory, share_fd(fd), max_bytes));
  print_warning("the kernel cache directory " + directory.string() + " " + problem +
                "; caching kernels in memory only");
  return nullptr;
}

disk_cache::shared_fd disk_cache::usable_directory() const {
  if (refused_.load()) return nullptr;
  shared_fd fd;
  {
    std::lock_guard lock(mutex_);
    fd = fd_;
  }
  struct stat s;
  std::string problem = ::fstat(*fd, &s) != 0 ? "cannot be examined: " + errno_text() : directory_problem(s);
  // No links: the directory was removed (and perhaps another made under its name).
  if (problem.empty() && s.st_nlink == 0) return reopen(fd);
  if (problem.empty()) return fd;
  if (!refused_.exchange(true))
    print_warning("the kernel cache directory " + directory_.string() + " " + problem +
                  " now; caching kernels in memory only");
  return nullptr;
}

disk_cache::shared_fd disk_cache::reopen(const shared_fd& removed) const {
  std::unique_lock lock(mutex_);
  if (fd_ != removed) return fd_;  // another thread opened it again
  int fd = -1;
  const std::string problem = open_directory(directory_, fd);
  if (problem.empty()) {
    fd_ = share_fd(fd);
    print_warning("the kernel cache directory " + directory_.string() + " was removed; created it again");
    return fd_;
  }
  lock.unlock();
  if (!refused_.exchange(true))
    print_warning("the kernel cache directory " + directory_.string() + " was removed, and " + problem +
                  "; caching kernels in memory only");
  return nullptr;
}

bool disk_cache::trusted() const { return usable_directory() != nullptr; }

fs::path disk_cache::entry_path(const cache_key& key) const { return directory_ / entry_name(key); }

std::optional<std::string> disk_cache::load(const cache_key& key) const {
  const shared_fd directory = usable_directory();  // checked again just before loading
  if (!directory) return std::nullopt;
  const std::string name = entry_name(key);
  // O_NOFOLLOW: a symlink planted under an entry's name is not followed. O_NONBLOCK: a FIFO
  // planted there does not block the open (and is then refused as not a regular file).
  unique_fd file(::openat(*directory, name.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC));
  std::string problem, content;
  if (file.fd < 0) {
    if (errno == ENOENT) return std::nullopt;
    problem = open_problem(*directory, name.c_str());
  } else {
    problem = read_entry_file(file.fd, content);
  }
  decoded_entry entry;
  if (problem.empty()) problem = (entry = decode_entry(content, key.text)).problem;
  if (!problem.empty()) {
    skip_unusable_entry(*directory, name, problem);
    return std::nullopt;
  }
  ::futimens(file.fd, nullptr);  // used now: least recently used entries are evicted first
  return std::string(entry.cubin);
}

// The store after the compile replaces a file that is not a valid entry; not a directory, which
// would fail every store of this kernel: an empty one is removed, and any other warned about once.
void disk_cache::skip_unusable_entry(int directory_fd, const std::string& name, const std::string& problem) const {
  const std::string entry = "the kernel cache entry " + (directory_ / name).string();
  struct stat s;
  if (::fstatat(directory_fd, name.c_str(), &s, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISDIR(s.st_mode)) {
    print_warning(entry + " " + problem + "; compiling the kernel again");
  } else if (::unlinkat(directory_fd, name.c_str(), AT_REMOVEDIR) == 0) {
    print_warning(entry + " was an empty directory; removed it, compiling the kernel again");
  } else if (std::lock_guard lock(mutex_); directories_warned_.insert(name).second) {
    print_warning(entry + " is a directory; compiling the kernel, and not storing it, while it is there");
  }
}

bool disk_cache::store(const cache_key& key, std::string_view cubin) const {
  if (max_bytes_ == 0) return false;  // a cache within 0 bytes holds nothing
  const shared_fd directory = usable_directory();
  if (!directory) return false;
  const std::string name = entry_name(key);
  struct stat s;
  if (::fstatat(*directory, name.c_str(), &s, AT_SYMLINK_NOFOLLOW) == 0 && S_ISDIR(s.st_mode)) return false;
  const std::string temporary = temporary_name(name);
  // Written under a name of its own, then renamed over the entry: rename is atomic, so readers see
  // the previous entry or this one, whole, and writers racing for one entry all succeed.
  std::string problem = write_new_file(*directory, temporary, encode_entry(key.text, cubin));
  if (problem.empty() && ::renameat(*directory, temporary.c_str(), *directory, name.c_str()) != 0) {
    problem = "cannot rename " + temporary + " to " + name + ": " + errno_text();
    ::unlinkat(*directory, temporary.c_str(), 0);
  }
  if (!problem.empty()) {
    // A full disk or a quota fails every store: the first says so, and later ones try quietly.
    if (!store_failure_reported_.exchange(true))
      print_warning("cannot store a kernel in the cache directory " + directory_.string() + ": " + problem +
                    " (later failures to store are not reported)");
    return false;
  }
  evict_over_bound(*directory);
  return true;
}

void disk_cache::evict_over_bound(int directory_fd) const {
  struct entry {
    std::timespec used;
    std::uint64_t bytes;
    std::string name;
  };
  std::vector<entry> entries;
  std::uint64_t total = 0;
  // A descriptor of its own: readdir moves the directory offset, which others using the cache share.
  const int listing_fd = ::openat(directory_fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  DIR* listing = listing_fd >= 0 ? ::fdopendir(listing_fd) : nullptr;  // owns listing_fd from here
  if (!listing) {
    if (listing_fd >= 0) ::close(listing_fd);
    return;
  }
  const std::time_t abandoned = std::time(nullptr) - abandoned_after.count();
  while (const dirent* d = ::readdir(listing)) {
    const std::string_view name = d->d_name;
    struct stat s;
    if (::fstatat(directory_fd, d->d_name, &s, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISREG(s.st_mode)) continue;
    if (is_entry_name(name)) {
      entries.push_back({s.st_mtim, static_cast<std::uint64_t>(s.st_size), std::string(name)});
      total += static_cast<std::uint64_t>(s.st_size);
    } else if (name.starts_with(temporary_prefix) && s.st_mtime < abandoned &&
               written_by_jet(directory_fd, d->d_name)) {
      ::unlinkat(directory_fd, d->d_name, 0);
    }
  }
  ::closedir(listing);
  if (total <= max_bytes_) return;
  // Over the bound: only files jet wrote count, and only they are removed (opened only now, as a
  // store within the bound should not open every entry).
  std::erase_if(entries, [&](const entry& e) {
    const bool foreign = !written_by_jet(directory_fd, e.name.c_str());
    if (foreign) total -= e.bytes;
    return foreign;
  });
  std::sort(entries.begin(), entries.end(), [](const entry& a, const entry& b) {
    return std::tie(a.used.tv_sec, a.used.tv_nsec, a.name) < std::tie(b.used.tv_sec, b.used.tv_nsec, b.name);
  });
  for (const entry& e : entries) {
    if (total <= max_bytes_) break;
    // Another process may have evicted it already; either way it no longer counts.
    ::unlinkat(directory_fd, e.name.c_str(), 0);
    total -= e.bytes;
  }
}

}  // namespace jet::detail
