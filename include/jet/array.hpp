// Device arrays: jet::array owns N-D device memory (C order), jet::view is a strided window on
// memory that an array or other code owns. Assigning an expression to either evaluates it in one
// kernel; several at once with jet::tie(a, b) = jet::tuple(e1, e2).
#pragma once

#include <jet/error.hpp>
#include <jet/expr.hpp>
#include <jet/detail/core.hpp>
#include <jet/shape.hpp>

#include <algorithm>
#include <cstddef>
#include <initializer_list>
#include <memory>
#include <span>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

namespace jet {

namespace detail {
// The strided-view arithmetic behind view's slice/transpose/permute/reshape/broadcast_to; each
// checks its arguments and throws naming them.
layout slice_layout(const layout& l, int dim, std::int64_t start, std::int64_t stop, std::int64_t step,
                    std::int64_t& first_element);
layout permute_layout(const layout& l, std::span<const int> order);
layout reshape_layout(const layout& l, const jet::shape& to);
layout broadcast_layout(const layout& l, const jet::shape& to);

/// The elements of a contiguous array of shape s from the device into a vector.
/// std::vector<bool> packs bits, so bools are copied as bytes first.
template <class T> std::vector<T> download(const T* device, const jet::shape& s) {
  const std::size_t n = s.size(), bytes = bytes_of(s, sizeof(T));
  if constexpr (std::is_same_v<T, bool>) {
    const std::unique_ptr<bool[]> host(new bool[n]);
    copy_to_host(host.get(), device, bytes);
    return std::vector<bool>(host.get(), host.get() + n);
  } else {
    std::vector<T> h(n);
    copy_to_host(h.data(), device, bytes);
    return h;
  }
}
}  // namespace detail

// x += e is x = x + e, evaluated in place; the shape of x never changes.
#define JET_COMPOUND_ASSIGNMENTS(self, target)                                                         \
  template <operand E> self& operator+=(E&& e) { return target = target + std::forward<E>(e), *this; } \
  template <operand E> self& operator-=(E&& e) { return target = target - std::forward<E>(e), *this; } \
  template <operand E> self& operator*=(E&& e) { return target = target * std::forward<E>(e), *this; } \
  template <operand E> self& operator/=(E&& e) { return target = target / std::forward<E>(e), *this; }

/// A strided view of device memory: an array's, or memory that other code allocated (a PyTorch
/// tensor, a cudaMalloc buffer). Assigning to a view writes the memory it views; a view never
/// frees it, but may share in keeping it alive (an `owner`, as jet::from_dlpack gives its views).
/// Copying a view copies the reference; assigning one view to another copies elements, as Eigen's
/// Map does.
template <class T> class view {
  static_assert(is_element_type_v<T>, "jet::view: unsupported element type");

 public:
  using value_type = T;

  /// n contiguous elements.
  view(T* device_pointer, std::size_t n) : view(device_pointer, jet::shape::of_size(n)) {}
  /// A C-contiguous N-D array.
  view(T* device_pointer, const jet::shape& s) : view(device_pointer, detail::layout::contiguous(s)) {}
  /// Any strides, in elements (0 repeats an element; negative walks backwards).
  view(T* device_pointer, const jet::shape& s, std::initializer_list<std::int64_t> strides)
      : view(device_pointer, with_strides(s, strides)) {}
  view(T* device_pointer, const detail::layout& l) : view(device_pointer, l, nullptr) {}
  /// Any layout, keeping `owner` (whatever keeps the memory alive) until the last view of it,
  /// slices included, is gone.
  view(T* device_pointer, const detail::layout& l, std::shared_ptr<const void> owner)
      : data_(device_pointer), layout_(l), owner_(std::move(owner)) {
    l.reach(sizeof(T));  // shape_error when the view's count, or the memory it spans, exceeds jet::size_limit
    if (device_pointer == nullptr && l.extents.size() != 0)
      throw invalid_argument("jet::view: null device pointer with " + std::to_string(l.extents.size()) + " elements");
  }
  view(array<T>& a) : data_(a.data()), layout_(a.layout()) {}  // NOLINT: an array is viewable as is
  view(const view&) = default;

  /// Evaluates e into the viewed memory; e must broadcast to the view's shape.
  template <expression E> view& operator=(const E& e) {
    void* out = data_;
    detail::bound_one<T, E>(e).evaluate_into(&out, &layout_);
    return *this;
  }
  view& operator=(const view& o) { return *this = terminal<T>(o); }
  view& operator=(const array<T>& a) { return *this = array_terminal<T>(a); }
  JET_COMPOUND_ASSIGNMENTS(view, *this)

  const jet::shape& shape() const { return layout_.extents; }
  int rank() const { return layout_.extents.rank(); }
  std::size_t size() const { return layout_.extents.size(); }
  std::int64_t stride(int dim) const { return layout_.strides[dim]; }
  bool is_contiguous() const { return layout_.is_contiguous(); }
  static constexpr jet::dtype dtype() { return dtype_of<T>(); }
  T* data() const { return data_; }
  const detail::layout& layout() const { return layout_; }
  /// What keeps the viewed memory alive, if the view shares in it (else null).
  const std::shared_ptr<const void>& owner() const { return owner_; }

  /// Elements start, start + step, ... before stop along `dim`, as Python's x[start:stop:step]
  /// (negative start/stop count from the end).
  view slice(int dim, std::int64_t start, std::int64_t stop, std::int64_t step = 1) const {
    std::int64_t first = 0;
    detail::layout l = detail::slice_layout(layout_, dim, start, stop, step, first);
    return view(data_ + first, l, owner_);
  }
  /// The dimensions reversed (a matrix's transpose).
  view transpose() const {
    int order[max_rank];
    for (int d = 0; d < rank(); ++d) order[d] = rank() - 1 - d;
    return view(data_, detail::permute_layout(layout_, std::span<const int>(order, rank())), owner_);
  }
  /// Dimension d of the result is dimension order[d] of this view.
  view permute(std::initializer_list<int> order) const {
    return view(data_, detail::permute_layout(layout_, std::span<const int>(order.begin(), order.size())), owner_);
  }
  /// The same elements in another shape; the view must be contiguous.
  view reshape(const jet::shape& s) const { return view(data_, detail::reshape_layout(layout_, s), owner_); }
  /// NumPy's broadcast_to: size-1 and missing leading dimensions repeat (stride 0).
  view broadcast_to(const jet::shape& s) const { return view(data_, detail::broadcast_layout(layout_, s), owner_); }

  /// The real or imaginary parts of a complex view: a real view of the same memory, as NumPy's
  /// .real and .imag (every stride doubled, counted in parts), so that `z.real() = x` writes the
  /// real parts only and leaves the imaginary ones as they were.
  auto real() const requires detail::is_complex_type<T>::value { return parts(0); }
  auto imag() const requires detail::is_complex_type<T>::value { return parts(1); }

  /// The elements in C order (a strided view is gathered on the device first).
  std::vector<T> to_host() const;

 private:
  auto parts(int which) const {
    using part = typename T::value_type;  // std::complex<R> is an array of two R ([complex.numbers])
    detail::layout l = layout_;
    for (int d = 0; d < rank(); ++d)
      l.strides[d] = detail::checked_multiply(l.strides[d], 2, [&] { return "the parts of " + layout_.to_string(); });
    part* first = data_ == nullptr ? nullptr : reinterpret_cast<part*>(data_) + which;
    return jet::view<part>(first, l, owner_);
  }
  static detail::layout with_strides(const jet::shape& s, std::initializer_list<std::int64_t> strides) {
    if (static_cast<int>(strides.size()) != s.rank())
      throw invalid_argument("jet::view: " + std::to_string(strides.size()) + " strides for shape " + s.to_string());
    detail::layout l{s, {}};
    int d = 0;
    for (std::int64_t st : strides) l.strides[d++] = st;
    return l;
  }

  T* data_;
  detail::layout layout_;
  std::shared_ptr<const void> owner_;
};

/// An N-D array on the device in C order, owning its memory. Move-only: copies are explicit
/// (clone()).
template <class T> class array {
  static_assert(is_element_type_v<T>, "jet::array: unsupported element type");

 public:
  using value_type = T;

  array() = default;
  /// n elements, uninitialized.
  explicit array(std::size_t n) : array(jet::shape::of_size(n)) {}
  /// An array of shape s, uninitialized.
  explicit array(const jet::shape& s)
      : data_(static_cast<T*>(detail::device_alloc(detail::bytes_of(s, sizeof(T))))),
        layout_(detail::layout::contiguous(s)) {}
  /// Evaluates e into a new array of e's shape.
  template <expression E> array(const E& e) { *this = e; }
  array(array&& o) noexcept
      : data_(std::exchange(o.data_, nullptr)), layout_(std::exchange(o.layout_, empty_layout())) {}
  array& operator=(array&& o) noexcept {
    std::swap(data_, o.data_);
    std::swap(layout_, o.layout_);
    return *this;
  }
  array(const array&) = delete;                                                   // copies are explicit: clone()
  array& operator=(const array&) = delete;                                        // copies are explicit: a = b.clone()
  ~array() { detail::device_free(data_, detail::bytes_of(shape(), sizeof(T))); }  // checked when allocated

  /// Evaluates e into this array; when e has another shape the array is reallocated, as
  /// std::vector's assignment would. `x = x + y` reads and writes x in place.
  template <expression E> array& operator=(const E& e) {
    detail::bound_one<T, E> b(e);
    const jet::shape s = b.shape();
    array fresh;
    if (!(s == shape())) fresh = array(s);
    array& target = s == shape() ? *this : fresh;
    void* out = target.data_;
    const detail::layout l = target.layout();
    b.evaluate_into(&out, &l);
    if (&target == &fresh) *this = std::move(fresh);
    return *this;
  }
  /// Evaluates the view's elements into this array (an explicit copy).
  array& operator=(const jet::view<T>& v) { return *this = terminal<T>(v); }
  JET_COMPOUND_ASSIGNMENTS(array, jet::view<T>(*this))

  const jet::shape& shape() const { return layout_.extents; }
  int rank() const { return shape().rank(); }
  std::size_t size() const { return shape().size(); }
  bool empty() const { return size() == 0; }
  static constexpr jet::dtype dtype() { return dtype_of<T>(); }
  /// The device pointer.
  T* data() { return data_; }
  const T* data() const { return data_; }
  const detail::layout& layout() const { return layout_; }

  jet::view<T> view() { return jet::view<T>(*this); }
  jet::view<T> slice(int dim, std::int64_t start, std::int64_t stop, std::int64_t step = 1) {
    return view().slice(dim, start, stop, step);
  }
  jet::view<T> transpose() { return view().transpose(); }
  /// A complex array's real or imaginary parts, as view's real() and imag().
  auto real() requires detail::is_complex_type<T>::value { return view().real(); }
  auto imag() requires detail::is_complex_type<T>::value { return view().imag(); }
  jet::view<T> permute(std::initializer_list<int> order) { return view().permute(order); }
  jet::view<T> reshape(const jet::shape& s) { return view().reshape(s); }
  jet::view<T> broadcast_to(const jet::shape& s) { return view().broadcast_to(s); }

  array clone() const {
    array c(shape());
    detail::copy_on_device(c.data_, data_, detail::bytes_of(shape(), sizeof(T)));
    return c;
  }
  std::vector<T> to_host() const { return detail::download(data_, shape()); }
  /// The element of a one-element array (a reduction's result) on the host.
  T item() const {
    if (size() != 1)
      throw invalid_argument("jet::array::item: the array has " + std::to_string(size()) + " elements, not 1");
    return to_host()[0];
  }

 private:
  static detail::layout empty_layout() { return detail::layout::contiguous(jet::shape::of_size(0)); }

  T* data_ = nullptr;
  detail::layout layout_ = empty_layout();  // C order: expressions refer to it
};

#undef JET_COMPOUND_ASSIGNMENTS

template <class T> std::vector<T> view<T>::to_host() const {
  if (is_contiguous()) return detail::download(data_, shape());
  return array<T>(terminal<T>(data_, layout_)).to_host();
}

/// Copies host data into a new device array of shape s (default: 1-D).
template <class T> array<T> from_host(std::span<const T> host, const jet::shape& s) {
  if (host.size() != s.size())
    throw shape_error("jet::from_host: " + std::to_string(host.size()) + " elements for shape " + s.to_string());
  array<T> a(s);
  detail::copy_to_device(a.data(), host.data(), host.size_bytes());
  return a;
}
template <class T> array<T> from_host(const std::vector<T>& host) {
  return from_host(std::span<const T>(host), jet::shape::of_size(host.size()));
}
template <class T> array<T> from_host(const std::vector<T>& host, const jet::shape& s) {
  return from_host(std::span<const T>(host), s);
}

/// std::vector<bool> packs bits: its elements are copied out as bools first.
inline array<bool> from_host(const std::vector<bool>& host) {
  const std::unique_ptr<bool[]> bytes(new bool[host.size()]);
  std::copy(host.begin(), host.end(), bytes.get());
  return from_host(std::span<const bool>(bytes.get(), host.size()), jet::shape::of_size(host.size()));
}

/// Evaluates an expression into a new array of the expression's dtype (array<bool> for a
/// comparison).
template <expression E> auto eval(const E& e) { return array<cpp_type<std::remove_cvref_t<E>::type>>(e); }

/// Several expressions evaluated by one kernel (see jet::tie).
template <class... Es> struct expression_pack { std::tuple<Es...> exprs; };
template <jet_operand... E> auto tuple(E&&... e) {
  return expression_pack<detail::expr_t<E>...>{std::tuple(detail::as_expr(std::forward<E>(e))...)};
}

/// Outputs of one kernel: jet::tie(a, b) = jet::tuple(x + y, x - y) reads x and y once and writes
/// a and b. Arrays of another shape are reallocated; views must have the expressions' shape.
template <class... Targets> struct output_tie {
  std::tuple<Targets&...> targets;

  template <class... Es> output_tie& operator=(const expression_pack<Es...>& pack) {
    static_assert(sizeof...(Es) == sizeof...(Targets), "jet::tie: one expression per output");
    const void* addresses[sizeof...(Targets)];
    std::apply(
        [&](auto&... t) {
          std::size_t i = 0;
          ((addresses[i++] = &t), ...);
        },
        targets);
    for (std::size_t i = 0; i < sizeof...(Targets); ++i)
      for (std::size_t j = 0; j < i; ++j)
        if (addresses[i] == addresses[j]) throw invalid_argument("jet::tie: the same output twice");
    using bound_t = detail::bound<detail::roots<Es...>, typename Targets::value_type...>;
    bound_t b = std::apply([](const auto&... e) { return bound_t(e...); }, pack.exprs);
    const jet::shape s = b.shape();
    void* outputs[sizeof...(Targets)];
    detail::layout layouts[sizeof...(Targets)];
    std::apply(
        [&](auto&... t) {
          std::size_t k = 0;
          ((prepare(t, s, outputs[k], layouts[k]), ++k), ...);  // the comma sequences each k
        },
        targets);
    b.evaluate_into(outputs, layouts);
    return *this;
  }

 private:
  template <class U> static void prepare(array<U>& a, const jet::shape& s, void*& out, detail::layout& l) {
    if (!(a.shape() == s)) a = array<U>(s);
    out = a.data();
    l = a.layout();
  }
  template <class U> static void prepare(view<U>& v, const jet::shape&, void*& out, detail::layout& l) {
    out = v.data();
    l = v.layout();
  }
};
template <class... Targets> output_tie<Targets...> tie(Targets&... targets) {
  static_assert(((detail::is_array_v<Targets> || detail::is_view_v<Targets>)&&...), "jet::tie takes arrays and views");
  return {std::tuple<Targets&...>(targets...)};
}

}  // namespace jet
