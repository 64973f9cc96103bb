"""Host time of calls of a new shape every call, tritonize beside eager (each system's rounds in
turn, the least of 3 rounds of 1000 calls, each call a size no call had), for an A/B of two trees:
adds of a new length, of a new batch beside a bias, of a new transposed batch; in-place multiplies
of rows, of a transposed tensor and of a column slice; a multiply beside a bias into a fresh z; and
the rotation of the even and odd halves of rows in place over a growing sequence, its halves
sliced in the call (as interleaved_out.py's row) or passed twice. Session 35 timed
class_walks.LeadingWalk with it (results/experiment_leading_walks_h200.txt); the other tree is put
first on the path as benchmarks/experiments/host_python_cpu.py's docstring shows:

    for tree in /tmp/base "" "" /tmp/base; do PYTHONPATH=$tree python -m benchmarks.experiments.leading_walks; done
"""
import torch

import tritonize
from benchmarks.experiments.interleaved_out import eager_rotate, rotate
from benchmarks.experiments.out_new_shapes import CALLS, round_us
from benchmarks.run import OPS, best_in_turn


ROUNDS, ROW = 3, 64


def eager_halves(even, odd, cos, sin):
    """eager_rotate on halves passed in."""
    first, second = even * cos - odd * sin, even * sin + odd * cos
    even.copy_(first)
    odd.copy_(second)


def cases(buffer) -> dict:
    """Each case's (operands of a size n, tritonize's call, eager's call) on views of `buffer`."""
    add, mul = OPS["add"].ours, OPS["mul"].ours

    def rows(n):
        return buffer[0, :n * ROW].view(n, ROW), buffer[1, :n * ROW].view(n, ROW)

    def transposed(n):
        return buffer[0, :n * ROW].view(ROW, n).t(), buffer[1, :n * ROW].view(n, ROW)

    def column_slice(n):
        return buffer[0, :n * (ROW + 16)].view(n, ROW + 16)[:, :ROW], buffer[1, :n * ROW].view(n, ROW)

    def rotation(n):
        return buffer[0, :n * 128].view(n, 128), buffer[1, :n * 64].view(n, 64), buffer[2, :n * 64].view(n, 64)

    def halves(n):
        x, cos, sin = rotation(n)
        return x[:, ::2], x[:, 1::2], cos, sin

    def rotate_sliced(x, cos, sin):
        rotate(x[:, ::2], x[:, 1::2], cos, sin, out=(x[:, ::2], x[:, 1::2]))

    return {
        "new length add": (lambda n: (buffer[0, :n * 16], buffer[1, :n * 16]), add, torch.add),
        "new batch beside a bias add": (lambda n: (rows(n)[0], buffer[1, :ROW]), add, torch.add),
        "new transposed batch add": (transposed, add, torch.add),
        "x.mul_(y), rows": (rows, lambda a, b: mul(a, b, out=a), lambda a, b: a.mul_(b)),
        "x.mul_(y), transposed x": (transposed, lambda a, b: mul(a, b, out=a), lambda a, b: a.mul_(b)),
        "x.mul_(y), column slice x": (column_slice, lambda a, b: mul(a, b, out=a), lambda a, b: a.mul_(b)),
        "mul(x, bias, out=z)": (lambda n: (rows(n)[0], buffer[1, :ROW], buffer[2, :n * ROW].view(n, ROW)),
                                lambda a, b, z: mul(a, b, out=z), lambda a, b, z: torch.mul(a, b, out=z)),
        "rotation in place, sliced in the call": (rotation, rotate_sliced, eager_rotate),
        "rotation in place, halves given": (halves, lambda e, o, c, s: rotate(e, o, c, s, out=(e, o)), eager_halves),
    }


def main():
    print(f"# python -m benchmarks.experiments.leading_walks ({tritonize.__file__}, {torch.cuda.get_device_name()}): "
          f"us per call, {CALLS} calls back to back, a new n every call, least of {ROUNDS} rounds")
    rounds = len(cases(None)) * 2 * ROUNDS
    # in-place products stay finite; every case's sizes are new to the whole run (a size seen before
    # takes its recipe)
    buffer = torch.rand(3, (2 * ROW + 16) * (16 + rounds * CALLS + 64), device="cuda") + 0.5
    starts = iter(range(16, 16 + rounds * CALLS, CALLS))

    def one_round(fn, operands) -> float:
        return round_us(fn, operands, next(starts))

    for label, (operands, ours, eager) in cases(buffer).items():
        for n in (5, 6, 7, 8):  # the class's template and kernels, its walk, its LeadingWalk
            ours(*operands(n))
            eager(*operands(n))
        best = best_in_turn({"tritonize": lambda: one_round(ours, operands),
                             "eager": lambda: one_round(eager, operands)}, ROUNDS)
        print(f"{label:40s} tritonize {best['tritonize']:7.2f} us   eager {best['eager']:7.2f} us", flush=True)


if __name__ == "__main__":
    main()
