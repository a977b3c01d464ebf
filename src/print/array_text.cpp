// An array's text as NumPy's repr writes it (numpy/_core/arrayprint.py, _formatArray and
// array_repr, with their defaults: 75 columns, a summary past 1000 elements showing 3 at each
// edge of every axis), always followed by the shape and the dtype.
#include "print/float_text.hpp"

#include <jet/print.hpp>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

namespace jet::detail {
namespace {

constexpr std::size_t summary_threshold = 1000;  // more elements than this: summarized
constexpr std::int64_t edge_items = 3;           // shown at each end of a summarized axis
constexpr std::size_t line_width = 75;
const std::string prefix = "array(";

// The indices shown along an axis of `extent`: all, or the edges of a summarized one.
std::vector<std::int64_t> shown_along(std::int64_t extent, bool summarize) {
  std::vector<std::int64_t> shown;
  const bool edges_only = summarize && extent > 2 * edge_items;
  for (std::int64_t i = 0; i < extent; ++i)
    if (!edges_only || i < edge_items || i >= extent - edge_items) shown.push_back(i);
  return shown;
}

// The C-order positions of the shown elements, in C order.
std::vector<std::size_t> shown_elements(const jet::shape& s, bool summarize) {
  std::vector<std::size_t> positions{0};
  std::size_t stride = 1;
  std::vector<std::size_t> strides(static_cast<std::size_t>(s.rank()));
  for (int d = s.rank() - 1; d >= 0; --d) {
    strides[static_cast<std::size_t>(d)] = stride;
    stride *= static_cast<std::size_t>(s[d]);
  }
  for (int d = 0; d < s.rank(); ++d) {
    std::vector<std::size_t> next;
    for (const std::size_t base : positions)
      for (const std::int64_t i : shown_along(s[d], summarize))
        next.push_back(base + static_cast<std::size_t>(i) * strides[static_cast<std::size_t>(d)]);
    positions = std::move(next);
  }
  return positions;
}

// Each text right-aligned to the widest.
std::vector<std::string> right_aligned(std::vector<std::string> texts) {
  std::size_t width = 0;
  for (const std::string& t : texts) width = std::max(width, t.size());
  for (std::string& t : texts) t.insert(0, width - t.size(), ' ');
  return texts;
}

// The element at `position` of the array at `host`, as T.
template <class T> T element(const void* host, std::size_t position) {
  T v;
  std::memcpy(&v, static_cast<const unsigned char*>(host) + position * sizeof(T), sizeof(T));
  return v;
}

// The padded text of each shown element: integers and bools right-aligned to the widest, floats
// by float_format.
std::vector<std::string> element_texts(const void* host, dtype type, const std::vector<std::size_t>& positions) {
  std::vector<std::string> texts;
  texts.reserve(positions.size());
  if (type == dtype::boolean) {
    for (const std::size_t p : positions) texts.push_back(element<unsigned char>(host, p) ? "True" : "False");
    return right_aligned(std::move(texts));
  }
  if (is_integral(type)) {
    visit_dtype(type, [&](auto zero) {
      using T = decltype(zero);
      if constexpr (std::is_integral_v<T>)
        for (const std::size_t p : positions) texts.push_back(std::to_string(element<T>(host, p)));
    });
    return right_aligned(std::move(texts));
  }
  std::vector<double> values, imaginary;  // the imaginary parts of complex elements
  values.reserve(positions.size());
  visit_dtype(type, [&](auto zero) {
    using T = decltype(zero);
    if constexpr (is_complex_type<T>::value) {
      for (const std::size_t p : positions) {
        values.push_back(static_cast<double>(element<T>(host, p).real()));
        imaginary.push_back(static_cast<double>(element<T>(host, p).imag()));
      }
    } else if constexpr (!std::is_integral_v<T>) {
      for (const std::size_t p : positions) values.push_back(static_cast<double>(element<T>(host, p)));
    }
  });
  const float_format format(values.data(), values.size(), real_type(type));
  for (const double v : values) texts.push_back(format(v));
  if (is_complex(type)) {  // NumPy's: the imaginary part signed, "j" before its padding
    const float_format imaginary_format(imaginary.data(), imaginary.size(), real_type(type), true);
    for (std::size_t k = 0; k < texts.size(); ++k) {
      std::string i = imaginary_format(imaginary[k]);
      i.insert(i.find_last_not_of(' ') + 1, 1, 'j');
      texts[k] += i;
    }
  }
  return texts;
}

std::string without_trailing_spaces(std::string s) {
  s.erase(s.find_last_not_of(' ') + 1);
  return s;
}

// NumPy's _formatArray: nested brackets, rows wrapped at the line width, "..." where a summarized
// axis leaves elements out. The shown elements' texts are taken in order.
struct nested_writer {
  const jet::shape& shape;
  bool summarize;
  const std::vector<std::string>& words;
  std::size_t next_word = 0;

  std::string write(int axis, const std::string& hanging_indent, std::size_t width) {
    if (axis == shape.rank()) return words[next_word++];
    const std::string nested_indent = hanging_indent + " ";
    const std::size_t nested_width = width - 1;  // room for this axis's "]"
    const std::int64_t extent = shape[axis];
    const bool summary = summarize && extent > 2 * edge_items;
    const std::int64_t leading = summary ? edge_items : 0, trailing = summary ? edge_items : extent;
    std::string text;
    if (axis == shape.rank() - 1) {
      const std::size_t element_width = width - 1;  // room for "," or "]"
      std::string line = hanging_indent;
      auto extend = [&](const std::string& word) {
        // A word that does not fit starts a new line, unless the line holds no word yet.
        if (line.size() + word.size() > element_width && line.size() > hanging_indent.size()) {
          text += without_trailing_spaces(line) + "\n";
          line = hanging_indent;
        }
        line += word;
      };
      for (std::int64_t i = 0; i < leading; ++i, line += ", ") extend(write(axis + 1, nested_indent, nested_width));
      if (summary) {
        extend("...");
        line += ", ";
      }
      for (std::int64_t i = trailing; i > 1; --i, line += ", ") extend(write(axis + 1, nested_indent, nested_width));
      extend(write(axis + 1, nested_indent, nested_width));
      text += line;
    } else {
      // Blocks of a higher axis apart by a blank line per axis below the next.
      std::string separator(1, ',');
      separator.append(static_cast<std::size_t>(shape.rank() - axis - 1), '\n');
      for (std::int64_t i = 0; i < leading; ++i)
        text += hanging_indent + write(axis + 1, nested_indent, nested_width) + separator;
      if (summary) text += hanging_indent + "..." + separator;
      for (std::int64_t i = trailing; i > 1; --i)
        text += hanging_indent + write(axis + 1, nested_indent, nested_width) + separator;
      text += hanging_indent + write(axis + 1, nested_indent, nested_width);
    }
    std::string bracketed(1, '[');  // appended: g++ 12 takes "[" + a temporary for an overlap (-Wrestrict)
    bracketed.append(text, hanging_indent.size()).push_back(']');
    return bracketed;
  }
};

}  // namespace

std::string format_array(const void* host, dtype type, const jet::shape& s) {
  const std::size_t count = s.size();
  std::string body = "[]";
  if (count > 0) {
    const bool summarize = count > summary_threshold;
    const std::vector<std::string> words = element_texts(host, type, shown_elements(s, summarize));
    nested_writer writer{s, summarize, words};
    // NumPy's array2string: continuation lines indented past "array([", the width less the ")".
    body = writer.write(0, std::string(prefix.size() + 1, ' '), line_width - 1);
  }
  // array_repr: the extras go on a line of their own where they would pass the line width.
  const std::string text = prefix + body + ",";
  const std::string extras = "shape=" + s.to_string() + ", dtype=" + std::string(name(type)) + ")";
  const std::size_t last_line = text.size() - (text.rfind('\n') == std::string::npos ? 0 : text.rfind('\n') + 1);
  const bool own_line = last_line + extras.size() + 1 > line_width;
  std::string spacer(1, own_line ? '\n' : ' ');
  if (own_line) spacer.append(prefix.size(), ' ');
  return text + spacer + extras;
}

}  // namespace jet::detail
