"""Tile shapes for kernels with costly math on tiled layouts. layout_ops.py found the two-output op
(r * cos(theta), r * sin(theta)) and silu_and_mul under 0.95x torch.compile on transposed and
rank-4 permuted inputs (as low as 0.84x: the two-output op, bfloat16 rank 4 at 2^20), where the
tile rule was tuned on adds. Those rows, tritonize's op launched with other tile edges and warps
(call.LAUNCH_SHAPE_OVERRIDE) beside its planned launch and torch.compile, as CUDA graphs of
launches on rotating inputs after a flush, the best of 3 rounds taken in turn.

    python -m benchmarks.experiments.tiled_costly
    python -m benchmarks.experiments.tiled_costly large   # 2^23 and up, where the rule is unmeasured
    python -m benchmarks.experiments.tiled_costly narrow  # narrower tiles and flat rows, where none above won
    python -m benchmarks.experiments.tiled_costly rule    # the candidates of the narrow run, from 2^20 up
    python -m benchmarks.experiments.tiled_costly outputs # the two-output op alone, for an A/B of its kernel body
"""
import torch

from benchmarks import run
from benchmarks.cases import OPS, bytes_moved, make_inputs
from benchmarks.experiments import header
from tritonize import call

ROWS = [("two outputs (user)", "rank-4 permuted", torch.bfloat16, 20),
        ("two outputs (user)", "transposed + contiguous", torch.float32, 22),
        ("two outputs (user)", "rank-4 permuted", torch.float32, 22),
        ("two outputs (user)", "transposed + contiguous", torch.bfloat16, 22),
        ("silu_and_mul", "transposed + contiguous", torch.bfloat16, 20),
        ("silu_and_mul", "rank-4 permuted", torch.bfloat16, 20),
        ("silu_and_mul", "transposed + contiguous", torch.float32, 20)]
# the sizes the first runs left unmeasured: 16-bit tiles at 2^23 (32 x 64 with 4 warps) and from a
# wave (64 x 64 with 8), float32 from a wave (64 x 64 with 4)
LARGE_ROWS = [("two outputs (user)", "transposed + contiguous", torch.bfloat16, 23),
              ("two outputs (user)", "transposed + contiguous", torch.bfloat16, 24),
              ("two outputs (user)", "rank-4 permuted", torch.bfloat16, 24),
              ("two outputs (user)", "transposed + contiguous", torch.bfloat16, 26),
              ("silu_and_mul", "transposed + contiguous", torch.bfloat16, 23),
              ("silu_and_mul", "transposed + contiguous", torch.bfloat16, 24),
              ("silu_and_mul", "rank-4 permuted", torch.bfloat16, 26),
              ("two outputs (user)", "transposed + contiguous", torch.float32, 24),
              ("two outputs (user)", "rank-4 permuted", torch.float32, 26),
              ("silu_and_mul", "transposed + contiguous", torch.float32, 24)]
# the rows where no config of CONFIGS reached torch.compile in the large run, with narrow tiles and
# one-line ones ((1, n): a run of the output's inner dim; the transposed input read across lines)
NARROW_ROWS = [("two outputs (user)", "transposed + contiguous", torch.float32, 22),
               ("two outputs (user)", "transposed + contiguous", torch.float32, 24),
               ("two outputs (user)", "rank-4 permuted", torch.float32, 26),
               ("silu_and_mul", "transposed + contiguous", torch.bfloat16, 23),
               ("silu_and_mul", "transposed + contiguous", torch.float32, 24)]
NARROW_CONFIGS = [((32, 32), 4), ((16, 64), 4), ((8, 128), 4), ((4, 256), 4), ((1, 1024), 4), ((1, 512), 4),
                  ((1, 2048), 8), ((16, 32), 2), ((32, 16), 2), ((64, 16), 4), ((16, 128), 8), ((64, 64), 8)]
# the candidates the large and narrow runs left, on both ops from 2^20 up
RULE_ROWS = ([("two outputs (user)", "transposed + contiguous", torch.float32, e) for e in (20, 22, 23, 24)]
             + [("two outputs (user)", "rank-4 permuted", torch.float32, e) for e in (22, 26)]
             + [("silu_and_mul", "transposed + contiguous", torch.float32, e) for e in (20, 22, 23, 24)]
             + [("silu_and_mul", "rank-4 permuted", torch.float32, e) for e in (20, 22)]
             + [(name, case, torch.bfloat16, e) for name in ("two outputs (user)", "silu_and_mul")
                for case, e in (("transposed + contiguous", 22), ("transposed + contiguous", 23),
                                ("rank-4 permuted", 23))])
RULE_CONFIGS = [((32, 32), 4), ((32, 16), 2), ((16, 32), 2), ((16, 16), 1), ((64, 64), 8), ((32, 64), 4),
                ((64, 64), 4), ((16, 64), 4)]
# the two-output op on every layout kind it meets, to compare two builds of its kernel (each
# installed in turn): tiled rows with the planned tiles and inductor's pick (32 x 32 with 4 warps)
OUTPUTS_ROWS = [("two outputs (user)", case, dtype, e) for dtype in (torch.float32, torch.bfloat16)
                for case, e in (("contiguous", 24), ("transposed + contiguous", 22), ("transposed + contiguous", 24),
                                ("rank-4 permuted", 26))]
OUTPUTS_CONFIGS = [((32, 32), 4)]
CONFIGS = [((64, 64), 8), ((64, 64), 4), ((32, 32), 4), ((32, 64), 4), ((64, 32), 4), ((32, 128), 4),
           ((16, 64), 4), ((32, 32), 2)]


def main():
    import sys

    mode = sys.argv[1] if sys.argv[1:] else ""
    rows, configs = {"large": (LARGE_ROWS, CONFIGS + [((16, 128), 4)]),
                     "narrow": (NARROW_ROWS, NARROW_CONFIGS), "rule": (RULE_ROWS, RULE_CONFIGS),
                     "outputs": (OUTPUTS_ROWS, OUTPUTS_CONFIGS)}.get(mode, (ROWS, CONFIGS))
    print(header(f"tiled_costly {mode}".strip()), flush=True)
    for name, case, dtype, exponent in rows:
        op = OPS[name]
        inputs = make_inputs(case, 2**exponent, op.arity, dtype, "cuda", op.bool_first)
        reference = op.eager(*inputs)
        compiled = run.compile_op(name)
        run.check(name + " (torch.compile)", compiled(*inputs), reference, dtype)
        outputs = reference if isinstance(reference, tuple) else (reference,)
        sets = run.rotating_inputs(inputs, case, 2**exponent, op, dtype, "cuda", bytes_moved(inputs, outputs))
        plan, _ = op.ours.plan(tuple(inputs), {}, None)
        planned = f"planned {'x'.join(map(str, plan.blocks))}/{plan.warps}"
        graphs = {"torch.compile": run.capture([lambda x=x: compiled(*x) for x in sets])}
        for label, override in [(planned, None)] + [(f"{'x'.join(map(str, b))}/{w}", (b, w)) for b, w in configs]:
            call.LAUNCH_SHAPE_OVERRIDE = None if override is None else (  # flat launches keep theirs
                lambda sizes, tile, chosen=override: chosen if tile is not None else None)
            op.ours._recipes.clear()
            try:
                run.check(name, op.ours(*inputs), reference, dtype)
                graphs[label] = run.capture([lambda x=x: op.ours(*x) for x in sets])
            finally:
                call.LAUNCH_SHAPE_OVERRIDE = None
                op.ours._recipes.clear()
        times = run.best_in_turn({label: lambda g=g: run.replay_us(g) for label, g in graphs.items()}, 3)
        print(f"{name} | {case} | {str(dtype)[6:]} | 2^{exponent}", flush=True)
        for label, us in times.items():
            print(f"  {label:22} {us:8.2f} us  {times['torch.compile'] / us:.3f}x torch.compile", flush=True)


if __name__ == "__main__":
    main()
