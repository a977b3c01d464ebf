// The on-disk kernel cache: cubins kept across processes in one directory that only this user can
// write, keyed by everything that determines them. The one place that reads or writes it.
#pragma once

#include <atomic>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <string_view>

namespace jet::detail {

/// What determines a cubin (cached_compile's cache_key_for says what that is), spelled out in
/// `text`. An entry is named by `hash` (of the text) and records the whole text, so that an entry
/// for another key (a hash collision, an older toolkit or jet) is recognized and never used.
struct cache_key {
  std::string text;
  std::uint64_t hash;
};
/// The key whose text is `text`, with its hash.
cache_key cache_key_of(std::string text);

/// One cache directory, checked when opened: a directory, not a symlink, owned by this user and
/// writable by no one else. Every access goes through its open descriptor, so a directory put in
/// its place under the same name later is never used; when the directory is removed, it is
/// created and checked again, once, with a warning. Only files jet wrote are ever removed: entries
/// and temporary files are recognized by their names and their first bytes.
class disk_cache {
 public:
  /// The cache in `directory`, created (0700) with its missing parents if need be; nullptr, with
  /// a warning on stderr, when it cannot be created or is not to be trusted. Stores keep the
  /// directory's entries within max_bytes; with max_bytes 0 they store nothing.
  static std::shared_ptr<disk_cache> open(const std::filesystem::path& directory, std::uint64_t max_bytes);
  disk_cache(const disk_cache&) = delete;
  disk_cache& operator=(const disk_cache&) = delete;

  /// The cubin stored for key, when a valid entry holds it. An entry that is not valid (truncated,
  /// corrupt, foreign, for another key, a symlink, not this user's) is a miss with a warning on
  /// stderr; the store that follows the compile replaces it. A file that does not begin as an
  /// entry does is refused from its first bytes, unread. An empty directory in an entry's place is
  /// removed; any other is a miss, warned about once. A hit marks the entry used now.
  std::optional<std::string> load(const cache_key& key) const;

  /// Stores the cubin atomically: others see the previous entry or this one, whole. Then evicts
  /// the least recently used entries while the directory holds more than max_bytes. Returns false
  /// when it cannot (the first failure, a full disk say, with a warning; later stores try again),
  /// when max_bytes is 0, and when a directory is in the entry's place.
  bool store(const cache_key& key, std::string_view cubin) const;

  /// Checks the directory again (its mode or owner may have changed since it was opened, or it may
  /// have been removed: then it is created again). Once it fails, with a warning, the cache loads
  /// and stores nothing more.
  bool trusted() const;

  const std::filesystem::path& directory() const { return directory_; }
  std::filesystem::path entry_path(const cache_key& key) const;

 private:
  // The directory's open descriptor, closed when the last load or store using it ends: the
  // directory may be opened again while others use the old descriptor.
  using shared_fd = std::shared_ptr<const int>;
  disk_cache(std::filesystem::path directory, shared_fd fd, std::uint64_t max_bytes);
  shared_fd usable_directory() const;
  shared_fd reopen(const shared_fd& removed) const;
  void skip_unusable_entry(int directory_fd, const std::string& name, const std::string& problem) const;
  void evict_over_bound(int directory_fd) const;

  std::filesystem::path directory_;
  std::uint64_t max_bytes_;
  mutable std::mutex mutex_;  // guards fd_ and directories_warned_
  mutable shared_fd fd_;
  mutable std::set<std::string> directories_warned_;  // entry names with a directory in their place
  mutable std::atomic<bool> refused_{false};
  mutable std::atomic<bool> store_failure_reported_{false};
};

}  // namespace jet::detail
