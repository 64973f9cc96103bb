"""One-off measurements behind the launch and math choices; each prints what it measured and
its output is committed in benchmarks/results/experiment_*.txt."""
from triton.testing import do_bench


def best_us(fn, rounds: int = 3) -> float:
    """The least of `rounds` do_bench medians (25 ms warmup, 100 ms timed), in us."""
    return min(do_bench(fn, warmup=25, rep=100, return_mode="median") for _ in range(rounds)) * 1e3
