#!/usr/bin/env python3
"""Python peers for jet's fused elementwise kernels: PyTorch eager, torch.compile, Triton, CuPy.

Usage:  python3 benchmarks/peers.py > peers.txt        (JET_BENCH_QUICK=1: sizes 2^20 and 2^28 only)

Expressions (x, y, z, w: 1-D device arrays of n elements, torch.randn; a=1.5, b=-0.5, c=0.25):
  add       x + y
  relu_add  relu(x + y)
  axpbypc   a*x + b*y + c
  chain     tanh(1.5*x + y) * sigmoid(x - y) + x*y
  four      x*y + z*w
dtypes float32 / float64, n = 2^10, 2^12, ..., 2^28; and Black-Scholes (black_scholes_phase).

Timing is the same as the C++ side: 5 warm-up calls, then R repetitions, each bracketed by its own
pair of CUDA events (record; call; record; synchronize), the median reported; R = 50 for n <= 2^20,
20 above; L2 is not flushed.  Bytes = (inputs + 1 output) * n * itemsize, whatever the peer moves
in intermediates.

Output lines (other lines start with '#'):
  RESULT impl=<impl> expr=<expr> dtype=<dtype> n=<n> ms=<5 significant digits> gbps=<1 decimal>
  OVERHEAD impl=<name> us=<2 decimals>
  FIRST impl=<name> ms=<1 decimal>
  BLACKSCHOLES kind=compile impl=<impl> ms=<1 decimal>
  SKIP impl=<impl> [expr=<expr> dtype=<dtype> n=<n>] reason=<one line>
"""
import os
import shutil
import sys
import tempfile
import time

T_START = time.perf_counter()

# Fresh, empty compile caches so that the FIRST numbers are cold; set before the imports.
_TMP = tempfile.mkdtemp(prefix="jet-peers-")
for _var, _sub in (("CUPY_CACHE_DIR", "cupy"), ("TRITON_CACHE_DIR", "triton"),
                   ("TORCHINDUCTOR_CACHE_DIR", "inductor")):
    os.environ[_var] = os.path.join(_TMP, _sub)
    os.makedirs(os.environ[_var], exist_ok=True)

import gc
import statistics
import traceback

QUICK = os.environ.get("JET_BENCH_QUICK", "") == "1"
# Soft wall-clock budget: new torch.compile compilations stop at BUDGET-35 s, the sweep at
# BUDGET-10 s (the overhead phase that follows takes a few seconds).
BUDGET_S = float(os.environ.get("JET_BENCH_BUDGET_S", "140"))

EXPRS = ["add", "relu_add", "axpbypc", "chain", "four"]
N_INPUTS = {"add": 2, "relu_add": 2, "axpbypc": 2, "chain": 2, "four": 4}
DTYPES = ["float32", "float64"]
SIZES = [1 << 20, 1 << 28] if QUICK else [1 << k for k in range(10, 29, 2)]
IMPLS = ["torch_eager", "torch_compile", "triton", "cupy_elementwise", "cupy_fuse"]
A, B, C = 1.5, -0.5, 0.25
PREP_N = 1 << 24  # compile + check size (torch.compile's size hint comes from the first call)
WARMUP = 5


def out(line):
    print(line, flush=True)


def one_line(e):
    s = f"{type(e).__name__}: {e}" if isinstance(e, BaseException) else str(e)
    s = " ".join(s.split())
    return s[:300] if s else "unknown error"


def skip(impl, reason, expr=None, dtype=None, n=None):
    extra = ""
    if expr is not None:
        extra += f" expr={expr}"
    if dtype is not None:
        extra += f" dtype={dtype}"
    if n is not None:
        extra += f" n={n}"
    out(f"SKIP impl={impl}{extra} reason={one_line(reason)}")


def elapsed():
    return time.perf_counter() - T_START


def cleanup_tmp():
    shutil.rmtree(_TMP, ignore_errors=True)


# ---------------------------------------------------------------------------------------------
# Imports: torch is required (events, inputs); the others are optional.
try:
    import torch
    if not torch.cuda.is_available():
        raise RuntimeError("torch.cuda.is_available() is False")
except Exception as e:  # noqa: BLE001
    for impl in IMPLS:
        skip(impl, f"torch unusable: {one_line(e)}")
    cleanup_tmp()
    sys.exit(0)

DEV = "cuda"
TDT = {"float32": torch.float32, "float64": torch.float64}

triton = tl = libdevice = None
try:
    import triton
    import triton.language as tl
    try:
        from triton.language.extra.cuda import libdevice
    except Exception:  # noqa: BLE001
        try:
            from triton.language.extra import libdevice
        except Exception:  # noqa: BLE001
            libdevice = None
except Exception as e:  # noqa: BLE001
    triton = None
    skip("triton", f"import failed: {one_line(e)}")

cp = None
try:
    import cupy as cp
    cp.cuda.runtime.getDeviceCount()
except Exception as e:  # noqa: BLE001
    cp = None
    skip("cupy_elementwise", f"import failed: {one_line(e)}")
    skip("cupy_fuse", f"import failed: {one_line(e)}")

out(f"# peers.py torch={torch.__version__} triton={getattr(triton, '__version__', '-')} "
    f"cupy={getattr(cp, '__version__', '-')} gpu={torch.cuda.get_device_name(0).replace(' ', '_')} "
    f"quick={int(QUICK)} sizes={','.join('2^%d' % (s.bit_length() - 1) for s in SIZES)}")


def sync():
    torch.cuda.synchronize()


def time_ms(f, reps):
    """Median of `reps` individually event-timed calls after WARMUP warm-up calls."""
    for _ in range(WARMUP):
        f()
    sync()
    st = torch.cuda.Event(enable_timing=True)
    en = torch.cuda.Event(enable_timing=True)
    ts = []
    for _ in range(reps):
        st.record()
        f()
        en.record()
        en.synchronize()
        ts.append(st.elapsed_time(en))
    return statistics.median(ts)


def per_call_us(f, L=20000):
    for _ in range(200):
        f()
    sync()
    t0 = time.perf_counter()
    for _ in range(L):
        f()
    sync()
    return (time.perf_counter() - t0) / L * 1e6


# ---------------------------------------------------------------------------------------------
# torch eager (last op writes into the preallocated output) and the torch.compile bodies.
def eager_add(x, y, o):
    torch.add(x, y, out=o)


def eager_relu_add(x, y, o):
    torch.clamp_min(torch.add(x, y), 0.0, out=o)


def eager_axpbypc(x, y, o):
    torch.add(A * x + B * y, C, out=o)


def eager_chain(x, y, o):
    torch.add(torch.tanh(1.5 * x + y) * torch.sigmoid(x - y), x * y, out=o)


def eager_four(x, y, z, w, o):
    torch.add(x * y, z * w, out=o)


EAGER = {"add": eager_add, "relu_add": eager_relu_add, "axpbypc": eager_axpbypc,
         "chain": eager_chain, "four": eager_four}


def fn_add(x, y):
    return x + y


def fn_relu_add(x, y):
    return torch.relu(x + y)


def fn_axpbypc(x, y):
    return A * x + B * y + C


def fn_chain(x, y):
    return torch.tanh(1.5 * x + y) * torch.sigmoid(x - y) + x * y


def fn_four(x, y, z, w):
    return x * y + z * w


FNS = {"add": fn_add, "relu_add": fn_relu_add, "axpbypc": fn_axpbypc, "chain": fn_chain,
       "four": fn_four}


def reference(expr, ins):
    """float64 reference on the same inputs."""
    return FNS[expr](*[t.double() for t in ins])


# ---------------------------------------------------------------------------------------------
# Triton: one kernel per expression, in the shape of the vector-add tutorial.
TRITON_BLOCK = 1024
TRITON = {}
TRITON_CHOSEN = {}  # (expr, dtype) -> kernel actually used (chain may fall back)
if triton is not None:
    @triton.jit
    def tri_add(x_ptr, y_ptr, o_ptr, n, BLOCK_SIZE: tl.constexpr):
        pid = tl.program_id(axis=0)
        offs = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
        mask = offs < n
        x = tl.load(x_ptr + offs, mask=mask)
        y = tl.load(y_ptr + offs, mask=mask)
        tl.store(o_ptr + offs, x + y, mask=mask)

    @triton.jit
    def tri_relu_add(x_ptr, y_ptr, o_ptr, n, BLOCK_SIZE: tl.constexpr):
        pid = tl.program_id(axis=0)
        offs = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
        mask = offs < n
        x = tl.load(x_ptr + offs, mask=mask)
        y = tl.load(y_ptr + offs, mask=mask)
        tl.store(o_ptr + offs, tl.maximum(x + y, 0.0), mask=mask)

    @triton.jit
    def tri_axpbypc(x_ptr, y_ptr, o_ptr, n, BLOCK_SIZE: tl.constexpr):
        pid = tl.program_id(axis=0)
        offs = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
        mask = offs < n
        x = tl.load(x_ptr + offs, mask=mask)
        y = tl.load(y_ptr + offs, mask=mask)
        tl.store(o_ptr + offs, 1.5 * x + -0.5 * y + 0.25, mask=mask)

    @triton.jit
    def tri_chain(x_ptr, y_ptr, o_ptr, n, BLOCK_SIZE: tl.constexpr):
        pid = tl.program_id(axis=0)
        offs = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
        mask = offs < n
        x = tl.load(x_ptr + offs, mask=mask)
        y = tl.load(y_ptr + offs, mask=mask)
        t = libdevice.tanh(1.5 * x + y)
        s = 1.0 / (1.0 + tl.exp(-(x - y)))
        tl.store(o_ptr + offs, t * s + x * y, mask=mask)

    @triton.jit
    def tri_chain_fallback(x_ptr, y_ptr, o_ptr, n, BLOCK_SIZE: tl.constexpr):
        pid = tl.program_id(axis=0)
        offs = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
        mask = offs < n
        x = tl.load(x_ptr + offs, mask=mask)
        y = tl.load(y_ptr + offs, mask=mask)
        v = 1.5 * x + y
        t = 2.0 / (1.0 + tl.exp(-2.0 * v)) - 1.0  # tanh(v) = 2*sigmoid(2v) - 1
        s = 1.0 / (1.0 + tl.exp(-(x - y)))
        tl.store(o_ptr + offs, t * s + x * y, mask=mask)

    @triton.jit
    def tri_four(x_ptr, y_ptr, z_ptr, w_ptr, o_ptr, n, BLOCK_SIZE: tl.constexpr):
        pid = tl.program_id(axis=0)
        offs = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
        mask = offs < n
        x = tl.load(x_ptr + offs, mask=mask)
        y = tl.load(y_ptr + offs, mask=mask)
        z = tl.load(z_ptr + offs, mask=mask)
        w = tl.load(w_ptr + offs, mask=mask)
        tl.store(o_ptr + offs, x * y + z * w, mask=mask)

    # Never used in the sweep: only for the FIRST (cold compile) numbers.
    @triton.jit
    def tri_first_a(x_ptr, y_ptr, o_ptr, n, BLOCK_SIZE: tl.constexpr):
        pid = tl.program_id(axis=0)
        offs = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
        mask = offs < n
        x = tl.load(x_ptr + offs, mask=mask)
        y = tl.load(y_ptr + offs, mask=mask)
        tl.store(o_ptr + offs, tl.maximum(x - y, 0.0) * 0.75, mask=mask)

    @triton.jit
    def tri_first_b(x_ptr, y_ptr, o_ptr, n, BLOCK_SIZE: tl.constexpr):
        pid = tl.program_id(axis=0)
        offs = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
        mask = offs < n
        x = tl.load(x_ptr + offs, mask=mask)
        y = tl.load(y_ptr + offs, mask=mask)
        tl.store(o_ptr + offs, x * y - 0.5 * x + 2.0, mask=mask)

    TRITON = {"add": tri_add, "relu_add": tri_relu_add, "axpbypc": tri_axpbypc,
              "chain": tri_chain, "four": tri_four}


def triton_launcher(kern, ins, o):
    n = o.numel()
    grid = (triton.cdiv(n, TRITON_BLOCK),)
    args = tuple(ins) + (o, n)

    def f():
        kern[grid](*args, BLOCK_SIZE=TRITON_BLOCK)
    return f


# ---------------------------------------------------------------------------------------------
# CuPy: ElementwiseKernel (type-generic T) and cupy.fuse, on zero-copy views of the torch tensors.
EK_SRC = {
    "add": ("T x, T y", "o = x + y;"),
    "relu_add": ("T x, T y", "T v = x + y; o = v > T(0) ? v : T(0);"),
    "axpbypc": ("T x, T y", "o = T(1.5) * x + T(-0.5) * y + T(0.25);"),
    "chain": ("T x, T y", "o = tanh(T(1.5) * x + y) * (T(1) / (T(1) + exp(y - x))) + x * y;"),
    "four": ("T x, T y, T z, T w", "o = x * y + z * w;"),
}
CUPY_EK = {}
CUPY_FUSE = {}
if cp is not None:
    for _e, (_params, _body) in EK_SRC.items():
        CUPY_EK[_e] = cp.ElementwiseKernel(_params, "T o", _body, f"jet_peer_{_e}")

    def _fz_add(x, y):
        return x + y

    def _fz_relu_add(x, y):
        return cp.maximum(x + y, 0)

    def _fz_axpbypc(x, y):
        return 1.5 * x + -0.5 * y + 0.25

    def _fz_chain(x, y):
        return cp.tanh(1.5 * x + y) * (1 / (1 + cp.exp(-(x - y)))) + x * y

    def _fz_four(x, y, z, w):
        return x * y + z * w

    for _e, _f in (("add", _fz_add), ("relu_add", _fz_relu_add), ("axpbypc", _fz_axpbypc),
                   ("chain", _fz_chain), ("four", _fz_four)):
        CUPY_FUSE[_e] = cp.fuse(kernel_name=f"jet_peer_fuse_{_e}")(_f)


def as_cupy(t):
    return cp.asarray(t)  # __cuda_array_interface__: zero-copy


def to_torch(a):
    return a if isinstance(a, torch.Tensor) else torch.as_tensor(a, device=DEV)


def free_all():
    gc.collect()
    torch.cuda.synchronize()
    torch.cuda.empty_cache()
    if cp is not None:
        try:
            cp.get_default_memory_pool().free_all_blocks()
        except Exception:  # noqa: BLE001
            pass


# ---------------------------------------------------------------------------------------------
# Callables: make(impl, expr, ins, o, ins_cp, o_cp) -> f (no arguments); the result lands in o
# except for torch_compile and cupy_fuse, whose f returns a fresh array.
COMPILED = {}  # (expr, dtype) -> torch.compile'd function


def make(impl, expr, dtype, ins, o, ins_cp, o_cp):
    if impl == "torch_eager":
        g = EAGER[expr]
        args = tuple(ins) + (o,)
        return lambda: g(*args)
    if impl == "torch_compile":
        g = COMPILED[(expr, dtype)]
        args = tuple(ins)
        return lambda: g(*args)
    if impl == "triton":
        return triton_launcher(TRITON_CHOSEN.get((expr, dtype), TRITON[expr]), ins, o)
    if impl == "cupy_elementwise":
        k = CUPY_EK[expr]
        args = tuple(ins_cp) + (o_cp,)
        return lambda: k(*args)
    if impl == "cupy_fuse":
        k = CUPY_FUSE[expr]
        args = tuple(ins_cp)
        return lambda: k(*args)
    raise KeyError(impl)


def available(impl):
    if impl in ("torch_eager", "torch_compile"):
        return True
    if impl == "triton":
        return triton is not None
    return cp is not None


def make_inputs(n, dtype, count=4):
    g = torch.Generator(device=DEV)
    g.manual_seed(1234 + n)
    return [torch.randn(n, device=DEV, dtype=TDT[dtype], generator=g) for _ in range(count)]


# ---------------------------------------------------------------------------------------------
# 1) FIRST: time to the first result of a never-seen expression (cold caches), n=1024 float32.
def first_phase():
    n = 1024
    x, y = make_inputs(n, "float32", 2)
    o = torch.empty_like(x)
    if triton is not None:
        for name, kern in (("triton_first_in_process", tri_first_a),
                           ("triton_new_expression", tri_first_b)):
            try:
                t0 = time.perf_counter()
                kern[(triton.cdiv(n, TRITON_BLOCK),)](x, y, o, n, BLOCK_SIZE=TRITON_BLOCK)
                sync()
                out(f"FIRST impl={name} ms={(time.perf_counter() - t0) * 1e3:.1f}")
            except Exception as e:  # noqa: BLE001
                skip(name, e)
    if cp is not None:
        cx, cy, co = as_cupy(x), as_cupy(y), as_cupy(o)
        for name, body in (("cupy_elementwise_first_in_process", "T d = x - y; o = (d > T(0) ? d : T(0)) * T(0.75);"),
                           ("cupy_elementwise_new_expression", "o = x * y - T(0.5) * x + T(2);")):
            try:
                t0 = time.perf_counter()
                k = cp.ElementwiseKernel("T x, T y", "T o", body, "jet_peer_" + name)
                k(cx, cy, co)
                sync()
                out(f"FIRST impl={name} ms={(time.perf_counter() - t0) * 1e3:.1f}")
            except Exception as e:  # noqa: BLE001
                skip(name, e)
        try:
            t0 = time.perf_counter()
            fz = cp.fuse(kernel_name="jet_peer_fuse_first")(lambda a, b: a * b - 0.25 * a + 3.0)
            fz(cx, cy)
            sync()
            out(f"FIRST impl=cupy_fuse_new_expression ms={(time.perf_counter() - t0) * 1e3:.1f}")
        except Exception as e:  # noqa: BLE001
            skip("cupy_fuse_new_expression", e)
        del cx, cy, co
    for name, body in (("torch_compile_first_in_process", lambda a, b: torch.relu(a - b) * 0.75),
                       ("torch_compile_new_expression", lambda a, b: a * b - 0.5 * a + 2.0)):
        try:
            t0 = time.perf_counter()
            cf = torch.compile(body, dynamic=True)
            cf(x, y)
            sync()
            out(f"FIRST impl={name} ms={(time.perf_counter() - t0) * 1e3:.1f}")
        except Exception as e:  # noqa: BLE001
            skip(name, e)
    del x, y, o


# ---------------------------------------------------------------------------------------------
# 2) Prepare: compile every (impl, expr, dtype) at n = PREP_N and check it against float64.
BROKEN = set()  # (impl, expr, dtype)


def check(impl, expr, dtype, got, ref):
    got = to_torch(got)
    if got.dtype != TDT[dtype]:
        out(f"# WARN impl={impl} expr={expr} dtype={dtype}: result dtype is {got.dtype}")
    err = ((got.double() - ref).abs() / (1.0 + ref.abs())).max().item()
    tol = 1e-4 if dtype == "float32" else 1e-9
    if not err <= tol:
        raise RuntimeError(f"wrong result: max relative error {err:.3g} > {tol:g}")


def prepare_phase():
    for dtype in DTYPES:
        ins4 = make_inputs(PREP_N, dtype, 4)
        o = torch.empty_like(ins4[0])
        ins4_cp = [as_cupy(t) for t in ins4] if cp is not None else None
        o_cp = as_cupy(o) if cp is not None else None
        for expr in EXPRS:
            k = N_INPUTS[expr]
            ins = ins4[:k]
            ins_cp = ins4_cp[:k] if ins4_cp is not None else None
            ref = reference(expr, ins)
            for impl in IMPLS:
                if not available(impl):
                    BROKEN.add((impl, expr, dtype))
                    continue
                if impl == "torch_compile":
                    if elapsed() > BUDGET_S - 35:
                        BROKEN.add((impl, expr, dtype))
                        skip(impl, f"time budget: {elapsed():.0f} s spent before compiling",
                             expr, dtype)
                        continue
                    COMPILED[(expr, dtype)] = torch.compile(FNS[expr], dynamic=True)
                try:
                    o.fill_(float("nan"))
                    t0 = time.perf_counter()
                    if impl == "triton" and expr == "chain":
                        try:
                            f = make(impl, expr, dtype, ins, o, ins_cp, o_cp)
                            f()
                            sync()
                            check(impl, expr, dtype, o, ref)
                        except Exception as e:  # noqa: BLE001
                            out(f"# triton chain ({dtype}): libdevice tanh failed ({one_line(e)}); "
                                "using 2*sigmoid(2v)-1")
                            TRITON_CHOSEN[(expr, dtype)] = tri_chain_fallback
                        o.fill_(float("nan"))
                    f = make(impl, expr, dtype, ins, o, ins_cp, o_cp)
                    r = f()
                    sync()
                    check(impl, expr, dtype, o if r is None else r, ref)
                    r = f = None
                    out(f"# prepared impl={impl} expr={expr} dtype={dtype} "
                        f"first_call_ms={(time.perf_counter() - t0) * 1e3:.1f}")
                except Exception as e:  # noqa: BLE001
                    BROKEN.add((impl, expr, dtype))
                    skip(impl, e, expr, dtype)
                r = f = None
            del ref
        del ins4, o, ins4_cp, o_cp, ins, ins_cp
        free_all()


# ---------------------------------------------------------------------------------------------
# 3) Sweep: largest size first (headline numbers first), both dtypes per size.
def sweep_phase():
    for n in sorted(SIZES, reverse=True):
        reps = 50 if n <= (1 << 20) else 20
        for dtype in DTYPES:
            if elapsed() > BUDGET_S - 10:
                skip("all", f"time budget: {elapsed():.0f} s spent", None, dtype, n)
                continue
            itemsize = torch.empty((), dtype=TDT[dtype]).element_size()
            try:
                ins4 = make_inputs(n, dtype, 4)
                o = torch.empty_like(ins4[0])
                ins4_cp = [as_cupy(t) for t in ins4] if cp is not None else None
                o_cp = as_cupy(o) if cp is not None else None
            except Exception as e:  # noqa: BLE001
                skip("all", f"allocation failed: {one_line(e)}", None, dtype, n)
                free_all()
                continue
            for expr in EXPRS:
                k = N_INPUTS[expr]
                nbytes = (k + 1) * n * itemsize
                for impl in IMPLS:
                    if (impl, expr, dtype) in BROKEN:
                        continue
                    try:
                        f = make(impl, expr, dtype, ins4[:k], o, ins4_cp[:k] if ins4_cp else None,
                                 o_cp)
                        ms = time_ms(f, reps)
                        gbps = nbytes / (ms * 1e-3) / 1e9
                        out(f"RESULT impl={impl} expr={expr} dtype={dtype} n={n} "
                            f"ms={ms:.5g} gbps={gbps:.1f}")
                    except Exception as e:  # noqa: BLE001
                        skip(impl, e, expr, dtype, n)
                    f = None
            del ins4, o, ins4_cp, o_cp
            free_all()


# ---------------------------------------------------------------------------------------------
# 4) Host overhead per call at n=1024 float32: back-to-back calls, one synchronize at the end.
def overhead_phase():
    n = 1024
    x, y = make_inputs(n, "float32", 2)
    o = torch.empty_like(x)
    cases = [("torch_add_out", lambda: torch.add(x, y, out=o))]
    cases.append(("torch_eager_relu_add", lambda: eager_relu_add(x, y, o)))
    if ("relu_add", "float32") in COMPILED and ("torch_compile", "relu_add", "float32") not in BROKEN:
        cf = COMPILED[("relu_add", "float32")]
        cases.append(("torch_compile_relu_add", lambda: cf(x, y)))
    else:
        skip("torch_compile_relu_add", "torch_compile relu_add float32 unavailable")
    if triton is not None and ("triton", "add", "float32") not in BROKEN:
        cases.append(("triton_add", triton_launcher(tri_add, [x, y], o)))
    else:
        skip("triton_add", "triton add float32 unavailable")
    if cp is not None:
        cx, cy, co = as_cupy(x), as_cupy(y), as_cupy(o)
        cases.append(("cupy_add_out", lambda: cp.add(cx, cy, out=co)))
        if ("cupy_elementwise", "relu_add", "float32") not in BROKEN:
            ek = CUPY_EK["relu_add"]
            cases.append(("cupy_elementwise_relu_add", lambda: ek(cx, cy, co)))
        if ("cupy_fuse", "relu_add", "float32") not in BROKEN:
            fz = CUPY_FUSE["relu_add"]
            cases.append(("cupy_fuse_relu_add", lambda: fz(cx, cy)))
    else:
        for name in ("cupy_add_out", "cupy_elementwise_relu_add", "cupy_fuse_relu_add"):
            skip(name, "cupy unavailable")
    for name, f in cases:
        try:
            out(f"OVERHEAD impl={name} us={per_call_us(f):.2f}")
        except Exception as e:  # noqa: BLE001
            skip(name, e)


def layout_cases(cases, n):
    """Times each case {expr: (bytes, eager call, function to compile, its args)} in eager PyTorch and torch.compile."""
    for expr, (nbytes, eager, fn, args) in cases.items():
        ms = time_ms(eager, 20)
        out(f"RESULT impl=torch_eager expr={expr} dtype=float32 n={n} ms={ms:.5g} gbps={nbytes / (ms * 1e-3) / 1e9:.1f}")
        try:
            compiled = torch.compile(fn)
            compiled(*args)
            ms = time_ms(lambda: compiled(*args), 20)
            out(f"RESULT impl=torch_compile expr={expr} dtype=float32 n={n} ms={ms:.5g} gbps={nbytes / (ms * 1e-3) / 1e9:.1f}")
        except Exception as e:  # noqa: BLE001
            skip("torch_compile", one_line(e), expr=expr, dtype="float32", n=n)


def heat_step(u):
    """The interior of examples/heat_equation.cpp's next step from u (rate 0.2)."""
    c = u[1:-1, 1:-1]
    return c + 0.2 * (u[:-2, 1:-1] + u[2:, 1:-1] + u[1:-1, :-2] + u[1:-1, 2:] - 4.0 * c)


def layout_phase():
    """The layout-heavy expressions of jet_bench's layouts() and permute_add(), at 2^28 float32 elements."""
    side = 16384
    n = side * side
    x = torch.randn(side, side, device="cuda")
    y = torch.randn(side, side, device="cuda")
    bias = torch.randn(side, device="cuda")
    o = torch.empty_like(x)
    cases = {
        "bias_add": ((2 * n + side) * 4, lambda: torch.add(x, bias, out=o), lambda a, b: a + b, (x, bias)),
        "transpose_add": (3 * n * 4, lambda: torch.add(x.t(), y, out=o), lambda a, b: a.t() + b, (x, y)),
        "slice_add": (3 * side * (side - 1) * 4, lambda: torch.add(x[:, 1:], y[:, :-1], out=o[:, :-1]),
                      lambda a, b: a[:, 1:] + b[:, :-1], (x, y)),
        "heat_step": (2 * (side - 2) ** 2 * 4, lambda: o[1:-1, 1:-1].copy_(heat_step(x)), heat_step, (x,)),
    }
    layout_cases(cases, n)
    del x, y, bias, o, cases
    free_all()
    # x.permute(2, 1, 0) + y on 1024 x 512 x 512 float32 (2^28 elements)
    x = torch.randn(1024, 512, 512, device="cuda")
    y = torch.randn(512, 512, 1024, device="cuda")
    o = torch.empty_like(y)
    layout_cases({"permute_add": (3 * n * 4, lambda: torch.add(x.permute(2, 1, 0), y, out=o),
                                  lambda a, b: a.permute(2, 1, 0) + b, (x, y))}, n)
    del x, y, o
    free_all()
    # relu(x + y) in bfloat16 at 2^28 elements
    x = torch.randn(n, device="cuda").to(torch.bfloat16)
    y = torch.randn(n, device="cuda").to(torch.bfloat16)
    o = torch.empty_like(x)
    nbytes = 3 * n * 2
    ms = time_ms(lambda: torch.clamp_min(torch.add(x, y), 0, out=o), 20)
    out(f"RESULT impl=torch_eager expr=relu_add dtype=bfloat16 n={n} ms={ms:.5g} gbps={nbytes / (ms * 1e-3) / 1e9:.1f}")
    try:
        compiled = torch.compile(lambda a, b: torch.relu(a + b))
        compiled(x, y)
        ms = time_ms(lambda: compiled(x, y), 20)
        out(f"RESULT impl=torch_compile expr=relu_add dtype=bfloat16 n={n} ms={ms:.5g} gbps={nbytes / (ms * 1e-3) / 1e9:.1f}")
    except Exception as e:  # noqa: BLE001
        skip("torch_compile", one_line(e), expr="relu_add", dtype="bfloat16", n=n)
    del x, y, o
    free_all()


def complex_phase():
    """jet_bench's complex_and_fft(): complex64 a * b + c at 2^27, fft of 2^24 points, and the
    spectrum abs(fft(x * w))^2 of 2^24 points as its three steps."""
    n = 1 << 27
    a, b, c = (torch.randn(n, dtype=torch.complex64, device="cuda") for _ in range(3))
    o = torch.empty_like(a)
    nbytes = 4 * n * 8
    cases = [("torch_eager", lambda: torch.add(torch.mul(a, b), c, out=o))]
    try:
        compiled = torch.compile(lambda p, q, r: p * q + r)
        compiled(a, b, c)
        cases.append(("torch_compile", lambda: compiled(a, b, c)))
    except Exception as e:  # noqa: BLE001
        skip("torch_compile", one_line(e), expr="complex_fma", dtype="complex64", n=n)
    if cp is not None:
        kernel = cp.ElementwiseKernel("complex64 a, complex64 b, complex64 c", "complex64 o", "o = a * b + c",
                                      "jet_complex_fma")
        ac, bc, cc, oc = as_cupy(a), as_cupy(b), as_cupy(c), as_cupy(o)
        cases.append(("cupy_elementwise", lambda: kernel(ac, bc, cc, oc)))
    for impl, f in cases:
        ms = time_ms(f, 20)
        out(f"RESULT impl={impl} expr=complex_fma dtype=complex64 n={n} ms={ms:.5g} gbps={nbytes / (ms * 1e-3) / 1e9:.1f}")
    del a, b, c, o, cases
    free_all()
    m = 1 << 24
    x = torch.randn(m, dtype=torch.complex64, device="cuda")
    w = torch.randn(m, device="cuda")
    cases = [("torch_eager", "fft", 2 * m * 8, lambda: torch.fft.fft(x)),
             ("torch_eager", "spectrum", 20 * m, lambda: torch.abs(torch.fft.fft(x * w)) ** 2)]
    if cp is not None:
        xc, wc = as_cupy(x), as_cupy(w)
        cases += [("cupy", "fft", 2 * m * 8, lambda: cp.fft.fft(xc)),
                  ("cupy", "spectrum", 20 * m, lambda: cp.abs(cp.fft.fft(xc * wc)) ** 2)]
    for impl, expr, nbytes, f in cases:
        ms = time_ms(f, 20)
        out(f"RESULT impl={impl} expr={expr} dtype=complex64 n={m} ms={ms:.5g} gbps={nbytes / (ms * 1e-3) / 1e9:.1f}")
    del x, w, cases
    free_all()


def reduction_phase():
    """The reductions of jet_bench's reductions(): sum(x * y) over float32 as torch's (x * y).sum(),
    torch.dot and cupy's (x * y).sum(); row and column sums and row argmax of 16384 x 16384 float32."""
    for n in (1 << 20, 1 << 24, 1 << 28):
        x, y = make_inputs(n, "float32", 2)
        cases = [("torch_sum", lambda: (x * y).sum()), ("torch_dot", lambda: torch.dot(x, y))]
        if cp is not None:
            cx, cy = as_cupy(x), as_cupy(y)
            cases.append(("cupy_sum", lambda: (cx * cy).sum()))
        for impl, f in cases:
            try:
                ms = time_ms(f, 50)
                out(f"RESULT impl={impl} expr=sum_mul dtype=float32 n={n} ms={ms:.5g} gbps={8 * n / (ms * 1e-3) / 1e9:.1f}")
            except Exception as e:  # noqa: BLE001
                skip(impl, e, "sum_mul", "float32", n)
        del x, y, cases
        free_all()
    side = 16384
    m = torch.randn(side, side, device="cuda")
    for expr, dim in (("row_sum", 1), ("column_sum", 0)):
        ms = time_ms(lambda: torch.sum(m, dim=dim), 20)
        nbytes = 4 * side * side + 4 * side
        out(f"RESULT impl=torch_sum expr={expr} dtype=float32 n={side * side} ms={ms:.5g} gbps={nbytes / (ms * 1e-3) / 1e9:.1f}")
    ms = time_ms(lambda: torch.argmax(m, dim=1), 20)
    nbytes = 4 * side * side + 8 * side
    out(f"RESULT impl=torch_argmax expr=row_argmax dtype=float32 n={side * side} ms={ms:.5g} gbps={nbytes / (ms * 1e-3) / 1e9:.1f}")
    ms = time_ms(lambda: torch.softmax(m, dim=1), 10)
    out(f"RESULT impl=torch_softmax expr=softmax_rows dtype=float32 n={side * side} ms={ms:.5g} gbps={8 * side * side / (ms * 1e-3) / 1e9:.1f}")
    del m
    free_all()


# ---------------------------------------------------------------------------------------------
# 5) Black-Scholes (examples/black_scholes.hpp, the CUDA samples' formula) at 4,000,000, 2^24 and
# 2^26 options: a CuPy ElementwiseKernel writing calls and puts in one kernel, PyTorch eager and
# torch.compile, each checked against float64 by the sample's L1 norm (at most 1e-6), then timed
# as above; bytes = 3 inputs + 2 outputs. The first call of each compiled peer, with its cache
# fresh, is printed as BLACKSCHOLES kind=compile impl=<impl> ms=<compile and first call>.
BS_SIZES = [4000000, 1 << 24, 1 << 26]
RISKFREE, VOLATILITY = 0.02, 0.30
CND_A = (0.31938153, -0.356563782, 1.781477937, -1.821255978, 1.330274429)
RSQRT2PI = 0.39894228040143267793994605993438
BS_PREAMBLE = r"""
__device__ float jet_peer_cnd(float d) {
  const float a1 = 0.31938153f, a2 = -0.356563782f, a3 = 1.781477937f, a4 = -1.821255978f, a5 = 1.330274429f;
  const float k = 1.0f / (1.0f + 0.2316419f * fabsf(d));
  const float tail = 0.39894228040143267793994605993438f * expf(-0.5f * d * d) *
                     (k * (a1 + k * (a2 + k * (a3 + k * (a4 + k * a5)))));
  return d > 0 ? 1.0f - tail : tail;
}
"""
BS_BODY = r"""
const float sqrt_t = sqrtf(t);
const float d1 = (logf(s / x) + (r + 0.5f * v * v) * t) / (v * sqrt_t);
const float d2 = d1 - v * sqrt_t;
const float cnd_d1 = jet_peer_cnd(d1), cnd_d2 = jet_peer_cnd(d2);
const float discounted_strike = x * expf(-r * t);
call = s * cnd_d1 - discounted_strike * cnd_d2;
put = discounted_strike * (1.0f - cnd_d2) - s * (1.0f - cnd_d1);
"""


def torch_cnd(d):
    a1, a2, a3, a4, a5 = CND_A
    k = 1.0 / (1.0 + 0.2316419 * torch.abs(d))
    tail = RSQRT2PI * torch.exp(-0.5 * d * d) * (k * (a1 + k * (a2 + k * (a3 + k * (a4 + k * a5)))))
    return torch.where(d > 0, 1.0 - tail, tail)


def torch_black_scholes(s, x, t):
    sqrt_t = torch.sqrt(t)
    d1 = (torch.log(s / x) + (RISKFREE + 0.5 * VOLATILITY * VOLATILITY) * t) / (VOLATILITY * sqrt_t)
    d2 = d1 - VOLATILITY * sqrt_t
    cnd_d1, cnd_d2 = torch_cnd(d1), torch_cnd(d2)
    discounted_strike = x * torch.exp(-RISKFREE * t)
    return s * cnd_d1 - discounted_strike * cnd_d2, discounted_strike * (1.0 - cnd_d2) - s * (1.0 - cnd_d1)


def black_scholes_impls():
    """impl -> bind(ins): a function of no arguments returning (call, put) for inputs ins."""
    compiled = torch.compile(torch_black_scholes, dynamic=True)
    impls = {"torch_eager": lambda ins: lambda: torch_black_scholes(*ins),
             "torch_compile": lambda ins: lambda: compiled(*ins)}
    if cp is None:
        skip("cupy_elementwise", "cupy unavailable", "black_scholes", "float32")
        return impls
    kernel = cp.ElementwiseKernel("float32 s, float32 x, float32 t, float32 r, float32 v",
                                  "float32 call, float32 put", BS_BODY, "jet_peer_black_scholes",
                                  preamble=BS_PREAMBLE)

    def bind_cupy(ins):
        s, x, t = (as_cupy(a) for a in ins)
        call, put = cp.empty_like(s), cp.empty_like(s)
        r, v = cp.float32(RISKFREE), cp.float32(VOLATILITY)
        return lambda: kernel(s, x, t, r, v, call, put)
    impls["cupy_elementwise"] = bind_cupy
    return impls


def l1_error(got, want):
    return ((to_torch(got).double() - want).abs().sum() / want.abs().sum()).item()


def black_scholes_phase():
    g = torch.Generator(device=DEV)
    g.manual_seed(5347)
    impls = black_scholes_impls()
    for n in BS_SIZES:
        ranges = ((5.0, 30.0), (1.0, 100.0), (0.25, 10.0))  # the sample's prices, strikes, years
        ins = [low + (high - low) * torch.rand(n, device=DEV, generator=g) for low, high in ranges]
        want = torch_black_scholes(*[a.double() for a in ins])
        for impl, bind in impls.items():
            try:
                f = bind(ins)
                t0 = time.perf_counter()
                got = f()
                sync()
                if n == BS_SIZES[0] and impl != "torch_eager":
                    out(f"BLACKSCHOLES kind=compile impl={impl} ms={(time.perf_counter() - t0) * 1e3:.1f}")
                errors = [l1_error(a, b) for a, b in zip(got, want)]
                if not max(errors) <= 1e-6:
                    raise RuntimeError(f"L1 errors of calls and puts {errors[0]:.3g}, {errors[1]:.3g} > 1e-6")
                got = None
                ms = time_ms(f, 20)
                out(f"RESULT impl={impl} expr=black_scholes dtype=float32 n={n} ms={ms:.5g} "
                    f"gbps={5 * n * 4 / (ms * 1e-3) / 1e9:.1f}")
            except Exception as e:  # noqa: BLE001
                skip(impl, e, "black_scholes", "float32", n)
            f = None
        del ins, want
        free_all()


def main():
    phases = (first_phase, prepare_phase, sweep_phase, layout_phase, complex_phase, reduction_phase,
              overhead_phase, black_scholes_phase)
    # `peers.py complex black_scholes` runs those phases alone (each stands on its own but sweep and
    # layout, which need prepare's data).
    chosen = [p for p in phases if not sys.argv[1:] or p.__name__.removesuffix("_phase") in sys.argv[1:]]
    for phase in chosen:
        try:
            phase()
        except Exception as e:  # noqa: BLE001  (never abort the whole script)
            out(f"# phase {phase.__name__} failed: {one_line(e)}")
            for ln in traceback.format_exc().strip().splitlines()[-6:]:
                out("#   " + ln)
            free_all()
        out(f"# {phase.__name__} done at {elapsed():.1f} s")
    cleanup_tmp()


if __name__ == "__main__":
    main()
