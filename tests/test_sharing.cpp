// Shared subexpressions (include/jet/detail/sharing.hpp): the repeats a description's type
// allows, which of them hold for given operands, and the kernel that computes each once.
#include "support/catch.hpp"
#include "support/operands.hpp"
#include "support/planned.hpp"
#include "support/text.hpp"

#include "codegen/elementwise.hpp"

#include <jet/jet.hpp>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

namespace {

using jet::test::occurrences;

using jet::test::desc_of;
using jet::test::fake_view;

// The source out = e compiles to, planned for the operands' addresses.
template <class E> std::string planned_source(const E& e) {
  const jet::view<float> out = fake_view<float>(8, 0x90000);
  const jet::detail::variant_key v = jet::test::planned_variant_of(out, e);
  return jet::detail::generate_source(desc_of<float>(e), v);
}

}  // namespace

TEST_CASE("repeats: every inner subtree with the shape of an earlier one, largest first", "[cpu][sharing]") {
  auto x = fake_view<float>(), y = fake_view<float>(8, 0x20000);
  const auto& d = desc_of(jet::exp(x * y) + jet::exp(x * y));
  // x y mul exp x y mul exp add: exp(x * y) at node 7 repeats node 3, x * y at 6 repeats 2.
  REQUIRE(d.repeat_count == 2);
  CHECK(d.repeats[0] == jet::detail::repeat{7, 3, 4, 2, 0, 2, 0, 0, 0});
  CHECK(d.repeats[1] == jet::detail::repeat{6, 2, 3, 2, 0, 2, 0, 0, 0});
  // Leaves are never repeats; subtrees of other shapes or dtypes are not either.
  CHECK(desc_of(x + y).repeat_count == 0);
  CHECK(desc_of(jet::exp(x) + jet::sin(x)).repeat_count == 0);
  CHECK(desc_of(x * 2.f + jet::cast<float>(jet::cast<double>(x) * 2.0)).repeat_count == 0);
  // Scalars take part by dtype: x * 2 and y * 3 have one shape.
  const auto& s = desc_of(x * 2.f + y * 3.f);
  REQUIRE(s.repeat_count == 1);
  CHECK(s.repeats[0] == jet::detail::repeat{5, 2, 3, 1, 0, 1, 1, 0, 1});
}

TEST_CASE("a repeat holds for the same arrays and scalar values, and the kernel computes it once",
          "[cpu][sharing][codegen]") {
  auto x = fake_view<float>(), y = fake_view<float>(8, 0x20000), z = fake_view<float>(8, 0x30000);
  SECTION("the same arrays: exp(x * y) once") {
    const auto e = jet::exp(x * y) + jet::exp(x * y);
    // Repeat 0, the whole exp(x * y), holds; repeat 1, x * y, lies inside its copy and is moot.
    CHECK(jet::test::planned_variant_of(fake_view<float>(8, 0x90000), e).shared == 0b01);
    const std::string src = planned_source(e);
    CAPTURE(src);
    CHECK(occurrences(src, "jet_exp(") == 2);  // its definition and one call
    CHECK(occurrences(src, "jet_mul(") == 2);
    CHECK(src.find("jet_add(t3, t3)") != std::string::npos);
    CHECK(src.find("1 repeated subexpressions computed once") != std::string::npos);
  }
  SECTION("other arrays: the same shape, computed for each") {
    const auto e = jet::exp(x * y) + jet::exp(x * z);
    CHECK(jet::test::planned_variant_of(fake_view<float>(8, 0x90000), e).shared == 0);
    const std::string src = planned_source(e);
    CHECK(occurrences(src, "jet_exp(") == 3);
    CHECK(src.find("jet_add(t3, t7)") != std::string::npos);
  }
  SECTION("the inner repeat holds where the outer does not") {
    const auto e = jet::exp(x * y) + jet::sin(x * y) * z;
    const auto& d = desc_of(e);
    REQUIRE(d.repeat_count == 1);
    CHECK(jet::test::planned_variant_of(fake_view<float>(8, 0x90000), e).shared == 1);
    CHECK(occurrences(planned_source(e), "jet_mul(") == 3);  // definition, x * y once, and * z
  }
  SECTION("scalars: the same value shares, another does not") {
    const std::string same = planned_source(jet::exp(x * 2.f) + jet::exp(x * 2.f));
    const std::string other = planned_source(jet::exp(x * 2.f) + jet::exp(x * 3.f));
    CHECK(occurrences(same, "jet_exp(") == 2);
    CHECK(occurrences(other, "jet_exp(") == 3);
  }
  SECTION("a view of other strides is another operand") {
    const jet::view<float> m(reinterpret_cast<float*>(0x40000), jet::shape{4, 4});
    const auto e = jet::exp(m * 2.f) + jet::exp(m.transpose() * 2.f);
    CHECK(jet::test::planned_variant_of(jet::view<float>(reinterpret_cast<float*>(0x90000), jet::shape{4, 4}), e)
              .shared == 0);
  }
}

TEST_CASE("jet::let: a named value's copies share it, and a kernel computes it once", "[cpu][sharing][let]") {
  auto x = fake_view<float>(), y = fake_view<float>(8, 0x20000);
  const auto d = jet::let(jet::exp(x * y) + 1.f);
  static_assert(sizeof(d) == sizeof(void*));  // a use copies a pointer
  const auto e = d * d + jet::sin(d) * d;
  CHECK(d.use_count() == 5);  // d and e's four uses hold one value
  const std::string src = planned_source(e);
  CHECK(jet::test::op_calls(src, "exp") == 1);
  CHECK(occurrences(src, "jet_mul(x0, x1)") == 1);
  // The same formula written out computes the same values the same way.
  const auto written = jet::exp(x * y) + 1.f;
  CHECK(jet::test::op_calls(planned_source(written * written + jet::sin(written) * written), "exp") == 1);
}

TEST_CASE("jet::let: named values are listed first among the outermost repeats", "[cpu][sharing][let]") {
  auto x = fake_view<float>(), y = fake_view<float>(8, 0x20000);
  // x exp y y mul sin add x exp add y y mul sin add: exp(x) at node 8 repeats node 1, sin(y * y)
  // at 13 repeats 5, and y * y at 12, inside that copy, repeats 4.
  const auto d = jet::let(jet::exp(x));
  const auto& named = desc_of(d + jet::sin(y * y) + d + jet::sin(y * y));
  REQUIRE(named.repeat_count == 3);
  CHECK(named.repeats[0].node == 8);  // the named value first, though smaller
  CHECK(named.repeats[1].node == 13);
  CHECK(named.repeats[2].node == 12);  // nested ones last
  const auto& written = desc_of(jet::exp(x) + jet::sin(y * y) + jet::exp(x) + jet::sin(y * y));
  REQUIRE(written.repeat_count == 3);
  CHECK(written.repeats[0].node == 13);  // the larger first
  CHECK(written.repeats[1].node == 8);
  CHECK(written.repeats[2].node == 12);
  CHECK(named.hash != written.hash);  // their kernels' repeats differ, so the kernels are apart
}

TEST_CASE("the interpreter computes a repeat that holds once, as the kernel does", "[cpu][sharing][interpreter]") {
  using jet::detail::op_id;
  auto x = fake_view<float>(), y = fake_view<float>(8, 0x20000), z = fake_view<float>(8, 0x30000);
  const auto out = fake_view<float>(8, 0x90000);
  SECTION("the same arrays: one exp and one mul") {
    const jet::detail::encoding e = jet::test::planned_encoding_of(jet::tuple(jet::exp(x * y) + jet::exp(x * y)), out);
    REQUIRE(e.family);
    CHECK(jet::test::op_instructions(e, op_id::exp) == 1);
    CHECK(jet::test::op_instructions(e, op_id::mul) == 1);
    CHECK(jet::test::op_instructions(e, op_id::add) == 1);
  }
  SECTION("other arrays: each copy computed") {
    const jet::detail::encoding e = jet::test::planned_encoding_of(jet::tuple(jet::exp(x * y) + jet::exp(x * z)), out);
    REQUIRE(e.family);
    CHECK(jet::test::op_instructions(e, op_id::exp) == 2);
    CHECK(jet::test::op_instructions(e, op_id::mul) == 2);
  }
  SECTION("a shared value that is also an output is stored from its one computation") {
    const auto r = fake_view<float>(8, 0xa0000);
    const jet::detail::encoding e =
        jet::test::planned_encoding_of(jet::tuple(jet::exp(x * y), jet::exp(x * y) + z), out, r);
    REQUIRE(e.family);
    CHECK(jet::test::op_instructions(e, op_id::exp) == 1);
  }
  SECTION("equal scalar values take one slot, other values their own") {
    const auto value_slots = [](const jet::detail::encoding& e) {
      std::vector<int> slots;
      for (unsigned i = 0; i < e.code.count; ++i)
        for (std::uint8_t k : {e.code.code[i].b, e.code.code[i].c})
          if (k >= jet::detail::interpreter_scalar_operand && k != jet::detail::interpreter_no_operand &&
              std::find(slots.begin(), slots.end(), k) == slots.end())
            slots.push_back(k);
      return slots.size();
    };
    CHECK(value_slots(jet::test::planned_encoding_of(jet::tuple(x * 2.f + y * 2.f), out)) == 1);
    CHECK(value_slots(jet::test::planned_encoding_of(jet::tuple(x * 2.f + y * 3.f), out)) == 2);
  }
}

namespace {

template <class E> using kernel_of_t = jet::detail::kernel_of<jet::detail::roots<E>, float>;

// Whether reading e's leaves as evaluation does (skipping the copies whose bytes are an earlier
// subtree's) fills every slot as reading each leaf does; and how many subtrees it may skip.
template <class E> std::size_t skipping_reads_as_reading_each(const E& e) {
  using kernel = kernel_of_t<E>;
  const auto skipped = kernel::values_of(e);
  jet::detail::leaves<kernel::input_count, kernel::scalar_count> each;
  const void* const roots[] = {&e};
  jet::detail::read_leaves(kernel::flattened.leaves.data(), kernel::flattened.leaf_count, roots,
                           {each.input.data(), each.layouts.data(), each.scalar.data()});
  CHECK(skipped.input == each.input);
  CHECK(skipped.layouts == each.layouts);
  for (std::size_t k = 0; k < kernel::scalar_count; ++k)
    CHECK(std::memcmp(skipped.scalar[k].bytes, each.scalar[k].bytes, sizeof each.scalar[k].bytes) == 0);
  return kernel::flattened.skips.count;
}

}  // namespace

TEST_CASE("reading leaves: a copy of a sub-expression with its bytes takes its slots, another is read",
          "[cpu][sharing]") {
  const jet::array<float> a, b;  // operands by address: their layouts' addresses tell them apart
  const auto d = jet::exp(a * 2.f) + a;
  // Arrays and scalars leave no padding, so a node's bytes are its size; a view's layout has some.
  STATIC_REQUIRE(sizeof(jet::scalar<float>) == 8);
  STATIC_REQUIRE(decltype(d)::tree.bytes == sizeof d);
  STATIC_REQUIRE(decltype(fake_view<float>() * 2.f)::tree.bytes == 0);
  SECTION("the same arrays and scalars: skipped, one comparison for the outermost copy") {
    CHECK(skipping_reads_as_reading_each(d * d + jet::sin(d)) == 2);
    const auto& values = kernel_of_t<decltype(d * d)>::values_of(d * d);
    CHECK(values.layouts[2] == &a.layout());
  }
  SECTION("another array or another scalar value: the copy is read") {
    const auto other_array = d * (jet::exp(b * 2.f) + b);
    CHECK(skipping_reads_as_reading_each(other_array) == 1);
    CHECK(kernel_of_t<decltype(other_array)>::values_of(other_array).layouts[3] == &b.layout());
    const auto other_scalar = d * (jet::exp(a * 3.f) + a);
    CHECK(skipping_reads_as_reading_each(other_scalar) == 1);
    float three = 0;
    std::memcpy(&three, kernel_of_t<decltype(other_scalar)>::values_of(other_scalar).scalar[1].bytes, sizeof three);
    CHECK(three == 3.f);
    // -0 and +0 are other bytes: read, though equal.
    CHECK(skipping_reads_as_reading_each(jet::exp(a * 0.f) + jet::exp(a * -0.f)) == 1);
  }
  SECTION("copies of jet::let values compare their holders, inside other values too") {
    const auto n = jet::let(jet::exp(a * 2.f));
    const auto m = jet::let(n * n + b);
    CHECK(skipping_reads_as_reading_each(m * m + n) == 1);
    CHECK(skipping_reads_as_reading_each(jet::let(n * n) + jet::let(n * n)) == 1);  // two holders
  }
  SECTION("views hold their layouts, which have padding: read") {
    const auto x = fake_view<float>();
    CHECK(skipping_reads_as_reading_each(jet::exp(x * 2.f) + jet::exp(x * 2.f)) == 0);
  }
}

namespace {

// The sum of N distinct float views, 4 KiB apart from `first`, as a balanced tree.
template <std::size_t N> auto distinct_sum(std::uintptr_t first) {
  if constexpr (N == 1)
    return fake_view<float>(8, first);
  else
    return distinct_sum<N / 2>(first) + distinct_sum<N - N / 2>(first + N / 2 * 0x1000);
}

}  // namespace

TEST_CASE("limits: more distinct arrays than max_inputs are refused at evaluation, naming the limit", "[cpu][limits]") {
  static_assert(jet::detail::max_inputs == 128);
  CHECK_NOTHROW(jet::source(distinct_sum<128>(0x100000)));
  try {
    (void)jet::source(distinct_sum<129>(0x100000));
    FAIL("no exception");
  } catch (const jet::invalid_argument& e) {
    CHECK(jet::test::contains(e.what(), "more than 128 distinct array operands (jet::detail::max_inputs"));
  }
  // 258 appearances of 2 arrays are 2 kernel parameters.
  const auto x = fake_view<float>(8, 0x10000), y = fake_view<float>(8, 0x20000);
  const auto a = x * y;
  const auto b = a + a;
  const auto c = b * b;
  const auto d2 = c + c;
  const auto e = d2 * d2;
  const auto f = e + e;
  const auto g = f * f;  // 128 uses of each
  const std::string src = jet::source(g + g + x * y);
  CHECK(src.find("__restrict__ in1") != std::string::npos);
  CHECK(src.find("__restrict__ in2") == std::string::npos);
}
