"""The pictures that open RESULTS.md, drawn from one run's own data (report.py's parse):
bandwidth against size for jet and every peer, and the time to a first result.

draw(out_dir, res, first) writes bandwidth.png and first_result.png into out_dir and returns their
names; it returns [] where matplotlib is missing (the report then has tables only).
"""
import math
import os

# The expressions drawn, one panel each: elementwise in float32, a reduction.
PANELS = [("add", "float32"), ("relu_add", "float32"), ("chain", "float32"), ("axpbypc", "float64"),
          ("four", "float32"), ("sum_mul", "float32")]
FIRST_SHOWN = ["jet_interpreted_new_expression", "jet_disk_hit_fresh_process", "jet_new_expression", "jet_first_in_process", "nvrtc_empty_kernel",
               "triton_new_expression", "cupy_elementwise_new_expression", "torch_compile_new_expression",
               "triton_first_in_process", "torch_compile_first_in_process"]


def _bandwidth(plt, path, res):
    figure, axes = plt.subplots(2, 3, figsize=(15, 8), sharex=True)
    for ax, (expr, dtype) in zip(axes.flat, PANELS):
        sizes = sorted(n for (e, d, n) in res if e == expr and d == dtype)
        impls = sorted({i for n in sizes for i in res[(expr, dtype, n)]} - {"memcpy"},
                       key=lambda i: (i != "jet", i))
        for impl in impls:
            points = [(n, res[(expr, dtype, n)][impl][1]) for n in sizes
                      if impl in res[(expr, dtype, n)] and res[(expr, dtype, n)][impl][1]]
            if len(points) < 2:
                continue
            ax.plot([math.log2(n) for n, _ in points], [g for _, g in points], marker="o", markersize=3,
                    linewidth=2.5 if impl == "jet" else 1, label=impl, zorder=3 if impl == "jet" else 2)
        ax.set_title(f"{expr} {dtype}")
        ax.set_xlabel("log2 of elements")
        ax.set_ylabel("GB/s")
        ax.grid(alpha=0.3)
        ax.legend(fontsize=7)
    figure.suptitle("Bandwidth against size (bytes each kernel must move / median time of single calls)")
    figure.tight_layout()
    figure.savefig(path, dpi=80)
    plt.close(figure)


def _first_result(plt, path, first):
    shown = [(name, first[name]) for name in FIRST_SHOWN if name in first]
    figure, ax = plt.subplots(figsize=(10, 4))
    ax.barh([name for name, _ in shown], [ms for _, ms in shown],
            color=["tab:blue" if name.startswith("jet") else "tab:gray" for name, _ in shown])
    ax.set_xscale("log")
    ax.set_xlabel("ms to the first result (log scale)")
    for i, (_, ms) in enumerate(shown):
        ax.text(ms, i, f" {ms:.1f}", va="center", fontsize=8)
    ax.set_title("Time to first result: compile, disk-cache load or interpreter, then the first launch")
    figure.tight_layout()
    figure.savefig(path, dpi=80)
    plt.close(figure)


def draw(out_dir, res, first):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return []
    _bandwidth(plt, os.path.join(out_dir, "bandwidth.png"), res)
    _first_result(plt, os.path.join(out_dir, "first_result.png"), first)
    return ["bandwidth.png", "first_result.png"]
