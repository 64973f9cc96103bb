"""Calls with a 0-d tensor in CPU memory beside GPU tensors (`x * torch.tensor(0.5)`, a scale or a
step size kept as a CPU tensor): tritonize passes its value to the kernel (ParamSpec.by_value,
session 30), as TensorIterator passes CPU scalars; before, it copied the tensor to the GPU and
planned the call in full on every call. us per call launched back to back (the host's time where
it is the larger), the fastest of 5 rounds that take tritonize, eager and torch.compile in turn:
  - x * s of 1K elements, the same shape every call (the steady path)
  - x * s with a new n every call (1024 + k elements: a call's class)
  - x.mul_(s) in place, 1K elements (tritonize: mul(x, s, out=x))
  - x * s of 2^24 float32 elements (the device's time, if the host keeps up)
s is a new CPU tensor's value on every call of the first, so no system may keep it.

    python -m benchmarks.experiments.cpu_scalar
"""
import time

import torch

from benchmarks.run import OPS, best_in_turn, per_call_us

CALLS, ROUNDS = 1000, 5


def us_per_call(fn, argument_sets) -> float:
    """us per call of fn on each set of arguments in turn, back to back, waiting for the GPU at the end."""
    torch.cuda.synchronize()
    began = time.perf_counter()
    for arguments in argument_sets:
        fn(*arguments)
    torch.cuda.synchronize()
    return (time.perf_counter() - began) / len(argument_sets) * 1e6


def check(mul, x, scales, buffer_size):
    """tritonize's results against eager's before anything is timed: each of the first scales, new
    sizes, in place, and the large call."""
    for s in scales[:3]:
        assert torch.equal(mul(x, s), torch.mul(x, s)), f"x * {s} differs from eager's"
    buffer = torch.randn(buffer_size, device="cuda")
    for n in (1031, 2047, 4096):
        assert torch.equal(mul(buffer[:n], scales[1]), torch.mul(buffer[:n], scales[1])), f"n = {n} differs"
    ours, theirs = x.clone(), x.clone()
    for s in scales[:3]:
        mul(ours, s, out=ours)
        theirs.mul_(s)
    assert torch.equal(ours, theirs), "in place x.mul_(s) differs from eager's"
    large = torch.randn(2**24, device="cuda")
    assert torch.equal(mul(large, scales[2]), torch.mul(large, scales[2])), "2^24 x * s differs from eager's"


def main():
    print(f"# python -m benchmarks.experiments.cpu_scalar ({torch.cuda.get_device_name()}, torch "
          f"{torch.__version__.split('+')[0]}): us per call, {CALLS} calls back to back, fastest of {ROUNDS} rounds")
    mul = OPS["mul"].ours
    scales = [torch.tensor(0.5 + k / 1000) for k in range(CALLS)]  # CPU tensors, one per call
    x = torch.randn(1024, device="cuda")
    compiled = torch.compile(torch.mul)
    compiled_dynamic = torch.compile(torch.mul, dynamic=True)
    compiled_in_place = torch.compile(lambda a, s: a.mul_(s))
    scale = scales[0]
    check(mul, x, scales, buffer_size=4096)
    results = {}

    def each_scale(fn):
        return lambda: us_per_call(fn, [(x, s) for s in scales])

    for fn in (mul, torch.mul, compiled):
        each_scale(fn)()  # warm up: compile, plan, arm
    results["1K x * s, a new s every call"] = best_in_turn(
        {"tritonize": each_scale(mul), "eager": each_scale(torch.mul), "torch.compile": each_scale(compiled)}, ROUNDS)

    sizes = 3 * ROUNDS * CALLS
    buffer = torch.randn(1024 + sizes + 16, device="cuda")
    for n in (100, 101):
        compiled_dynamic(buffer[:n], scale)
    starts = iter(range(1024, 1024 + sizes, CALLS))

    def new_sizes(fn):
        def one_round():
            start = next(starts)
            return us_per_call(fn, [(buffer[:n], scale) for n in range(start, start + CALLS)])
        return one_round
    results["1K x * s, a new n every call"] = best_in_turn(
        {"tritonize": new_sizes(mul), "eager": new_sizes(torch.mul),
         "torch.compile (dynamic)": new_sizes(compiled_dynamic)}, ROUNDS)

    y = torch.ones(1024, device="cuda")
    results["1K x.mul_(s), in place"] = per_call_us(
        {"tritonize": lambda: mul(y, scale, out=y), "eager": lambda: y.mul_(scale),
         "torch.compile": lambda: compiled_in_place(y, scale)}, CALLS, rounds=ROUNDS)

    large = torch.randn(2**24, device="cuda")
    results["2^24 x * s, float32"] = per_call_us(
        {"tritonize": lambda: mul(large, scale), "eager": lambda: torch.mul(large, scale),
         "torch.compile": lambda: compiled(large, scale)}, 200, rounds=ROUNDS)

    for label, times in results.items():
        print(f"{label:32}" + "   ".join(f"{name} {us:7.2f} us" for name, us in times.items()), flush=True)


if __name__ == "__main__":
    main()
