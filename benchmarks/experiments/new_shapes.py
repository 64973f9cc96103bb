"""Host time of calls whose shape changes every call (a sequence growing by one, a batch of
varying size): each such call misses the steady path's memo (its key holds the shapes) and plans
afresh. `a + b` on float32 CUDA tensors of 1024 + k elements, k new on every call, launched back
to back, beside the same with one shape throughout, for tritonize, eager and torch.compile
(dynamic shapes, after its first recompile). us per call, the least of three rounds.

    python -m benchmarks.experiments.new_shapes
"""
import time

import torch

from benchmarks.cases import OPS

CALLS = 2000
DEVICE = "cuda"


def sync():
    if DEVICE == "cuda":
        torch.cuda.synchronize()


def per_call_us(fn, pairs) -> float:
    sync()
    start = time.perf_counter()
    for a, b in pairs:
        fn(a, b)
    sync()
    return (time.perf_counter() - start) / len(pairs) * 1e6


def main():
    print(f"# python -m benchmarks.experiments.new_shapes ({torch.cuda.get_device_name() if DEVICE == 'cuda' else DEVICE}, torch "
          f"{torch.__version__.split('+')[0]}): us per call, {CALLS} calls back to back, least of 3 rounds")
    ours = OPS["add"].ours
    compiled = torch.compile(torch.add, dynamic=True)
    systems = {"tritonize": ours, "eager": torch.add, "torch.compile (dynamic)": compiled}
    fixed = [(torch.randn(1024, device=DEVICE), torch.randn(1024, device=DEVICE))] * CALLS
    for n in (1000, 1024):  # torch.compile's dynamic kernel, tritonize's kernel and its one-shape memo
        for fn in systems.values():
            fn(torch.randn(n, device=DEVICE), torch.randn(n, device=DEVICE))
    for label, fn in systems.items():
        best_fixed, best_new = float("inf"), float("inf")
        for round_ in range(3):
            # shapes no call has seen before, so that every tritonize call plans
            start = 2048 + (len(systems) * round_ + list(systems).index(label)) * CALLS
            new = [(torch.randn(n, device=DEVICE), torch.randn(n, device=DEVICE)) for n in range(start, start + CALLS)]
            best_new = min(best_new, per_call_us(fn, new))
            best_fixed = min(best_fixed, per_call_us(fn, fixed))
        print(f"{label:26} one shape {best_fixed:7.2f} us   a new shape every call {best_new:7.2f} us", flush=True)


if __name__ == "__main__":
    main()
