// With no driver (JET_CUDA_DRIVER names a library that does not exist; CTest sets it), jet starts,
// says why it cannot run, and still compiles.
#include "support/catch.hpp"

#include <jet/jet.hpp>

#include <string>

TEST_CASE("no driver: a clear no_device error, and compile-only work still runs", "[.][no_device]") {
  std::string reason;
  CHECK_FALSE(jet::device_available(&reason));
  CHECK(reason.find("no CUDA driver") != std::string::npos);
  try {
    jet::array<float> a(16);
    FAIL("no exception");
  } catch (const jet::no_device& e) {
    CHECK(std::string(e.what()).find("libjet-test-no-such-driver.so") != std::string::npos);
  }
  CHECK_THROWS_AS(jet::current_device(), jet::no_device);
  CHECK_THROWS_AS(jet::synchronize(), jet::no_device);
  jet::view<float> x(reinterpret_cast<float*>(0x10000), 4);
  CHECK_THROWS_AS(jet::precompile(x * x, x + x), jet::no_device);
  CHECK(jet::compile(x * x, jet::arch{90}).cubin.size() > 0);
}

TEST_CASE("no driver: streams and events need the device; the default stream and its refusals do not",
          "[.][no_device]") {
  CHECK_THROWS_AS(jet::stream(), jet::no_device);
  CHECK_THROWS_AS(jet::event(), jet::no_device);
  CHECK(jet::current_stream().handle() == nullptr);
  {
    const jet::stream legacy = jet::stream::wrap(nullptr);
    jet::stream_guard on(legacy);  // the stream that is current already: nothing to order
    CHECK(jet::current_stream().handle() == nullptr);
  }
  bool ran = false;
  CHECK_THROWS_WITH(jet::capture([&] { ran = true; }),
                    "jet::capture: the legacy default stream cannot be captured; make a jet::stream current with "
                    "jet::stream_guard first");
  CHECK_FALSE(ran);  // refused before the step runs, as README says
}
