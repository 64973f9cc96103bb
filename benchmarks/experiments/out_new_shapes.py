"""Host time of calls with out= whose shape changes every call: in place into an argument (an
activation with inplace=True, an in-place update over a varying batch) and into a fresh tensor.
Since session 30 such calls launch by their class (PointwiseFunction._out_class_key) where the
output is laid out as tritonize would allocate it and overlaps no input but the one it is (in
place); before, each was planned in full. n new on every call, 1000 calls back to back, the
least of 3 rounds that take tritonize, eager and torch.compile (dynamic shapes, compiled on two
sizes first) in turn:
  - x.mul_(y) on (n, 64) rows (tritonize: mul(x, y, out=x))
  - x.mul_(y) on a transposed (64, n).t() beside (n, 64) rows (a tiled walk)
  - x.mul_(y) on a column slice (n, 80)[:, :64] (an output laid out otherwise than tritonize
    allocates: the class of the planner's walk of the inputs and the output, since later in session 30)
  - torch.mul(x, bias, out=z): rows beside a bias, into a fresh z
  - F.silu(x, inplace=True) on (n, 64) rows: tritonize under tritonize.enabled(), the op library

    python -m benchmarks.experiments.out_new_shapes
"""
import contextlib
import time

import torch
import torch.nn.functional as F

import tritonize
from benchmarks.run import OPS, best_in_turn

CALLS, ROUNDS, ROW = 1000, 3, 64


def cases(buffer) -> dict:
    """Each case's (tritonize, eager) calls on the views of `buffer` for a size n; the third value
    of each is the eager function that torch.compile compiles."""
    mul = OPS["mul"].ours

    def rows(n):
        return buffer[0, :n * ROW].view(n, ROW), buffer[1, :n * ROW].view(n, ROW)

    def transposed(n):
        return buffer[0, :n * ROW].view(ROW, n).t(), buffer[1, :n * ROW].view(n, ROW)

    def column_slice(n):  # (n, 64) of rows of 80, in place: laid out otherwise than allocated
        return buffer[0, :n * (ROW + 16)].view(n, ROW + 16)[:, :ROW], buffer[1, :n * ROW].view(n, ROW)

    def with_bias(n):
        return buffer[0, :n * ROW].view(n, ROW), buffer[1, :ROW], buffer[2, :n * ROW].view(n, ROW)

    def in_place(a, b):
        return a.mul_(b)

    def into(a, b, z):
        return torch.mul(a, b, out=z)

    def silu_in_place(a):
        return F.silu(a, inplace=True)

    return {
        "x.mul_(y), rows": (rows, lambda a, b: mul(a, b, out=a), in_place),
        "x.mul_(y), transposed x": (transposed, lambda a, b: mul(a, b, out=a), in_place),
        "x.mul_(y), column slice x": (column_slice, lambda a, b: mul(a, b, out=a), in_place),
        "mul(x, bias, out=z)": (with_bias, lambda a, b, z: mul(a, b, out=z), into),
        "F.silu(x, inplace=True)": (lambda n: rows(n)[:1], "enabled", silu_in_place),
    }


def check(buffer):
    """tritonize's results against eager's, before anything is timed, at three sizes of each case."""
    for label, (arguments, ours, theirs) in cases(buffer).items():
        for n in (37, 64, 129):
            mine, reference = [a.clone() for a in arguments(n)], [a.clone() for a in arguments(n)]
            if ours == "enabled":
                with tritonize.enabled(devices=("cuda",)):
                    theirs(*mine)
            else:
                ours(*mine)
            theirs(*reference)
            assert all(torch.equal(a, b) for a, b in zip(mine, reference)), (label, n)


def round_us(fn, arguments, start: int, enabled: bool = False) -> float:
    """us per call of `fn` on CALLS new sizes from `start` (`arguments(n)` each), made before the timed
    loop and launched back to back; under `tritonize.enabled()` where `enabled`."""
    sets = [arguments(n) for n in range(start, start + CALLS)]
    with tritonize.enabled(devices=("cuda",)) if enabled else contextlib.nullcontext():
        torch.cuda.synchronize()
        began = time.perf_counter()
        for each in sets:
            fn(*each)
        torch.cuda.synchronize()
    return (time.perf_counter() - began) / CALLS * 1e6


def main():
    print(f"# python -m benchmarks.experiments.out_new_shapes ({torch.cuda.get_device_name()}, torch "
          f"{torch.__version__.split('+')[0]}): us per call, {CALLS} calls back to back, a new n every call, "
          f"least of {ROUNDS} rounds")
    sizes = 3 * ROUNDS * len(cases(None)) * CALLS
    buffer = torch.rand(3, (ROW + 16) * (16 + sizes + 16), device="cuda") + 0.5  # in-place products stay finite
    check(buffer)
    starts = iter(range(16, 16 + sizes, CALLS))
    for label, (arguments, ours, theirs) in cases(buffer).items():
        compiled = torch.compile(theirs, dynamic=True)
        for n in (100, 101):
            compiled(*arguments(n))

        def one_round(fn, enabled=False, arguments=arguments) -> float:
            return round_us(fn, arguments, next(starts), enabled)

        mine = (lambda: one_round(theirs, enabled=True)) if ours == "enabled" else (lambda: one_round(ours))
        best = best_in_turn({"tritonize": mine, "eager": lambda: one_round(theirs),
                             "torch.compile (dynamic)": lambda: one_round(compiled)}, ROUNDS)
        print(f"{label:26}" + "   ".join(f"{name} {us:7.2f} us" for name, us in best.items()), flush=True)


if __name__ == "__main__":
    main()
