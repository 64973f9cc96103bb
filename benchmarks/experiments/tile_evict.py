"""Which of inductor's tile choices pays, at which size: tritonize's tiled kernel for `a.t() + b`
(tile edges as tritonize picks them per size, output laid like a and walked along its contiguous
dim, as tritonize does) copied by hand, against variants with `eviction_policy='evict_last'` on
the load of the operand laid like the output, of the other, or both (inductor's kernels at 2^22
load both so: experiment_inductor_tiles_h200.txt), without masks (the tiles divide the sizes),
and with constant sizes and strides (a kernel per shape, as inductor's static compile has).
Times are CUDA graphs of launches on rotating inputs (benchmarks.run.graph_us), the least of
three rounds taken in turn, beside tritonize itself and torch.compile.

    python -m benchmarks.experiments.tile_evict [--dtype bfloat16] [--exponents 20,21,22,23,24]

With `--dtype`, tiles and warps are the ones tritonize picks for that dtype (call.launch_shape).
"""
import argparse

import torch
import triton
import triton.language as tl

from benchmarks.experiments import graphed_adds, header
from tritonize import call


@triton.jit
def tiled_add_body(a_ptr, b_ptr, out_ptr, a_stride0, a_stride1, b_stride0, b_stride1, out_stride0, out_stride1,
                   size0, size1, BLOCK0: tl.constexpr, BLOCK1: tl.constexpr, MASKED: tl.constexpr,
                   A_POLICY: tl.constexpr, B_POLICY: tl.constexpr):
    pid = tl.program_id(0)
    tiles_inner = (size1 + BLOCK1 - 1) // BLOCK1
    tile_inner = pid % tiles_inner
    tile_p = pid // tiles_inner
    i1 = tile_inner * BLOCK1 + tl.arange(0, BLOCK1)[None, :]
    i0 = tile_p * BLOCK0 + tl.arange(0, BLOCK0)[:, None]
    a_at = a_ptr + (i0 * a_stride0 + i1 * a_stride1)
    b_at = b_ptr + (i0 * b_stride0 + i1 * b_stride1)
    out_at = out_ptr + (i0 * out_stride0 + i1 * out_stride1)
    if MASKED:
        mask = (i1 < size1) & (i0 < size0)
        a = tl.load(a_at, mask=mask, eviction_policy=A_POLICY)
        b = tl.load(b_at, mask=mask, eviction_policy=B_POLICY)
        tl.store(out_at, a + b, mask=mask)
    else:
        a = tl.load(a_at, eviction_policy=A_POLICY)
        b = tl.load(b_at, eviction_policy=B_POLICY)
        tl.store(out_at, a + b)


@triton.jit
def tiled_add(a_ptr, b_ptr, out_ptr, a_stride0, a_stride1, b_stride0, b_stride1, out_stride0, out_stride1,
              size0, size1, BLOCK0: tl.constexpr, BLOCK1: tl.constexpr, MASKED: tl.constexpr,
              A_POLICY: tl.constexpr, B_POLICY: tl.constexpr):
    tiled_add_body(a_ptr, b_ptr, out_ptr, a_stride0, a_stride1, b_stride0, b_stride1, out_stride0, out_stride1,
                   size0, size1, BLOCK0, BLOCK1, MASKED, A_POLICY, B_POLICY)


@triton.jit
def tiled_add_constant(a_ptr, b_ptr, out_ptr, a_stride0: tl.constexpr, a_stride1: tl.constexpr,
                       b_stride0: tl.constexpr, b_stride1: tl.constexpr, out_stride0: tl.constexpr,
                       out_stride1: tl.constexpr, size0: tl.constexpr, size1: tl.constexpr, BLOCK0: tl.constexpr,
                       BLOCK1: tl.constexpr, MASKED: tl.constexpr, A_POLICY: tl.constexpr, B_POLICY: tl.constexpr):
    tiled_add_body(a_ptr, b_ptr, out_ptr, a_stride0, a_stride1, b_stride0, b_stride1, out_stride0, out_stride1,
                   size0, size1, BLOCK0, BLOCK1, MASKED, A_POLICY, B_POLICY)


def launcher(blocks, warps, masked=True, evict_like_out=False, evict_other=False, constant=False):
    """An add of (a, b), a transposed and b contiguous, with the output laid like a and the
    tile's fast edge along a's contiguous dim (the kernel sees a.t(), b.t() and writes out.t())."""
    last = "evict_last"

    def add(a, b):
        a_walk, b_walk = a.t(), b.t()  # a_walk is contiguous: the operand laid like the output
        out = torch.empty_like(a_walk)
        size0, size1 = out.shape
        grid = (triton.cdiv(size0, blocks[0]) * triton.cdiv(size1, blocks[1]),)
        args = (*a_walk.stride(), *b_walk.stride(), *out.stride(), size0, size1)
        kernel = tiled_add_constant if constant else tiled_add
        kernel[grid](a_walk, b_walk, out, *args, BLOCK0=blocks[0], BLOCK1=blocks[1], MASKED=masked,
                     A_POLICY=last if evict_like_out else "", B_POLICY=last if evict_other else "",
                     num_warps=warps)
        return out.t()
    return add


def tritonize_tile(inputs) -> tuple:
    """The tile edges and warps tritonize picks for the walk along a: dim 0 of a.t() is a's
    columns, its contiguous dim a's rows."""
    rows, cols = inputs[0].shape
    return call.launch_shape(inputs[0].device, (cols, rows), (0, 1, ()), element_bytes=inputs[0].dtype.itemsize)


VARIANTS = {
    "as generated": {},
    "evict_last like out": {"evict_like_out": True},
    "evict_last other": {"evict_other": True},
    "evict_last both": {"evict_like_out": True, "evict_other": True},
    "no masks": {"masked": False},
    "no masks, evict both": {"masked": False, "evict_like_out": True, "evict_other": True},
    "all three": {"masked": False, "evict_like_out": True, "evict_other": True, "constant": True},
}


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dtype", default="float32")
    parser.add_argument("--exponents", default="20,21,22,23,24")
    args = parser.parse_args(argv)
    dtype = getattr(torch, args.dtype)
    print(header("tile_evict" + (f" --dtype {args.dtype}" if args.dtype != "float32" else "")))
    case = "transposed + contiguous"
    for exponent in map(int, args.exponents.split(",")):
        inputs, best = graphed_adds(case, 2**exponent, dtype, lambda inputs: {
            name: launcher(*tritonize_tile(inputs), **flags) for name, flags in VARIANTS.items()})
        blocks, warps = tritonize_tile(inputs)
        print(f"add | {case} | {args.dtype} | 2^{exponent} | tile {blocks[0]}x{blocks[1]}/{warps}", flush=True)
        for name, us in best.items():
            print(f"  {name:22} {us:7.2f} us  {best['as generated'] / us:.3f}x as generated", flush=True)


if __name__ == "__main__":
    main()
