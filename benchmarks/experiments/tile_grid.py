"""Does a 2D launch grid speed up the tiled adds? tritonize's tile kernels take one program id
and split it into the tile's column, its row and the outer dims with a division and a
remainder by runtime counts (decode_tile); inductor's take the column from program_id(0) and
the row from program_id(1), with no division. The last untested difference behind the
16-bit tiled adds at 2^20-2^22 trailing torch.compile by 2-5% (permuted_tiles.py: not the
tile shape, the masks, constant divisors or the output's address).

Hand copies of tritonize's generated tile kernel for the transposed add (rank 2: the output laid
like a, the walk runs along a's and the output's contiguous dim, b is contiguous along the other) and the rank-4
permuted add (see permuted_tiles.py), each with the 1D decode as generated and with a 2D grid
(the tile's column from program_id(0), the rest from program_id(1)), at the tile shape
tritonize picks for the row; beside tritonize itself and torch.compile, as CUDA graphs of
launches on rotating inputs, the least of five rounds taken in turn, so that each of the five
leads one round (the 1D decode twice, to show how far apart the same kernel measures).

    python -m benchmarks.experiments.tile_grid
    python -m benchmarks.experiments.tile_grid odd   # odd_shapes.py's transposed adds, 2D grid against 1D decode
"""
import torch
import triton
import triton.language as tl

from benchmarks.cases import OPS, make_inputs
from benchmarks.experiments import header, print_graphed_adds


@triton.jit
def transposed_add(a_ptr, b_ptr, out_ptr, a_stride0, a_stride1, b_stride0, b_stride1, out_stride0, out_stride1,
                   size0, size1, BLOCK0: tl.constexpr, BLOCK1: tl.constexpr, GRID2D: tl.constexpr,
                   POLICY: tl.constexpr):
    # the walk (size0, size1) as tritonize takes it: a and the output (laid like a) run along
    # dim 1, b along dim 0 (p); the strides of 1 are Triton's specializations
    if GRID2D:
        tile_inner = tl.program_id(0)
        tile_p = tl.program_id(1)
    else:  # as generated: one program id, split by the number of tiles along dim 1
        pid = tl.program_id(0)
        tiles_inner = (size1 + BLOCK1 - 1) // BLOCK1
        tile_inner = pid % tiles_inner
        tile_p = pid // tiles_inner
    i1 = tile_inner * BLOCK1 + tl.arange(0, BLOCK1)[None, :]
    i0 = tile_p * BLOCK0 + tl.arange(0, BLOCK0)[:, None]
    mask = (i1 < size1) & (i0 < size0)
    a = tl.load(a_ptr + (i0 * a_stride0 + i1 * a_stride1), mask=mask, eviction_policy=POLICY).to(tl.float32)
    b = tl.load(b_ptr + (i0 * b_stride0 + i1 * b_stride1), mask=mask, eviction_policy=POLICY).to(tl.float32)
    tl.store(out_ptr + (i0 * out_stride0 + i1 * out_stride1), (a + b).to(out_ptr.dtype.element_ty), mask=mask)


@triton.jit
def rank4_add(a_ptr, b_ptr, out_ptr, a_stride0, a_stride1, b_stride0, b_stride1, b_stride2, b_stride3,
              out_stride0, out_stride1, size1, size2, size3, BLOCK0: tl.constexpr, BLOCK1: tl.constexpr,
              GRID2D: tl.constexpr, POLICY: tl.constexpr):
    # the walk (2, 1024, m/4, 2) of permuted_tiles.py: a and the output run over dims 2 and 3
    group_size = size2 * size3
    tiles_p = (size1 + BLOCK0 - 1) // BLOCK0
    if GRID2D:
        tile_inner = tl.program_id(0)
        rest = tl.program_id(1)
    else:
        pid = tl.program_id(0)
        tiles_inner = (group_size + BLOCK1 - 1) // BLOCK1
        tile_inner = pid % tiles_inner
        rest = pid // tiles_inner
    tile_p = rest % tiles_p
    i0 = rest // tiles_p
    inner = tile_inner * BLOCK1 + tl.arange(0, BLOCK1)[None, :]
    i1 = tile_p * BLOCK0 + tl.arange(0, BLOCK0)[:, None]
    mask = (inner < group_size) & (i1 < size1)
    i3 = inner % size3
    i2 = inner // size3
    a = tl.load(a_ptr + (i0 * a_stride0 + i1 * a_stride1 + inner), mask=mask,
                eviction_policy=POLICY).to(tl.float32)
    b = tl.load(b_ptr + (i0 * b_stride0 + i1 * b_stride1 + i2 * b_stride2 + i3 * b_stride3),
                mask=mask, eviction_policy=POLICY).to(tl.float32)
    tl.store(out_ptr + (i0 * out_stride0 + i1 * out_stride1 + inner), (a + b).to(out_ptr.dtype.element_ty),
             mask=mask)


def tile_of(inputs):
    """The tile edges, warps and load eviction policy tritonize's plan takes for this row."""
    plan, spec = OPS["add"].ours.plan(inputs, {}, None)
    return plan.blocks, plan.warps, "evict_last" if spec.evict_last else ""


def transposed_launcher(blocks, warps, policy, grid2d):
    def add(a, b):
        out = torch.empty_like(a)  # laid like a (column-major), as eager, inductor and tritonize lay it
        walk_a, walk_b, walk_out = a.t(), b.t(), out.t()  # the walk: a's and the output's run last
        assert walk_a.stride(1) == 1 and walk_out.stride(1) == 1 and walk_b.stride(0) == 1
        size0, size1 = walk_out.shape
        tiles = (triton.cdiv(size1, blocks[1]), triton.cdiv(size0, blocks[0]))
        grid = tiles if grid2d else (tiles[0] * tiles[1],)
        transposed_add[grid](a, b, out, *walk_a.stride(), *walk_b.stride(), *walk_out.stride(), size0, size1,
                             BLOCK0=blocks[0], BLOCK1=blocks[1], GRID2D=grid2d, POLICY=policy, num_warps=warps)
        return out
    return add


WALK = (0, 3, 2, 1)


def rank4_launcher(blocks, warps, policy, grid2d):
    def add(a, b):
        out = torch.empty_like(a)
        walk_a, walk_b, walk_out = a.permute(WALK), b.permute(WALK), out.permute(WALK)
        sizes = walk_a.shape
        assert walk_a.stride()[2:] == (sizes[3], 1) and walk_out.stride()[2:] == (sizes[3], 1)
        tiles = (triton.cdiv(sizes[2] * sizes[3], blocks[1]), sizes[0] * triton.cdiv(sizes[1], blocks[0]))
        grid = tiles if grid2d else (tiles[0] * tiles[1],)
        rank4_add[grid](a, b, out, *walk_a.stride()[:2], *walk_b.stride(), *walk_out.stride()[:2], *sizes[1:],
                        BLOCK0=blocks[0], BLOCK1=blocks[1], GRID2D=grid2d, POLICY=policy, num_warps=warps)
        return out
    return add


def variants(launcher):
    def make(inputs):
        blocks, warps, policy = tile_of(inputs)
        label = f"{blocks[0]}x{blocks[1]}/{warps}{' evict_last' if policy else ''}"
        return {f"{label} 1D decode": launcher(blocks, warps, policy, False),
                f"{label} 2D grid": launcher(blocks, warps, policy, True),
                f"{label} 1D decode, again": launcher(blocks, warps, policy, False)}
    return make


def add(a, b):
    return a + b


def odd_shape_rows(shapes):
    """The transposed adds of odd_shapes.py (odd row strides: tiles without vectors), tritonize
    on a 2D grid against tritonize with its tiles forced onto the 1D decode (call.MAX_GRID_ROWS
    = 0 while that function plans), each a fresh @pointwise function, in one process: graphs
    after a flush, and back to back above the L2, each the best of 5 rounds taken in turn."""
    from benchmarks import run
    from benchmarks.cases import bytes_moved
    from benchmarks.experiments.odd_shapes import odd_inputs
    from tritonize import call, pointwise

    l2 = torch.cuda.get_device_properties(0).L2_cache_size
    for dtype in (torch.float32, torch.bfloat16):
        for rows, cols in shapes:
            inputs = odd_inputs("transposed + contiguous", rows, cols, dtype)
            reference = torch.add(*inputs)
            on_2d_grid, on_1d_decode = pointwise(add), pointwise(add)
            limit, call.MAX_GRID_ROWS = call.MAX_GRID_ROWS, 0
            try:
                plan_1d, spec_1d = on_1d_decode.plan(tuple(inputs), {}, None)
                assert torch.equal(on_1d_decode(*inputs), reference)
            finally:
                call.MAX_GRID_ROWS = limit
            plan_2d, spec_2d = on_2d_grid.plan(tuple(inputs), {}, None)
            assert torch.equal(on_2d_grid(*inputs), reference)
            assert spec_2d.two_dimensional_grid and not spec_1d.two_dimensional_grid
            compiled = run.compile_static(torch.add)
            moved = bytes_moved(inputs, [reference])
            sets = [inputs] + [odd_inputs("transposed + contiguous", rows, cols, dtype)
                               for _ in range(run.rotating_sets(moved) - 1)]
            calls = {name: [lambda x=x, f=f: f(*x) for x in sets]
                     for name, f in (("2D grid", on_2d_grid), ("1D decode", on_1d_decode),
                                     ("torch.compile", compiled))}
            run.ROUNDS, rounds = 5, run.ROUNDS
            try:
                timers = [("graphs", run.replay_us, False)] + (
                    [("back to back", run.steady_us, True)] if moved > l2 else [])
                for label, timer, keep in timers:
                    times = run.graphs_in_turn(calls, timer, keep_outputs=keep)
                    print(f"add | transposed + contiguous | {str(dtype)[6:]} | {rows}x{cols} | "
                          f"{'x'.join(map(str, plan_2d.blocks))}/{plan_2d.warps}, grid "
                          f"{call.launch_grid(plan_2d, spec_2d.tile, True)} | {label}: 2D grid "
                          f"{times['2D grid']:.2f} us, 1D decode {times['1D decode']:.2f}, compile "
                          f"{times['torch.compile']:.2f} (2D/1D {times['1D decode'] / times['2D grid']:.3f}x, "
                          f"{times['torch.compile'] / times['2D grid']:.3f}x compile)", flush=True)
            finally:
                run.ROUNDS = rounds


def main():
    import sys

    if sys.argv[1:] == ["odd"]:
        from benchmarks.experiments.odd_shapes import SHAPES
        print(header("tile_grid odd", rounds=5))
        odd_shape_rows(SHAPES)
        return
    print(header("tile_grid", rounds=5))
    for case, launcher in (("transposed + contiguous", transposed_launcher), ("rank-4 permuted", rank4_launcher)):
        for dtype, exponents in ((torch.bfloat16, (20, 21, 22)), (torch.float32, (20, 22))):
            for exponent in exponents:
                print_graphed_adds(case, dtype, exponent, variants(launcher), "torch.compile", 32,
                                   lambda inputs: f"strides {[tuple(x.stride()) for x in inputs]}", rounds=5)
        inputs = make_inputs(case, 2**21, 2, torch.bfloat16, "cuda")
        source = OPS["add"].ours.source(*inputs)
        strides = OPS["add"].ours(*inputs).stride()
        print(f"== tritonize's kernel, add | {case} | bfloat16 | 2^21; output strides {strides}")
        print(source[source.index("@triton.jit"):source.index("def launch")], flush=True)


if __name__ == "__main__":
    main()
