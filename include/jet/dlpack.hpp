// DLPack: device arrays to and from other libraries (PyTorch, CuPy, JAX, ...) without copying.
// Header-only, so that jet itself needs no DLPack; include it where <dlpack/dlpack.h> is found.
//
//   jet::view<float> x = jet::from_dlpack<float>(tensor);  // jet now owns `tensor`
//   DLManagedTensor* t = jet::to_dlpack(std::move(array));  // the consumer owns `t`
//
// Values are written in order on jet's current stream: a consumer on another stream must wait for
// it (jet::current_stream().synchronize(), or an event), and jet must wait likewise for a
// producer's stream before reading what it made.
#pragma once

#include <dlpack/dlpack.h>

#include <jet/array.hpp>
#include <jet/dtype.hpp>
#include <jet/error.hpp>
#include <jet/detail/core.hpp>

#include <algorithm>
#include <cstdint>
#include <iterator>
#include <memory>
#include <string>
#include <utility>

namespace jet {

namespace detail {
// kDLBool, which DLPack has from 0.8 on; the value is the standard's, so jet uses it with any
// header.
inline constexpr std::uint8_t dlpack_bool_code = 6;

inline std::string dlpack_type_name(DLDataType t) {
  static constexpr const char* codes[] = {"int", "uint", "float", "opaque handle", "bfloat", "complex", "bool"};
  std::string s = t.code < std::size(codes)
                      ? codes[t.code] + std::to_string(t.bits)
                      : "type code " + std::to_string(t.code) + " of " + std::to_string(t.bits) + " bits";
  if (t.lanes != 1) s += "x" + std::to_string(t.lanes);
  return s;
}

// Takes ownership of a managed tensor: its deleter runs once, when the last holder lets go.
inline std::shared_ptr<const void> own(DLManagedTensor* t) {
  return std::shared_ptr<const void>(t, [](const void* p) {
    auto* managed = static_cast<DLManagedTensor*>(const_cast<void*>(p));
    if (managed->deleter) managed->deleter(managed);
  });
}

/// The tensor jet exports: the DLManagedTensor and what its fields point to, and what keeps the
/// memory alive (the array it took, or the view's owner).
template <class T> struct dlpack_export {
  DLManagedTensor managed{};
  std::int64_t shape[max_rank];
  std::int64_t strides[max_rank];
  array<T> owned;
  std::shared_ptr<const void> owner;
};
}  // namespace detail

/// The DLPack type of a jet dtype (bool is DLPack's kDLBool, 8 bits; the 16-bit floats are
/// kDLFloat 16 and kDLBfloat 16; complex64 and complex128 are kDLComplex 64 and 128).
constexpr DLDataType to_dlpack_type(dtype d) {
  const detail::dtype_traits& t = detail::traits_of(d);
  const auto bits = static_cast<std::uint8_t>(8 * t.size);
  if (d == dtype::boolean) return {detail::dlpack_bool_code, bits, 1};
  if (d == dtype::bfloat16) return {kDLBfloat, bits, 1};
  if (t.kind == detail::category::floating) return {kDLFloat, bits, 1};
  if (t.kind == detail::category::complex) return {kDLComplex, bits, 1};
  return {static_cast<std::uint8_t>(t.is_signed ? kDLInt : kDLUInt), bits, 1};
}

/// The jet dtype of a DLPack type; invalid_argument naming the type when jet has none (vector
/// lanes, uint16, complex32...).
inline dtype from_dlpack_type(DLDataType t) {
  for (std::size_t d = 0; d < detail::dtype_count; ++d) {
    const DLDataType candidate = to_dlpack_type(static_cast<dtype>(d));
    if (candidate.code == t.code && candidate.bits == t.bits && candidate.lanes == t.lanes)
      return static_cast<dtype>(d);
  }
  throw invalid_argument("jet::from_dlpack: jet has no dtype for DLPack's " + detail::dlpack_type_name(t));
}

namespace detail {
template <class T> DLManagedTensor* export_tensor(std::unique_ptr<dlpack_export<T>> e, T* data, const layout& l) {
  DLTensor& t = e->managed.dl_tensor;
  t.data = data;
  t.device = {kDLCUDA, device_ordinal};
  t.ndim = l.extents.rank();
  t.dtype = to_dlpack_type(dtype_of<T>());
  for (int k = 0; k < t.ndim; ++k) {
    e->shape[k] = l.extents[k];
    e->strides[k] = l.strides[k];
  }
  t.shape = e->shape;
  t.strides = e->strides;
  t.byte_offset = 0;
  e->managed.manager_ctx = e.get();
  e->managed.deleter = [](DLManagedTensor* self) { delete static_cast<dlpack_export<T>*>(self->manager_ctx); };
  return &e.release()->managed;
}
}  // namespace detail

/// A view of a DLPack tensor in CUDA memory (kDLCUDA on jet's device, or kDLCUDAManaged) whose
/// elements are T. The view, and every view made from it, keeps the tensor alive; the tensor's
/// deleter runs once, when the last of them is gone. jet owns `tensor` from the call on: when
/// the tensor is refused (invalid_argument naming what is wrong), its deleter runs before the
/// throw. Null strides mean C order; strides are in elements.
template <class T> view<T> from_dlpack(DLManagedTensor* tensor) {
  if (!tensor) throw invalid_argument("jet::from_dlpack: null DLManagedTensor");
  std::shared_ptr<const void> owner = detail::own(tensor);
  const DLTensor& t = tensor->dl_tensor;
  const DLDevice device = t.device;
  if (device.device_type != kDLCUDA && device.device_type != kDLCUDAManaged)
    throw invalid_argument("jet::from_dlpack: the tensor is on DLPack device type " +
                           std::to_string(device.device_type) +
                           "; jet reads CUDA memory (kDLCUDA = 2 or kDLCUDAManaged = 13)");
  if (device.device_type == kDLCUDA && device.device_id != device_ordinal)
    throw invalid_argument("jet::from_dlpack: the tensor is on CUDA device " + std::to_string(device.device_id) +
                           "; jet runs on device " + std::to_string(device_ordinal));
  const dtype d = from_dlpack_type(t.dtype);
  if (d != dtype_of<T>())
    throw invalid_argument("jet::from_dlpack: the tensor holds " + std::string(name(d)) + ", not " +
                           std::string(name(dtype_of<T>())));
  if (t.ndim < 0 || t.ndim > max_rank)
    throw invalid_argument("jet::from_dlpack: rank " + std::to_string(t.ndim) + " (jet takes 0 to " +
                           std::to_string(max_rank) + ")");
  if (t.byte_offset % sizeof(T))
    throw invalid_argument("jet::from_dlpack: byte_offset " + std::to_string(t.byte_offset) +
                           " is not a multiple of the element size " + std::to_string(sizeof(T)));
  detail::layout l;
  for (int k = 0; k < t.ndim; ++k) {
    if (t.shape[k] < 0) throw invalid_argument("jet::from_dlpack: negative extent " + std::to_string(t.shape[k]));
    l.extents.push_back(t.shape[k]);
  }
  if (t.strides)
    std::copy(t.strides, t.strides + t.ndim, l.strides.begin());
  else
    l = detail::layout::contiguous(l.extents);
  T* data = reinterpret_cast<T*>(static_cast<char*>(t.data) + t.byte_offset);
  return view<T>(data, l, std::move(owner));
}

/// A DLPack tensor that owns `a` (its deleter frees the memory).
template <class T> DLManagedTensor* to_dlpack(array<T>&& a) {
  auto e = std::make_unique<detail::dlpack_export<T>>();
  const detail::layout l = a.layout();
  e->owned = std::move(a);
  T* data = e->owned.data();
  return detail::export_tensor(std::move(e), data, l);
}

/// A DLPack tensor of the memory `v` views; it shares in the view's owner (an imported tensor),
/// else the memory's owner must keep it alive until the tensor's deleter has run.
template <class T> DLManagedTensor* to_dlpack(const view<T>& v) {
  auto e = std::make_unique<detail::dlpack_export<T>>();
  e->owner = v.owner();
  return detail::export_tensor(std::move(e), v.data(), v.layout());
}

}  // namespace jet
