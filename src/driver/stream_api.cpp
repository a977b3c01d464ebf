// The public streams, events and graphs (jet/stream.hpp).
#include "driver/driver.hpp"
#include "driver/memory.hpp"
#include "driver/stream.hpp"
#include "driver/workspace.hpp"

#include <jet/error.hpp>
#include <jet/stream.hpp>

namespace jet::detail {
namespace {

CUstream as_stream(void* handle) { return static_cast<CUstream>(handle); }

// An event of this thread's for ordering one stream after another: a wait sees the record that
// preceded it, so one event serves every fork and join.
CUevent ordering_event() {
  struct owned_event {
    CUevent e = nullptr;
    ~owned_event() {
      if (e) driver().cuEventDestroy(e);  // the driver was usable when e was made: nothing throws
    }
  };
  thread_local owned_event event;
  if (!event.e) check(driver().cuEventCreate(&event.e, CU_EVENT_DISABLE_TIMING), "cuEventCreate");
  return event.e;
}

// `later`'s next work waits for everything queued on `earlier` so far. Streams in capture are
// left alone: a wait there would pull the other stream into (or out of) the graph.
void order_after(CUstream later, CUstream earlier) {
  if (later == earlier || is_capturing(later) || is_capturing(earlier)) return;
  const driver_api& api = driver();
  const CUevent e = ordering_event();
  check(api.cuEventRecord(e, earlier), "cuEventRecord");
  check(api.cuStreamWaitEvent(later, e, 0), "cuStreamWaitEvent");
}

}  // namespace

void begin_capture() {
  if (!current_stream_handle())
    throw invalid_argument(
        "jet::capture: the legacy default stream cannot be captured; make a jet::stream current "
        "with jet::stream_guard first");
  check(driver().cuStreamBeginCapture(current_stream_handle(), CU_STREAM_CAPTURE_MODE_THREAD_LOCAL),
        "cuStreamBeginCapture");
}

void abandon_capture() noexcept {
  try {
    CUgraph g = nullptr;
    if (driver().cuStreamEndCapture(current_stream_handle(), &g) == CUDA_SUCCESS && g) driver().cuGraphDestroy(g);
  } catch (const error&) {}
}

void* end_capture() {
  const driver_api& api = driver();
  CUgraph g = nullptr;
  check(api.cuStreamEndCapture(current_stream_handle(), &g), "cuStreamEndCapture");
  CUgraphExec executable = nullptr;
  const CUresult r = api.cuGraphInstantiate(&executable, g, 0);
  api.cuGraphDestroy(g);  // the executable graph is independent of it
  check(r, "cuGraphInstantiate");
  return executable;
}

}  // namespace jet::detail

namespace jet {

using detail::as_stream;
using detail::check;
using detail::driver;

stream::stream() : handle_(nullptr), owned_(true) {
  CUstream s = nullptr;
  check(driver().cuStreamCreate(&s, CU_STREAM_NON_BLOCKING), "cuStreamCreate");
  handle_ = s;
  detail::cache_small_blocks_on(s);
}

stream::~stream() {
  if (!owned_ || !handle_) return;
  try {  // a failure here has nowhere to go
    detail::stop_caching_small_blocks_on(as_stream(handle_));
    detail::reduction_stream_ends(as_stream(handle_));
    driver().cuStreamDestroy(as_stream(handle_));
  } catch (const error&) {}
}

void stream::synchronize() const { check(driver().cuStreamSynchronize(as_stream(handle_)), "cuStreamSynchronize"); }

stream current_stream() { return stream::wrap(detail::current_stream_handle()); }

stream_guard::stream_guard(const stream& s) : previous_(detail::current_stream_handle()), guarded_(s.handle()) {
  detail::order_after(as_stream(guarded_), as_stream(previous_));
  detail::set_current_stream(as_stream(guarded_));
}

stream_guard::~stream_guard() {
  detail::set_current_stream(as_stream(previous_));
  try {
    detail::order_after(as_stream(previous_), as_stream(guarded_));
  } catch (const error&) {  // a destructor cannot throw; the next call on the stream reports a broken device
  }
}

event::event() : handle_(nullptr) {
  CUevent e = nullptr;
  check(driver().cuEventCreate(&e, CU_EVENT_DEFAULT), "cuEventCreate");
  handle_ = e;
}

event::~event() {
  if (!handle_) return;
  try {
    driver().cuEventDestroy(static_cast<CUevent>(handle_));
  } catch (const error&) {}
}

void event::record() { record(current_stream()); }

void event::record(const stream& s) {
  check(driver().cuEventRecord(static_cast<CUevent>(handle_), as_stream(s.handle())), "cuEventRecord");
}

void event::synchronize() const {
  check(driver().cuEventSynchronize(static_cast<CUevent>(handle_)), "cuEventSynchronize");
}

float elapsed_ms(const event& start, const event& stop) {
  stop.synchronize();
  float ms = 0;
  check(driver().cuEventElapsedTime(&ms, static_cast<CUevent>(start.handle_), static_cast<CUevent>(stop.handle_)),
        "cuEventElapsedTime");
  return ms;
}

graph::~graph() {
  if (!executable_) return;
  try {
    driver().cuGraphExecDestroy(static_cast<CUgraphExec>(executable_));
  } catch (const error&) {}
}

void graph::launch() const {
  check(driver().cuGraphLaunch(static_cast<CUgraphExec>(executable_), detail::current_stream_handle()),
        "cuGraphLaunch");
}

}  // namespace jet
