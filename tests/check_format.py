#!/usr/bin/env python3
"""Fails when a C++ file of jet differs from what clang-format makes of it (.clang-format at the root).

Checks include/, src/, tests/, examples/ and benchmarks/ (.hpp, .cpp, .h, .cu; the .def tables are laid
out by hand). Formatters of different major versions lay out some constructs differently, so the check
runs with the major version named in .clang-format ("# clang-format major version: N") and is skipped,
with the reason printed, where that version is not installed (exit 77, CTest's SKIP_RETURN_CODE).
Usage: check_format.py [ROOT] [CLANG_FORMAT]. To reformat: the same with --fix."""
import os
import re
import shutil
import subprocess
import sys

SKIP = 77
args = [a for a in sys.argv[1:] if a != "--fix"]
fix = "--fix" in sys.argv
root = args[0] if args else "."
with open(os.path.join(root, ".clang-format")) as f:
    wanted = re.search(r"clang-format major version: (\d+)", f.read()).group(1)
candidates = [args[1]] if len(args) > 1 else ["clang-format-" + wanted, "clang-format"]
tool = next((shutil.which(c) for c in candidates if shutil.which(c)), None)
if not tool:
    print(f"skipped: no clang-format found (tried {', '.join(candidates)})")
    sys.exit(SKIP)
version = subprocess.run([tool, "--version"], capture_output=True, text=True).stdout
found = re.search(r"version (\d+)", version)
if not found or found.group(1) != wanted:
    print(f"skipped: {tool} is {version.strip()}; the tree is formatted with major version {wanted}")
    sys.exit(SKIP)

files = sorted(
    os.path.join(d, name)
    for top in ("include", "src", "tests", "examples", "benchmarks")
    for d, _, names in os.walk(os.path.join(root, top))
    for name in names
    if name.endswith((".hpp", ".cpp", ".h", ".cu")))
if fix:
    subprocess.run([tool, "-i", *files], check=True)
    sys.exit(0)
result = subprocess.run([tool, "--dry-run", "--Werror", *files], capture_output=True, text=True)
print(result.stderr[:20000], end="")
print(f"{len(files)} files checked with {tool}: {'formatted' if result.returncode == 0 else 'NOT formatted'}")
sys.exit(0 if result.returncode == 0 else 1)
