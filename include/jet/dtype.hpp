// Element types: the C++ type, the CUDA spelling, the size, and the promotion rules.
#pragma once

#include <cstdint>
#include <string_view>
#include <type_traits>

namespace jet {

/// The element types jet computes with. `boolean` is the type of comparisons; arrays of it arrive
/// with the wider dtype set.
enum class dtype : std::uint8_t { boolean, int32, int64, float32, float64 };

/// The dtype of a C++ element type; `void` for types jet does not store.
template <class T> inline constexpr bool is_element_type_v =
    std::is_same_v<T, float> || std::is_same_v<T, double> || std::is_same_v<T, std::int32_t> ||
    std::is_same_v<T, std::int64_t>;

template <class T> constexpr dtype dtype_of() {
  static_assert(is_element_type_v<T> || std::is_same_v<T, bool>,
                "jet: unsupported element type (use float, double, int32_t, int64_t)");
  if constexpr (std::is_same_v<T, bool>) return dtype::boolean;
  else if constexpr (std::is_same_v<T, std::int32_t>) return dtype::int32;
  else if constexpr (std::is_same_v<T, std::int64_t>) return dtype::int64;
  else if constexpr (std::is_same_v<T, float>) return dtype::float32;
  else return dtype::float64;
}

/// The dtype a C++ scalar literal takes in an expression: `2` is int32, `2L` int64, `2.f` float32.
template <class T> constexpr dtype scalar_dtype_of() {
  static_assert(std::is_arithmetic_v<T>, "jet: a scalar operand must be an arithmetic type");
  static_assert(std::is_same_v<T, bool> || std::is_floating_point_v<T> || std::is_signed_v<T>,
                "jet: unsigned scalars are not supported yet; cast to a signed type");
  if constexpr (std::is_same_v<T, bool>) return dtype::boolean;
  else if constexpr (std::is_floating_point_v<T>) return sizeof(T) <= 4 ? dtype::float32 : dtype::float64;
  else return sizeof(T) <= 4 ? dtype::int32 : dtype::int64;
}

namespace detail {
template <dtype D> struct cpp_type_of;
template <> struct cpp_type_of<dtype::boolean> { using type = bool; };
template <> struct cpp_type_of<dtype::int32> { using type = std::int32_t; };
template <> struct cpp_type_of<dtype::int64> { using type = std::int64_t; };
template <> struct cpp_type_of<dtype::float32> { using type = float; };
template <> struct cpp_type_of<dtype::float64> { using type = double; };
}  // namespace detail

/// The C++ type that stores elements of dtype D.
template <dtype D> using cpp_type = typename detail::cpp_type_of<D>::type;

constexpr std::string_view name(dtype d) {
  constexpr std::string_view names[] = {"bool", "int32", "int64", "float32", "float64"};
  return names[static_cast<int>(d)];
}
constexpr std::string_view cuda_name(dtype d) {
  constexpr std::string_view names[] = {"bool", "int", "long long", "float", "double"};
  return names[static_cast<int>(d)];
}
constexpr int size_of(dtype d) {
  constexpr int sizes[] = {1, 4, 8, 4, 8};
  return sizes[static_cast<int>(d)];
}
constexpr bool is_floating(dtype d) { return d == dtype::float32 || d == dtype::float64; }

/// Promotion of two operands (see README, "Promotion"): the higher category wins
/// (bool < integer < floating), then the wider type. A *weak* operand (a C++ scalar such as `2` or
/// `0.5`) only decides the type when its category is higher than the other operand's, so
/// `float_array * 2.0` stays float32 while `int_array * 0.5` becomes float64.
constexpr dtype promote(dtype a, bool a_weak, dtype b, bool b_weak) {
  auto category = [](dtype d) { return d == dtype::boolean ? 0 : is_floating(d) ? 2 : 1; };
  if (a_weak != b_weak) {
    const dtype strong = a_weak ? b : a, weak = a_weak ? a : b;
    return category(weak) > category(strong) ? weak : strong;
  }
  if (category(a) != category(b)) return category(a) > category(b) ? a : b;
  return size_of(a) >= size_of(b) ? a : b;
}

/// The floating type an op computes in for an operand of type d: integers and bool compute in
/// float64, as `std::exp(int)` does in C++.
constexpr dtype to_floating(dtype d) { return is_floating(d) ? d : dtype::float64; }

/// Arithmetic never stays in bool: `true + true` is 2, as in C++.
constexpr dtype to_arithmetic(dtype d) { return d == dtype::boolean ? dtype::int32 : d; }

}  // namespace jet
