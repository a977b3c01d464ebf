#!/usr/bin/env python3
"""examples/heat_equation.cpp written the way a PyTorch user would, in eager mode and through
torch.compile: the same grid, start, stencil and norm every 50 steps. Prints
  HEAT impl=<torch_eager|torch_compile> n=<N> ms=<ms per step>
Usage: python3 benchmarks/heat_torch.py [N [steps]]
"""
import math
import sys
import time

import torch


def step(u, nxt, r):
    c = u[1:-1, 1:-1]
    nxt[1:-1, 1:-1] = c + r * (u[:-2, 1:-1] + u[2:, 1:-1] + u[1:-1, :-2] + u[1:-1, 2:] - 4.0 * c)


def run(impl, n, steps, check_every=50, r=0.2):
    h = 1.0 / (n - 1)
    mode = torch.sin(math.pi * torch.arange(n, dtype=torch.float64, device="cuda") * h)
    mode[-1] = 0
    u = torch.outer(mode, mode).float()
    nxt = u.clone()
    f = torch.compile(step) if impl == "torch_compile" else step
    for _ in range(3):  # warm-up (torch.compile compiles here)
        f(u, nxt, r)
    u.copy_(torch.outer(mode, mode).float())
    nxt.copy_(u)
    torch.cuda.synchronize()
    t0 = time.perf_counter()
    for k in range(1, steps + 1):
        f(u, nxt, r)
        if k % check_every == 0:
            change = torch.linalg.vector_norm(nxt - u).item()
        u, nxt = nxt, u
    torch.cuda.synchronize()
    ms = (time.perf_counter() - t0) * 1e3 / steps
    g = (1 - 8 * r * math.sin(math.pi * h / 2) ** 2) ** steps
    worst = (u.double() - g * torch.outer(mode, mode)).abs().max().item()
    print(f"HEAT impl={impl} n={n} ms={ms:.4f} worst={worst:.3e} change={change:.3e}", flush=True)


def main():
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 4096
    steps = int(sys.argv[2]) if len(sys.argv) > 2 else 500
    for impl in ("torch_eager", "torch_compile"):
        try:
            run(impl, n, steps)
        except Exception as e:  # a peer that cannot run is reported, not fatal
            print(f"SKIP impl={impl} reason={type(e).__name__}: {e}".splitlines()[0], flush=True)


if __name__ == "__main__":
    main()
