#include "fft/load_callback.hpp"

#include "codegen/geometry.hpp"
#include "codegen/kernel_parts.hpp"
#include "codegen/source_text.hpp"
#include "codegen/spelling.hpp"

#include <cstring>

namespace jet::detail {
namespace {

// The parameter block's layout, which the source and the words follow alike: the buffer (word 0),
// the padding (words 1 to 3), the extents when indexed, then each distinct input's pointer (none
// for a counter) and strides (none when linear), then the scalars the callback takes, each in
// two words at an even word (a complex128 is 16 bytes).
constexpr unsigned buffer_word = 0, padding_words = 1, first_free_word = 4;

template <class Visit> void visit_words(const kernel_desc& d, const variant_key& v, Visit&& visit) {
  const kernel_parts p{d, v};
  unsigned word = first_free_word;
  if (p.indexed) {
    visit.extents(word);
    word += v.rank;
  }
  for (unsigned k = 0; k < p.inputs; ++k) {
    if (!p.counter_input(k)) visit.pointer(k, word++);
    if (v.input_access[k] != access::linear) {
      visit.strides(k, word);
      word += v.rank;
    }
  }
  word += word % 2;
  for (unsigned k = 0; k < d.scalar_count; ++k)
    if (p.scalar_taken[k]) {
      visit.scalar(k, word);
      word += 2;
    }
  visit.end(word);
}

// The element's type as cuFFT's callback returns it.
std::string callback_type(dtype element) {
  switch (element) {
    case dtype::float32: return "float";
    case dtype::float64: return "double";
    case dtype::complex64: return "float2";
    default: return "double2";
  }
}

// The callback's lines from the element's index in the operand's index space on: its operands
// out of the block, and jet_element's value returned as cuFFT's type.
void compute_element(source_writer& w, const kernel_parts& p, dtype element) {
  const std::string rank = p.rank;
  struct reader {
    source_writer& w;
    const kernel_parts& p;
    const std::string& rank;
    void extents(unsigned at) {
      w.line("const jet_extents<", rank, ">& extents = *reinterpret_cast<const jet_extents<", rank, ">*>(w + ", at,
             ");");
    }
    void pointer(unsigned k, unsigned at) {
      w.line("const ", p.in_type(k), "* const in", k, " = reinterpret_cast<const ", p.in_type(k), "*>(w[", at, "]);");
    }
    void strides(unsigned k, unsigned at) {
      w.line("const jet_strides<", rank, ">& is", k, " = *reinterpret_cast<const jet_strides<", rank, ">*>(w + ", at,
             ");");
    }
    void scalar(unsigned k, unsigned at) {
      const std::string type = value_type(scalar_type(p.d, k));
      w.line("const ", type, " s", k, " = *reinterpret_cast<const ", type, "*>(w + ", at, ");");
    }
    void end(unsigned) {}
  };
  visit_words(p.d, p.v, reader{w, p, rank});
  p.declare_index(w);
  p.unravel(w);
  w.line(p.out_type(0), " o0;");
  w.line("jet_element(o0", p.element_args([&](unsigned k) { return p.strided_offset(k); }), ");");
  w.line(is_complex(element) ? "return {o0.re, o0.im};" : "return o0;");
}

}  // namespace

variant_key load_callback_variant(const variant_key& planned) {
  variant_key v = planned;
  v.vec = 1;
  v.tiled = v.rows = false;
  v.out_aliases_input = false;
  for (unsigned k = 0; k < max_inputs; ++k)
    if (v.input_access[k] != access::linear) v.input_access[k] = access::gather;
  v.output_access[0] = access::linear;
  return v;
}

fft_padding padding_of(const fft_geometry& g) {
  fft_padding padding;
  padding.padded = g.padded();
  const int axis = g.last_axis();
  padding.extent = static_cast<std::uint64_t>(g.buffer[axis]);
  padding.covered = static_cast<std::uint64_t>(g.operand[axis]);
  for (int d = axis + 1; d < g.buffer.rank(); ++d) padding.inner *= static_cast<std::uint64_t>(g.buffer[d]);
  return padding;
}

std::string load_callback_source(const kernel_desc& d, const variant_key& v, dtype element, bool padded) {
  const kernel_parts p{d, v};
  source_writer w;
  p.prelude(w, "an FFT's load callback");
  const std::string type = callback_type(element), size = std::to_string(size_of(element));
  w.line("// cuFFT's offsets count elements from the pointer it was given: from its loop's part of the buffer.");
  w.open("__device__ ", type, " ", fft_load_callback_name,
         "(void* data, unsigned long long offset, void* info, void* shared) {");
  w.line("const unsigned long long* const w = static_cast<const unsigned long long*>(info);");
  w.line("unsigned long long i = offset + (unsigned long long)(static_cast<const char*>(data) - ",
         "reinterpret_cast<const char*>(w[", buffer_word, "])) / ", size, ";");
  if (padded) {
    w.line("// Beyond the operand's extent along the axis the buffer holds zeros.");
    w.line("const unsigned long long extent = w[", padding_words, "], covered = w[", padding_words + 1, "], inner = w[",
           padding_words + 2, "];");
    w.line(
        "const unsigned long long run = i / inner, at = i - run * inner, outer = run / extent, along = run - outer * extent;");
    w.line("if (along >= covered) return ", type, "{};");
    w.line("i = (outer * covered + along) * inner + at;");
  }
  compute_element(w, p, element);
  w.close();
  return w.take();
}

std::size_t load_callback_word_count(const kernel_desc& d, const variant_key& v) {
  struct counter {
    unsigned count = 0;
    void extents(unsigned) {}
    void pointer(unsigned, unsigned) {}
    void strides(unsigned, unsigned) {}
    void scalar(unsigned, unsigned) {}
    void end(unsigned words) { count = words; }
  } c;
  visit_words(d, v, c);
  return c.count;
}

std::vector<std::uint64_t> load_callback_words(const evaluation& e, const plan& p, const void* buffer,
                                               const fft_padding& padding) {
  struct writer {
    const evaluation& e;
    const plan& p;
    std::vector<std::uint64_t> words = std::vector<std::uint64_t>(first_free_word);
    void put(unsigned at, const void* bytes, std::size_t size) {
      if (words.size() < at + (size + 7) / 8) words.resize(at + (size + 7) / 8);
      std::memcpy(words.data() + at, bytes, size);
    }
    void extents(unsigned at) { put(at, p.extents, p.variant.rank * sizeof(std::int64_t)); }
    void pointer(unsigned k, unsigned at) { put(at, &p.distinct[k], sizeof(void*)); }
    void strides(unsigned k, unsigned at) { put(at, p.input_strides[k], p.variant.rank * sizeof(std::int64_t)); }
    void scalar(unsigned k, unsigned at) { put(at, e.scalars[k].bytes, sizeof e.scalars[k].bytes); }
    void end(unsigned count) { words.resize(count); }
  } w{e, p};
  const std::uint64_t head[first_free_word] = {reinterpret_cast<std::uintptr_t>(buffer), padding.extent,
                                               padding.covered, padding.inner};
  w.put(buffer_word, head, sizeof head);
  visit_words(e.desc, load_callback_variant(p.variant), w);
  return std::move(w.words);
}

}  // namespace jet::detail
