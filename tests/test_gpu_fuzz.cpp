// On the GPU: differential fuzzing. At least 2,000 distinct random expressions (random operand
// dtypes, shapes, broadcast and strided layouts, misalignments, scalars, output dtype and layout;
// data with special values; repeated subtrees and jet::let values among them), each evaluated fused
// (its one kernel, through the core's plain description: no template per expression) and unfused
// (one kernel per node, each result stored in its dtype), and judged against the float64 host
// evaluation of the same description:
//
//   where the host evaluation determines an element (its error bound is finite):
//     NaN in the reference  <=>  NaN fused  <=>  NaN unfused;
//     otherwise |unfused - reference| <= bound  (each op agrees with its host reference), and
//               |fused - reference| <= 2 |unfused - reference| + bound;
//     integer results are exact; complex ones are judged part by part, each against its bound.
//   The bound (tests/support/host_evaluation.hpp) is the per-dtype floor: 8 ulps of each floating
//   node's dtype, propagated through the ops; for a complex node each part gets the op's norm-wise
//   error (host_evaluation_complex.hpp).
//   Elements outside the output's view keep their poison: nothing is written out of place.
//   A description with repeats is also evaluated without them (each copy computed as written):
//   the fused results of both are the same values, NaN for NaN.
//
// JET_TEST_SEED=<seed> replays a run, JET_FUZZ_CASE=<seed> one case (a failure prints both),
// JET_FUZZ_EXPRESSIONS=<count> asks for another number of distinct expressions (coverage, every op
// in at least 1% of the trees, is required from 1000 on).
#include "support/catch.hpp"
#include "support/gpu_check.hpp"
#include "support/host_evaluation.hpp"
#include "support/random_expression.hpp"
#include "support/scratch.hpp"
#include "support/unfused.hpp"

#include <jet/jet.hpp>

#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <math.h>  // glibc's j0, j1, y0, y1
#include <mutex>
#include <numbers>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <vector>

using jet::test::random_expression;

namespace {

// Device memory for one case, freed at the end of its scope.
class device_memory {
 public:
  explicit device_memory(std::size_t bytes) : p_(jet::detail::device_alloc(bytes)), bytes_(bytes) {}
  device_memory(device_memory&& o) noexcept : p_(std::exchange(o.p_, nullptr)), bytes_(o.bytes_) {}
  device_memory(const device_memory&) = delete;
  device_memory& operator=(const device_memory&) = delete;
  ~device_memory() { jet::detail::device_free(p_, bytes_); }
  void* data() const { return p_; }
  /// Element `index` of an array of elements of dtype t here.
  void* at(jet::dtype t, std::int64_t index) const { return static_cast<char*>(p_) + index * jet::size_of(t); }
  void upload(const std::vector<unsigned char>& bytes) const {
    jet::detail::copy_to_device(p_, bytes.data(), bytes.size());
  }
  std::vector<unsigned char> download() const {
    std::vector<unsigned char> bytes(bytes_);
    jet::detail::copy_to_host(bytes.data(), p_, bytes_);
    return bytes;
  }

 private:
  void* p_;
  std::size_t bytes_;
};

// Whether a and b are the same values, NaN for NaN part by part.
bool same_values(jet::test::complex_value a, jet::test::complex_value b) {
  auto same = [](long double x, long double y) { return x == y || (std::isnan(x) && std::isnan(y)); };
  return same(a.real(), b.real()) && same(a.imag(), b.imag());
}

// Bytes no correct kernel writes where they are: outputs start as this pattern.
constexpr unsigned char poison_byte = 0xA5;

struct case_outcome {
  std::string failure;  // empty: passed
  std::size_t elements = 0, determined = 0;
  std::size_t launches = 0;  // kernels the case must launch: one fused, one per non-empty unfused step
};

// Runs one case: uploads its operands, evaluates it fused and unfused, judges every element.
case_outcome run_case(const random_expression& r) {
  case_outcome outcome;
  const jet::detail::kernel_desc d = r.desc();
  const jet::dtype out_type = r.out_type[0];
  std::vector<device_memory> operands;
  for (const auto& o : r.operands) {
    operands.emplace_back(o.where.allocation * jet::size_of(o.type));
    operands.back().upload(jet::test::bytes_of(o.type, o.values));
  }
  std::vector<const void*> inputs;
  for (unsigned slot = 0; slot < d.input_count; ++slot) {
    const auto& o = r.operands[r.slot_operand[slot]];
    inputs.push_back(operands[r.slot_operand[slot]].at(o.type, o.where.first));
  }
  const std::vector<const jet::detail::layout*> layouts = r.input_layouts();
  const std::size_t n = r.shape.size();
  // Fused: the whole description, one kernel, into the poisoned output's view.
  const device_memory fused(r.output.allocation * jet::size_of(out_type));
  fused.upload(std::vector<unsigned char>(r.output.allocation * jet::size_of(out_type), poison_byte));
  {
    void* out = fused.at(out_type, r.output.first);
    jet::detail::kernel_slot slot;
    jet::detail::evaluate({d, slot, &out, &r.output.view, inputs.data(), layouts.data(), r.scalars.data()});
    outcome.launches += r.shape.size() != 0;
  }

  // Unshared, where the description has repeats: each copy computed as written, into another
  // output. A repeat computed once gives the bits it gives computed again.
  std::optional<device_memory> unshared;
  if (d.repeat_count) {
    jet::detail::kernel_desc written = d;
    written.repeats = nullptr;
    written.repeat_count = 0;
    unshared.emplace(r.output.allocation * jet::size_of(out_type));
    void* out = unshared->at(out_type, r.output.first);
    jet::detail::kernel_slot slot;
    jet::detail::evaluate({written, slot, &out, &r.output.view, inputs.data(), layouts.data(), r.scalars.data()});
    outcome.launches += r.shape.size() != 0;
  }

  // Unfused: one kernel per node, each into a contiguous array of its node's shape.
  std::vector<device_memory> stored;
  jet::test::evaluate_unfused(
      d, inputs.data(), layouts.data(), r.scalars.data(),
      [&](std::size_t bytes) { return stored.emplace_back(bytes).data(); },
      [&](const jet::detail::evaluation& e) {
        outcome.launches += jet::detail::broadcast_shape(e.desc, e.input_layouts).size() != 0;
        jet::detail::evaluate(e);
      });
  const std::vector<unsigned char> fused_bytes = fused.download(), unfused_bytes = stored.back().download();
  const std::vector<unsigned char> unshared_bytes = unshared ? unshared->download() : fused_bytes;

  // Judge every element against the host evaluation.
  std::vector<jet::test::bounded> scratch;
  std::vector<bool> written(r.output.allocation, false);
  std::string bad;
  std::size_t bad_count = 0;
  for (std::size_t i = 0; i < n; ++i) {
    auto input = [&](unsigned slot) {
      const auto& o = r.operands[r.slot_operand[slot]];
      return o.values[o.where.first + jet::test::offset_of(o.where.view, i, &r.shape)];
    };
    const jet::test::bounded ref = jet::test::evaluate_element(d, 0, input, r.scalar_values.data(), scratch);
    const std::int64_t at = r.output.first + jet::test::offset_of(r.output.view, i, &r.shape);
    written[at] = true;
    const jet::test::complex_value shared_value = jet::test::element_of(out_type, fused_bytes, at),
                                   unshared_value = jet::test::element_of(out_type, unshared_bytes, at);
    if (!same_values(shared_value, unshared_value) && bad_count++ < 4)
      bad += "    element " + std::to_string(i) + ": shared " + jet::test::value_text(out_type, shared_value) +
             ", computed as written " + jet::test::value_text(out_type, unshared_value) + "\n";
    if (!ref.determined()) continue;
    ++outcome.determined;
    const jet::test::complex_value f = shared_value, u = jet::test::element_of(out_type, unfused_bytes, i);
    const char* wrong = jet::test::misjudged(out_type, ref, f, u);
    if (wrong && bad_count++ < 4)
      bad += "    element " + std::to_string(i) + ": " + wrong + ": reference " +
             jet::test::reference_text(out_type, ref) + ", fused " + jet::test::value_text(out_type, f) + ", unfused " +
             jet::test::value_text(out_type, u) + "\n";
  }
  outcome.elements = n;
  for (std::size_t k = 0; k < written.size(); ++k) {
    bool poisoned = true;
    for (int b = 0; b < jet::size_of(out_type); ++b)
      poisoned = poisoned && fused_bytes[k * jet::size_of(out_type) + b] == poison_byte;
    if (!written[k] && !poisoned && bad_count++ < 4)
      bad += "    allocation element " + std::to_string(k) + " outside the output's view was written\n";
  }
  if (bad_count) outcome.failure = std::to_string(bad_count) + " of " + std::to_string(n) + " elements wrong:\n" + bad;
  return outcome;
}

std::uint64_t environment_number(const char* name, std::uint64_t otherwise) {
  const char* v = std::getenv(name);
  return v && *v ? std::strtoull(v, nullptr, 0) : otherwise;
}

}  // namespace

TEST_CASE("fuzz: random expressions, fused and unfused, against the float64 host evaluation", "[gpu][fuzz][sanitize]") {
  jet::test::restore_disk_cache restore;
  jet::set_disk_cache(false);  // every kernel is new: storing them would only fill the cache
  const std::uint64_t run_seed = jet::test::fresh_seed();
  const std::uint64_t only_case = environment_number("JET_FUZZ_CASE", 0);
  const std::size_t wanted = only_case ? 1 : environment_number("JET_FUZZ_EXPRESSIONS", 2000);

  // The cases, in order, until `wanted` distinct expressions are among them.
  std::vector<random_expression> cases;
  std::set<std::uint64_t> distinct;
  for (std::uint64_t index = 0; distinct.size() < wanted; ++index) {
    cases.push_back(jet::test::make_random_expression(only_case ? only_case : jet::test::case_seed(run_seed, index)));
    distinct.insert(cases.back().desc().hash);
  }

  // Cases run in parallel, one per core: kernels compile in parallel, as the GPU runs others.
  const auto start = std::chrono::steady_clock::now();
  const std::size_t launches_before = jet::stats().launches;
  std::atomic<std::size_t> next{0}, failures{0}, elements{0}, determined{0}, launches{0};
  std::mutex report;
  {
    std::vector<std::jthread> workers;
    for (unsigned w = 0; w < std::max(1u, std::thread::hardware_concurrency()); ++w)
      workers.emplace_back([&] {
        for (std::size_t i; (i = next++) < cases.size();) {
          case_outcome outcome;
          try {
            outcome = run_case(cases[i]);
          } catch (const std::exception& e) {
            outcome.failure = std::string("threw: ") + e.what() + "\n";
          }
          elements += outcome.elements;
          determined += outcome.determined;
          launches += outcome.launches;
          if (outcome.failure.empty()) continue;
          std::lock_guard lock(report);
          if (failures++ < 10)
            std::printf("fuzz case %llu failed (replay: JET_FUZZ_CASE=%llu; run seed JET_TEST_SEED=%llu):\n%s%s\n",
                        static_cast<unsigned long long>(cases[i].seed), static_cast<unsigned long long>(cases[i].seed),
                        static_cast<unsigned long long>(run_seed), cases[i].text().c_str(), outcome.failure.c_str());
        }
      });
  }
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();

  // Coverage: every op and every dtype (a node's, an operand's or the output's) in at least 1% of the trees.
  jet::test::coverage coverage;
  for (const random_expression& r : cases) coverage.add(r);
  const char* policy = std::getenv("JET_JIT");
  std::printf(
      "fuzz (JET_JIT=%s): %zu cases, %zu distinct expressions, %zu elements (%.1f%% determined by the host evaluation), "
      "%zu launches, %.1f s, %zu failed; run seed %llu\n",
      policy ? policy : "default", cases.size(), distinct.size(), elements.load(),
      100.0 * determined / std::max<std::size_t>(elements, 1), launches.load(), seconds, failures.load(),
      static_cast<unsigned long long>(run_seed));
  CHECK(failures == 0);
  CHECK(distinct.size() >= wanted);
  CHECK(jet::stats().launches - launches_before == launches);  // fused: one kernel per expression
  if (wanted < 1000) return;  // coverage means something for the full run (a quick run or one case may miss an op)
  CHECK(coverage.rare() == "");
  CHECK(determined * 2 >= elements);  // the judge judged most elements
}

// The cases the fuzzer failed on GPUs before, fixed since (tests/README.md, "Failures found and
// fixed"): each expression with the elements it got wrong, in the layouts it had.
TEST_CASE("fuzz: the cases it failed before pass", "[gpu][fuzz]") {
  jet::test::host_inputs h;
  SECTION("b < clamp(pow(b, a), -relu(abs(b) + a), exp(a)): abs of int16's lowest wraps before it widens") {
    jet::array<std::int32_t> a_memory = h.upload(std::vector<std::int32_t>{-47, 1, 29, 65535, 32767, 2147483647});
    const jet::view<std::int32_t> a = a_memory.slice(0, -1, std::numeric_limits<std::int64_t>::min(), -1);  // reversed
    const jet::array<std::int16_t> b = h.upload(std::vector<std::int16_t>{-32768, -32768, -32768, -32768, 26, 34});
    const auto e = b < jet::clamp(jet::pow(b, a), -jet::relu(jet::abs(b) + a), jet::exp(a));
    CHECK(jet::test::check_against_reference(e, 6, h) == 0);
    CHECK(jet::array<bool>(e).to_host() == std::vector<bool>{false, true, true, true, false, false});
  }
  SECTION("logit(b) of float32 near 1/2: 2b - 1 is exact there, b - (1 - b) was not (64 ulps off)") {
    const jet::array<float> b =
        h.upload(std::vector<float>{0.49726725f, 0.4861852f, 0.25f, 0.3f, 0.49999997f, 0.5f, 0.50000006f, 0.7f, 0.75f});
    CHECK(jet::test::check_against_reference(jet::logit(b), 9, h) == 0);
  }
  SECTION("sigmoid(exp(abs(a))): abs of int64's lowest stays negative where it converts to float64") {
    const std::int64_t lowest = std::numeric_limits<std::int64_t>::lowest();
    const jet::array<std::int64_t> a = h.upload(std::vector<std::int64_t>{lowest, 12, 3, -24, 0, -1});
    const auto e = jet::sigmoid(jet::exp(jet::abs(a)));
    CHECK(jet::test::check_against_reference(e, 6, h) == 0);
    CHECK(jet::array<double>(e).to_host()[0] == 0.5);  // exp(-2^63) is 0
  }
  SECTION("i0(c), i1(c) of +-inf: +inf, and +-inf for i1 (the host reference once gave NaN)") {
    const float inf = std::numeric_limits<float>::infinity();
    std::vector<jet::bfloat16> values;
    for (const float v : {inf, -inf, 1.0f, -2.5f, 65504.0f}) values.push_back(jet::bfloat16(v));
    const jet::array<jet::bfloat16> c = h.upload(values);
    CHECK(jet::test::check_against_reference(jet::i0(c), 5, h) == 0);
    CHECK(jet::test::check_against_reference(jet::i1(c), 5, h) == 0);
    const std::vector<jet::bfloat16> i0 = jet::array<jet::bfloat16>(jet::i0(c)).to_host(),
                                     i1 = jet::array<jet::bfloat16>(jet::i1(c)).to_host();
    CHECK(static_cast<float>(i0[0]) == inf);
    CHECK(static_cast<float>(i0[1]) == inf);
    CHECK(static_cast<float>(i1[0]) == inf);
    CHECK(static_cast<float>(i1[1]) == -inf);
    const double infinity = std::numeric_limits<double>::infinity();
    const jet::array<double> b = h.upload(std::vector<double>{infinity, -infinity, 1e30, -1e30, 3});
    CHECK(jet::test::check_against_reference(jet::i0(b), 5, h) == 0);
    CHECK(jet::test::check_against_reference(jet::i1(b), 5, h) == 0);
  }
  SECTION("copysign(c, y0(a)) of a < 0: c's magnitude, with the sign of y0's NaN, which is CUDA's to pick") {
    const jet::array<std::int64_t> a = h.upload(std::vector<std::int64_t>{-44, -1, 3, 0});
    const jet::array<double> c = h.upload(std::vector<double>{1, -9, 2.5, -4});
    const std::vector<double> got = jet::array<double>(jet::copysign(c, jet::y0(a))).to_host();
    CHECK(std::fabs(got[0]) == 1);
    CHECK(std::fabs(got[1]) == 9);
    CHECK(got[2] == 2.5);  // y0(3) > 0
    CHECK(got[3] == -4);   // y0(0) is -inf
  }
  SECTION("normcdf of integers down to -37 in float64: within 8 ulps (CUDA's own was 68 ulps off)") {
    std::vector<std::int16_t> integers;
    for (int v = 0; v >= -37; --v) integers.push_back(static_cast<std::int16_t>(v));
    const std::vector<double> got = jet::array<double>(jet::normcdf(h.upload(integers))).to_host();
    for (std::size_t i = 0; i < integers.size(); ++i) {
      const long double exact = std::erfc(static_cast<long double>(-integers[i]) / std::sqrt(2.0L)) / 2;
      INFO("normcdf(" << integers[i] << ") = " << got[i] << ", exactly " << static_cast<double>(exact));
      CHECK(std::fabs(got[i] - exact) <= 8 * std::numeric_limits<double>::epsilon() * exact);
    }
  }
  SECTION("j0, j1, y0, y1 of float64 arguments from 4096 to 1e300 (the host reference once rounded the phase)") {
    // Within 4 ulps of the amplitude sqrt(2 / (pi x)) of glibc's (tests/README.md says why glibc's).
    const std::vector<double> x{4096, 5000.5, 1e6, 1e12, 1.4e19, 2.8e19, 1e300};
    const jet::array<double> b = h.upload(x);
    const std::vector<double> j0 = jet::array<double>(jet::j0(b)).to_host(),
                              j1 = jet::array<double>(jet::j1(b)).to_host(),
                              y0 = jet::array<double>(jet::y0(b)).to_host(),
                              y1 = jet::array<double>(jet::y1(b)).to_host();
    for (std::size_t i = 0; i < x.size(); ++i) {
      const double bound = 4 * std::numeric_limits<double>::epsilon() * std::sqrt(2 / std::numbers::pi / x[i]);
      INFO("x = " << x[i]);
      CHECK(std::fabs(j0[i] - ::j0(x[i])) <= bound);
      CHECK(std::fabs(j1[i] - ::j1(x[i])) <= bound);
      CHECK(std::fabs(y0[i] - ::y0(x[i])) <= bound);
      CHECK(std::fabs(y1[i] - ::y1(x[i])) <= bound);
    }
  }
}
