"""Host time of calls whose shape changes every call in more layouts: a column broadcast
(n, 64) + (n, 1) (a per-row scale), a middle-dim broadcast (n, 4, 16) + (n, 1, 16) (a rotary
embedding's), both dense classes since session 28, and, classes of their layout's walk since
session 29, a transposed + contiguous add (64, n).t() + (n, 64) (tiled), a strided slice
(n, 128)[:, ::2] + (n, 64) (gathered loads) and a column slice (n, 80)[:, :64] + (n, 64)
(each row's start decoded), and since later in session 29 rows beside a 0-d tensor (torch.where's
wrapped number, a scale kept as a tensor). n new on every call,
1000 calls back to back, the least of 3 rounds that take tritonize, eager and torch.compile
(dynamic shapes, compiled on two sizes of each layout first) in turn.

    python -m benchmarks.experiments.other_layouts
"""
import time

import torch

from benchmarks.run import OPS, best_in_turn

CALLS, ROUNDS, ROW = 1000, 3, 64


def layouts(buffer) -> dict:
    """Each layout's arguments for a size n, views of `buffer`."""
    return {
        "column broadcast": lambda n: (buffer[0, :n * ROW].view(n, ROW), buffer[1, :n].view(n, 1)),
        "middle-dim broadcast": lambda n: (buffer[0, :n * ROW].view(n, 4, ROW // 4),
                                           buffer[1, :n * ROW // 4].view(n, 1, ROW // 4)),
        "transposed + contiguous": lambda n: (buffer[0, :n * ROW].view(ROW, n).t(), buffer[1, :n * ROW].view(n, ROW)),
        "strided slice + contiguous": lambda n: (buffer[0, :n * 2 * ROW].view(n, 2 * ROW)[:, ::2],
                                                 buffer[1, :n * ROW].view(n, ROW)),
        "column slice + contiguous": lambda n: (buffer[0, :n * (ROW + 16)].view(n, ROW + 16)[:, :ROW],
                                                buffer[1, :n * ROW].view(n, ROW)),
        "rows + a 0-d tensor": lambda n: (buffer[0, :n * ROW].view(n, ROW), buffer[1, 0]),
    }


def main():
    print(f"# python -m benchmarks.experiments.other_layouts ({torch.cuda.get_device_name()}, torch "
          f"{torch.__version__.split('+')[0]}): us per call, {CALLS} calls back to back, a new n every call, "
          f"least of {ROUNDS} rounds")
    count = len(layouts(None))
    sizes = 3 * ROUNDS * count * CALLS  # every size used once: each system's rounds of each layout
    buffer = torch.randn(2, 2 * ROW * (16 + sizes), device="cuda")  # 2 * ROW: the widest row a layout takes
    compiled = torch.compile(torch.add, dynamic=True)
    for arguments in layouts(buffer).values():
        for n in (100, 101):
            compiled(*arguments(n))
    systems = {"tritonize": OPS["add"].ours, "eager": torch.add, "torch.compile (dynamic)": compiled}
    starts = iter(range(16, 16 + sizes, CALLS))

    for label, arguments in layouts(buffer).items():
        def one_round(fn, arguments=arguments) -> float:
            start = next(starts)
            pairs = [arguments(n) for n in range(start, start + CALLS)]
            torch.cuda.synchronize()
            began = time.perf_counter()
            for a, b in pairs:
                fn(a, b)
            torch.cuda.synchronize()
            return (time.perf_counter() - began) / CALLS * 1e6

        best = best_in_turn({name: lambda fn=fn: one_round(fn) for name, fn in systems.items()}, ROUNDS)
        print(f"{label:28}" + "   ".join(f"{name} {us:7.2f} us" for name, us in best.items()), flush=True)


if __name__ == "__main__":
    main()
