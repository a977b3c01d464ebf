// Element types: the C++ type, the CUDA spelling, the size, and the promotion rules.
#pragma once

#include <jet/half.hpp>

#include <array>
#include <complex>
#include <cstddef>
#include <cstdint>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <utility>

namespace jet {

/// The element types jet stores and computes with, narrowest first within each kind.
enum class dtype : std::uint8_t {
  boolean,
  int8,
  uint8,
  int16,
  int32,
  uint32,
  int64,
  uint64,
  float16,
  bfloat16,
  float32,
  float64,
  complex64,
  complex128
};

namespace detail {

/// The C++ type of each dtype, in the enum's order.
using element_types =
    std::tuple<bool, std::int8_t, std::uint8_t, std::int16_t, std::int32_t, std::uint32_t, std::int64_t, std::uint64_t,
               float16, bfloat16, float, double, std::complex<float>, std::complex<double>>;
inline constexpr std::size_t dtype_count = std::tuple_size_v<element_types>;
static_assert(static_cast<std::size_t>(dtype::complex128) + 1 == dtype_count, "jet: one C++ type per dtype");

/// Names, in the enum's order. The CUDA name is the type a kernel stores the element as; 16-bit
/// floats are stored as their bits and computed in float32 (compute_type); a complex number is
/// jet_complex, two components real part first (std::complex's and C's layout), which every
/// kernel with a complex value defines.
struct dtype_names {
  std::string_view name, cuda_name;
};
inline constexpr dtype_names name_table[] = {
    {"bool", "bool"},
    {"int8", "signed char"},
    {"uint8", "unsigned char"},
    {"int16", "short"},
    {"int32", "int"},
    {"uint32", "unsigned int"},
    {"int64", "long long"},
    {"uint64", "unsigned long long"},
    {"float16", "unsigned short"},
    {"bfloat16", "unsigned short"},
    {"float32", "float"},
    {"float64", "double"},
    {"complex64", "jet_complex<float>"},
    {"complex128", "jet_complex<double>"},
};
static_assert(std::size(name_table) == dtype_count, "jet: names for every dtype");

/// The promotion categories, lowest first.
enum class category : std::uint8_t { boolean, integer, floating, complex };

/// What promotion and code generation need to know of a dtype, read off its C++ type.
struct dtype_traits {
  int size;
  category kind;
  bool is_signed;
};
template <class T> struct is_complex_type : std::false_type {};
template <class T> struct is_complex_type<std::complex<T>> : std::true_type {};
template <class T> constexpr dtype_traits traits_of_type() {
  const category kind = std::is_same_v<T, bool>     ? category::boolean
                        : std::is_integral_v<T>     ? category::integer
                        : is_complex_type<T>::value ? category::complex
                                                    : category::floating;
  return {static_cast<int>(sizeof(T)), kind, std::is_signed_v<T>};
}
template <std::size_t... I> constexpr auto traits_of_types(std::index_sequence<I...>) {
  return std::array<dtype_traits, dtype_count>{traits_of_type<std::tuple_element_t<I, element_types>>()...};
}
inline constexpr auto traits_table = traits_of_types(std::make_index_sequence<dtype_count>{});

template <class T, std::size_t... I> constexpr int index_among_types(std::index_sequence<I...>) {
  int index = -1;
  ((std::is_same_v<T, std::tuple_element_t<I, element_types>> ? index = static_cast<int>(I) : 0), ...);
  return index;
}
template <class T> inline constexpr int element_index = index_among_types<T>(std::make_index_sequence<dtype_count>{});

constexpr const dtype_traits& traits_of(dtype d) { return traits_table[static_cast<std::size_t>(d)]; }

/// The signed integer of `size` bytes; float64 when there is none that wide.
constexpr dtype signed_integer_of_size(int size) {
  for (std::size_t d = 0; d < dtype_count; ++d)
    if (traits_table[d].kind == category::integer && traits_table[d].is_signed && traits_table[d].size == size)
      return static_cast<dtype>(d);
  return dtype::float64;
}

}  // namespace detail

/// Whether jet stores elements of C++ type T (jet::array<T>, jet::view<T>).
template <class T> inline constexpr bool is_element_type_v = detail::element_index<T> >= 0;

/// The dtype of a C++ element type.
template <class T> constexpr dtype dtype_of() {
  static_assert(is_element_type_v<T>,
                "jet: unsupported element type (use bool, int8_t .. uint64_t, jet::float16, "
                "jet::bfloat16, float, double, std::complex<float>, std::complex<double>)");
  return static_cast<dtype>(detail::element_index<T>);
}

/// The C++ type that stores elements of dtype D.
template <dtype D> using cpp_type = std::tuple_element_t<static_cast<std::size_t>(D), detail::element_types>;

namespace detail {
/// f(T{}) with T the C++ type of dtype t, or with Computed the type it computes in (float for a
/// 16-bit float, so that f is never instantiated for the 16-bit types): the one switch over dtypes.
template <bool Computed, class F> constexpr decltype(auto) visit(dtype t, F&& f) {
  switch (t) {
    case dtype::boolean: return f(bool{});
    case dtype::int8: return f(std::int8_t{});
    case dtype::uint8: return f(std::uint8_t{});
    case dtype::int16: return f(std::int16_t{});
    case dtype::int32: return f(std::int32_t{});
    case dtype::uint32: return f(std::uint32_t{});
    case dtype::int64: return f(std::int64_t{});
    case dtype::uint64: return f(std::uint64_t{});
    case dtype::float16:
      if constexpr (Computed)
        return f(float{});
      else
        return f(float16{});
    case dtype::bfloat16:
      if constexpr (Computed)
        return f(float{});
      else
        return f(bfloat16{});
    case dtype::float32: return f(float{});
    case dtype::float64: return f(double{});
    case dtype::complex64: return f(std::complex<float>{});
    case dtype::complex128: break;
  }
  return f(std::complex<double>{});
}

/// f(T{}) with T the C++ type that stores elements of dtype t (cpp_type<t>).
template <class F> constexpr decltype(auto) visit_dtype(dtype t, F&& f) { return visit<false>(t, f); }

/// f(T{}) with T the C++ type that elements of dtype t compute in (compute_type).
template <class F> constexpr decltype(auto) visit_compute_type(dtype t, F&& f) { return visit<true>(t, f); }
}  // namespace detail

constexpr std::string_view name(dtype d) { return detail::name_table[static_cast<std::size_t>(d)].name; }
constexpr std::string_view cuda_name(dtype d) { return detail::name_table[static_cast<std::size_t>(d)].cuda_name; }
constexpr int size_of(dtype d) { return detail::traits_of(d).size; }
/// Whether d is a real floating type (float16 .. float64); complex ones are is_complex.
constexpr bool is_floating(dtype d) { return detail::traits_of(d).kind == detail::category::floating; }
constexpr bool is_complex(dtype d) { return detail::traits_of(d).kind == detail::category::complex; }
/// Floating or complex: NumPy's inexact types, where a value need not be a whole number.
constexpr bool is_inexact(dtype d) { return is_floating(d) || is_complex(d); }
/// Bool or an integer.
constexpr bool is_integral(dtype d) { return !is_inexact(d); }

/// The dtype of a complex dtype's parts (float32 for complex64); any other dtype is its own.
constexpr dtype real_type(dtype d) {
  if (d == dtype::complex64) return dtype::float32;
  return d == dtype::complex128 ? dtype::float64 : d;
}
/// The complex dtype whose parts hold a value of dtype d: complex64 for float32 and narrower
/// floats and for bool, complex128 for float64 and for every integer (NumPy's); a complex one is
/// its own.
constexpr dtype complex_type(dtype d) {
  if (is_complex(d)) return d;
  return d == dtype::boolean || (is_floating(d) && size_of(d) <= 4) ? dtype::complex64 : dtype::complex128;
}

/// The dtype an element is computed in inside a kernel: 16-bit floats are loaded into float32,
/// computed there and rounded back (to nearest even) only when stored; every other dtype computes
/// in itself.
constexpr dtype compute_type(dtype d) { return is_floating(d) && size_of(d) == 2 ? dtype::float32 : d; }

/// The dtype a C++ scalar takes in an expression: `2` is int32, `2L` int64, `2u` uint32, `2.f`
/// float32, `std::complex<float>` complex64. Integers narrower than int are promoted as C++ promotes them (a `short` is an int32).
template <class T> constexpr dtype scalar_dtype_of() {
  static_assert(
      std::is_arithmetic_v<T> || std::is_same_v<T, std::complex<float>> || std::is_same_v<T, std::complex<double>>,
      "jet: a scalar operand must be an arithmetic type, std::complex<float> or std::complex<double>");
  if constexpr (detail::is_complex_type<T>::value)
    return dtype_of<T>();
  else if constexpr (std::is_same_v<T, bool>)
    return dtype::boolean;
  else if constexpr (std::is_floating_point_v<T>)
    return sizeof(T) <= 4 ? dtype::float32 : dtype::float64;
  else {
    using promoted = decltype(+T{});
    if constexpr (std::is_signed_v<promoted>)
      return sizeof(promoted) == 4 ? dtype::int32 : dtype::int64;
    else
      return sizeof(promoted) == 4 ? dtype::uint32 : dtype::uint64;
  }
}

/// Promotion of two arrays (see README, "Promotion"): the higher category wins (bool < integer <
/// floating < complex) and keeps its type, so int64 + float16 is float16. Within a category the
/// wider type wins, with two exceptions: float16 + bfloat16 is float32, and a signed with an
/// unsigned integer is the narrowest signed type holding both (uint8 + int8 is int16, uint32 +
/// int32 is int64); no signed type holds uint64 and a negative value, so uint64 + a signed integer
/// is float64, as in NumPy. A complex type widens to hold the other operand, as NumPy's: float64
/// or an integer with complex64 is complex128.
constexpr dtype promote(dtype a, dtype b) {
  const detail::dtype_traits &ta = detail::traits_of(a), &tb = detail::traits_of(b);
  if (a == b) return a;
  if (is_complex(a) || is_complex(b)) {
    const dtype c = is_complex(a) ? a : b, other = is_complex(a) ? b : a;
    if (is_complex(other)) return size_of(a) > size_of(b) ? a : b;
    if (other == dtype::boolean) return c;
    return is_floating(other) ? complex_type(promote(real_type(c), other)) : dtype::complex128;
  }
  if (ta.kind != tb.kind) return ta.kind > tb.kind ? a : b;
  if (ta.kind == detail::category::floating && ta.size == tb.size) return dtype::float32;
  if (ta.kind == detail::category::floating || ta.is_signed == tb.is_signed) return ta.size > tb.size ? a : b;
  const dtype signed_one = ta.is_signed ? a : b, unsigned_one = ta.is_signed ? b : a;
  if (size_of(signed_one) > size_of(unsigned_one)) return signed_one;
  return detail::signed_integer_of_size(2 * size_of(unsigned_one));
}

/// Promotion of two operands of which some may be *weak* (a C++ scalar such as `2` or `0.5`): a
/// weak operand only decides the type when its category is higher than the other operand's, so
/// `float16_array * 2.0` stays float16, `int8_array + 1` stays int8, and `int32_array * 0.5`
/// becomes float64; a complex scalar with a floating array takes the array's precision
/// (`float32_array * std::complex<double>(0, 1)` is complex64), as NumPy's.
constexpr dtype promote(dtype a, bool a_weak, dtype b, bool b_weak) {
  if (a_weak == b_weak) return promote(a, b);
  const dtype strong = a_weak ? b : a, weak = a_weak ? a : b;
  if (is_complex(weak) && is_floating(strong)) return complex_type(strong);  // float32 * 1i is complex64
  return detail::traits_of(weak).kind > detail::traits_of(strong).kind ? weak : strong;
}

/// The floating type an op computes in for an operand of type d: integers and bool compute in
/// float64, as `std::exp(int)` does in C++.
constexpr dtype to_floating(dtype d) { return is_inexact(d) ? d : dtype::float64; }

/// Arithmetic never stays in bool: `true + true` is 2, as in C++.
constexpr dtype to_arithmetic(dtype d) { return d == dtype::boolean ? dtype::int32 : d; }

}  // namespace jet
