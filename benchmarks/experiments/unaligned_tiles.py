"""Do tiles pay for 64 x 64 edges when one operand starts off a 16-byte boundary? odd_tiles.py
found that tiles whose lines cannot load vectors at all (odd row strides) want 32 x 32 tiles
below a wave of 64 x 64 ones. Here the strides are multiples of 16 but one operand's first
element is one element into its buffer (`buf[:, 1:]`), so Triton cannot vectorize that
operand's loads (it specializes on the pointer's alignment) while the others keep vectors:
`a.t() + b` with the transposed `a` unaligned, then with the contiguous `b` unaligned, bfloat16
and float32, 2^20..2^24; tritonize's kernel under each launch shape beside eager and
torch.compile, as CUDA graphs of launches on rotating inputs, the best of 3 rounds in turn.

    python -m benchmarks.experiments.unaligned_tiles
"""
import torch

from benchmarks import run
from benchmarks.cases import OPS, bytes_moved
from benchmarks.experiments import header
from benchmarks.experiments.odd_tiles import swept

CONFIGS = [((64, 64), 8), ((32, 32), 4), ((64, 64), 4), ((32, 64), 4), ((64, 32), 4)]


def unaligned_inputs(which: str, rows: int, cols: int, dtype) -> list:
    def full(shape):
        return torch.randn(shape, device="cuda").to(dtype)

    if which == "a":  # the transposed operand one element into its buffer
        return [full((cols, rows + 16))[:, 1:rows + 1].t(), full((rows, cols))]
    return [full((cols, rows)).t(), full((rows, cols + 16))[:, 1:cols + 1]]


def main():
    print(header("unaligned_tiles"), flush=True)
    op = OPS["add"]
    for dtype in (torch.bfloat16, torch.float32):
        for which in ("a", "b"):
            for rows, cols in ((1024, 1024), (2048, 2048), (4096, 4096)):
                inputs = unaligned_inputs(which, rows, cols, dtype)
                assert (inputs[0] if which == "a" else inputs[1]).data_ptr() % 16  # off a 16-byte boundary
                reference = torch.add(*inputs)
                compiled = run.compile_static(torch.add)
                run.check("add (torch.compile)", compiled(*inputs), reference, dtype)
                moved = bytes_moved(inputs, [reference])
                sets = [inputs] + [unaligned_inputs(which, rows, cols, dtype)
                                   for _ in range(run.rotating_sets(moved) - 1)]
                default, spec = op.ours.plan(tuple(inputs), {}, None)
                graphs = {"eager": run.capture([lambda x=x: torch.add(*x) for x in sets]),
                          "torch.compile": run.capture([lambda x=x: compiled(*x) for x in sets])}
                graphs.update(swept(op, sets, CONFIGS, reference, dtype))
                times = run.best_in_turn({label: lambda g=g: run.replay_us(g) for label, g in graphs.items()},
                                         run.ROUNDS)
                chosen = f"{'x'.join(map(str, default.blocks))}/{default.warps}"
                print(f"== add | transposed + contiguous, {which} unaligned | {str(dtype)[6:]} | {rows}x{cols} "
                      f"(tile {spec.tile is not None}; the rule: {chosen})", flush=True)
                for label, us in times.items():
                    print(f"  {label:24} {us:7.2f} us  {times['torch.compile'] / us:.3f}x compile", flush=True)


if __name__ == "__main__":
    main()
