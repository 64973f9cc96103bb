"""Where an aten op under `tritonize.enabled()` spends its host time: a 1K-element float32 add and
mul by a number, launched back to back, through each layer in turn: eager, the @pointwise kernel,
the op library's function, the kernel the registry hands the dispatcher (with and without the
keyword argument the dispatcher passes), the aten op under `enabled()`, and a bare Python kernel
registered for aten::add (the dispatcher's call into Python and back, with no work). us per call,
benchmarks.run.per_call_us's (the least of its rounds of 20000 calls, taken in turn), two passes.

    python -m benchmarks.experiments.host_layers
"""
import torch

import tritonize
from benchmarks.run import per_call_us
from tritonize import ops
from tritonize.ops import arithmetic, registry

CALLS = 20000


def main():
    print(f"# python -m benchmarks.experiments.host_layers ({torch.cuda.get_device_name()}, torch "
          f"{torch.__version__.split('+')[0]}): us per call, 1K float32 elements")
    a, b = torch.randn(1024, device="cuda"), torch.randn(1024, device="cuda")
    add = registry._make_kernel(registry.TABLE["add.Tensor"], registry._schema("add.Tensor"), None, "cuda")
    mul = registry._make_kernel(registry.TABLE["mul.Tensor"], registry._schema("mul.Tensor"), None, "cuda")
    out = torch.empty_like(a)
    for _ in range(2):
        times = per_call_us({
            "eager a + b": lambda: a + b,
            "add_kernel(a, b) (@pointwise)": lambda: arithmetic.add_kernel(a, b),
            "ops.add(a, b)": lambda: ops.add(a, b),
            "registry kernel(a, b)": lambda: add(a, b),
            "registry kernel(a, b, alpha=1)": lambda: add(a, b, alpha=1),
            "eager a * 0.5": lambda: a * 0.5,
            "ops.mul(a, 0.5)": lambda: ops.mul(a, 0.5),
            "registry kernel(a, 0.5)": lambda: mul(a, 0.5),
        }, CALLS)
        with tritonize.enabled():
            times.update(per_call_us({"enabled a + b": lambda: a + b, "enabled a * 0.5": lambda: a * 0.5}, CALLS))
        library = torch.library.Library("aten", "IMPL")
        library.impl("add.Tensor", lambda *args, **kwargs: out, "CUDA")
        times.update(per_call_us({"bare Python kernel a + b": lambda: a + b}, CALLS))
        library._destroy()
        for label, us in times.items():
            print(f"{label:40} {us:6.2f} us", flush=True)
        print()


if __name__ == "__main__":
    main()
