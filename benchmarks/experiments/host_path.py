"""Where a memoized call's host time goes, on one host, each part timed in turn (the fastest
of seven rounds of 5000 calls, benchmarks.run's per_call_us): tritonize's 1K add, its parts,
Triton's C launch alone, a C loop of bare cuLaunchKernel calls on the same kernel (the floor
of any launcher), and the same steps written inline in Python for two tensors (a lower
bound for the steady path). Needs CUDA, a C compiler (Triton needs one too) and Triton 3.6's
launcher layout (the GPU image's).

    python -m benchmarks.experiments.host_path
"""
import ctypes
import os
import subprocess
import tempfile

import torch
import triton

from benchmarks.cases import OPS
from benchmarks.run import per_call_us
from tritonize.decorator import signature_key

x = torch.randn(1024, device="cuda")
add = OPS["add"].ours
for _ in range(5):
    add(x, x)
args = (x, x)
recipe = add._recipes[signature_key(args)]
out = torch.empty_like(x)
compiled = recipe.compiled
launcher = compiled.run
c_launch, function, metadata = launcher.launch, compiled.function, compiled.packed_metadata
coop, pdl = launcher.launch_cooperative_grid, launcher.launch_pdl
stream_of = torch._C._cuda_getCurrentRawStream
stream = stream_of(0)
tail = recipe.tail
p = x.data_ptr()
q = out.data_ptr()
grid0 = recipe.grid[0]
print("tail", tail, "grid", grid0, "fast_kind", recipe.fast_kind)
is_compiling = torch.compiler.is_compiling


def nothing(*a):
    return None


def c_direct():
    c_launch(grid0, 1, 1, stream, function, coop, pdl, None, None, metadata, None, None, None, p, p, q, *tail)


def c_direct_stream():
    c_launch(grid0, 1, 1, stream_of(0), function, coop, pdl, None, None, metadata, None, None, None, p, p, q, *tail)


ptrs = [p, p]
parts = {
    "eager add": lambda: torch.add(x, x),
    "tritonize add": lambda: add(x, x),
    "recipe.call(args, pointers)": lambda: recipe.call(args, ptrs),
    "empty_like": lambda: torch.empty_like(x),
    "fast((p,p,q,*tail))": lambda: recipe.fast((p, p, q, *tail)),
    "c_launch, stream cached": c_direct,
    "python call, 16 args": lambda: nothing(grid0, 1, 1, stream, function, coop, pdl, None, None, metadata, None,
                                            None, None, p, p, q, *tail),
}


def show(functions):
    """benchmarks.run's per-call timing: the fastest of seven rounds of 5000 calls in turn."""
    for label, us in per_call_us(functions, 5000, rounds=7).items():
        print(f"{label:32s} {us:6.2f} us")


show(parts)

# -- the launch floor: cuLaunchKernel in a C loop, and a minimal Python steady path
include = os.path.join(os.path.dirname(triton.__file__), "backends", "nvidia", "include")
so = os.path.join(tempfile.mkdtemp(), "floor.so")
source = os.path.join(os.path.dirname(__file__), "launch_floor.c")
subprocess.check_call(["cc", "-O2", "-shared", "-fPIC", "-I", include, source, "-o", so, "-ldl"])
lib = ctypes.CDLL(so)
pointer = ctypes.POINTER(ctypes.c_uint64)
lib.param_info.argtypes = [ctypes.c_uint64, ctypes.c_int, pointer, pointer]
lib.floor_us.restype = ctypes.c_double
lib.floor_us.argtypes = [ctypes.c_uint64, ctypes.c_uint64, ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_int,
                         ctypes.POINTER(ctypes.c_uint64), ctypes.c_int]
sizes = []
for i in range(16):
    o, s = ctypes.c_uint64(), ctypes.c_uint64()
    if lib.param_info(function, i, ctypes.byref(o), ctypes.byref(s)) != 0:
        break
    sizes.append((o.value, s.value))
print("params (offset, size):", sizes, "signature", compiled.src.signature, "constants", compiled.src.constants)
print("metadata", metadata, "shared", compiled.metadata.shared, "warps", compiled.metadata.num_warps)
values = (ctypes.c_uint64 * 16)(p, p, q, 1024, 0, 0)
assert [s for _, s in sizes] in ([8, 8, 8, 4, 8, 8], [8, 8, 8, 4, 8], [8, 8, 8, 4]), sizes
for _ in range(3):
    us = lib.floor_us(function, stream, grid0, 32 * compiled.metadata.num_warps, compiled.metadata.shared,
                      len(sizes), values, 20000)
    print(f"cuLaunchKernel C loop {us:.2f} us")
torch.cuda.synchronize()
print("check", torch.equal(out, x + x))

recipes = add._recipes
empty_like = torch.empty_like


def minimal(a, b):
    if is_compiling():
        return None
    pa, pb = a.data_ptr(), b.data_ptr()
    recipe = recipes.get(((a.dtype, a.shape, a.stride(), a.device, pa & 15 == 0),
                          (b.dtype, b.shape, b.stride(), b.device, pb & 15 == 0)))
    if recipe is None:
        return None
    o = empty_like(a)
    c_launch(grid0, 1, 1, stream_of(0), function, coop, pdl, None, None, metadata, None, None, None, pa, pb,
             o.data_ptr(), *tail)
    return o


print("minimal found", minimal(x, x) is not None)
more = {"tritonize add": lambda: add(x, x), "minimal python path": lambda: minimal(x, x),
        "eager add": lambda: torch.add(x, x), "c_launch, stream cached": c_direct}
show(more)
