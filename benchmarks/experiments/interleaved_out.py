"""A rotation written in place on the even and odd elements of each row (a GPT-J style rotary
embedding: x[..., ::2] and x[..., 1::2]), which tritonize refused as an overlap before
session 31 and now writes (each output's span covers the other input's, their elements apart:
tritonize.overlap). Host time per call back to back on (8, 64) float32 rows, and kernel time
(do_bench, median) on (4096 x 32, 128) bfloat16 rows (a batch of 4096 tokens, 32 heads of 128),
beside the same rotation into fresh tensors, eager (two expressions and two copies) and
torch.compile (static shapes) of the eager function; and host time with a new number of rows
every call (a sequence growing by one: tritonize launches by its class since session 31, where
misaligned out= tensors made it plan each new length in full), beside eager and torch.compile
with dynamic shapes:

    python -m benchmarks.experiments.interleaved_out
"""
import time

import torch
import triton

import tritonize
from benchmarks.run import best_in_turn, per_call_us


@tritonize.pointwise
def rotate(a, b, cos, sin):
    return a * cos - b * sin, a * sin + b * cos


def eager_rotate(x, cos, sin):
    even, odd = x[..., ::2], x[..., 1::2]
    first, second = even * cos - odd * sin, even * sin + odd * cos
    even.copy_(first)
    odd.copy_(second)


def systems(x, cos, sin, compiled):
    even, odd = x[..., ::2], x[..., 1::2]
    return {
        "tritonize, in place": lambda: rotate(even, odd, cos, sin, out=(even, odd)),
        "tritonize, fresh outputs": lambda: rotate(even, odd, cos, sin),
        "eager, in place": lambda: eager_rotate(x, cos, sin),
        "torch.compile, in place": lambda: compiled(x, cos, sin),
    }


def check(x, cos, sin, compiled):
    """Each in place rotation against float64's, within the dtype's rounding (eager rounds each
    product to bfloat16; tritonize rounds once), and tritonize's in place bit for bit its rotation
    into fresh tensors."""
    even, odd, cos64, sin64 = x[..., ::2].double(), x[..., 1::2].double(), cos.double(), sin.double()
    expected = torch.stack((even * cos64 - odd * sin64, even * sin64 + odd * cos64), dim=-1).flatten(-2)
    tolerance = {"atol": 1e-5, "rtol": 1e-5} if x.dtype == torch.float32 else {"atol": 0.1, "rtol": 0.02}
    for label in ("tritonize, in place", "eager, in place", "torch.compile, in place"):
        copy = x.clone()
        systems(copy, cos, sin, compiled)[label]()
        torch.testing.assert_close(copy.double(), expected, **tolerance, msg=label)
    copy = x.clone()
    fresh = rotate(copy[..., ::2], copy[..., 1::2], cos, sin)
    rotate(copy[..., ::2], copy[..., 1::2], cos, sin, out=(copy[..., ::2], copy[..., 1::2]))
    assert torch.equal(copy[..., ::2], fresh[0]) and torch.equal(copy[..., 1::2], fresh[1])


def new_lengths(rounds: int = 3, calls: int = 1000) -> dict:
    """us per call of the rotation in place with a new number of rows (64 values each) every call,
    back to back, the least of `rounds` rounds in turn, each round on lengths no call had."""
    rows = torch.randn((64 + rounds * calls) * 128, device="cuda")
    table = torch.randn(2, (64 + rounds * calls) * 64, device="cuda")
    dynamic = torch.compile(eager_rotate, dynamic=True)

    def operands(n):
        return rows[:n * 128].view(n, 128), table[0, :n * 64].view(n, 64), table[1, :n * 64].view(n, 64)

    def ours(x, cos, sin):
        rotate(x[:, ::2], x[:, 1::2], cos, sin, out=(x[:, ::2], x[:, 1::2]))

    systems = {"tritonize": ours, "eager": eager_rotate, "torch.compile (dynamic)": dynamic}
    for fn in systems.values():  # compiled on two lengths first, so that its dynamic kernel serves all
        fn(*operands(40))
        fn(*operands(41))
    rounds_done = dict.fromkeys(systems, 0)

    def one_round(label):
        first = 64 + rounds_done[label] * calls
        rounds_done[label] += 1
        sets = [operands(n) for n in range(first, first + calls)]
        torch.cuda.synchronize()
        start = time.perf_counter()
        for x, cos, sin in sets:
            systems[label](x, cos, sin)
        torch.cuda.synchronize()
        return (time.perf_counter() - start) / calls * 1e6

    return best_in_turn({label: lambda label=label: one_round(label) for label in systems}, rounds)


def main():
    device = "cuda"
    compiled = torch.compile(eager_rotate)
    print(f"# python -m benchmarks.experiments.interleaved_out ({torch.cuda.get_device_name()}, torch "
          f"{torch.__version__}, triton {triton.__version__})")
    x = torch.randn(8, 64, device=device)
    cos, sin = torch.randn(8, 32, device=device), torch.randn(8, 32, device=device)
    check(x, cos, sin, compiled)
    host = per_call_us(systems(x, cos, sin, compiled), 2000, rounds=5)
    print("host, (8, 64) float32, us per call back to back:  "
          + "   ".join(f"{label} {us:.2f}" for label, us in host.items()))
    grown = new_lengths()
    print("host, (n, 128) float32 with n new every call, us per call back to back:  "
          + "   ".join(f"{label} {us:.2f}" for label, us in grown.items()))
    x = torch.randn(4096 * 32, 128, device=device, dtype=torch.bfloat16)
    cos = torch.randn(4096 * 32, 64, device=device, dtype=torch.bfloat16)
    sin = torch.randn_like(cos)
    check(x, cos, sin, compiled)
    moved = (x.numel() * 2 + cos.numel() * 2) * 2  # x read and written, cos and sin read
    kernel = best_in_turn({label: lambda fn=fn: triton.testing.do_bench(fn, return_mode="median") * 1e3
                           for label, fn in systems(x, cos, sin, compiled).items()}, 3)
    print(f"kernel, (131072, 128) bfloat16 ({moved / 1e6:.0f} MB moved in place), us (GB/s):  "
          + "   ".join(f"{label} {us:.1f} ({moved / us / 1e3:.0f})" for label, us in kernel.items()))


if __name__ == "__main__":
    main()
