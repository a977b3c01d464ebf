// On the GPU: the interpreter (README, "First results without waiting for the compiler") computes
// the same bits as the fused kernels, for every op and dtype it has and for random expressions;
// the async policy switches to the compiled kernel once it is ready; the interpret policy never
// compiles.
#include "support/catch.hpp"
#include "support/gpu_check.hpp"
#include "support/operands.hpp"
#include "support/random_expression.hpp"
#include "support/scratch.hpp"

#include "interpreter/encoder.hpp"
#include "interpreter/launcher.hpp"
#include "interpreter/source.hpp"

#include <jet/jet.hpp>

#include <chrono>
#include <cmath>
#include <complex>
#include <cstdint>
#include <cstring>
#include <limits>
#include <memory>
#include <random>
#include <string>
#include <vector>

namespace {

using jet::jit_policy;

// Sets the policy for a scope.
struct policy_scope {
  jit_policy before = jet::get_jit_policy();
  explicit policy_scope(jit_policy p) { jet::set_jit_policy(p); }
  ~policy_scope() { jet::set_jit_policy(before); }
};

// Device memory of `bytes`, poisoned, freed at the end of its scope.
struct device_bytes {
  void* p;
  std::size_t size;
  explicit device_bytes(std::size_t bytes) : p(jet::detail::device_alloc(bytes ? bytes : 1)), size(bytes) {
    const std::vector<unsigned char> poison(bytes, 0xA5);
    jet::detail::copy_to_device(p, poison.data(), bytes);
  }
  device_bytes(const device_bytes&) = delete;
  ~device_bytes() { jet::detail::device_free(p, size ? size : 1); }
  std::vector<unsigned char> download() const {
    std::vector<unsigned char> b(size);
    jet::detail::copy_to_host(b.data(), p, size);
    return b;
  }
};

// Whether two results are the same: the same bytes, or both NaN in a floating dtype (a NaN's
// payload is not part of jet's results); a complex one part by part.
bool same_element(jet::dtype t, const unsigned char* a, const unsigned char* b) {
  if (std::memcmp(a, b, jet::size_of(t)) == 0) return true;
  if (jet::is_complex(t)) {
    const int part = jet::size_of(t) / 2;
    return same_element(jet::real_type(t), a, b) && same_element(jet::real_type(t), a + part, b + part);
  }
  if (t == jet::dtype::float32) {
    float x, y;
    std::memcpy(&x, a, 4);
    std::memcpy(&y, b, 4);
    return std::isnan(x) && std::isnan(y);
  }
  if (t == jet::dtype::float64) {
    double x, y;
    std::memcpy(&x, a, 8);
    std::memcpy(&y, b, 8);
    return std::isnan(x) && std::isnan(y);
  }
  if (t == jet::dtype::float16 || t == jet::dtype::bfloat16) {  // exponent all ones, mantissa not 0
    std::uint16_t x, y;
    std::memcpy(&x, a, 2);
    std::memcpy(&y, b, 2);
    const std::uint16_t exponent = t == jet::dtype::float16 ? 0x7C00 : 0x7F80;
    auto nan = [&](std::uint16_t v) { return (v & exponent) == exponent && (v & ~exponent & 0x7FFF); };
    return nan(x) && nan(y);
  }
  return false;
}

// The index of the first element where the two byte images differ, or -1.
std::int64_t first_difference(jet::dtype t, const std::vector<unsigned char>& a, const std::vector<unsigned char>& b) {
  const int size = jet::size_of(t);
  for (std::size_t i = 0; i * size < a.size(); ++i)
    if (!same_element(t, &a[i * size], &b[i * size])) return static_cast<std::int64_t>(i);
  return -1;
}

// Random data of type T: mostly in [-3, 3] (integers in [-1000, 1000]), with special values; a
// complex value's parts each so.
template <class T> std::vector<T> random_values(std::size_t n, std::uint64_t seed) {
  if constexpr (jet::detail::is_complex_type<T>::value) {
    using part = typename T::value_type;
    const std::vector<part> re = random_values<part>(n, seed), im = random_values<part>(n, ~seed);
    std::vector<T> v(n);
    for (std::size_t i = 0; i < n; ++i) v[i] = T(re[i], im[i]);
    return v;
  }
  std::mt19937_64 engine(seed);
  std::uniform_real_distribution<double> value(-3, 3);
  std::uniform_int_distribution<int> integer(-1000, 1000), pick(0, 15);
  std::vector<T> v(n);
  for (std::size_t i = 0; i < n; ++i) {
    if constexpr (std::is_integral_v<T>) {
      const T specials[] = {std::numeric_limits<T>::lowest(), std::numeric_limits<T>::max(), 0, -1, 1};
      v[i] = pick(engine) == 0 ? specials[integer(engine) & 3] : static_cast<T>(integer(engine));
    } else {
      const double specials[] = {NAN, INFINITY, -INFINITY, 0.0, -0.0, 1e30, -1e-30, 0.5};
      v[i] = static_cast<T>(pick(engine) == 0 ? specials[integer(engine) & 7] : value(engine));
    }
  }
  return v;
}

// Evaluates e into an array of R under `policy`; the result's bytes and how many launches the
// interpreter made.
template <class R, class E>
std::pair<std::vector<unsigned char>, std::uint64_t> evaluate_under(jit_policy policy, const E& e, std::size_t n) {
  policy_scope scope(policy);
  device_bytes out(n * sizeof(R));
  jet::view<R> v(static_cast<R*>(out.p), n);
  const std::uint64_t before = jet::stats().interpreted;
  v = e;
  return {out.download(), jet::stats().interpreted - before};
}

// Every op of the table on operands of type T in its domain: the interpreter's bits are the fused
// kernel's.
template <class T> void every_op_agrees(std::uint64_t seed) {
  constexpr std::size_t n = 4099;  // full tiles and a last, partial one
  const std::vector<T> ha = random_values<T>(n + 1, seed), hb = random_values<T>(n + 1, seed + 1),
                       hc = random_values<T>(n + 1, seed + 2);
  const jet::array<T> da = jet::from_host(ha), db = jet::from_host(hb), dc = jet::from_host(hc);
  for (int offset = 0; offset <= 1; ++offset) {  // aligned, and one element off: the unaligned path
    const jet::view<T> a(const_cast<T*>(da.data()) + offset, n), b(const_cast<T*>(db.data()) + offset, n),
        c(const_cast<T*>(dc.data()) + offset, n);
    jet::test::for_each_op_on<T>([&](auto op) {
      using Op = decltype(op);
      const auto e = jet::test::apply_op<Op>(a, b, c);
      using E = std::remove_cvref_t<decltype(e)>;
      using R = jet::cpp_type<E::type>;
      const jet::detail::encoding code =
          jet::detail::encode_for_interpreter(jet::detail::kernel_of<jet::detail::roots<E>, R>::desc, nullptr, nullptr);
      INFO(Op::name << " on " << jet::name(jet::dtype_of<T>()) << ", offset " << offset
                    << (code.family ? "" : ", not interpreted: " + code.reason));
      const auto [interpreted, interpreter_launches] = evaluate_under<R>(jit_policy::interpret, e, n);
      const auto [compiled, compiled_interpreter_launches] = evaluate_under<R>(jit_policy::sync, e, n);
      CHECK(interpreter_launches == (code.family ? 1u : 0u));
      CHECK(compiled_interpreter_launches == 0);
      CHECK(first_difference(E::type, interpreted, compiled) == -1);
    });
  }
}

}  // namespace

TEST_CASE("interpreter: every op in every dtype it has computes the fused kernel's bits", "[gpu][interpreter]") {
  const std::uint64_t seed = jet::test::fresh_seed() + 700;
  every_op_agrees<float>(seed);
  every_op_agrees<double>(seed + 10);
  every_op_agrees<std::int32_t>(seed + 20);
  every_op_agrees<std::int64_t>(seed + 30);
  every_op_agrees<jet::float16>(seed + 40);
  every_op_agrees<jet::bfloat16>(seed + 50);  // bool operands: in the random expressions
}

TEST_CASE("interpreter: every op on complex64 and complex128 computes the fused kernel's bits", "[gpu][interpreter]") {
  const std::uint64_t seed = jet::test::fresh_seed() + 760;
  every_op_agrees<std::complex<float>>(seed);
  every_op_agrees<std::complex<double>>(seed + 10);
}

TEST_CASE("interpreter: 200 random expressions, interpreted and compiled, agree", "[gpu][interpreter]") {
  const std::uint64_t seed = jet::test::fresh_seed() * 7919 + 800;
  std::size_t interpreted = 0;
  for (std::uint64_t k = 0; k < 200; ++k) {
    const jet::test::random_expression r = jet::test::make_random_expression(seed + k);
    INFO("case seed " << r.seed << "\n" << r.text());
    const jet::detail::kernel_desc d = r.desc();
    std::vector<std::unique_ptr<device_bytes>> operands;
    std::vector<const void*> inputs;
    for (const auto& o : r.operands) {
      operands.push_back(std::make_unique<device_bytes>(o.where.allocation * jet::size_of(o.type)));
      const std::vector<unsigned char> bytes = jet::test::bytes_of(o.type, o.values);
      jet::detail::copy_to_device(operands.back()->p, bytes.data(), bytes.size());
    }
    for (unsigned slot = 0; slot < d.input_count; ++slot) {
      const auto& o = r.operands[r.slot_operand[slot]];
      inputs.push_back(static_cast<char*>(operands[r.slot_operand[slot]]->p) + o.where.first * jet::size_of(o.type));
    }
    const std::vector<const jet::detail::layout*> layouts = r.input_layouts();
    const jet::dtype out_type = r.out_type[0];
    auto run = [&](jit_policy policy) {
      policy_scope scope(policy);
      auto out = std::make_unique<device_bytes>(r.output.allocation * jet::size_of(out_type));
      void* at = static_cast<char*>(out->p) + r.output.first * jet::size_of(out_type);
      jet::detail::kernel_slot slot;
      const std::uint64_t before = jet::stats().interpreted;
      jet::detail::evaluate({d, slot, &at, &r.output.view, inputs.data(), layouts.data(), r.scalars.data()});
      interpreted += jet::stats().interpreted - before;
      return out->download();
    };
    const std::vector<unsigned char> by_interpreter = run(jit_policy::interpret), by_kernel = run(jit_policy::sync);
    CHECK(first_difference(out_type, by_interpreter, by_kernel) == -1);
  }
  INFO(interpreted << " of 200 interpreted");
  CHECK(interpreted > 0);
}

TEST_CASE("interpreter: async runs a new expression at once, then switches to its compiled kernel",
          "[gpu][interpreter]") {
  policy_scope scope(jit_policy::async);
  constexpr std::size_t n = 100003;
  const auto hx = random_values<float>(n, jet::test::fresh_seed() + 900);
  const jet::array<float> x = jet::from_host(hx);
  {  // the float32 interpreter loaded (async compiles what it cannot interpret yet)
    policy_scope interpret(jit_policy::interpret);
    jet::array<float> warm(n);
    warm = x + 1.f;
  }
  // An expression no other test evaluates, so its kernel is not in memory yet; nor on disk (a
  // kernel stored there by an earlier run would be loaded at once). Its repeat holds: the
  // interpreter and the background compile both compute it once.
  const auto e =
      jet::tanh(x * 0.3711f) - jet::sqrt(jet::abs(x)) * 1.0625f + x * x * 0.125f + jet::tanh(x * 0.3711f) * 0.5f;
  const jet::test::restore_disk_cache restore;
  jet::set_disk_cache(false);
  jet::array<float> first(n);
  const jet::statistics before = jet::stats();
  first = e;
  const jet::statistics after_first = jet::stats();
  CHECK(after_first.interpreted - before.interpreted == 1);  // the background compile takes milliseconds
  const std::vector<float> expected = first.to_host();
  // Evaluate until the compiled kernel takes over (the background compile finishes), at most 60 s.
  const auto start = std::chrono::steady_clock::now();
  bool switched = false;
  while (!switched && std::chrono::steady_clock::now() - start < std::chrono::seconds(60)) {
    const std::uint64_t interpreted = jet::stats().interpreted;
    jet::array<float> again(n);
    again = e;
    switched = jet::stats().interpreted == interpreted;
    const std::vector<float> got = again.to_host();
    CHECK(std::memcmp(got.data(), expected.data(), n * sizeof(float)) == 0);
  }
  REQUIRE(switched);
  CHECK(jet::stats().background_failures == before.background_failures);
  // From now on: the compiled kernel, from the expression's slot.
  const jet::statistics ready = jet::stats();
  jet::array<float> last(n);
  last = e;
  CHECK(jet::stats().interpreted == ready.interpreted);
  CHECK(jet::stats().memory_hits - ready.memory_hits == 1);
  CHECK(std::memcmp(last.to_host().data(), expected.data(), n * sizeof(float)) == 0);
}

TEST_CASE("interpreter: the interpret policy never compiles what it can interpret", "[gpu][interpreter]") {
  policy_scope scope(jit_policy::interpret);
  constexpr std::size_t n = 5000;
  const jet::array<double> x = jet::from_host(random_values<double>(n, jet::test::fresh_seed() + 1000));
  jet::array<double> warm(n);
  warm = x + 1.0;  // loads the float64 interpreter (compiled or from the disk cache) if need be
  const jet::statistics before = jet::stats();
  for (int k = 0; k < 3; ++k) {
    jet::array<double> y(n);
    y = jet::exp(x * -0.25) + jet::cos(x) * 3.0;  // never compiled anywhere in this process
  }
  const jet::statistics after = jet::stats();
  CHECK(after.compiles == before.compiles);
  CHECK(after.disk_hits == before.disk_hits);
  CHECK(after.interpreted - before.interpreted == 3);
  CHECK(after.launches - before.launches == 3);
}
