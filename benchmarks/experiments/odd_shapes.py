"""Does the 0.95x-torch.compile target hold off the suite's shapes? benchmarks.run's rows are all
(m, 1024): every row starts on a 16-byte boundary and every tile divides the inner dim. Here `a + b`
on shapes whose sides are odd or prime, from ~2^20 to ~2^25 elements, in five layouts: contiguous,
row broadcast, column broadcast, transposed + contiguous, and an input that starts one element
into its buffer (`x[:, 1:]`, so no 16-byte alignment) beside a contiguous one. tritonize, torch
eager and torch.compile (static), each checked against eager, then timed as CUDA graphs of launches
on rotating inputs after do_bench's flush (benchmarks.run's graph rows), the best of 3 rounds taken
in turn; rows moving more than the L2 holds also back to back (steady_us, outputs of their own).

    python -m benchmarks.experiments.odd_shapes
"""
import torch

from benchmarks import run
from benchmarks.cases import OPS, bytes_moved
from benchmarks.experiments import header

SHAPES = [(1031, 1031), (2999, 1001), (4097, 1531), (777, 10007), (24001, 1399)]
CASES = ["contiguous", "row broadcast", "column broadcast", "transposed + contiguous", "offset by one"]


def odd_inputs(case: str, rows: int, cols: int, dtype) -> list:
    def full(shape):
        return torch.randn(shape, device="cuda").to(dtype)

    if case == "contiguous":
        return [full((rows, cols)), full((rows, cols))]
    if case == "row broadcast":
        return [full((rows, cols)), full((cols,))]
    if case == "column broadcast":
        return [full((rows, cols)), full((rows, 1))]
    if case == "transposed + contiguous":
        return [full((cols, rows)).t(), full((rows, cols))]
    if case == "offset by one":
        return [full((rows, cols + 1))[:, 1:], full((rows, cols))]
    raise ValueError(case)


def main():
    print(header("odd_shapes") + "; graphs after a flush (outputs reuse the freed block), back to back above the L2",
          flush=True)
    op = OPS["add"]
    l2 = torch.cuda.get_device_properties(0).L2_cache_size
    for dtype in (torch.float32, torch.bfloat16):
        for rows, cols in SHAPES:
            for case in CASES:
                inputs = odd_inputs(case, rows, cols, dtype)
                reference = torch.add(*inputs)
                compiled = run.compile_static(torch.add)
                run.check("add", op.ours(*inputs), reference, dtype)
                run.check("add (torch.compile)", compiled(*inputs), reference, dtype)
                moved = bytes_moved(inputs, [reference])
                sets = [inputs] + [odd_inputs(case, rows, cols, dtype) for _ in range(run.rotating_sets(moved) - 1)]
                calls = run.system_calls(op, compiled, sets)
                graphs = run.graphs_in_turn(calls, run.replay_us)
                _, spec = op.ours.plan(tuple(inputs), {}, None)
                line = (f"add | {case} | {str(dtype)[6:]} | {rows}x{cols} ({rows * cols / 2**20:.1f} Mi elements, "
                        f"{'tile' if spec.tile else 'flat'}{', dependent launch' if spec.dependent_launch else ''}):"
                        f" graphs tritonize {graphs['tritonize']:.2f} us, eager {graphs['eager']:.2f}, compile "
                        f"{graphs['torch.compile']:.2f} ({graphs['torch.compile'] / graphs['tritonize']:.3f}x compile,"
                        f" {graphs['eager'] / graphs['tritonize']:.2f}x eager)")
                if moved > l2:
                    steady = run.graphs_in_turn(calls, run.steady_us, keep_outputs=True)
                    line += (f"; back to back {steady['tritonize']:.2f} us, compile {steady['torch.compile']:.2f} "
                             f"({steady['torch.compile'] / steady['tritonize']:.3f}x compile)")
                print(line, flush=True)


if __name__ == "__main__":
    main()
