// Printing: `std::cout << a` writes an array's (or view's) values, shape and dtype as NumPy's repr
// writes an array, followed by its shape and dtype:
//   array([[0., 1., 2.],
//          [3., 4., 5.]], shape=(2, 3), dtype=float32)
// The text is made by a plain function over host bytes (src/print/), so it is the same with or
// without a device.
#pragma once

#include <jet/array.hpp>
#include <jet/dtype.hpp>
#include <jet/shape.hpp>

#include <memory>
#include <ostream>
#include <string>
#include <type_traits>
#include <vector>

namespace jet {

namespace detail {
/// The text of an array of shape s and dtype `type` whose elements lie at `host` in C order (a
/// bool as one byte): NumPy's repr with its defaults (precision 8 and each float in the fewest
/// digits that read back as it in its dtype; scientific where the values span too much; rows
/// wrapped at 75 columns; past 1000 elements, 3 at each edge of every axis and "..." between),
/// then "shape=(...), dtype=...)". Bools are `true` and `false`.
std::string format_array(const void* host, dtype type, const jet::shape& s);

/// format_array of a view's elements, copied to the host (after the work queued on jet's stream).
template <class T> std::string format_view(const view<T>& v) {
  const std::vector<T> host = v.to_host();
  if constexpr (std::is_same_v<T, bool>) {  // std::vector<bool> packs bits
    const std::unique_ptr<bool[]> bytes(new bool[host.size()]);
    for (std::size_t k = 0; k < host.size(); ++k) bytes[k] = host[k];
    return format_array(bytes.get(), dtype_of<T>(), v.shape());
  } else {
    return format_array(host.data(), dtype_of<T>(), v.shape());
  }
}
}  // namespace detail

/// The text `std::cout << a` writes (see detail::format_array). Copies the whole array to the
/// host, waiting for the work queued on jet's current stream.
template <class T> std::string to_string(const view<T>& v) { return detail::format_view(v); }
template <class T> std::string to_string(const array<T>& a) {
  return detail::format_view(view<T>(const_cast<T*>(a.data()), a.layout()));
}

template <class T> std::ostream& operator<<(std::ostream& out, const view<T>& v) { return out << to_string(v); }
template <class T> std::ostream& operator<<(std::ostream& out, const array<T>& a) { return out << to_string(a); }

}  // namespace jet
