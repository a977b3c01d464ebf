// DLPack without a device: the dtype mapping both ways, the refusals and their messages, and the
// bookkeeping of ownership (each deleter runs exactly once, when the last view is gone). The
// tensors are built here over a fake device address: nothing reads it.
#include "support/catch.hpp"

#include <jet/dlpack.hpp>
#include <jet/jet.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace {

// A DLManagedTensor made by hand, as a producer would; counts its deleter's calls.
struct fake_tensor {
  std::vector<std::int64_t> shape, strides;
  int deleted = 0;
  DLManagedTensor managed{};

  fake_tensor(DLDataType type, std::vector<std::int64_t> extents, std::vector<std::int64_t> element_strides = {},
              DLDevice device = {kDLCUDA, 0}, std::uint64_t byte_offset = 0)
      : shape(std::move(extents)), strides(std::move(element_strides)) {
    DLTensor& t = managed.dl_tensor;
    t.data = reinterpret_cast<void*>(std::uintptr_t{0x7f0000000000});
    t.device = device;
    t.ndim = static_cast<int>(shape.size());
    t.dtype = type;
    t.shape = shape.data();
    t.strides = strides.empty() ? nullptr : strides.data();
    t.byte_offset = byte_offset;
    managed.manager_ctx = this;
    managed.deleter = [](DLManagedTensor* self) { ++static_cast<fake_tensor*>(self->manager_ctx)->deleted; };
  }
};

constexpr DLDataType f32{kDLFloat, 32, 1};

template <class T> std::string refusal(fake_tensor& t) {
  try {
    jet::from_dlpack<T>(&t.managed);
  } catch (const jet::invalid_argument& e) {
    return e.what();
  }
  return "accepted";
}

}  // namespace

TEST_CASE("dlpack: every jet dtype maps to its DLPack type and back", "[cpu][dlpack]") {
  struct expected {
    jet::dtype d;
    std::uint8_t code, bits;
  };
  const expected table[] = {
      {jet::dtype::boolean, 6, 8},
      {jet::dtype::int8, kDLInt, 8},
      {jet::dtype::uint8, kDLUInt, 8},
      {jet::dtype::int16, kDLInt, 16},
      {jet::dtype::int32, kDLInt, 32},
      {jet::dtype::uint32, kDLUInt, 32},
      {jet::dtype::int64, kDLInt, 64},
      {jet::dtype::uint64, kDLUInt, 64},
      {jet::dtype::float16, kDLFloat, 16},
      {jet::dtype::bfloat16, kDLBfloat, 16},
      {jet::dtype::float32, kDLFloat, 32},
      {jet::dtype::float64, kDLFloat, 64},
      {jet::dtype::complex64, kDLComplex, 64},
      {jet::dtype::complex128, kDLComplex, 128},
  };
  static_assert(std::size(table) == jet::detail::dtype_count, "one row per dtype");
  for (const expected& e : table) {
    INFO(jet::name(e.d));
    const DLDataType t = jet::to_dlpack_type(e.d);
    CHECK(int(t.code) == int(e.code));
    CHECK(int(t.bits) == int(e.bits));
    CHECK(t.lanes == 1);
    CHECK(jet::from_dlpack_type(t) == e.d);
  }
}

TEST_CASE("dlpack: types jet does not have are refused by name", "[cpu][dlpack][errors]") {
  auto message = [](DLDataType t) {
    try {
      jet::from_dlpack_type(t);
    } catch (const jet::invalid_argument& e) {
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  CHECK(message({kDLUInt, 16, 1}) == "jet::from_dlpack: jet has no dtype for DLPack's uint16");
  CHECK(message({kDLFloat, 32, 4}) == "jet::from_dlpack: jet has no dtype for DLPack's float32x4");
  CHECK(message({kDLComplex, 32, 1}) == "jet::from_dlpack: jet has no dtype for DLPack's complex32");
  CHECK(message({kDLBfloat, 32, 1}) == "jet::from_dlpack: jet has no dtype for DLPack's bfloat32");
  CHECK(message({42, 8, 1}) == "jet::from_dlpack: jet has no dtype for DLPack's type code 42 of 8 bits");
}

TEST_CASE("dlpack: an imported tensor's shape, strides and offset; its deleter runs once, after the last view",
          "[cpu][dlpack]") {
  SECTION("null strides are C order") {
    fake_tensor t(f32, {2, 3, 4});
    {
      const jet::view<float> v = jet::from_dlpack<float>(&t.managed);
      CHECK(v.shape() == jet::shape{2, 3, 4});
      CHECK(v.is_contiguous());
      CHECK(v.stride(0) == 12);
      CHECK(v.data() == static_cast<float*>(t.managed.dl_tensor.data));
      CHECK(t.deleted == 0);
    }
    CHECK(t.deleted == 1);
  }
  SECTION("strides in elements, a byte offset, and views made from the import keep it alive") {
    fake_tensor t({kDLInt, 16, 1}, {4, 5}, {1, 8}, {kDLCUDA, 0}, 6);
    std::optional<jet::view<std::int16_t>> column;  // a view's assignment copies elements: hold it apart
    {
      const jet::view<std::int16_t> v = jet::from_dlpack<std::int16_t>(&t.managed);
      CHECK(v.shape() == jet::shape{4, 5});
      CHECK(v.stride(0) == 1);
      CHECK(v.stride(1) == 8);
      CHECK(v.data() == static_cast<std::int16_t*>(t.managed.dl_tensor.data) + 3);
      column.emplace(v.transpose().slice(0, 1, 2));
    }
    CHECK(t.deleted == 0);  // the slice still holds it
    CHECK(column->data() == static_cast<std::int16_t*>(t.managed.dl_tensor.data) + 3 + 8);
    column.reset();
    CHECK(t.deleted == 1);
  }
  SECTION("rank 0 is one element; managed memory is accepted") {
    fake_tensor t({6, 8, 1}, {}, {}, {kDLCUDAManaged, 0});
    {
      const jet::view<bool> v = jet::from_dlpack<bool>(&t.managed);
      CHECK(v.rank() == 0);
      CHECK(v.size() == 1);
    }
    CHECK(t.deleted == 1);
  }
}

TEST_CASE("dlpack: a refused tensor is named and released once", "[cpu][dlpack][errors]") {
  struct refused {
    const char* what;
    fake_tensor tensor;
    std::string message;
  };
  refused cases[] = {
      {"on the host", fake_tensor(f32, {3}, {}, {kDLCPU, 0}),
       "jet::from_dlpack: the tensor is on DLPack device type 1; jet reads CUDA memory (kDLCUDA = 2 or kDLCUDAManaged = 13)"},
      {"on another GPU", fake_tensor(f32, {3}, {}, {kDLCUDA, 1}),
       "jet::from_dlpack: the tensor is on CUDA device 1; jet runs on device 0"},
      {"of another dtype", fake_tensor({kDLFloat, 64, 1}, {3}),
       "jet::from_dlpack: the tensor holds float64, not float32"},
      {"of a dtype jet lacks", fake_tensor({kDLUInt, 16, 1}, {3}),
       "jet::from_dlpack: jet has no dtype for DLPack's uint16"},
      {"of too high a rank", fake_tensor(f32, {1, 1, 1, 1, 1, 1, 1, 1, 1}),
       "jet::from_dlpack: rank 9 (jet takes 0 to 8)"},
      {"at a misaligned offset", fake_tensor(f32, {3}, {}, {kDLCUDA, 0}, 2),
       "jet::from_dlpack: byte_offset 2 is not a multiple of the element size 4"},
      {"of a negative extent", fake_tensor(f32, {2, -1}), "jet::from_dlpack: negative extent -1"},
  };
  for (refused& c : cases) {
    INFO(c.what);
    CHECK(refusal<float>(c.tensor) == c.message);
    CHECK(c.tensor.deleted == 1);
  }
  CHECK_THROWS_WITH(jet::from_dlpack<float>(nullptr), "jet::from_dlpack: null DLManagedTensor");
}

TEST_CASE("dlpack: an exported view describes its memory and shares in its owner", "[cpu][dlpack]") {
  fake_tensor t(f32, {3, 4});
  std::optional<jet::view<float>> imported(jet::from_dlpack<float>(&t.managed));
  DLManagedTensor* exported = jet::to_dlpack(imported->transpose());
  imported.reset();
  CHECK(t.deleted == 0);  // the export holds the import
  const DLTensor& e = exported->dl_tensor;
  CHECK(e.data == t.managed.dl_tensor.data);
  CHECK(e.device.device_type == kDLCUDA);
  CHECK(e.device.device_id == 0);
  CHECK(e.ndim == 2);
  CHECK(e.shape[0] == 4);
  CHECK(e.shape[1] == 3);
  CHECK(e.strides[0] == 1);
  CHECK(e.strides[1] == 4);
  CHECK(e.byte_offset == 0);
  CHECK(jet::from_dlpack_type(e.dtype) == jet::dtype::float32);
  exported->deleter(exported);
  CHECK(t.deleted == 1);
}

TEST_CASE("dlpack: an exported array is owned by the tensor", "[cpu][dlpack]") {
  DLManagedTensor* exported = jet::to_dlpack(jet::array<double>());  // empty: no device needed
  CHECK(exported->dl_tensor.ndim == 1);
  CHECK(exported->dl_tensor.shape[0] == 0);
  CHECK(jet::from_dlpack_type(exported->dl_tensor.dtype) == jet::dtype::float64);
  exported->deleter(exported);
}
