// On the GPU: evaluation on streams (jet's own and a foreign one), the fork and join of
// stream_guard, events, CUDA graphs captured from jet evaluations and replayed, the stream-ordered
// memory pool, and DLPack tensors over device memory. Results against host references on fresh
// random data; outputs poisoned first.
#include "support/catch.hpp"
#include "support/gpu_check.hpp"
#include "support/ten_step.hpp"

#include "driver/driver.hpp"
#include "driver/stream.hpp"

#include <jet/jet.hpp>
#ifdef JET_HAS_DLPACK
#include <jet/dlpack.hpp>
#endif

#include <cmath>
#include <cstdint>
#include <string>
#include <thread>
#include <vector>

using jet::test::fresh_seed;
using jet::test::poison;
using jet::test::random_vector;

namespace {

// Fresh random values in [-1, 1) for x, y and the evolving u, v, w; t poisoned (the step writes it
// first). The host copy is the reference's starting point.
struct ten_step_data {
  explicit ten_step_data(std::size_t n, int salt) : n(n) {
    auto values = [&](int k) { return random_vector<float>(n, -1, 1, fresh_seed() + 101 * salt + k); };
    const std::vector<float> x = values(0), y = values(1), u = values(2), v = values(3), w = values(4);
    const std::vector<float> t(n, poison<float>());
    device = {jet::from_host(x), jet::from_host(y), jet::from_host(u),
              jet::from_host(v), jet::from_host(w), jet::from_host(t)};
    host.resize(n);
    for (std::size_t i = 0; i < n; ++i) host[i] = {x[i], y[i], u[i], v[i], w[i], 0};
  }
  void host_steps(int steps) {
    for (auto& element : host)
      for (int k = 0; k < steps; ++k) jet::test::ten_step(element);
  }
  // Mismatches of the device state against the host state (after the same number of steps).
  std::size_t mismatches() const {
    const std::vector<float> u = device.u.to_host(), v = device.v.to_host(), w = device.w.to_host(),
                             t = device.t.to_host();
    std::size_t bad = 0;
    for (std::size_t i = 0; i < n; ++i) {
      const double got[] = {u[i], v[i], w[i], t[i]};
      const double ref[] = {host[i].u, host[i].v, host[i].w, host[i].t};
      for (int k = 0; k < 4; ++k)
        if (!jet::test::close(got[k], ref[k], 1e-4, 1e-5) && bad++ < 5)
          std::printf("  element %zu of state %d: got %.9g, reference %.9g\n", i, k, got[k], ref[k]);
    }
    return bad;
  }
  std::size_t n;
  jet::test::device_state device;
  std::vector<jet::test::host_state> host;
};

std::uint64_t kernels_found() {
  const jet::statistics s = jet::stats();
  return s.compiles + s.disk_hits;
}

}  // namespace

TEST_CASE("streams: a step evaluated on a stream matches the host, read back on that stream", "[gpu][stream]") {
  ten_step_data d(1 << 20, 1);
  jet::stream s;
  {
    jet::stream_guard on(s);  // the arrays were made on the default stream: the guard orders after them
    CHECK(jet::current_stream().handle() == s.handle());
    for (int k = 0; k < 3; ++k) jet::test::ten_step(d.device);
    d.host_steps(3);
    CHECK(d.mismatches() == 0);  // to_host waits for s
  }
  CHECK(jet::current_stream().handle() == nullptr);
  // And on the default stream after the guard: ordered after the stream's work.
  jet::test::ten_step(d.device);
  d.host_steps(1);
  CHECK(d.mismatches() == 0);
}

TEST_CASE("streams: arrays made inside a guard are used and freed outside it, and across two streams",
          "[gpu][stream][memory]") {
  const std::size_t n = 1 << 22;
  const std::vector<float> hx = random_vector<float>(n, -2, 2, fresh_seed() + 7);
  jet::array<float> x = jet::from_host(hx);
  jet::stream first, second;
  jet::array<float> a, b;
  {
    jet::stream_guard on(first);
    a = jet::sin(x) * 3.f;  // allocated and written on `first`
  }
  {
    jet::stream_guard on(second);  // ordered after `first`'s work by the joins
    b = a * a + 1.f;
    a = jet::array<float>();  // freed on `second`, after its read
  }
  const std::vector<float> got = b.to_host();
  std::size_t bad = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const double s = 3 * std::sin(double(hx[i]));
    bad += !jet::test::close(got[i], s * s + 1, 1e-5, 1e-6);
  }
  CHECK(bad == 0);
}

TEST_CASE("streams: a foreign stream is used as it is and not destroyed", "[gpu][stream]") {
  const auto& cu = jet::detail::driver();
  CUstream raw = nullptr;
  REQUIRE(cu.cuStreamCreate(&raw, CU_STREAM_DEFAULT) == CUDA_SUCCESS);
  const std::size_t n = 4096;
  const std::vector<float> hx = random_vector<float>(n, -1, 1, fresh_seed() + 8);
  {
    const jet::stream wrapped = jet::stream::wrap(raw);
    jet::stream_guard on(wrapped);
    jet::array<float> x = jet::from_host(hx);
    jet::array<float> y = jet::from_host(std::vector<float>(n, poison<float>()));
    y = x * 2.f - 1.f;
    wrapped.synchronize();
    const std::vector<float> got = y.to_host();
    for (std::size_t i = 0; i < n; ++i) REQUIRE(got[i] == hx[i] * 2.f - 1.f);
  }
  CHECK(cu.cuStreamSynchronize(raw) == CUDA_SUCCESS);  // still a stream
  CHECK(cu.cuStreamDestroy(raw) == CUDA_SUCCESS);
}

TEST_CASE("events: time between two records covers the work between them", "[gpu][stream]") {
  jet::array<float> x = jet::from_host(random_vector<float>(1 << 24, -1, 1, fresh_seed() + 9));
  jet::stream s;
  jet::stream_guard on(s);
  jet::event start, stop;
  start.record();
  for (int k = 0; k < 10; ++k) x = jet::tanh(x) * 1.5f;
  stop.record(s);
  const float ms = jet::elapsed_ms(start, stop);
  CHECK(ms > 0);
  CHECK(ms < 10000);
}

TEST_CASE("graphs: a captured ten-expression step replays correctly", "[gpu][graph]") {
  ten_step_data d(1024 * 3 + 5, 2);  // a ragged tail: the masked path
  jet::test::ten_step(d.device);     // compiled and loaded before the capture
  d.host_steps(1);
  jet::stream s;
  jet::stream_guard on(s);
  const std::uint64_t launches = jet::stats().launches;
  jet::graph g = jet::capture([&] { jet::test::ten_step(d.device); });
  CHECK(jet::stats().launches - launches == jet::test::ten_step_expressions);  // captured launches
  CHECK(d.mismatches() == 0);  // capturing ran nothing: the state is still one step on
  const int replays = 7;
  for (int k = 0; k < replays; ++k) g.launch();
  d.host_steps(replays);
  CHECK(d.mismatches() == 0);
}

TEST_CASE("graphs: kernels first compiled and loaded during a capture", "[gpu][graph]") {
  const std::size_t n = 5000;
  const std::vector<float> hx = random_vector<float>(n, -1, 1, fresh_seed() + 10);
  jet::array<float> x = jet::from_host(hx);
  jet::array<float> y = jet::from_host(std::vector<float>(n, poison<float>()));
  jet::stream s;
  jet::stream_guard on(s);
  const std::uint64_t found = kernels_found();
  // An expression no other test evaluates, so its kernel is new to this process.
  jet::graph g = jet::capture([&] { y = jet::cos(x * 0.75f) * jet::exp(x * -0.125f) + 0.375f; });
  CHECK(kernels_found() == found + 1);
  g.launch();
  const std::vector<float> got = y.to_host();
  std::size_t bad = 0;
  for (std::size_t i = 0; i < n; ++i)
    bad += !jet::test::close(got[i], std::cos(hx[i] * 0.75) * std::exp(hx[i] * -0.125) + 0.375, 1e-5, 1e-6);
  CHECK(bad == 0);
}

TEST_CASE("graphs: an overlapping assignment's temporary comes from the pool inside the graph",
          "[gpu][graph][memory]") {
  const std::size_t n = 10000;
  const std::vector<float> hx = random_vector<float>(n, -1, 1, fresh_seed() + 11);
  jet::array<float> x = jet::from_host(hx);
  jet::stream s;
  jet::stream_guard on(s);
  auto shift = [&] { x.slice(0, 1, n) = x.slice(0, 0, n - 1) * 0.5f + 1.f; };  // reads what it overwrites
  if (!jet::detail::properties().pool) {
    CHECK_THROWS_WITH(jet::capture(shift),
                      "jet: cannot allocate 39996 bytes during stream capture: the CUDA driver has no stream-ordered "
                      "memory pool");
    return;
  }
  jet::graph g = jet::capture(shift);
  const int replays = 3;
  for (int k = 0; k < replays; ++k) g.launch();
  std::vector<double> ref(hx.begin(), hx.end());
  for (int k = 0; k < replays; ++k)
    for (std::size_t i = n - 1; i >= 1; --i) ref[i] = ref[i - 1] * 0.5 + 1;
  const std::vector<float> got = x.to_host();
  std::size_t bad = 0;
  for (std::size_t i = 0; i < n; ++i) bad += !jet::test::close(got[i], ref[i], 1e-6, 1e-6);
  CHECK(bad == 0);
}

TEST_CASE("graphs: what a capture cannot do is refused and the stream stays usable", "[gpu][graph][errors]") {
  jet::array<float> x = jet::from_host(std::vector<float>{1, 2, 3});
  CHECK_THROWS_WITH(jet::capture([&] { x = x + 1.f; }),
                    "jet::capture: the legacy default stream cannot be captured; make a jet::stream current with "
                    "jet::stream_guard first");
  jet::stream s;
  jet::stream_guard on(s);
  CHECK_THROWS_WITH(jet::capture([&] {
                      x = x + 1.f;
                      x.to_host();
                    }),
                    "jet: cannot copy 12 bytes to the host during stream capture: a graph would copy from host "
                    "memory that is gone by then");
  CHECK_THROWS_WITH(jet::capture([&] {
                      x = jet::from_host(std::vector<float>{4, 5});
                    }),
                    "jet: cannot copy 8 bytes from the host during stream capture: a graph would copy from host "
                    "memory that is gone by then");
  x = x * 2.f;  // the capture was abandoned: this runs
  CHECK(x.to_host() == std::vector<float>{2, 4, 6});
}

TEST_CASE("reductions on two streams at once, and inside a graph", "[gpu][stream][graph][reduce]") {
  const std::size_t n = (std::size_t{1} << 22) + 3;
  const std::vector<float> hx = random_vector<float>(n, -1, 1, fresh_seed() + 16);
  const std::vector<float> hy = random_vector<float>(n, -1, 1, fresh_seed() + 17);
  double reference = 0, magnitude = 0;
  for (std::size_t i = 0; i < n; ++i) {
    reference += double(hx[i]) * hy[i];
    magnitude += std::fabs(double(hx[i]) * hy[i]);
  }
  jet::array<float> x = jet::from_host(hx), y = jet::from_host(hy);
  const float once = jet::sum(x * y).item();  // reductions are deterministic: every sum below is this
  CHECK(std::fabs(once - reference) <= 1e-5 * magnitude);

  // Each stream has its own workspace: at once on two streams, every result is still exact.
  std::vector<float> results[2];
  {
    std::vector<std::jthread> threads;
    for (int t = 0; t < 2; ++t)
      threads.emplace_back([&, t] {
        jet::stream s;
        jet::stream_guard on(s);
        for (int k = 0; k < 50; ++k) results[t].push_back(jet::sum(x * y).item());
      });
  }
  for (const auto& r : results)
    for (float v : r) REQUIRE(v == once);

  jet::stream s;
  jet::stream_guard on(s);
  jet::array<float> total = jet::from_host(std::vector<float>{0.f}, jet::shape{});
  jet::graph g = jet::capture([&] { total = total + jet::sum(x * y); });  // the sum's array lives inside
  float expected = 0;
  for (int k = 0; k < 3; ++k) {
    g.launch();
    expected += once;
  }
  CHECK(total.item() == expected);
}

TEST_CASE("memory: running out on a stream names the size and leaves the process usable", "[gpu][memory][errors]") {
  jet::stream s;
  jet::stream_guard on(s);
  try {
    jet::array<float> huge(jet::shape{1 << 20, 1 << 20});
    FAIL("no exception");
  } catch (const jet::out_of_memory& e) {
    CHECK(e.bytes == (std::size_t{1} << 42));
    CHECK(std::string(e.what()) == "jet: out of device memory allocating 4398046511104 bytes");
  }
  const std::vector<float> hx = random_vector<float>(1000, -1, 1, fresh_seed() + 12);
  jet::array<float> x = jet::from_host(hx);
  jet::array<float> y = x * x;
  const std::vector<float> got = y.to_host();
  for (std::size_t i = 0; i < hx.size(); ++i) REQUIRE(got[i] == hx[i] * hx[i]);
  jet::release_cached_memory();
  CHECK(x.to_host() == hx);  // live arrays are kept
}

TEST_CASE("memory: freed memory is reused without growing the pool", "[gpu][memory]") {
  // Allocating and freeing the same size many times on one stream must not fail or leak: with the
  // pool the memory is recycled; without it cuMemFree returns it.
  jet::stream s;
  jet::stream_guard on(s);
  const std::vector<float> hx = random_vector<float>(1 << 20, -1, 1, fresh_seed() + 13);
  jet::array<float> x = jet::from_host(hx);
  std::vector<float> row;
  for (int k = 0; k < 200; ++k) {
    jet::array<float> big(jet::shape{256, 1 << 20});  // 1 GiB each time: 200 GiB in all
    big = x.broadcast_to({256, 1 << 20}) * float(k);
    if (k == 199) row = big.slice(0, 255, 256).to_host();
  }
  REQUIRE(row.size() == hx.size());
  for (std::size_t i = 0; i < hx.size(); ++i) REQUIRE(row[i] == hx[i] * 199.f);
}

TEST_CASE("memory: a small block freed on a stream is reused there, and one a graph made stays the graph's",
          "[gpu][memory][graph]") {
  jet::stream s;
  jet::stream_guard on(s);
  const std::vector<float> hx = random_vector<float>(5000, -1, 1, fresh_seed() + 14);
  double reference = 0;
  for (float v : hx) reference += v;
  jet::array<float> x = jet::from_host(hx);
  const void* freed = nullptr;
  {
    const jet::array<float> first = jet::sum(x);
    freed = first.data();
  }
  const jet::array<float> second = jet::sum(x);
  CHECK(std::fabs(second.item() - reference) <= 1e-5 * hx.size());
  if (!jet::detail::properties().pool) return;  // cuMemFree'd memory: no promise about addresses
  CHECK(second.data() == freed);                // jet's small-block cache, not the pool, gave it back

  // A result allocated inside a capture is the graph's memory, freed outside it: small arrays
  // made afterwards get other memory, and the graph's replays never overwrite them.
  jet::array<float> captured;
  const jet::graph g = jet::capture([&] { captured = jet::sum(x * 2.f); });
  g.launch();
  const void* graphs = captured.data();
  captured = jet::array<float>();
  std::vector<jet::array<float>> others;
  for (int k = 0; k < 100; ++k) {
    others.push_back(jet::from_host(std::vector<float>{float(k)}, jet::shape{}));
    CHECK(others.back().data() != graphs);
  }
  jet::array<float> replayed;
  const jet::graph h = jet::capture([&] { replayed = jet::sum(x * 3.f); });
  h.launch();
  CHECK(std::fabs(replayed.item() - 3 * reference) <= 3e-5 * hx.size());
  for (int k = 0; k < 100; ++k) REQUIRE(others[k].item() == float(k));
}

#ifdef JET_HAS_DLPACK
namespace {

// A DLPack tensor over memory a test owns, made by hand as a producer would; counts deletions.
struct borrowed_tensor {
  borrowed_tensor(void* data, DLDataType type, std::vector<std::int64_t> extents, std::vector<std::int64_t> strides_,
                  std::uint64_t byte_offset)
      : shape(std::move(extents)), strides(std::move(strides_)) {
    DLTensor& t = managed.dl_tensor;
    t.data = data;
    t.device = {kDLCUDA, jet::device_ordinal};
    t.ndim = static_cast<int>(shape.size());
    t.dtype = type;
    t.shape = shape.data();
    t.strides = strides.empty() ? nullptr : strides.data();
    t.byte_offset = byte_offset;
    managed.manager_ctx = this;
    managed.deleter = [](DLManagedTensor* self) { ++static_cast<borrowed_tensor*>(self->manager_ctx)->deleted; };
  }
  std::vector<std::int64_t> shape, strides;
  int deleted = 0;
  DLManagedTensor managed{};
};

}  // namespace

TEST_CASE("dlpack: tensors over device memory, strided and offset, computed with and exported", "[gpu][dlpack]") {
  const std::int64_t rows = 300, cols = 200;
  const std::size_t n = rows * cols;
  const std::vector<float> ha = random_vector<float>(n + 1, -2, 2, fresh_seed() + 14);
  const std::vector<double> hb = random_vector<double>(n, -2, 2, fresh_seed() + 15);
  jet::array<float> a_memory = jet::from_host(ha);
  jet::array<double> b_memory = jet::from_host(hb);
  // a: rows x cols in C order, one element into its buffer; b: cols x rows stored column-major.
  borrowed_tensor a(a_memory.data(), {kDLFloat, 32, 1}, {rows, cols}, {}, sizeof(float));
  borrowed_tensor b(b_memory.data(), {kDLFloat, 64, 1}, {rows, cols}, {1, rows}, 0);
  DLManagedTensor* exported = nullptr;
  {
    const jet::view<float> va = jet::from_dlpack<float>(&a.managed);
    const jet::view<double> vb = jet::from_dlpack<double>(&b.managed);
    jet::array<double> out = jet::from_host(std::vector<double>(n, poison<double>()), {rows, cols});
    out = va * 2.f + vb;
    exported = jet::to_dlpack(std::move(out));
  }
  CHECK(a.deleted == 1);
  CHECK(b.deleted == 1);
  const DLTensor& e = exported->dl_tensor;
  REQUIRE(e.ndim == 2);
  CHECK(e.shape[0] == rows);
  CHECK(e.shape[1] == cols);
  CHECK(e.strides[0] == cols);
  CHECK(e.strides[1] == 1);
  CHECK(jet::from_dlpack_type(e.dtype) == jet::dtype::float64);
  std::vector<double> got(n);
  jet::detail::copy_to_host(got.data(), e.data, n * sizeof(double));
  std::size_t bad = 0;
  for (std::int64_t r = 0; r < rows; ++r)
    for (std::int64_t c = 0; c < cols; ++c) {
      const double ref = double(ha[1 + r * cols + c]) * 2 + hb[r + c * rows];
      bad += !jet::test::close(got[r * cols + c], ref, 1e-12, 1e-12);
    }
  CHECK(bad == 0);
  // Imported back, the export is jet's again; its deleter frees the array once.
  const jet::view<double> back = jet::from_dlpack<double>(exported);
  CHECK(back.to_host() == got);
}
#endif
