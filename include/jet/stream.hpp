// Streams, events and CUDA graphs. jet queues every evaluation, copy and allocation on the calling
// thread's current stream, in order, and returns without waiting (reading results back waits).
// The current stream is the legacy default stream unless a stream_guard names another.
#pragma once

#include <utility>

namespace jet {

/// A CUDA stream. jet::stream() makes a new one that does not synchronize with the legacy default
/// stream; stream::wrap adopts another library's. Move-only: an owned stream is destroyed with its
/// owner (work already queued on it still runs).
class stream {
 public:
  /// A new stream (CU_STREAM_NON_BLOCKING).
  stream();
  /// Another library's stream (a CUstream or cudaStream_t, e.g. PyTorch's current stream; null is
  /// the legacy default stream). Not owned: it is never destroyed by jet.
  static stream wrap(void* handle) { return stream(handle, false); }
  stream(stream&& o) noexcept : handle_(std::exchange(o.handle_, nullptr)), owned_(std::exchange(o.owned_, false)) {}
  stream& operator=(stream&& o) noexcept {
    std::swap(handle_, o.handle_);
    std::swap(owned_, o.owned_);
    return *this;
  }
  ~stream();

  /// The CUstream (cudaStream_t); null for the legacy default stream.
  void* handle() const { return handle_; }
  /// Waits until everything queued on the stream has run.
  void synchronize() const;

 private:
  stream(void* handle, bool owned) : handle_(handle), owned_(owned) {}
  void* handle_;
  bool owned_;
};

/// The calling thread's current stream (not owned).
stream current_stream();

/// Makes `s` the calling thread's current stream until the guard's scope ends. The scope is a fork
/// and join of the stream that was current: work queued in it starts after what was queued
/// before, and work queued after it starts after what was queued in it, so arrays may be made
/// before a guard and used, freed or read inside it, and the other way round. (While either
/// stream is being captured into a graph, entering or leaving adds no ordering.)
class stream_guard {
 public:
  explicit stream_guard(const stream& s);
  ~stream_guard();
  stream_guard(const stream_guard&) = delete;
  stream_guard& operator=(const stream_guard&) = delete;

 private:
  void* previous_;
  void* guarded_;
};

/// A point in a stream, for waiting and timing.
class event {
 public:
  event();
  event(event&& o) noexcept : handle_(std::exchange(o.handle_, nullptr)) {}
  event& operator=(event&& o) noexcept {
    std::swap(handle_, o.handle_);
    return *this;
  }
  ~event();

  /// Marks the current end of the current stream.
  void record();
  /// Marks the current end of `s`.
  void record(const stream& s);
  /// Waits until the work before the last record has run.
  void synchronize() const;
  /// Milliseconds of device time from `start` to `stop`, both recorded; waits for `stop`.
  friend float elapsed_ms(const event& start, const event& stop);

 private:
  void* handle_;
};
float elapsed_ms(const event& start, const event& stop);

namespace detail {
void begin_capture();
void abandon_capture() noexcept;
void* end_capture();
}  // namespace detail

/// A CUDA graph made by jet::capture, ready to launch: replaying it runs the captured kernels,
/// copies and stream-ordered allocations again, on the same memory, with no host work per kernel.
class graph {
 public:
  explicit graph(void* executable) : executable_(executable) {}
  graph(graph&& o) noexcept : executable_(std::exchange(o.executable_, nullptr)) {}
  graph& operator=(graph&& o) noexcept {
    std::swap(executable_, o.executable_);
    return *this;
  }
  ~graph();

  /// Queues the graph on the current stream.
  void launch() const;

 private:
  void* executable_;
};

/// Runs `step` while capturing the current stream (which must not be the legacy default stream:
/// use a stream_guard) and returns the captured graph. Nothing in `step` runs on the device then:
/// the arrays it writes get their values when the graph is launched. A kernel `step` evaluates for
/// the first time is compiled and loaded during the capture. An evaluation that would wait for the
/// device (to_host) fails during capture.
template <class F> graph capture(F&& step) {
  detail::begin_capture();
  try {
    std::forward<F>(step)();
  } catch (...) {
    detail::abandon_capture();
    throw;
  }
  return graph(detail::end_capture());
}

}  // namespace jet
