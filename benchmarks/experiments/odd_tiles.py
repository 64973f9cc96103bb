"""Where torch.compile still beats tritonize off the suite's shapes (odd_shapes.py, H100): bfloat16
`a.t() + b` on odd shapes (0.89-0.93x at 1-7.4 Mi elements) and bfloat16 broadcast adds at
1031 x 1031 (0.92x). Three things, side by side:

1. inductor's kernel for those rows (and float32 ones beside them) and the configs its
   autotuner timed (its debug log);
2. tritonize's kernel launched with other tile edges / blocks and warp counts
   (call.LAUNCH_SHAPE_OVERRIDE), beside eager and torch.compile;
3. for the broadcasts, hand-written copies of tritonize's decoded walk: as generated (every
   operand addressed through i0 * stride0 + i1 * stride1, every block masked), with the dense
   operands (`a` and the output) addressed by the flat index, and that with only the last block
   masked. With an odd inner size Triton cannot see that i0 * 1031 + i1 runs on across rows, so
   the decoded address gives no vectors.

Timed as CUDA graphs of launches on rotating inputs after do_bench's flush, the best of 3 rounds
taken in turn.

    python -m benchmarks.experiments.odd_tiles
"""
import logging

import torch
import triton
import triton.language as tl
from torch._inductor.utils import run_and_get_code

from benchmarks import run
from benchmarks.cases import OPS, bytes_moved
from benchmarks.experiments import header
from benchmarks.experiments.odd_shapes import odd_inputs
from tritonize import call

TILE_CONFIGS = [((64, 64), 8), ((64, 64), 4), ((32, 32), 4), ((32, 64), 4), ((64, 32), 4), ((128, 32), 4),
                ((32, 128), 4), ((128, 64), 8), ((64, 128), 8), ((128, 128), 8), ((16, 256), 8), ((256, 16), 8)]
FLAT_CONFIGS = [((1024,), 4), ((2048,), 4), ((2048,), 8), ((4096,), 8), ((512,), 4), ((1024,), 8)]


class Recorder(logging.Handler):
    def emit(self, record):
        message = record.getMessage()
        if "config" in message.lower() or "benchmark" in message.lower():
            print("  inductor:", message[:300], flush=True)


@triton.jit
def decoded_add(a_ptr, b_ptr, out_ptr, a_s0, a_s1, b_s0, b_s1, size1, n, BLOCK: tl.constexpr):
    tid = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = tid < n
    i1 = tid % size1
    i0 = tid // size1
    a = tl.load(a_ptr + (i0 * a_s0 + i1 * a_s1), mask=mask).to(tl.float32)
    b = tl.load(b_ptr + (i0 * b_s0 + i1 * b_s1), mask=mask).to(tl.float32)
    tl.store(out_ptr + (i0 * size1 + i1), (a + b).to(out_ptr.dtype.element_ty), mask=mask)


@triton.jit
def flat_dense_add(a_ptr, b_ptr, out_ptr, b_s0, b_s1, size1, n, BLOCK: tl.constexpr):
    tid = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = tid < n
    i1 = tid % size1
    i0 = tid // size1
    a = tl.load(a_ptr + tid, mask=mask).to(tl.float32)
    b = tl.load(b_ptr + (i0 * b_s0 + i1 * b_s1), mask=mask).to(tl.float32)
    tl.store(out_ptr + tid, (a + b).to(out_ptr.dtype.element_ty), mask=mask)


@triton.jit
def flat_dense_split_add(a_ptr, b_ptr, out_ptr, b_s0, b_s1, size1, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    tid = pid * BLOCK + tl.arange(0, BLOCK)
    i1 = tid % size1
    i0 = tid // size1
    if pid * BLOCK + BLOCK <= n:
        a = tl.load(a_ptr + tid).to(tl.float32)
        b = tl.load(b_ptr + (i0 * b_s0 + i1 * b_s1)).to(tl.float32)
        tl.store(out_ptr + tid, (a + b).to(out_ptr.dtype.element_ty))
    else:
        mask = tid < n
        a = tl.load(a_ptr + tid, mask=mask).to(tl.float32)
        b = tl.load(b_ptr + (i0 * b_s0 + i1 * b_s1), mask=mask).to(tl.float32)
        tl.store(out_ptr + tid, (a + b).to(out_ptr.dtype.element_ty), mask=mask)


def hand(kernel, dense_a_strides: bool, block=1024, warps=4):
    def add(a, b):
        out = torch.empty_like(a)
        n, size1 = a.numel(), a.shape[1]
        b = b.expand_as(a)
        args = (*a.stride(), *b.stride()) if dense_a_strides else b.stride()
        kernel[(triton.cdiv(n, block),)](a, b, out, *args, size1, n, BLOCK=block, num_warps=warps)
        return out
    return add


def print_inductor(compiled, inputs):
    _, sources = run_and_get_code(compiled, *inputs)
    for source in sources:
        start = source.find("@triton.jit")
        print(source[start:source.find("''', device_str=", start)], flush=True)


def swept(op, sets, configs, reference, dtype) -> dict:
    """label -> captured CUDA graph of tritonize's add on `sets`, one per launch shape."""
    fn = op.ours
    graphs = {}
    for blocks, warps in configs:
        call.LAUNCH_SHAPE_OVERRIDE = lambda sizes, tile, b=blocks, w=warps: (b, w)
        fn._recipes.clear()
        try:
            run.check("add", fn(*sets[0]), reference, dtype)
            graphs[f"tritonize {'x'.join(map(str, blocks))}/{warps}"] = run.capture(
                [lambda x=x: fn(*x) for x in sets])
        finally:
            call.LAUNCH_SHAPE_OVERRIDE = None
            fn._recipes.clear()
    return graphs


def main():
    print(header("odd_tiles"), flush=True)
    for name in ("torch._inductor.runtime.triton_heuristics", "torch._inductor.runtime.coordinate_descent_tuner"):
        logger = logging.getLogger(name)
        logger.setLevel(logging.DEBUG)
        logger.addHandler(Recorder())
    op = OPS["add"]
    transposed = "transposed + contiguous"
    rows_to_run = [(transposed, shape, torch.bfloat16) for shape in ((1031, 1031), (2999, 1001), (4097, 1531),
                                                                     (777, 10007), (24001, 1399))]
    rows_to_run += [(transposed, shape, torch.float32) for shape in ((4097, 1531), (24001, 1399))]
    rows_to_run += [(case, shape, torch.bfloat16) for case in ("row broadcast", "column broadcast")
                    for shape in ((1031, 1031), (4097, 1531))]
    rows_to_run += [("row broadcast", (1031, 1031), torch.float32)]
    for case, (rows, cols), dtype in rows_to_run:
        inputs = odd_inputs(case, rows, cols, dtype)
        reference = torch.add(*inputs)
        compiled = run.compile_static(torch.add)
        print(f"== add | {case} | {str(dtype)[6:]} | {rows}x{cols}", flush=True)
        run.check("add (torch.compile)", compiled(*inputs), reference, dtype)
        if dtype == torch.bfloat16 and ((rows, cols) == (1031, 1031) or case == transposed and rows == 2999):
            print_inductor(compiled, inputs)
        moved = bytes_moved(inputs, [reference])
        sets = [inputs] + [odd_inputs(case, rows, cols, dtype) for _ in range(run.rotating_sets(moved) - 1)]
        default, spec = op.ours.plan(tuple(inputs), {}, None)
        configs = [(default.blocks, default.warps)]
        configs += [c for c in (TILE_CONFIGS if spec.tile else FLAT_CONFIGS) if c != configs[0]]
        graphs = {"eager": run.capture([lambda x=x: torch.add(*x) for x in sets]),
                  "torch.compile": run.capture([lambda x=x: compiled(*x) for x in sets])}
        graphs.update(swept(op, sets, configs, reference, dtype))
        if not spec.tile:
            hands = {"hand: decoded, masked": hand(decoded_add, True),
                     "hand: dense flat, masked": hand(flat_dense_add, False),
                     "hand: dense flat, last block masked": hand(flat_dense_split_add, False),
                     "hand: dense flat, last block masked, 2048/8": hand(flat_dense_split_add, False, 2048, 8)}
            for label, add in hands.items():
                assert torch.equal(add(*inputs), reference), label
                graphs[label] = run.capture([lambda x=x, f=add: f(*x) for x in sets])
        times = run.best_in_turn({label: lambda g=graph: run.replay_us(g) for label, graph in graphs.items()},
                                 run.ROUNDS)
        first = f"tritonize {'x'.join(map(str, default.blocks))}/{default.warps}"
        for label, us in times.items():
            mark = " (default)" if label == first else ""
            print(f"  {label + mark:46} {us:7.2f} us  {times['torch.compile'] / us:.3f}x compile", flush=True)


if __name__ == "__main__":
    main()
