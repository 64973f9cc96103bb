"""A host-time A/B between two trees on one host: each process prints one line of us per call
(the fastest of nine rounds of 5000 calls, benchmarks.run's per_call_us) for torch.add, a
tritonize @pointwise add and `a + b` under `tritonize.enabled()`, all on 1K float32 tensors, and
(since session 36) the @pointwise add with out= into a third tensor and in place, `c.add_(b)` under
`tritonize.enabled()`, and eager's same calls.
Hosts differ by more than a change moves these (~0.3 us), so compare trees in turn on one
machine, each installed in turn:

    git archive BASE dsl passes ops pyproject.toml README.md | (mkdir -p /tmp/base && tar -x -C /tmp/base)
    for round in 1 2 3 4 5 6; do for tree in /tmp/base .; do
        pip install -q --no-deps --no-build-isolation -e $tree
        python -m benchmarks.experiments.host_ab $tree
    done; done
"""
import sys

import torch

import tritonize
from benchmarks.cases import OPS
from benchmarks.run import per_call_us


def main():
    x, y = torch.randn(1024, device="cuda"), torch.randn(1024, device="cuda")
    add = OPS["add"].ours
    result = per_call_us({"eager add": lambda: torch.add(x, y), "tritonize add": lambda: add(x, y)}, 5000, rounds=9)
    with tritonize.enabled():
        result.update(per_call_us({"enabled a+b": lambda: x + y}, 5000, rounds=9))
    result.update(per_call_us({"eager a+b": lambda: x + y}, 5000, rounds=9))
    z = torch.randn(1024, device="cuda")
    result.update(per_call_us({"eager out": lambda: torch.add(x, y, out=z), "tritonize out": lambda: add(x, y, out=z),
                               "eager in place": lambda: z.add_(y), "tritonize in place": lambda: add(z, y, out=z)},
                              5000, rounds=9))
    with tritonize.enabled():
        result.update(per_call_us({"enabled add_": lambda: z.add_(y)}, 5000, rounds=9))
    print(sys.argv[1] if len(sys.argv) > 1 else "", " ".join(f"{k}={v:.2f}" for k, v in result.items()),
          f"ratio={result['tritonize add'] / result['eager add']:.3f}", flush=True)


if __name__ == "__main__":
    main()
