// Device arrays: jet::array owns device memory, jet::view wraps memory that other code owns.
// Assigning an expression to either evaluates it in one kernel.
#pragma once

#include <jet/error.hpp>
#include <jet/expr.hpp>
#include <jet/runtime.hpp>

#include <algorithm>
#include <cstddef>
#include <memory>
#include <span>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace jet {

namespace detail {
/// n elements from the device into a vector. std::vector<bool> packs bits, so bools are copied
/// as bytes first.
template <class T> std::vector<T> download(const T* device, std::size_t n) {
  if constexpr (std::is_same_v<T, bool>) {
    const std::unique_ptr<bool[]> bytes(new bool[n]);
    copy_to_host(bytes.get(), device, n);
    return std::vector<bool>(bytes.get(), bytes.get() + n);
  } else {
    std::vector<T> h(n);
    copy_to_host(h.data(), device, n * sizeof(T));
    return h;
  }
}
}  // namespace detail

/// A 1-D array on the device, owning its memory. Move-only: copies are explicit (clone()).
template <class T> class array {
  static_assert(is_element_type_v<T>, "jet::array: unsupported element type");

 public:
  using value_type = T;

  array() = default;
  /// n elements, uninitialized.
  explicit array(std::size_t n) : data_(static_cast<T*>(detail::device_alloc(n * sizeof(T)))), size_(n) {}
  /// Evaluates e into a new array of e's size.
  template <expression E> array(const E& e) {
    detail::bound<T, E> b(e);
    array fresh(b.size());
    b.evaluate_into(fresh.data_, fresh.size_);
    *this = std::move(fresh);
  }
  array(array&& o) noexcept : data_(std::exchange(o.data_, nullptr)), size_(std::exchange(o.size_, 0)) {}
  array& operator=(array&& o) noexcept {
    std::swap(data_, o.data_);
    std::swap(size_, o.size_);
    return *this;
  }
  array(const array&) = delete;             // copies are explicit: clone()
  array& operator=(const array&) = delete;  // copies are explicit: a = b.clone()
  ~array() { detail::device_free(data_); }

  /// Evaluates e into this array; when e has another size the array is reallocated, as
  /// std::vector's assignment would. `x = x + y` reads and writes x in place.
  template <expression E> array& operator=(const E& e) {
    detail::bound<T, E> b(e);
    if (b.size() == size_) {
      b.evaluate_into(data_, size_);
    } else {
      array fresh(b.size());
      b.evaluate_into(fresh.data_, fresh.size_);
      *this = std::move(fresh);
    }
    return *this;
  }
  /// Evaluates the view's elements into this array (an explicit copy of foreign memory).
  array& operator=(const view<T>& v) { return *this = terminal<T>{v.data(), v.size()}; }

  std::size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  static constexpr jet::dtype dtype() { return dtype_of<T>(); }
  /// The device pointer.
  T* data() { return data_; }
  const T* data() const { return data_; }

  array clone() const {
    array c(size_);
    detail::copy_on_device(c.data_, data_, size_ * sizeof(T));
    return c;
  }
  std::vector<T> to_host() const { return detail::download(data_, size_); }

 private:
  T* data_ = nullptr;
  std::size_t size_ = 0;
};

/// A non-owning 1-D view of device memory that other code allocated (a PyTorch tensor, a cudaMalloc
/// buffer). Assigning to a view writes the memory it views; the view never frees it.
template <class T> class view {
  static_assert(is_element_type_v<T>, "jet::view: unsupported element type");

 public:
  using value_type = T;

  view(T* device_pointer, std::size_t n) : data_(device_pointer), size_(n) {
    if (device_pointer == nullptr && n != 0)
      throw invalid_argument("jet::view: null device pointer with " + std::to_string(n) + " elements");
  }
  view(array<T>& a) : data_(a.data()), size_(a.size()) {}  // NOLINT: an array is viewable as is
  view(const view&) = default;

  /// Evaluates e into the viewed memory; sizes must agree.
  template <expression E> view& operator=(const E& e) {
    detail::bound<T, E>(e).evaluate_into(data_, size_);
    return *this;
  }
  /// Copies the elements of another view (a view is a reference to memory, like Eigen's Map).
  view& operator=(const view& o) { return *this = terminal<T>{o.data(), o.size()}; }
  view& operator=(const array<T>& a) { return *this = terminal<T>{a.data(), a.size()}; }

  std::size_t size() const { return size_; }
  static constexpr jet::dtype dtype() { return dtype_of<T>(); }
  T* data() const { return data_; }
  std::vector<T> to_host() const { return detail::download(data_, size_); }

 private:
  T* data_;
  std::size_t size_;
};

/// Copies host data into a new device array.
template <class T> array<T> from_host(std::span<const T> host) {
  array<T> a(host.size());
  detail::copy_to_device(a.data(), host.data(), host.size_bytes());
  return a;
}
template <class T> array<T> from_host(const std::vector<T>& host) { return from_host(std::span<const T>(host)); }
/// std::vector<bool> packs bits: its elements are copied out as bools first.
inline array<bool> from_host(const std::vector<bool>& host) {
  const std::unique_ptr<bool[]> bytes(new bool[host.size()]);
  std::copy(host.begin(), host.end(), bytes.get());
  return from_host(std::span<const bool>(bytes.get(), host.size()));
}

/// Evaluates an expression into a new array of the expression's dtype (array<bool> for a
/// comparison).
template <expression E> auto eval(const E& e) { return array<cpp_type<std::remove_cvref_t<E>::type>>(e); }

}  // namespace jet
