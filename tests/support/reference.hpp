// The independent host reference: evaluates an expression element by element with the op table's
// host functions (std:: math), floating nodes in float64 (16-bit ones too: the kernel computes them
// in float32 and rounds only on store, which the tolerance covers) and integer nodes in their own
// C++ type. It shares nothing with the CUDA spelling or the code generator.
#pragma once

#include <jet/jet.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <limits>
#include <map>
#include <random>
#include <stdexcept>
#include <thread>
#include <tuple>
#include <utility>
#include <vector>

namespace jet::test {

/// Host copies of the device operands, found by device pointer.
class host_inputs {
 public:
  /// The host copy of a whole device allocation starting at `device`. Kept as double: exact for
  /// every float and for the integers tests use (|v| < 2^53).
  template <class T> void add(const T* device, const std::vector<T>& host) {
    auto& a = allocations_[reinterpret_cast<std::uintptr_t>(device)];
    a.values.assign(host.begin(), host.end());
    a.element = sizeof(T);
  }
  /// Element `offset` (in elements) from `device`, which may point anywhere inside an allocation
  /// that add() recorded (a view's first element).
  long double at(const void* device, std::int64_t offset) const {
    const auto p = reinterpret_cast<std::uintptr_t>(device);
    auto it = allocations_.upper_bound(p);
    if (it == allocations_.begin()) throw std::out_of_range("host_inputs: unknown device pointer");
    --it;
    const std::int64_t index = static_cast<std::int64_t>((p - it->first) / it->second.element) + offset;
    return it->second.values.at(static_cast<std::size_t>(index));
  }
  /// A new device array of the host values, which are kept.
  template <class T> jet::array<T> upload(const std::vector<T>& host) {
    jet::array<T> a = jet::from_host(host);
    add(a.data(), host);
    return a;
  }

 private:
  struct allocation {
    std::vector<double> values;
    std::size_t element;
  };
  std::map<std::uintptr_t, allocation> allocations_;
};

/// The real dtypes, bool to float64: the ones this file's references (and the fuzzer's host
/// evaluation, which holds values as long double) compute; complex ones have tests of their own.
inline constexpr std::size_t real_dtype_count = static_cast<std::size_t>(jet::dtype::complex64);

/// Whether ops of rule r make complex values of real operands (make_complex, polar): the sweeps
/// and the fuzzer, which compute real references, leave them to the complex tests.
constexpr bool makes_complex(jet::detail::rule r) { return r == jet::detail::rule::make_complex; }

/// f(T{}) for the C++ type T of each real dtype, in the enum's order: a table to index by dtype.
template <class F> auto per_dtype(F f) {
  return [&]<std::size_t... I>(std::index_sequence<I...>) {
    return std::array{f(std::tuple_element_t<I, jet::detail::element_types>{})...};
  }
  (std::make_index_sequence<real_dtype_count>{});
}

/// f(T{}) with T the C++ type of real dtype t (Computed: the type it computes in, float for a
/// 16-bit float), as jet::detail::visit; logic_error for a complex dtype.
template <bool Computed = false, class F> decltype(auto) visit_real(jet::dtype t, F&& f) {
  using R = decltype(f(float{}));
  return jet::detail::visit<Computed>(t, [&](auto x) -> R {
    if constexpr (jet::detail::is_complex_type<decltype(x)>::value)
      throw std::logic_error("a complex dtype where a real one was expected");
    else
      return f(x);
  });
}

/// Where element i (in C order) of an index space of shape `space` is in an operand of layout l,
/// broadcast as NumPy does; `space` null means the operand's own shape.
inline std::int64_t offset_of(const jet::detail::layout& l, std::size_t i, const jet::shape* space) {
  const jet::shape& s = space ? *space : l.extents;
  std::int64_t offset = 0;
  const int shift = s.rank() - l.extents.rank();
  for (int d = s.rank() - 1; d >= 0; --d) {
    const auto extent = static_cast<std::size_t>(s[d]);
    const std::size_t index = i % extent;
    i /= extent;
    if (d >= shift && l.extents[d - shift] != 1) offset += static_cast<std::int64_t>(index) * l.strides[d - shift];
  }
  return offset;
}

/// Whether Op's reference computes in its operands' own floating dtype rather than float64: an op
/// of the wide_floating domain steps by its dtype's own ulps (nextafter, spacing).
template <class Op> constexpr bool computes_in_own_dtype = Op::domain == detail::domain::wide_floating;

// A value converted to the type an op computes in: float64 for floating types (or, own_precision,
// the dtype itself), the exact C++ type for integers and bool.
template <dtype D, bool own_precision = false> auto as_operand(long double v) {
  if constexpr (is_floating(D) && own_precision)
    return static_cast<cpp_type<D>>(v);
  else if constexpr (is_floating(D))
    return static_cast<double>(v);
  else if constexpr (D == dtype::boolean)
    return v != 0;
  else
    return static_cast<cpp_type<D>>(v);
}

/// The value of element i (C order) of expression e over the index space `space` (null: the
/// operands' own 1-D indexing).
template <class T>
long double reference(const terminal<T>& t, std::size_t i, const host_inputs& h, const jet::shape* space = nullptr) {
  return h.at(t.data(), offset_of(t.layout(), i, space));
}
template <class T>  // and owning_terminal
long double reference(const array_terminal<T>& t, std::size_t i, const host_inputs& h,
                      const jet::shape* space = nullptr) {
  return h.at(t.data(), offset_of(t.layout(), i, space));
}
inline long double reference(const counter& c, std::size_t i, const host_inputs&, const jet::shape* space = nullptr) {
  return static_cast<long double>(offset_of(c.layout, i, space));
}
template <class T>
long double reference(const scalar<T>& s, std::size_t, const host_inputs&, const jet::shape* = nullptr) {
  return s.value;
}

/// The operands of an inner node in their order, as a tuple of references.
template <class Op, class... Args> auto tied(const apply<Op, Args...>& e) {
  if constexpr (sizeof...(Args) == 1)
    return std::tie(e.first);
  else if constexpr (sizeof...(Args) == 2)
    return std::tie(e.first, e.second);
  else
    return std::tie(e.first, e.second, e.third);
}

template <class Op, class... Args> long double reference(const apply<Op, Args...>& e, std::size_t i,
                                                         const host_inputs& h, const jet::shape* space = nullptr) {
  using node = apply<Op, Args...>;
  return std::apply(
      [&](const auto&... a) {
        return [&]<std::size_t... K>(std::index_sequence<K...>) {
          const auto r = Op::reference(
              as_operand<node::tree.shape.arg_type[K], computes_in_own_dtype<Op>>(reference(a, i, h, space))...);
          // The conversion to the node's own type, as the kernel does: integers wrap, floating values
          // saturate into integers, bool is 0/1, and a cast to a 16-bit float rounds (through float32)
          // where other floating nodes do not.
          using T = cpp_type<node::type>;
          if constexpr (Op::id == detail::op_id::cast && compute_type(node::type) != node::type)
            return static_cast<long double>(static_cast<float>(T(static_cast<float>(r))));
          else if constexpr (is_floating(node::type))
            return static_cast<long double>(static_cast<double>(r));
          else
            return static_cast<long double>(jet::host::convert<T>(r));
        }
        (std::index_sequence_for<Args...>{});
      },
      tied(e));
}

/// Runs f(i) for i in [0, n) on every core, at least `grain` indices per thread.
template <class F> void parallel_for(std::size_t n, F f, std::size_t grain = 1) {
  const unsigned workers = std::max<unsigned>(1, std::min<std::size_t>(std::thread::hardware_concurrency(), n / grain));
  std::vector<std::thread> pool;
  for (unsigned w = 0; w < workers; ++w)
    pool.emplace_back([=] {
      for (std::size_t i = n * w / workers; i < n * (w + 1) / workers; ++i) f(i);
    });
  for (auto& t : pool) t.join();
}

/// Uniform random values in [lo, hi) (integers and bool: [lo, hi]), reproducible from the seed;
/// filled in parallel chunks of 2^20, each with its own engine.
template <class T> std::vector<T> random_vector(std::size_t n, double lo, double hi, std::uint64_t seed) {
  if constexpr (std::is_same_v<T, bool>) {  // std::vector<bool> packs bits: no parallel writes
    const std::vector<std::uint8_t> bytes = random_vector<std::uint8_t>(n, lo, hi, seed);
    return std::vector<bool>(bytes.begin(), bytes.end());
  } else {
    std::vector<T> v(n);
    constexpr std::size_t chunk = 1 << 20;
    parallel_for((n + chunk - 1) / chunk, [&](std::size_t c) {
      std::mt19937_64 engine(seed * 0x9E3779B97F4A7C15ull + c);
      const std::size_t end = std::min(n, (c + 1) * chunk);
      if constexpr (is_floating(dtype_of<T>())) {
        std::uniform_real_distribution<double> d(lo, hi);
        for (std::size_t i = c * chunk; i < end; ++i) v[i] = static_cast<T>(d(engine));
      } else {
        std::uniform_int_distribution<std::int64_t> d(static_cast<std::int64_t>(lo), static_cast<std::int64_t>(hi));
        for (std::size_t i = c * chunk; i < end; ++i) v[i] = static_cast<T>(d(engine));
      }
    });
    return v;
  }
}

/// A value no correct kernel writes: outputs are filled with it before each evaluation.
template <class T> T poison() {
  if constexpr (sizeof(T) == 2 && is_floating(dtype_of<T>()))
    return T(-7777.f);  // within float16's range
  else if constexpr (is_floating(dtype_of<T>()))
    return static_cast<T>(-7.77e30);
  else
    return static_cast<T>(-777777);
}

/// Whether a device result matches the float64 reference: NaN where the reference is NaN, equal
/// infinities, otherwise within atol + rtol·|ref|.
inline bool close(long double got, long double ref, double rtol, double atol) {
  if (std::isnan(ref)) return std::isnan(got);
  if (std::isinf(ref)) return got == ref;
  return std::fabs(got - ref) <= atol + rtol * std::fabs(ref);
}

/// The tolerance for a result of dtype T: float32 math functions are within a few ulp of the
/// correctly rounded value; a 16-bit result is that float32 value rounded once, within half an
/// ulp, so its epsilon (2^-10 for float16, 2^-7 for bfloat16) leaves a factor of two; integers and
/// bool are exact.
template <class T> constexpr double rtol() {
  if constexpr (std::is_same_v<T, float>)
    return 4e-6;
  else if constexpr (std::is_same_v<T, double>)
    return 1e-13;
  else if constexpr (is_floating(dtype_of<T>()))
    return static_cast<float>(std::numeric_limits<T>::epsilon());
  else
    return 0;
}

}  // namespace jet::test
