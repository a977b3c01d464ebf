#!/usr/bin/env python3
"""What jet costs the user's compiler: host compile time and peak memory of one translation unit
that includes jet.hpp and evaluates 0, 1, 10 and 50 distinct expressions (each a type of its own,
so each instantiates its own kernel description and cache slot), then of examples/black_scholes.cpp
(1,422 nodes, 64 shared subexpressions), of one expression of about 1,000 nodes, as a balanced
tree and as a chain 667 nodes deep, and of a chain 2,001 nodes deep (deeper than g++'s 900 nested
instantiations: jet nests none per level); with --deep also of a chain 4,097 nodes deep (minutes
of g++ time); compiled with g++ -O2 -c.

Usage, from the repository root: python3 benchmarks/compile_time.py [--compiler g++] [--repeat 3] [--deep]
Prints one line per translation unit: what it holds, seconds (the fastest of the repeats), peak MB
of the compiler process. Needs no GPU and no CUDA library; RESULTS.md keeps the figures.
"""
import argparse
import os
import subprocess
import sys
import tempfile
import time

UNARY = ["jet::exp", "jet::relu", "jet::abs", "jet::sin", "jet::tanh", "jet::sqrt", "jet::sigmoid", "-"]
BINARY = ["+", "*", "-", "/"]


def expression(k):
    """The k-th expression: its digits pick the ops, so every k gives another type."""
    e = "x"
    for depth in range(3):
        unary, k = UNARY[k % len(UNARY)], k // len(UNARY)
        binary, k = BINARY[k % len(BINARY)], k // len(BINARY)
        operand = "y" if depth % 2 == 0 else "x"
        e = f"{unary}({e}) {binary} {operand}" if unary != "-" else f"-({e}) {binary} {operand}"
    return e


def source(count):
    lines = ["#include <jet/jet.hpp>", "", "void evaluate(jet::array<float>& z, const jet::array<float>& x,",
             "              const jet::array<float>& y) {"]
    lines += [f"  z = {expression(k)};" for k in range(count)]
    lines += ["}", ""]
    return "\n".join(lines)


# Large expressions, built by recursions log2(N) deep (one N deep would meet g++'s limit on nested
# instantiations in the user's own code). A step of `chain` has a C++ scalar per 2 levels, of
# `deep_chain` one per 4: an expression holds at most 1024 (README, "Limits").
LARGE = """#include <jet/jet.hpp>

template <int N, class E> auto chain(const E& e) {
  if constexpr (N == 1) return -e * 0.5f;
  else return chain<N - N / 2>(chain<N / 2>(e));
}
template <int N, class E> auto deep_chain(const E& e) {
  if constexpr (N == 1) return -(-(-(e * 0.5f)));
  else return deep_chain<N - N / 2>(deep_chain<N / 2>(e));
}
template <int Leaves, class A, class B> auto balanced(const A& x, const B& y) {
  if constexpr (Leaves == 1) return x;
  else if constexpr (Leaves % 4 == 0) return balanced<Leaves / 2>(x, y) * balanced<Leaves / 2>(y, x);
  else return balanced<Leaves / 2>(x, y) + balanced<Leaves - Leaves / 2>(y, x);
}

void evaluate(jet::array<float>& z, jet::view<float> x, jet::view<float> y) { z = EXPRESSION; }
"""
LARGE_CASES = {
    "balanced_tree_1023_nodes": "balanced<512>(x, y)",
    "chain_1000_nodes_667_deep": "chain<333>(x)",
    "chain_3001_nodes_2001_deep": "chain<1000>(x)",
}
DEEP_CASES = {"chain_5121_nodes_4097_deep": "deep_chain<1024>(x)"}


def compile_once(compiler, includes, path):
    start = time.perf_counter()
    flags = [f"-I{directory}" for directory in includes]
    child = subprocess.Popen([compiler, "-std=c++20", "-O2", "-c", *flags, path, "-o", os.devnull])
    _, status, usage = os.wait4(child.pid, 0)
    seconds = time.perf_counter() - start
    if status != 0:
        sys.exit(f"{compiler} failed on {path}")
    return seconds, usage.ru_maxrss / 1024  # ru_maxrss is in KiB on Linux


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--compiler", default="g++")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--deep", action="store_true", help="also the chain 4,097 nodes deep")
    args = parser.parse_args()
    root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
    includes = [os.path.join(root, "include"), os.path.join(root, "examples")]
    version = subprocess.run([args.compiler, "--version"], capture_output=True, text=True).stdout.splitlines()[0]
    print(f"compile_time: {version}, -O2, {os.cpu_count()} cores, fastest of {args.repeat}")

    def report(label, path):
        runs = [compile_once(args.compiler, includes, path) for _ in range(args.repeat)]
        seconds = min(r[0] for r in runs)
        megabytes = max(r[1] for r in runs)
        print(f"compile_time {label} seconds={seconds:.2f} peak_mb={megabytes:.0f}")

    with tempfile.TemporaryDirectory() as scratch:
        for count in (0, 1, 10, 50):
            path = os.path.join(scratch, f"expressions_{count}.cpp")
            with open(path, "w") as f:
                f.write(source(count))
            report(f"expressions={count}", path)
        report("black_scholes.cpp", os.path.join(root, "examples", "black_scholes.cpp"))
        for label, expression in {**LARGE_CASES, **(DEEP_CASES if args.deep else {})}.items():
            path = os.path.join(scratch, f"{label}.cpp")
            with open(path, "w") as f:
                f.write(LARGE.replace("EXPRESSION", expression))
            report(label, path)


if __name__ == "__main__":
    main()
