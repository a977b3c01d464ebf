#!/usr/bin/env python3
"""Turn benchmark output lines (C++ side and benchmarks/peers.py) into a markdown report.

Usage: python3 benchmarks/report.py OUT.md FILE...

Reads, from every FILE, the lines (anything else is ignored; a later duplicate replaces an earlier one)
  RESULT impl=<impl> expr=<expr> dtype=<dtype> n=<n> ms=<ms> gbps=<gbps>
  OVERHEAD impl=<name> us=<us>
  STEP impl=<name> us=<us per expression of the ten-expression step>
  FIRST impl=<name> ms=<ms>
  SKIP impl=<impl> [expr=.. dtype=.. n=..] reason=<rest of the line>
  INTERP kind=<interpreter_load|first_result|bandwidth|distinct> ... (jet_bench's interpreter lines)
  HEAT impl=<jet|torch_eager|torch_compile> n=<N> ms=<ms per step> (examples/heat_equation, heat_torch.py)
  BLACKSCHOLES kind=<compile|interpreted|launches|calls> impl=<impl> ... (jet_bench's and peers.py's Black-Scholes)
"Peers" are all impls except jet, jet_unfused, jet_let (Black-Scholes with jet::let) and memcpy.  The copy ceiling is
impl=memcpy expr=copy dtype=float32 at n=2^28 (its bytes are read + write).
Writes OUT.md, with bandwidth.png and first_result.png beside it where matplotlib is installed
(pictures.py), and prints a short summary (at most 25 lines) to stdout.
"""
import os
import re
import sys

import pictures

HEAD_N = 1 << 28
# sum(x*y) at 2^20 and Black-Scholes timed other ways than single calls: reported in sentences of
# their own, never ranked.
OTHER_TIMINGS = {"jet_back_to_back", "jet_gpu_time", "cub_back_to_back", "cub_gpu_time", "cuda_hand_back_to_back",
                 "cuda_hand_gpu_time"}
NOT_PEERS = {"jet", "jet_unfused", "jet_let", "memcpy"} | OTHER_TIMINGS
EXPR_ORDER = ["add", "relu_add", "axpbypc", "chain", "four", "bias_add", "transpose_add", "slice_add", "heat_step", "permute_add", "sum_mul", "row_sum",
              "column_sum", "row_argmax", "softmax_rows", "black_scholes"]
DTYPE_ORDER = ["float32", "float64", "bfloat16"]
IMPL_ORDER = ["jet", "jet_unfused", "cuda_hand", "cuda_float4", "cuda_masked", "thrust", "torch_eager",
              "torch_compile", "triton", "cupy_elementwise", "cupy_fuse", "cub", "torch_sum", "torch_dot",
              "cupy_sum", "torch_argmax", "torch_softmax"]
CUPY = ("cupy_elementwise", "cupy_fuse")
OVERHEAD_ORDER = ["jet", "cuLaunchKernel", "torch_add_out", "torch_eager_relu_add",
                  "torch_compile_relu_add", "triton_add", "cupy_add_out",
                  "cupy_elementwise_relu_add", "cupy_fuse_relu_add"]
FIRST_ORDER = ["jet_first_in_process", "jet_new_expression", "jet_new_expression_nvrtc_part",
               "nvrtc_empty_kernel", "jet_disk_hit_fresh_process"]
STEP_ORDER = ["jet_stream", "jet_graph"]
STEP_GRAPH_TARGET_US = 1.5  # per expression, graph replay on an H200
# arrays moved per element (inputs + output), to recompute gbps when a line lacks it
ARRAYS = {"add": 3, "relu_add": 3, "axpbypc": 3, "chain": 3, "four": 5, "copy": 2, "bias_add": 2, "transpose_add": 3, "slice_add": 3, "heat_step": 2, "permute_add": 3,
          "sum_mul": 2, "row_sum": 1, "column_sum": 1, "row_argmax": 1, "softmax_rows": 2, "black_scholes": 5}
ITEMSIZE = {"float32": 4, "float64": 8, "float16": 2, "bfloat16": 2, "int32": 4, "int64": 8}

LINE_RE = re.compile(r"^\s*(RESULT|OVERHEAD|STEP|FIRST|SKIP)\s+(.*?)\s*$")
KV_RE = re.compile(r"(\w+)=(\S*)")


def to_float(s):
    try:
        v = float(s)
    except (TypeError, ValueError):
        return None
    return v if v == v else None  # NaN -> None


def to_int(s):
    try:
        return int(s)
    except (TypeError, ValueError):
        v = to_float(s)
        return int(v) if v is not None else None


def parse(paths):
    res = {}        # (expr, dtype, n) -> {impl: (ms, gbps)}
    overhead = {}   # impl -> us
    step = {}       # impl -> us per expression
    first = {}      # impl -> ms
    skips = []      # dicts
    for path in paths:
        try:
            fh = open(path, errors="replace")
        except OSError as e:
            print(f"report.py: cannot read {path}: {e}", file=sys.stderr)
            continue
        with fh:
            for line in fh:
                m = LINE_RE.match(line)
                if not m:
                    continue
                kind, rest = m.group(1), m.group(2)
                reason = None
                if kind == "SKIP":
                    i = rest.find("reason=")
                    if i >= 0:
                        reason = rest[i + len("reason="):].strip()
                        rest = rest[:i]
                kv = dict(KV_RE.findall(rest))
                impl = kv.get("impl")
                if not impl:
                    continue
                if kind == "RESULT":
                    expr, dtype, n = kv.get("expr"), kv.get("dtype"), to_int(kv.get("n"))
                    if not expr or not dtype or n is None:
                        continue
                    ms, gbps = to_float(kv.get("ms")), to_float(kv.get("gbps"))
                    if gbps is None and ms and expr in ARRAYS and dtype in ITEMSIZE:
                        gbps = ARRAYS[expr] * n * ITEMSIZE[dtype] / (ms * 1e-3) / 1e9
                    if gbps is None and ms is None:
                        continue
                    res.setdefault((expr, dtype, n), {})[impl] = (ms, gbps)
                elif kind in ("OVERHEAD", "STEP"):
                    v = to_float(kv.get("us"))
                    if v is not None:
                        (overhead if kind == "OVERHEAD" else step)[impl] = v
                elif kind == "FIRST":
                    v = to_float(kv.get("ms"))
                    if v is not None:
                        first[impl] = v
                else:
                    skips.append({"impl": impl, "expr": kv.get("expr", ""),
                                  "dtype": kv.get("dtype", ""), "n": kv.get("n", ""),
                                  "reason": reason or "", "file": os.path.basename(path)})
    return res, overhead, step, first, skips


def parse_tagged(paths, tag):
    """The lines of every file that start with TAG (INTERP, HEAT), as dicts, in order."""
    tag_re = re.compile(rf"^\s*{tag}\s+(.*?)\s*$")
    lines = []
    for path in paths:
        try:
            with open(path, errors="replace") as fh:
                lines += [dict(KV_RE.findall(m.group(1))) for m in map(tag_re.match, fh) if m]
        except OSError:
            pass
    return lines


def heat_section(lines):
    """Markdown for examples/heat_equation against the same program in PyTorch, and a summary line."""
    md = ["## examples/heat_equation: ms per step (one stencil expression a step, a norm every 50)", ""]
    ms = {l.get("impl"): to_float(l.get("ms")) for l in lines}
    if not lines:
        return md + ["(no HEAT lines)", ""], "heat_equation: no HEAT lines"
    n = lines[0].get("n", "?")
    md += md_table(["impl", "ms/step", "jet speed-up"],
                   [[i, f2(v), f2(ratio(v, ms.get("jet")))] for i, v in ms.items()])
    md += ["", f"({n} x {n} float32 grid)", ""]
    summary = (f"heat_equation {n}^2 ms/step: jet {f2(ms.get('jet'))}  torch_eager {f2(ms.get('torch_eager'))}  "
               f"torch_compile {f2(ms.get('torch_compile'))}")
    return md, summary


BS_SIZES = [4000000, 1 << 24, 1 << 26]
BS_PEERS = ["jet_let", "cuda_hand", "cupy_elementwise", "torch_eager", "torch_compile"]


def black_scholes_section(res, lines):
    """Markdown for Black-Scholes (examples/black_scholes.cpp) against its peers, and a summary line."""
    md = ["## Black-Scholes (examples/black_scholes.cpp): ms per evaluation, float32, calls and puts", ""]
    ms = lambda impl, n: ms_of(res, "black_scholes", "float32", n, impl)
    speedup = lambda impl, n: ratio(ms(impl, n), ms("jet", n))  # > 1: jet is faster
    rows = [[nname(n), f5(ms("jet", n))]
            + [c for p in BS_PEERS for c in (f5(ms(p, n)), f2(speedup(p, n)))] for n in BS_SIZES]
    md += md_table(["n", "jet ms"] + [c for p in BS_PEERS for c in (f"{p} ms", f"jet/{p}")], rows)
    md += ["", "jet is the formula with plain auto sub-expressions, shared by jet without help; jet_let the same "
           "formula with its values named by jet::let. jet/peer is the peer's time over jet's. Targets: at 4,000,000 >= 0.95 x cuda_hand and >= 1.4 x "
           "cupy_elementwise; at 2^24 and 2^26 >= 0.95 x cuda_hand; one launch per evaluation.", ""]
    launches = {l.get("n"): l.get("per_evaluation") for l in lines if l.get("kind") == "launches"}
    compiles = {l.get("impl"): l for l in lines if l.get("kind") == "compile"}
    calls = {l.get("impl"): l for l in lines if l.get("kind") == "calls"}
    jet_compile = compiles.get("jet", {})
    md.append("Launches per evaluation: " + (", ".join(f"{v} at {k}" for k, v in launches.items()) or "-") + ".")
    md.append(f"Cold compile: jet's NVRTC {jet_compile.get('ms', '-')} ms (first result "
              f"{jet_compile.get('first_result_ms', '-')} ms; target <= 300 ms); first call of "
              + ", ".join(f"{i} {compiles[i].get('ms')} ms" for i in compiles if i != "jet") + ".")
    interpreted = next((l for l in lines if l.get("kind") == "interpreted"), {})
    md.append(f"First result on the loaded interpreter (what `async` gives): "
              f"{interpreted.get('first_result_ms', '-')} ms (target <= 1 ms), "
              f"{interpreted.get('interpreted_launches', '-')} interpreted launch(es).")
    md.append("log/exp/sqrt calls per option in the source: "
              + ", ".join(f"{i} {c.get('log')}/{c.get('exp')}/{c.get('sqrt')}" for i, c in calls.items()) + ".")
    other = lambda impl: ", ".join(f"{nname(n)} {f2(ratio(ms('cuda_hand_' + impl, n), ms('jet_' + impl, n)))}"
                                   for n in BS_SIZES)
    md.append(f"jet/cuda_hand with the launch hidden (the GPU busy while each call is enqueued): {other('gpu_time')}; "
              f"back to back: {other('back_to_back')}.")
    md.append("")
    n0 = BS_SIZES[0]
    summary = (f"black_scholes jet/cuda_hand: 4M {f2(speedup('cuda_hand', n0))} (>=0.95), 2^24 "
               f"{f2(speedup('cuda_hand', 1 << 24))}, 2^26 {f2(speedup('cuda_hand', 1 << 26))}; jet/cupy 4M "
               f"{f2(speedup('cupy_elementwise', n0))} (>=1.4); jet_let/cuda_hand 4M "
               f"{f2(ratio(ms('cuda_hand', n0), ms('jet_let', n0)))}; launches {launches.get(str(n0), '-')}; nvrtc "
               f"{jet_compile.get('ms', '-')} ms; interpreted first result {interpreted.get('first_result_ms', '-')} ms (<=1)")
    return md, summary


def interp_section(lines):
    """Markdown for the interpreter's lines, and a one-line summary against its targets."""
    md = ["## First results without waiting for the compiler (interpreter)", ""]
    if not lines:
        return md + ["(no INTERP lines)", ""], "interpreter: no INTERP lines"
    load = [l for l in lines if l.get("kind") == "interpreter_load"]
    for l in load:
        md.append(f"Interpreter load ({l.get('family', 'float32')} family): {l.get('ms')} ms, from {l.get('from')}.")
    firsts = [to_float(l.get("ms")) for l in lines if l.get("kind") == "first_result"]
    firsts = [v for v in firsts if v is not None]
    worst = max(firsts) if firsts else None
    md.append(f"Never-seen expression at 2^20 under async, call to result: "
              f"{', '.join(f2(v) for v in firsts) or '-'} ms (target <= 1 ms).")
    mixers = {l.get("kind"): l for l in lines if l.get("kind") in ("first_result_complex", "first_result_real_mixer")}
    if mixers:
        c, r = mixers.get("first_result_complex", {}), mixers.get("first_result_real_mixer", {})
        md.append(f"Never-seen mixer (make_complex, exp, division, abs) under async: complex {c.get('ms', '-')} ms, "
                  f"its real-valued equivalent {r.get('ms', '-')} ms.")
    md.append("")
    bw = {}
    for l in lines:
        if l.get("kind") == "bandwidth":
            bw.setdefault(to_int(l.get("ops")), {})[l.get("impl")] = to_float(l.get("gbps"))
    rows, worst_short = [], None
    for ops in sorted(k for k in bw if k is not None):
        i, c = bw[ops].get("interpreter"), bw[ops].get("compiled")
        r = ratio(i, c)
        if ops <= 8 and r is not None:
            worst_short = r if worst_short is None else min(worst_short, r)
        rows.append([str(ops), f1(i), f1(c), f2(r)])
    md += md_table(["ops", "interpreter GB/s", "compiled GB/s", "interpreter/compiled"], rows) if rows else []
    md.append("")
    md.append("(2^28 float32, x op s ... + y: two arrays read, one written; target >= 0.8 up to 8 ops)")
    md.append("")
    dist = {l.get("impl"): l for l in lines if l.get("kind") == "distinct"}
    a, s_ = dist.get("async"), dist.get("sync")
    async_ms = to_float(a.get("ms")) if a else None
    sync_ms = to_float(s_.get("scaled_ms")) if s_ else None
    if a or s_:
        md.append(f"1,000 distinct expressions once each at 2^20, no disk cache: async {f1(async_ms)} ms "
                  f"({a.get('interpreted') if a else '-'} interpreted), sync {f1(sync_ms)} ms "
                  f"(timed on {s_.get('expressions') if s_ else '-'}, scaled to 1,000): "
                  f"sync/async = {f1(ratio(sync_ms, async_ms))} (target >= 10).")
        md.append("")
    summary = (f"interpreter: first result {f2(worst)} ms (<=1); bandwidth/compiled <=8 ops min {f2(worst_short)} "
               f"(>=0.8); 1000 distinct sync/async {f1(ratio(sync_ms, async_ms))} (>=10)")
    return md, summary


def ordered(items, order):
    items = list(dict.fromkeys(items))
    known = [x for x in order if x in items]
    return known + sorted(x for x in items if x not in order)


def gb(res, expr, dtype, n, impl):
    v = res.get((expr, dtype, n), {}).get(impl)
    return v[1] if v else None


def ms_of(res, expr, dtype, n, impl):
    v = res.get((expr, dtype, n), {}).get(impl)
    return v[0] if v else None


def us_per_call(res, impl):
    """sum(x*y) at 2^20 in microseconds per call, for one of the measurements at 2^20 but the single calls."""
    ms = ms_of(res, "sum_mul", "float32", 1 << 20, impl)
    return f1(None if ms is None else ms * 1000)


def best_peer(res, expr, dtype, n, among=None):
    best = (None, None)
    for impl, (_, g) in res.get((expr, dtype, n), {}).items():
        if impl in NOT_PEERS or g is None or (among is not None and impl not in among):
            continue
        if best[1] is None or g > best[1]:
            best = (impl, g)
    return best


def ratio(a, b):
    return a / b if (a is not None and b) else None


def f1(v):
    return "-" if v is None else f"{v:.1f}"


def f2(v):
    return "-" if v is None else f"{v:.2f}"


def f5(v):
    return "-" if v is None else f"{v:.5g}"


def nname(n):
    return f"2^{n.bit_length() - 1}" if n > 0 and n & (n - 1) == 0 else str(n)


def md_table(header, rows):
    def numeric(c):
        return c == "-" or to_float(c) is not None or bool(re.fullmatch(r"2\^\d+", c))
    align = ["---:" if rows and all(numeric(str(r[i])) for r in rows) else "---"
             for i in range(len(header))]
    out = ["| " + " | ".join(header) + " |", "|" + "|".join(align) + "|"]
    for r in rows:
        out.append("| " + " | ".join(str(c) for c in r) + " |")
    return out


def ceiling(res):
    g = gb(res, "copy", "float32", HEAD_N, "memcpy")
    if g is None:  # any other dtype of the copy at 2^28
        for (e, d, n), impls in res.items():
            if e == "copy" and n == HEAD_N and impls.get("memcpy") and impls["memcpy"][1]:
                g = impls["memcpy"][1]
                break
    return g


def main(argv):
    if len(argv) < 3:
        print(__doc__.strip().splitlines()[2], file=sys.stderr)
        return 2
    out_md, paths = argv[1], argv[2:]
    res, overhead, step, first, skips = parse(paths)

    exprs = ordered([e for (e, _, _), impls in res.items() if set(impls) - {"memcpy"}], EXPR_ORDER)
    dtypes = ordered([d for (_, d, _) in res], DTYPE_ORDER)
    impls_all = ordered([i for v in res.values() for i in v if i != "memcpy" and i not in OTHER_TIMINGS], IMPL_ORDER)
    ceil = ceiling(res)
    combos = [(e, d) for e in exprs for d in dtypes
              if any(k[0] == e and k[1] == d for k in res)]

    md = ["# jet vs peers: elementwise benchmarks", ""]
    # The pictures show the interpreter's first result of a never-seen expression beside the compiles.
    interpreted = [to_float(l.get("ms")) for l in parse_tagged(paths, "INTERP") if l.get("kind") == "first_result"]
    shown_first = dict(first, jet_interpreted_new_expression=max(interpreted)) if interpreted else first
    md += [f"![{name}]({name})" for name in pictures.draw(os.path.dirname(os.path.abspath(out_md)), res, shown_first)]
    md.append("")
    md.append("Sources: " + ", ".join(f"`{p}`" for p in paths) + ".")
    md.append("")
    md.append("GB/s = (inputs + 1 output) x n x itemsize / median time (events per call, 5 warm-ups, "
              "no L2 flush); intermediates that a peer writes are not counted. "
              "Peers = every impl except jet, jet_unfused and memcpy. "
              f"Copy ceiling = memcpy (device-to-device, read + write) at n=2^28: **{f1(ceil)} GB/s**.")
    md.append("")

    # a) headline
    md.append(f"## Headline at n = {nname(HEAD_N)}")
    md.append("")
    head = (["expr", "dtype", "jet GB/s", "best peer", "peer GB/s", "jet/peer", "jet/ceiling"]
            + [f"{i}" for i in impls_all] + ["jet/torch_eager", "jet/cupy"])
    rows, summary_rows = [], []
    for e, d in combos:
        j = gb(res, e, d, HEAD_N, "jet")
        bp, bg = best_peer(res, e, d, HEAD_N)
        _, cg = best_peer(res, e, d, HEAD_N, among=CUPY)
        row = [e, d, f1(j), bp or "-", f1(bg), f2(ratio(j, bg)), f2(ratio(j, ceil))]
        row += [f1(gb(res, e, d, HEAD_N, i)) for i in impls_all]
        row += [f2(ratio(j, gb(res, e, d, HEAD_N, "torch_eager"))), f2(ratio(j, cg))]
        rows.append(row)
        summary_rows.append((e, d, j, bp, bg, ratio(j, bg), ratio(j, ceil)))
    md += md_table(head, rows) if rows else ["(no results)"]
    md.append("")

    # b) size sweep
    md.append("## Size sweep")
    md.append("")
    for e, d in combos:
        ns = sorted({k[2] for k in res if k[0] == e and k[1] == d})
        md.append(f"### {e} {d}")
        md.append("")
        rows = []
        for n in ns:
            j = gb(res, e, d, n, "jet")
            bp, bg = best_peer(res, e, d, n)
            c4 = gb(res, e, d, n, "cuda_float4")
            rows.append([nname(n), f5(ms_of(res, e, d, n, "jet")), f1(j), f1(bg), bp or "-",
                         f2(ratio(j, bg)), f1(c4), f2(ratio(j, c4))])
        md += md_table(["n", "jet ms", "jet GB/s", "best peer GB/s", "best peer", "jet/peer",
                        "cuda_float4 GB/s", "jet/cuda_float4"], rows)
        md.append("")

    # c) overhead
    md.append("## Host overhead per call (n = 1024 float32, back-to-back, one sync at the end)")
    md.append("")
    cl = overhead.get("cuLaunchKernel")
    if overhead:
        md += md_table(["impl", "us/call", "x cuLaunchKernel"],
                       [[i, f2(overhead[i]), f2(ratio(overhead[i], cl))]
                        for i in ordered(overhead, OVERHEAD_ORDER)])
    else:
        md.append("(no OVERHEAD lines)")
    md.append("")
    md.append(f"jet / cuLaunchKernel = {f2(ratio(overhead.get('jet'), cl))}")
    md.append("")

    # c2) the ten-expression step
    md.append("## Ten-expression step on a stream (n = 1024 float32, back-to-back, one sync at the end)")
    md.append("")
    if step:
        md += md_table(["impl", "us/expression"], [[i, f2(step[i])] for i in ordered(step, STEP_ORDER)])
    else:
        md.append("(no STEP lines)")
    md.append("")
    md.append(f"graph replay target: < {STEP_GRAPH_TARGET_US} us per expression")
    md.append("")

    # d) first result
    md.append("## Time to first result (compile + first launch)")
    md.append("")
    if first:
        md += md_table(["impl", "ms"], [[i, f1(first[i])] for i in ordered(first, FIRST_ORDER)])
    else:
        md.append("(no FIRST lines)")
    md.append("")

    interp_md, interp_summary = interp_section(parse_tagged(paths, "INTERP"))
    md += interp_md
    heat_md, heat_summary = heat_section(parse_tagged(paths, "HEAT"))
    md += heat_md
    bs_md, bs_summary = black_scholes_section(res, parse_tagged(paths, "BLACKSCHOLES"))
    md += bs_md

    # e) reductions against their targets
    md.append("## Reductions (float32; sum_mul = sum(x * y), 8 bytes read per element)")
    md.append("")
    red_rows = []
    for n in (1 << 20, 1 << 24, HEAD_N):
        j = gb(res, "sum_mul", "float32", n, "jet")
        jms = ms_of(res, "sum_mul", "float32", n, "jet")
        red_rows.append([nname(n), f1(j), f1(None if jms is None else jms * 1000),
                         f2(ratio(j, gb(res, "sum_mul", "float32", n, "cub"))),
                         f2(ratio(j, gb(res, "sum_mul", "float32", n, "torch_sum"))),
                         f2(ratio(j, gb(res, "sum_mul", "float32", n, "torch_dot"))),
                         f2(ratio(j, gb(res, "sum_mul", "float32", n, "cupy_sum")))])
    md += md_table(["n", "jet GB/s", "jet us", "jet/cub (>= 0.98)", "jet/torch (x*y).sum() (>= 2)",
                    "jet/torch.dot (>= 1)", "jet/cupy"], red_rows)
    md.append("")
    md.append("jet us is the median of single calls, each timed with its own pair of events, so it includes the "
              "launch's latency. Back to back (1,000 calls between one pair of events), a call at 2^20 takes: "
              f"jet {us_per_call(res, 'jet_back_to_back')} us, cub {us_per_call(res, 'cub_back_to_back')} us. "
              "Timed on the GPU alone as Triton's do_bench does (L2 cleared and the GPU kept busy by a "
              "256 MiB memset before each call, so that the launch's latency is hidden): "
              f"jet {us_per_call(res, 'jet_gpu_time')} us, cub {us_per_call(res, 'cub_gpu_time')} us.")
    md.append("")
    for e, peer in (("row_sum", "torch_sum"), ("column_sum", "torch_sum"), ("row_argmax", "torch_argmax"),
                    ("softmax_rows", "torch_softmax")):
        j = gb(res, e, "float32", HEAD_N, "jet")
        md.append(f"{e} of 16384 x 16384: jet {f1(j)} GB/s, torch {f1(gb(res, e, 'float32', HEAD_N, peer))} GB/s, "
                  f"jet/torch {f2(ratio(j, gb(res, e, 'float32', HEAD_N, peer)))}")
        md.append("")

    if skips:
        md.append("## Skipped")
        md.append("")
        md += md_table(["impl", "expr", "dtype", "n", "reason", "file"],
                       [[s["impl"], s["expr"] or "-", s["dtype"] or "-", s["n"] or "-",
                         s["reason"].replace("|", "\\|") or "-", s["file"]] for s in skips])
        md.append("")

    with open(out_md, "w") as fh:
        fh.write("\n".join(md))

    # short stdout summary (<= 25 lines)
    lines = [f"n={nname(HEAD_N)} GB/s; copy ceiling (memcpy) {f1(ceil)}"]
    lines.append(f"{'expr':<9} {'dtype':<8} {'jet':>7}  {'best peer':<16} {'GB/s':>7} "
                 f"{'jet/peer':>8} {'jet/ceil':>8}")
    max_rows = 12  # 12 more lines follow at most (25 in all)
    for e, d, j, bp, bg, r1, r2 in summary_rows[:max_rows]:
        lines.append(f"{e:<9} {d:<8} {f1(j):>7}  {(bp or '-'):<16} {f1(bg):>7} "
                     f"{f2(r1):>8} {f2(r2):>8}")
    if len(summary_rows) > max_rows:
        lines.append(f"... {len(summary_rows) - max_rows} more rows in {out_md}")
    lines.append(f"overhead us/call: jet {f2(overhead.get('jet'))}  cuLaunchKernel {f2(cl)}  "
                 f"(jet/cuLaunchKernel {f2(ratio(overhead.get('jet'), cl))})  "
                 f"torch_add_out {f2(overhead.get('torch_add_out'))}")
    r22 = ratio(gb(res, "add", "float32", 1 << 22, "jet"), gb(res, "add", "float32", 1 << 22, "cuda_float4"))
    r24 = ratio(gb(res, "add", "float32", 1 << 24, "jet"), gb(res, "add", "float32", 1 << 24, "cuda_float4"))
    lines.append(f"add float32 jet/cuda_float4: 2^22 {f2(r22)}  2^24 {f2(r24)}")
    graph_us = step.get("jet_graph")
    verdict = "-" if graph_us is None else ("met" if graph_us < STEP_GRAPH_TARGET_US else "MISSED")
    lines.append(f"10-expression step us/expr: stream {f2(step.get('jet_stream'))}  graph {f2(graph_us)}  "
                 f"(graph target < {STEP_GRAPH_TARGET_US}: {verdict})")
    sm = lambda impl: ratio(gb(res, "sum_mul", "float32", HEAD_N, "jet"), gb(res, "sum_mul", "float32", HEAD_N, impl))
    sm20 = ms_of(res, "sum_mul", "float32", 1 << 20, "jet")
    lines.append(f"sum(x*y) 2^28 jet/cub {f2(sm('cub'))} jet/torch_sum {f2(sm('torch_sum'))} "
                 f"jet/torch_dot {f2(sm('torch_dot'))}; 2^20 jet {f1(None if sm20 is None else sm20 * 1000)} us "
                 f"(back to back {us_per_call(res, 'jet_back_to_back')}, cub {us_per_call(res, 'cub_back_to_back')}; "
                 f"GPU time {us_per_call(res, 'jet_gpu_time')}, cub {us_per_call(res, 'cub_gpu_time')}); "
                 f"row_sum jet/torch {f2(ratio(gb(res, 'row_sum', 'float32', HEAD_N, 'jet'), gb(res, 'row_sum', 'float32', HEAD_N, 'torch_sum')))}")
    if first:
        lines.append("first result ms: " + "  ".join(f"{i} {f1(first[i])}" for i in ordered(first, FIRST_ORDER)))
    lines.append(interp_summary)
    lines.append(heat_summary)
    lines.append(bs_summary)
    lines.append(f"{len(skips)} SKIP line(s); wrote {out_md}")
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
