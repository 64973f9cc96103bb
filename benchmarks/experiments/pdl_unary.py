"""Why did dependent launch slow 16-bit sigmoid, silu and gelu at 2^20 as CUDA graphs (2.9 ->
3.8 us in benchmarks.run) while it sped adds up? tritonize's own kernels, each made by a fresh
@pointwise function while TRITONIZE_DEPENDENT_LAUNCH is set to one of three ways: off; on, the
next launch released after our loads (gdc_launch_dependents, as generated); on, with that call
taken out of the generated kernel so the next launch starts when ours ends. Timed back to back
(steady_us) and as benchmarks.run's graphs (replay_us after do_bench's flush).

    python -m benchmarks.experiments.pdl_unary

Its committed output (results/experiment_pdl_unary_h100.txt) was made at ec4b769, before
call.dependent_launch left out 16-bit kernels with costly math in small blocks over more than
half a wave: since then the 16-bit sigmoid and gelu rows at 2^20 plan without dependent launch
in every way.
"""
import torch

from benchmarks import cases, run
from benchmarks.experiments import header, planned
from tritonize.passes import build_kernel

WAYS = ("off", "released after loads", "released at the end")


def compare_ways(function, sets, label):
    """`function` (a scalar function) on each argument set of `sets`, planned each
    of the three WAYS, as CUDA graphs of one launch per set, timed back to back (steady_us) and as
    graphs after do_bench's flush (replay_us), the best of 3 rounds taken in turn; printed under
    `label`. Each way's result on the first set is checked equal to the first way's."""
    original_stmt = build_kernel.stmt
    measures, specs, first = {}, {}, None
    for way in WAYS:
        if way == "released at the end":  # the generated kernel without its gdc_launch_dependents
            build_kernel.stmt = lambda text, **values: original_stmt(
                "pass" if text == "tl_cuda.gdc_launch_dependents()" else text, **values)
        compiled, got = planned(function, way != "off", sets[0])
        first = got if first is None else first
        assert torch.equal(got, first), way
        build_kernel.stmt = original_stmt
        # the planned kernel's own file: source() would plan again, under the variable as it is now
        spec, path = next(iter(compiled.specializations.items()))
        source = path.read_text()
        specs[way] = (f"dependent_launch={spec.dependent_launch}, approximate={spec.approximate}, "
                      f"releases={'gdc_launch_dependents' in source}")
        calls = [lambda x=x, f=compiled: f(*x) for x in sets]
        steady, graph = run.capture(calls, keep_outputs=True), run.capture(calls)
        measures[way, "back to back"] = lambda g=steady: run.steady_us(g)
        measures[way, "graphs after a flush"] = lambda g=graph: run.replay_us(g)
    best = run.best_in_turn(measures, run.ROUNDS)
    print(label, flush=True)
    for way in WAYS:
        print(f"  {way:22s} back to back {best[way, 'back to back']:.2f} us, graphs after a flush "
              f"{best[way, 'graphs after a flush']:.2f} us  ({specs[way]})", flush=True)


def main():
    print(header("pdl_unary"), flush=True)
    sigmoid, gelu, add = cases.sigmoid.__wrapped__, cases.gelu.__wrapped__, cases.add.__wrapped__
    for function, dtype, exponent in ((sigmoid, torch.bfloat16, 20), (gelu, torch.bfloat16, 20),
                                      (sigmoid, torch.float32, 20), (add, torch.bfloat16, 20),
                                      (sigmoid, torch.bfloat16, 22)):
        n = 2**exponent
        arity = function.__code__.co_argcount
        moved = (arity + 1) * n * torch.tensor([], dtype=dtype).element_size()
        sets = [[torch.randn(n, device="cuda").to(dtype) for _ in range(arity)] for _ in range(run.rotating_sets(moved))]
        compare_ways(function, sets, f"{function.__name__} | {str(dtype)[6:]} | 2^{exponent}")


if __name__ == "__main__":
    main()
