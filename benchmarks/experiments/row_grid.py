"""A rank-2 walk without division: tritonize's decoded flat walk (`i1 = tid % size1`,
`i0 = tid // size1`, size1 a runtime argument) copied by hand, against a row grid (program_id(1)
is the row, program_id(0) a block of BLOCK elements along it: no division, no decode) at several
blocks, and the decode with constant sizes (inductor's static kernels, which divide by shifts).
Rows: silu_and_mul of one tensor's halves (the rows under 0.95x torch.compile at 2^20:
experiment_op_library_halves_2e20.txt) and the column and row broadcast adds, which take the same
walk. CUDA graphs of launches on rotating inputs, the least of three rounds taken in turn, beside
tritonize and torch.compile; every variant checked against eager first.

    python -m benchmarks.experiments.row_grid
"""
import argparse

import torch
import torch.nn.functional as F
import triton
import triton.language as tl
from triton.language.extra import libdevice

import tritonize.ops as ops
import tritonize.ops.fused as fused
from tritonize import call, pointwise
from benchmarks.experiments import header
from benchmarks.run import best_in_turn, compile_static, graph_us, rotating_sets


@triton.jit
def _combine(a, b, OP: tl.constexpr):
    if OP == "silu_mul":
        x = a.to(tl.float32)
        return (tl.math.div_rn(x, 1.0 + libdevice.exp(x * -1.0)) * b.to(tl.float32)).to(a.dtype)
    else:
        return a + b


@triton.jit
def _walk_body(a_ptr, b_ptr, out_ptr, a_stride0, a_stride1, b_stride0, b_stride1, size1, num_tasks,
               BLOCK: tl.constexpr, OP: tl.constexpr, ROW_GRID: tl.constexpr, MASKED: tl.constexpr, ROWS: tl.constexpr,
               B_ROWS: tl.constexpr, B_COLUMNS: tl.constexpr):
    if ROW_GRID:
        # a (ROWS, BLOCK) block of rows: program_id(1) the rows, program_id(0) the block along them
        i1 = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)[None, :]
        i0 = tl.program_id(1) * ROWS + tl.arange(0, ROWS)[:, None]
        mask = (i1 < size1) & (i0 < num_tasks // size1)
        out_offset = i0 * size1 + i1
    else:
        tid = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        mask = tid < num_tasks
        i1 = tid % size1
        i0 = tid // size1
        out_offset = tid
    # b's broadcast dims leave its address, as tritonize's kernels do (Specialization.broadcast_dims)
    b_offset = tl.zeros_like(i1)
    if B_ROWS:
        b_offset += i0 * b_stride0
    if B_COLUMNS:
        b_offset += i1 * b_stride1
    if MASKED:
        a = tl.load(a_ptr + (i0 * a_stride0 + i1 * a_stride1), mask=mask)
        b = tl.load(b_ptr + b_offset, mask=mask)
        tl.store(out_ptr + out_offset, _combine(a, b, OP), mask=mask)
    else:
        a = tl.load(a_ptr + (i0 * a_stride0 + i1 * a_stride1))
        b = tl.load(b_ptr + b_offset)
        tl.store(out_ptr + out_offset, _combine(a, b, OP))


@triton.jit
def walk(a_ptr, b_ptr, out_ptr, a_stride0, a_stride1, b_stride0, b_stride1, size1, num_tasks,
         BLOCK: tl.constexpr, OP: tl.constexpr, ROW_GRID: tl.constexpr, MASKED: tl.constexpr, ROWS: tl.constexpr,
         B_ROWS: tl.constexpr, B_COLUMNS: tl.constexpr):
    _walk_body(a_ptr, b_ptr, out_ptr, a_stride0, a_stride1, b_stride0, b_stride1, size1, num_tasks,
               BLOCK, OP, ROW_GRID, MASKED, ROWS, B_ROWS, B_COLUMNS)


@triton.jit
def walk_constant(a_ptr, b_ptr, out_ptr, a_stride0: tl.constexpr, a_stride1, b_stride0: tl.constexpr, b_stride1,
                  size1: tl.constexpr, num_tasks, BLOCK: tl.constexpr, OP: tl.constexpr, ROW_GRID: tl.constexpr,
                  MASKED: tl.constexpr, ROWS: tl.constexpr, B_ROWS: tl.constexpr, B_COLUMNS: tl.constexpr):
    _walk_body(a_ptr, b_ptr, out_ptr, a_stride0, a_stride1, b_stride0, b_stride1, size1, num_tasks,
               BLOCK, OP, ROW_GRID, MASKED, ROWS, B_ROWS, B_COLUMNS)


def launcher(op, row_grid=False, constant=False, block=512, warps=4, widest=4096):
    """The decoded flat walk in blocks of `block`, or a row grid of `block` elements a program:
    min(block, widest, the row rounded up to a power of two) along a row, as many rows as make
    up the rest."""
    def run(a, b):
        rows, columns = a.shape
        out = torch.empty(rows, columns, dtype=a.dtype, device=a.device)
        if row_grid:
            along = min(block, widest, triton.next_power_of_2(columns))
            rows_per = block // along
            grid = (triton.cdiv(columns, along), triton.cdiv(rows, rows_per))
            masked = columns % along != 0 or rows % rows_per != 0
        else:
            along, rows_per = block, 1
            grid, masked = (triton.cdiv(a.numel(), block),), a.numel() % block != 0
        kernel = walk_constant if constant else walk
        kernel[grid](a, b, out, a.stride(0), a.stride(1), b.stride(0), b.stride(1), columns, a.numel(),
                     BLOCK=along, OP=op, ROW_GRID=row_grid, MASKED=masked, ROWS=rows_per,
                     B_ROWS=b.shape[0] > 1, B_COLUMNS=b.shape[1] > 1, num_warps=warps)
        return out
    return run


def variants(op):
    return {
        "as generated": launcher(op),
        "constant size": launcher(op, constant=True),
        "rows of 512": launcher(op, row_grid=True, block=512),
        "rows of 1024": launcher(op, row_grid=True, block=1024),
        "rows of 2048/8": launcher(op, row_grid=True, block=2048, warps=8),
        "512, 128 wide": launcher(op, row_grid=True, block=512, widest=128),
        "1024, 256 wide": launcher(op, row_grid=True, block=1024, widest=256),
    }


def halves(rows, columns, dtype):
    x = torch.randn(rows, 2 * columns, dtype=dtype, device="cuda")
    return x[:, :columns], x[:, columns:]


def broadcast(case):
    def make(rows, columns, dtype):
        a = torch.randn(rows, columns, dtype=dtype, device="cuda")
        b = torch.randn(rows, 1, dtype=dtype, device="cuda") if case == "column" else \
            torch.randn(1, columns, dtype=dtype, device="cuda")
        return a, b
    return make


CASES = {
    # name: (make inputs, our op on them, eager, the hand kernels' op)
    "silu_and_mul halves": (halves, ops.silu_and_mul, lambda a, b: F.silu(a) * b, "silu_mul"),
    "column broadcast add": (broadcast("column"), ops.add, torch.add, "add"),
    "row broadcast add": (broadcast("row"), ops.add, torch.add, "add"),
}
SHAPES = [(1024, 1024), (4096, 256), (256, 4096), (1031, 1031), (4096, 1024), (16384, 1024)]
# out shapes of --large: 2^20, 2^22, 2^24, 2^26, and an MLP's (tokens, intermediate size)
LARGE_SHAPES = [(1024, 1024), (1024, 4096), (4096, 4096), (8192, 8192), (4096, 11008)]


def tritonize_with(blocks, warps):
    """silu_and_mul of halves by a fresh @pointwise silu_and_mul, planned with this flat launch shape
    (call.LAUNCH_SHAPE_OVERRIDE, as benchmarks.tune sets it) on its first call and keeping it."""
    fresh = pointwise(fused.silu_and_mul_kernel.__wrapped__)

    def run(a, b):
        if not fresh._recipes:
            call.LAUNCH_SHAPE_OVERRIDE = lambda sizes, tile: ((blocks,), warps)
            try:
                return fresh(a, b)
            finally:
                call.LAUNCH_SHAPE_OVERRIDE = None
        return fresh(a, b)
    return run


def large_variants(op):
    return {
        "tritonize 2048/8": tritonize_with(2048, 8),
        "tritonize 2048/4": tritonize_with(2048, 4),
        "tritonize 4096/8": tritonize_with(4096, 8),
        "flat 1024/4": launcher(op, block=1024),
        "flat 2048/8": launcher(op, block=2048, warps=8),
        "rows of 1024": launcher(op, row_grid=True, block=1024),
        "rows of 2048/8": launcher(op, row_grid=True, block=2048, warps=8),
        "rows of 4096/8": launcher(op, row_grid=True, block=4096, warps=8),
    }


def measure(row, shape, dtype, make_variants=variants, rounds=3):
    make, ours, eager, op = CASES[row]
    inputs = make(*shape, dtype)
    reference = eager(*inputs)
    moved = sum(t.untyped_storage().nbytes() for t in inputs) + reference.nbytes
    sets = [inputs] + [make(*shape, dtype) for _ in range(rotating_sets(moved) - 1)]
    systems = {"torch.compile": compile_static(eager), "tritonize": ours, **make_variants(op)}
    tolerance = 1e-5 if dtype == torch.float32 else 2e-2
    for label, fn in systems.items():
        torch.testing.assert_close(fn(*inputs), reference, rtol=tolerance, atol=tolerance, msg=label)
    measures = {label: lambda fn=fn: graph_us([lambda x=x: fn(*x) for x in sets]) for label, fn in systems.items()}
    return best_in_turn(measures, rounds)


def print_row(row, shape, dtype, best, baseline):
    print(f"{row} | {str(dtype)[6:]} | {shape[0]} x {shape[1]}", flush=True)
    for label, us in best.items():
        print(f"  {label:16} {us:7.2f} us  {best[baseline] / us:.3f}x {baseline}  "
              f"{best['torch.compile'] / us:.3f}x torch.compile", flush=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--large", action="store_true", help="silu_and_mul of halves from 2^20 to 2^26 elements, "
                                                              "tritonize's flat walk with larger blocks beside")
    large = parser.parse_args().large
    print(header("row_grid" + (" --large" if large else "")))
    if large:
        for dtype in (torch.bfloat16, torch.float32):
            for shape in LARGE_SHAPES:
                print_row("silu_and_mul halves", shape, dtype,
                          measure("silu_and_mul halves", shape, dtype, large_variants), "tritonize")
        return
    for row in CASES:
        for dtype in (torch.float32, torch.bfloat16):
            for shape in SHAPES:
                print_row(row, shape, dtype, measure(row, shape, dtype), "as generated")


if __name__ == "__main__":
    main()
