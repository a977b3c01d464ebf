#include "compile/compiler.hpp"
#include "settings.hpp"

#include <jet/error.hpp>

#include <nvrtc.h>

#include <unistd.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

namespace jet::detail {
namespace {

void check_nvrtc(nvrtcResult r, const char* call) {
  if (r != NVRTC_SUCCESS) throw error(std::string("jet: ") + call + " failed: " + nvrtcGetErrorString(r));
}

std::string numbered(const std::string& source) {
  std::ostringstream out;
  std::istringstream in(source);
  std::string line;
  for (int number = 1; std::getline(in, line); ++number) {
    char prefix[16];
    std::snprintf(prefix, sizeof prefix, "%4d | ", number);
    out << prefix << line << '\n';
  }
  return out.str();
}

void require_supported(int arch) {
  int count = 0;
  check_nvrtc(nvrtcGetNumSupportedArchs(&count), "nvrtcGetNumSupportedArchs");
  std::vector<int> archs(count);
  check_nvrtc(nvrtcGetSupportedArchs(archs.data()), "nvrtcGetSupportedArchs");
  for (int a : archs)
    if (a == arch) return;
  std::string list;
  for (int a : archs) list += (list.empty() ? "sm_" : ", sm_") + std::to_string(a);
  throw invalid_argument("jet: NVRTC cannot compile for sm_" + std::to_string(arch) + "; it supports " + list);
}

// NVRTC's process-wide state is torn down at exit, by its own exit handlers: a compile still running
// then on another thread (a background compile, the interpreter's) crashes inside NVRTC. So exit
// first waits for the compiles in flight and lets no new one start. The wait runs in a thread_local
// destructor of the main thread, which exit() runs before every exit handler, and, for an exit()
// called on another thread, in an exit handler registered after NVRTC's first compile has registered
// its own. An interpreter compile still running (seconds, once per machine) so also reaches the
// disk cache for the next process.
class compiles_in_flight {
 public:
  bool enter() {
    std::lock_guard lock(mutex_);
    if (exiting_) return false;
    ++running_;
    return true;
  }
  void leave() {
    std::lock_guard lock(mutex_);
    if (--running_ == 0) done_.notify_all();
  }
  void wait_at_exit() {
    std::unique_lock lock(mutex_);
    exiting_ = true;
    done_.wait(lock, [&] { return running_ == 0; });
  }
  bool exiting() {
    std::lock_guard lock(mutex_);
    return exiting_;
  }

 private:
  std::mutex mutex_;
  std::condition_variable done_;
  int running_ = 0;
  bool exiting_ = false;
};

compiles_in_flight& in_flight_compiles() {
  static compiles_in_flight* c = new compiles_in_flight;  // never destroyed: exit handlers use it
  return *c;
}

struct wait_for_compiles_at_thread_exit {
  ~wait_for_compiles_at_thread_exit() { in_flight_compiles().wait_at_exit(); }
};

// One compile: counted in flight, refused once the process exits.
class compile_scope {
 public:
  compile_scope() {
    if (!in_flight_compiles().enter()) throw error("jet: not compiling: the process is exiting");
  }
  ~compile_scope() {
    in_flight_compiles().leave();
    static std::once_flag registered;
    std::call_once(registered, [] { std::atexit([] { in_flight_compiles().wait_at_exit(); }); });
  }
  compile_scope(const compile_scope&) = delete;
  compile_scope& operator=(const compile_scope&) = delete;
};

// "12 nodes, 3456 bytes of source": how big a compile is, which is what its time grows with.
std::string compile_size(std::size_t nodes, const std::string& source) {
  return (nodes ? std::to_string(nodes) + " nodes, " : std::string()) + std::to_string(source.size()) +
         " bytes of source";
}

struct slow_compile_report {
  std::atomic<double> seconds{slow_compile_seconds};
  std::atomic<bool> reported{false};
};
slow_compile_report& slow_report() {
  static slow_compile_report r;
  return r;
}

// A compile of an expression past the threshold, once per process: NVRTC's time grows with the
// expression, and a user who sees a first evaluation take seconds should learn why. jet's own kernels (nodes == 0) are slow by design.
void report_if_slow(const std::string& expression, std::size_t nodes, const std::string& source, double ms) {
  slow_compile_report& r = slow_report();
  if (nodes == 0 || ms < 1000 * r.seconds.load() || r.reported.exchange(true)) return;
  std::fprintf(stderr,
               "jet: warning: compiling `%s` (%s) took %.1f s; README.md, \"Compile time\", says how to keep "
               "compiles short (reported once)\n",
               expression.c_str(), compile_size(nodes, source).c_str(), ms / 1000);
}

}  // namespace

void set_slow_compile_report(double seconds) {
  slow_report().seconds.store(seconds < 0 ? slow_compile_seconds : seconds);
  slow_report().reported.store(false);
}

void wait_for_compiles_at_exit() {
  if (gettid() == getpid()) {  // the main thread: its thread_local objects die first in exit()
    thread_local wait_for_compiles_at_thread_exit waiter;
    (void)waiter;
  }
}

bool process_exiting() { return in_flight_compiles().exiting(); }

std::vector<std::string> compile_options(int arch, bool fast_compile) {
  // No headers: the generated source is self-contained. --no-cache: jet caches kernels itself, and
  // NVRTC's own cache would only hide real compile times. --fmad=false: every op rounds once, as
  // written, so that a fused kernel and the interpreter (which cannot contract a multiply in one
  // instruction with an add in the next) compute the same bits. --diag-error: the warnings that
  // mean undefined behaviour, which a JET_FUNCTION body can cause, are errors (#940 a missing
  // return, #549 a variable used before it is set, #39 a division by zero, #62 and #63 a shift by
  // a negative or too large count).
  std::vector<std::string> options = {"--gpu-architecture=sm_" + std::to_string(arch),
                                      "--std=c++17",
                                      "--minimal",
                                      "--no-cache",
                                      "--fmad=false",
                                      "--diag-error=940,549,39,62,63"};
  // --Ofast-compile=mid keeps IEEE semantics and cuts the float64 math interpreter's compile about
  // four times (benchmarks/RESULTS.md); NVRTC 13 documents it.
  if (fast_compile && nvrtc_major_version() >= 13) options.push_back("--Ofast-compile=mid");
  return options;
}

namespace {

// The loaded NVRTC's version, asked once: every compile's disk-cache key and options name it.
std::pair<int, int> nvrtc_version_numbers() {
  static const std::pair<int, int> version = [] {
    int major = 0, minor = 0;
    check_nvrtc(nvrtcVersion(&major, &minor), "nvrtcVersion");
    return std::pair{major, minor};
  }();
  return version;
}

}  // namespace

int nvrtc_major_version() { return nvrtc_version_numbers().first; }

std::string nvrtc_version() {
  const auto [major, minor] = nvrtc_version_numbers();
  return std::to_string(major) + "." + std::to_string(minor);
}

namespace {

// What NVRTC makes of a program: a cubin, or LTO-IR for a link that finishes it later (cuFFT's
// callbacks).
enum class nvrtc_output { cubin, lto_ir };

// Compiles `source` with `options` into `output`, as compile_to_cubin describes; `target` names the
// architecture in messages.
cubin compile_program(const std::string& source, const std::vector<std::string>& options, nvrtc_output output,
                      const std::string& target, const std::string& expression, kernel_origin origin) {
  wait_for_compiles_at_exit();
  const compile_scope scope;
  log_info("compiling `" + expression + "` for " + target + " (" + compile_size(origin.nodes, source) + ")");
  const auto start = std::chrono::steady_clock::now();
  nvrtcProgram program = nullptr;
  check_nvrtc(nvrtcCreateProgram(&program, source.c_str(), "jet_kernel.cu", 0, nullptr, nullptr), "nvrtcCreateProgram");
  std::unique_ptr<nvrtcProgram, void (*)(nvrtcProgram*)> guard(&program,
                                                               [](nvrtcProgram* p) { nvrtcDestroyProgram(p); });

  std::vector<const char*> option_pointers;
  for (const std::string& o : options) option_pointers.push_back(o.c_str());
  const nvrtcResult result =
      nvrtcCompileProgram(program, static_cast<int>(option_pointers.size()), option_pointers.data());

  std::size_t log_size = 0;
  check_nvrtc(nvrtcGetProgramLogSize(program, &log_size), "nvrtcGetProgramLogSize");
  std::string log(log_size, '\0');
  check_nvrtc(nvrtcGetProgramLog(program, log.data()), "nvrtcGetProgramLog");
  while (!log.empty() && (log.back() == '\0' || log.back() == '\n')) log.pop_back();

  if (result != NVRTC_SUCCESS) {
    const std::string listing = numbered(source);
    throw compile_error("jet: NVRTC failed to compile the kernel for `" + expression + "` (" + target + "): " +
                            nvrtcGetErrorString(result) + "\n--- log ---\n" + log + "\n--- source ---\n" + listing,
                        log, listing, expression);
  }
  std::size_t size = 0;
  std::string image;
  if (output == nvrtc_output::cubin) {
    check_nvrtc(nvrtcGetCUBINSize(program, &size), "nvrtcGetCUBINSize");
    image.resize(size);
    check_nvrtc(nvrtcGetCUBIN(program, image.data()), "nvrtcGetCUBIN");
  } else {
    check_nvrtc(nvrtcGetLTOIRSize(program, &size), "nvrtcGetLTOIRSize");
    image.resize(size);
    check_nvrtc(nvrtcGetLTOIR(program, image.data()), "nvrtcGetLTOIR");
  }
  const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  // Once: the cubin is cached. jet's own code has warnings that mean nothing (an unused constant
  // of a loop shape), a user's body may have ones that matter to its author.
  if (origin.user_functions && !log.empty())
    std::fprintf(stderr, "jet: warning: NVRTC warns about the kernel of `%s` (%s):\n%s\n", expression.c_str(),
                 target.c_str(), log.c_str());
  report_if_slow(expression, origin.nodes, source, ms);
  return {std::move(image), ms};
}

}  // namespace

cubin compile_to_cubin(const std::string& source, int arch, const std::string& expression, kernel_origin origin) {
  require_supported(arch);
  return compile_program(source, compile_options(arch, origin.fast_compile), nvrtc_output::cubin,
                         "sm_" + std::to_string(arch), expression, origin);
}

cubin compile_to_lto_ir(const std::string& source, int arch, const std::string& expression, kernel_origin origin) {
  require_supported(arch);
  // The options of a cubin, but for the virtual architecture and as LTO-IR (-dlto implies -rdc).
  std::vector<std::string> options = compile_options(arch);
  options[0] = "--gpu-architecture=compute_" + std::to_string(arch);
  options.push_back("-dlto");
  return compile_program(source, options, nvrtc_output::lto_ir, "compute_" + std::to_string(arch) + " LTO-IR",
                         expression, origin);
}

}  // namespace jet::detail
