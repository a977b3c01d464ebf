// Counter-based random numbers: the host Philox against the published known-answer vectors, and
// the kernels that draw from it. No GPU needed.
#include "support/catch.hpp"

#include <jet/jet.hpp>

#include <array>
#include <cstdint>
#include <string>

TEST_CASE("host Philox4x32-10 matches the Random123 known-answer vectors", "[cpu][random]") {
  using words = std::array<std::uint32_t, 4>;
  CHECK(jet::host::philox4x32({0, 0, 0, 0}, 0) == words{0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8});
  CHECK(jet::host::philox4x32({0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff}, 0xffffffffffffffffull) ==
        words{0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd});
  CHECK(jet::host::philox4x32({0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344}, 0x299f31d0a4093822ull) ==
        words{0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1});
}

TEST_CASE("uniforms are above 0 and at most 1, and depend on counter and seed", "[cpu][random]") {
  float lo = 1, hi = 0;
  for (std::int64_t c = 0; c < 100000; ++c) {
    const float u = jet::host::philox_uniform(c, 7);
    lo = std::min(lo, u), hi = std::max(hi, u);
  }
  CHECK(lo > 0);
  CHECK(hi <= 1);
  CHECK(lo < 1e-3f);
  CHECK(hi > 0.999f);
  CHECK(jet::host::philox_uniform(5, 1) != jet::host::philox_uniform(5, 2));
  CHECK(jet::host::philox_uniform(5, 1) != jet::host::philox_uniform(6, 1));
}

TEST_CASE("random operands fuse into expressions and compile", "[cpu][random]") {
  jet::view<float> x(reinterpret_cast<float*>(0x10000), jet::shape{64, 32});
  const auto e = x + 0.1f * jet::random_normal(x.shape(), 987654321);
  const std::string src = jet::source(e);
  CAPTURE(src);
  CHECK(src.find("jet_philox_uniform") != std::string::npos);
  CHECK(src.find("987654321") == std::string::npos);  // the seed is an argument
  CHECK(jet::compile(e, jet::arch{90}).cubin.size() > 0);
  CHECK(jet::compile(jet::random_uniform({1000}, 3) * 2.f, jet::arch{90}).cubin.size() > 0);
}
