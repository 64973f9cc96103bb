"""One-off measurements behind the launch and math choices; each prints what it measured and
its output is committed in benchmarks/results/experiment_*.txt."""
from triton.testing import do_bench


def best_us(fn, rounds: int = 3) -> float:
    """The least of `rounds` do_bench medians (25 ms warmup, 100 ms timed), in us."""
    return min(do_bench(fn, warmup=25, rep=100, return_mode="median") for _ in range(rounds)) * 1e3


def graphed_adds(case: str, numel: int, dtype, make_adds, rounds: int = 3) -> tuple:
    """(inputs, name -> us): `a + b` on inputs of a layout case, timed as CUDA graphs of launches
    on rotating inputs, the least of `rounds` rounds taken in turn, by torch.compile (static),
    each add that `make_adds(inputs)` returns (name -> add(a, b)) and tritonize, each checked
    against torch first. With as many rounds as adds, each add leads one round (the first
    label of a round can run ~9% faster at 2^20: experiment_permuted_tiles_h100.txt)."""
    import torch

    from benchmarks.cases import OPS, bytes_moved, make_inputs
    from benchmarks.run import best_in_turn, compile_static, graph_us, rotating_inputs

    inputs = make_inputs(case, numel, 2, dtype, "cuda")
    reference = torch.add(*inputs)
    sets = rotating_inputs(inputs, case, numel, OPS["add"], dtype, "cuda", bytes_moved(inputs, [reference]))
    adds = {"torch.compile": compile_static(torch.add), **make_adds(inputs), "tritonize": OPS["add"].ours}
    for name, add in adds.items():
        assert torch.equal(add(*inputs), reference), name
    measures = {name: lambda add=add: graph_us([lambda x=x: add(*x) for x in sets]) for name, add in adds.items()}
    return inputs, best_in_turn(measures, rounds)


def header(script: str, rounds: int = 3) -> str:
    """The first line of an experiment's output: its command, the device and the versions."""
    import torch
    import triton

    return (f"# python -m benchmarks.experiments.{script} ({torch.cuda.get_device_name()}, torch "
            f"{torch.__version__.split('+')[0]}, triton {triton.__version__}): us per launch, CUDA graphs, "
            f"least of {rounds} rounds")


def print_graphed_adds(case: str, dtype, exponent: int, make_adds, baseline: str, width: int = 24,
                       describe=lambda inputs: tuple(inputs[0].shape), rounds: int = 3) -> tuple:
    """graphed_adds for one row, printed: a line naming the row (`describe(inputs)` last), then
    each add's time and its speed relative to `baseline`'s. Returns (inputs, name -> us)."""
    inputs, best = graphed_adds(case, 2**exponent, dtype, make_adds, rounds)
    print(f"add | {case} | {str(dtype)[6:]} | 2^{exponent} | {describe(inputs)}", flush=True)
    for name, us in best.items():
        print(f"  {name:{width}} {us:7.2f} us  {best[baseline] / us:.3f}x {baseline}", flush=True)
    return inputs, best


def planned(function, dependent_launch: bool, args) -> tuple:
    """(a fresh @pointwise of the scalar `function`, its result on `args`): the first call plans
    it while TRITONIZE_DEPENDENT_LAUNCH asks for dependent launch or not, and the variable is put
    back as it was; later calls of that signature keep the plan."""
    import os

    from tritonize import pointwise

    before = os.environ.get("TRITONIZE_DEPENDENT_LAUNCH")
    os.environ["TRITONIZE_DEPENDENT_LAUNCH"] = "1" if dependent_launch else "0"
    try:
        compiled = pointwise(function)
        return compiled, compiled(*args)
    finally:
        if before is None:
            del os.environ["TRITONIZE_DEPENDENT_LAUNCH"]
        else:
            os.environ["TRITONIZE_DEPENDENT_LAUNCH"] = before
