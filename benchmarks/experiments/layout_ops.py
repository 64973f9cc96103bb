"""Does the 0.95x-torch.compile target hold for the suite's other multi-input ops on the tiled
layouts? benchmarks.run times every layout case with `add` only, and the other ops contiguous.
Here silu_and_mul (costly math), where (a bool condition, three inputs) and the two-output op
(sin and cos) on the transposed and rank-4 permuted layouts, float32 and bfloat16, at 2^20 and
2^22: benchmarks.run's rows (single launches, and CUDA graphs of launches on rotating inputs
after a flush), each checked against eager first.

    python -m benchmarks.experiments.layout_ops
"""
import torch

from benchmarks import run
from benchmarks.experiments import header

OPS = ["silu_and_mul", "where", "two outputs (user)"]
CASES = ["transposed + contiguous", "rank-4 permuted"]


def main():
    print(header("layout_ops") + "; single launches: do_bench medians, best of 3 rounds", flush=True)
    device = torch.device("cuda")
    for name in OPS:
        for case in CASES:
            for dtype in (torch.float32, torch.bfloat16):
                for exponent in (20, 22):
                    # copy_bw only scales the % columns, which this experiment does not print
                    row = run.measure_row(name, case, dtype, exponent, run.compile_op, 3e12, device)
                    print(f"{name} | {case} | {row['dtype']} | 2^{exponent}: single tritonize "
                          f"{row['tritonize us']:.2f} us, eager {row['eager us']:.2f}, compile "
                          f"{row['torch.compile us']:.2f} ({row['vs torch.compile']:.3f}x compile); graphs "
                          f"tritonize {row['graph tritonize us']:.2f} us, eager {row['graph eager us']:.2f}, compile "
                          f"{row['graph torch.compile us']:.2f} ({row['graph vs torch.compile']:.3f}x compile, "
                          f"{row['graph vs eager']:.2f}x eager)", flush=True)


if __name__ == "__main__":
    main()
