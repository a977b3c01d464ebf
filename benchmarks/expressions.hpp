// The benchmarked expressions, shared by jet's benchmark and the hand-written CUDA peers so that
// both compute the same functions. a, b, c are the scalars of axpbypc.
#pragma once

#include <cstddef>

namespace bench {

enum class expr { add, relu_add, axpbypc, chain, four };
inline constexpr expr all_exprs[] = {expr::add, expr::relu_add, expr::axpbypc, expr::chain, expr::four};
inline constexpr const char* expr_names[] = {"add", "relu_add", "axpbypc", "chain", "four"};
inline constexpr int input_count[] = {2, 2, 2, 2, 4};
inline constexpr double a = 1.5, b = -0.5, c = 0.25;

/// Bytes an expression must move: each input read once, the output written once.
inline double bytes_moved(expr e, std::size_t n, std::size_t element) {
  return double(input_count[static_cast<int>(e)] + 1) * double(n) * double(element);
}

}  // namespace bench
