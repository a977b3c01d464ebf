#!/usr/bin/env python3
"""PyTorch and jet exchange CUDA tensors through DLPack, by ctypes only.

Usage: check.py LIBRARY   (LIBRARY: the jet_dlpack_torch shared library, built from jet_axpy.cpp)
Exits 77 (CTest: skipped) without PyTorch or a CUDA device, 1 on a wrong result.
"""
import ctypes
import os
import sys

try:
    import torch
    import torch.utils.dlpack
except ImportError:
    print("SKIPPED: no PyTorch")
    sys.exit(77)
if not torch.cuda.is_available():
    print("SKIPPED: PyTorch sees no CUDA device")
    sys.exit(77)

# Capsule names are kept as C pointers, not copied: they must outlive every capsule.
DLTENSOR, USED = b"dltensor", b"used_dltensor"
api = ctypes.pythonapi
api.PyCapsule_GetPointer.restype, api.PyCapsule_GetPointer.argtypes = ctypes.c_void_p, [ctypes.py_object, ctypes.c_char_p]
api.PyCapsule_SetName.restype, api.PyCapsule_SetName.argtypes = ctypes.c_int, [ctypes.py_object, ctypes.c_char_p]
api.PyCapsule_New.restype, api.PyCapsule_New.argtypes = ctypes.py_object, [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p]

lib = ctypes.CDLL(sys.argv[1])
lib.jet_axpy.restype, lib.jet_axpy.argtypes = ctypes.c_void_p, [ctypes.c_float, ctypes.c_void_p, ctypes.c_void_p]
lib.jet_last_error.restype = ctypes.c_char_p


def give(tensor):
    """A DLManagedTensor* of the tensor, handed over: the capsule will not delete it."""
    capsule = torch.utils.dlpack.to_dlpack(tensor)
    pointer = api.PyCapsule_GetPointer(capsule, DLTENSOR)
    api.PyCapsule_SetName(capsule, USED)
    return pointer


seed = int.from_bytes(os.urandom(4), "little")
print(f"dlpack_torch: seed {seed}")
torch.manual_seed(seed)
x = torch.randn(300, 200, device="cuda").t()  # (200, 300), strides (1, 200)
y = torch.randn(200, 300, device="cuda")
pointer = lib.jet_axpy(1.5, give(x), give(y))
if not pointer:
    sys.exit(f"jet_axpy failed: {lib.jet_last_error().decode()}")
out = torch.utils.dlpack.from_dlpack(api.PyCapsule_New(pointer, DLTENSOR, None))
reference = 1.5 * x.double() + y.double()
error = (out.double() - reference).abs().max().item()
print(f"dlpack_torch: shape {tuple(out.shape)}, strides {out.stride()}, max error {error:.3g}")
if tuple(out.shape) != (200, 300) or out.dtype != torch.float32 or not error <= 1e-5:
    sys.exit("dlpack_torch: wrong result")

refused = lib.jet_axpy(1.0, give(torch.zeros(3)), None)  # host memory
message = lib.jet_last_error().decode()
print(f"dlpack_torch: a host tensor: {message}")
if refused or "device type 1" not in message:
    sys.exit("dlpack_torch: a host tensor was not refused by name")
del out  # the deleter of jet's export runs here, freeing the array
torch.cuda.synchronize()
print("dlpack_torch: ok")
