"""What do the Bessel functions J0, J1, Y0 and Y1 cost, and how accurate are they, with float32 composites
(passes/float32_math.py) and block-uniform branches (portable_math.portable_sides)? Each helper, copied as the
code generator copies it, runs in a kernel of its own: as written (each branch only in blocks that have an
element on its side), and with both branches in every block (each block-uniform test made `if True`), at
blocks of 1024, 512 and 256 elements (4 warps); beside torch eager and tritonize.ops (the launch it
chooses), on 2^24 elements drawn from [-2, 2] (every block on the rational's side), [-30, 30] (most blocks
on both) and [25, 400] (every block on the Hankel expansion's). Float32 accuracy: the compiled float32
composite and torch's float32 kernel against the float64 composite, in float32 eps of max(|f|, sqrt(2 /
(pi |x|))) on [-30, 30], [0, 400] and [10, 1e7].

    python -m benchmarks.experiments.bessel_branches
"""
from __future__ import annotations

import ast
import importlib.util
import math
import re
import sys
import tempfile
from pathlib import Path

import torch
import triton

import tritonize.ops
from benchmarks.experiments import best_us
from tritonize.passes.build_module import math_helpers

NAMES = ("bessel_j0", "bessel_j1", "bessel_y0", "bessel_y1")
DOMAINS = {"[-2, 2]": (-2.0, 2.0), "[-30, 30]": (-30.0, 30.0), "[25, 400]": (25.0, 400.0)}
BLOCKS = (1024, 512, 256)
_MODULES = Path(tempfile.mkdtemp())


def helper_kernel(helper: str, both_branches: bool = False, edit=None, name: str | None = None):
    """A compiled kernel `apply(x, out, n, BLOCK)` storing helper(x), the helper's module as the code
    generator writes it (math_helpers); `both_branches` takes every block-uniform branch; `edit` rewrites
    the helpers' text first (branch_prototypes' variants), `name` names the module."""
    helpers = math_helpers({helper})
    for function in helpers:
        function.decorator_list = [ast.parse("triton.jit", mode="eval").body]
    text = "import triton\nimport triton.language as tl\n\n\n" + ast.unparse(ast.Module(body=helpers, type_ignores=[]))
    if both_branches:
        text = re.sub(r"if (portable_any\(.*\)|some_near|some_far):", "if True:", text)
    if edit is not None:
        text = edit(text)
    text += ("\n\n\n@triton.jit\ndef apply(x_ptr, out_ptr, n, BLOCK: tl.constexpr):\n"
             "    i = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)\n"
             f"    tl.store(out_ptr + i, {helper}(tl.load(x_ptr + i, mask=i < n)), mask=i < n)\n")
    name = name or f"{helper}_{'both' if both_branches else 'uniform'}"
    path = _MODULES / f"{name}.py"
    path.write_text(text)
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # triton.jit finds its function's module again
    spec.loader.exec_module(module)
    return module.apply


def launcher(kernel, x, out, block):
    grid = (triton.cdiv(x.numel(), block),)
    # tritonize compiles without fma contraction (dsl: enable_fp_fusion=False)
    return lambda: kernel[grid](x, out, x.numel(), BLOCK=block, num_warps=4, enable_fp_fusion=False)


def envelope_eps(got, exact, x):
    """|got - exact| in float32 eps (2^-24) of max(|exact|, sqrt(2 / (pi |x|))), at finite x."""
    envelope = torch.sqrt(2.0 / (math.pi * x.double().abs())).clamp(max=1.0)
    finite = x.isfinite() & exact.isfinite()
    return float(((got.double() - exact).abs() / torch.maximum(envelope, exact.abs()))[finite].max()) / 2.0**-24


def accuracy():
    print("# float32 accuracy, eps of max(|f|, envelope): the compiled composite, torch's float32 kernel")
    generator = torch.Generator(device="cuda").manual_seed(0)
    ranges = {"[-30, 30]": torch.linspace(-30, 30, 2_000_001, device="cuda"),
              "[0, 400]": torch.rand(2_000_000, generator=generator, device="cuda") * 400,
              "[10, 1e7]": torch.logspace(1, 7, 2_000_000, device="cuda")}
    for name in NAMES:
        kernel = helper_kernel(f"f32_{name}")
        line = f"{name:10}"
        for label, x in ranges.items():
            x = x.clamp(min=1e-30) if name.startswith("bessel_y") else x
            exact = getattr(tritonize.ops, name)(x.double())
            out = torch.empty_like(x)
            launcher(kernel, x, out, 512)()
            line += (f" | {label}: ours {envelope_eps(out, exact, x):7.2f}, "
                     f"torch {envelope_eps(getattr(torch.special, name)(x), exact, x):10.2f}")
        print(line, flush=True)


def speed():
    print("# us per launch (do_bench median, least of 3): eager, tritonize.ops, then each helper as written "
          "(uniform) and with both branches everywhere (both) at blocks of 1024/512/256")
    n = 2**24
    for name in NAMES:
        for dtype in (torch.float32, torch.float64):
            helper = f"{'f32' if dtype == torch.float32 else 'portable'}_{name}"
            kernels = {variant: helper_kernel(helper, variant == "both") for variant in ("uniform", "both")}
            for label, (low, high) in DOMAINS.items():
                x = (torch.rand(n, device="cuda", dtype=torch.float64) * (high - low) + low).to(dtype)
                line = (f"{name:10} {str(dtype)[6:]:8} {label:10} eager {best_us(lambda: getattr(torch.special, name)(x)):6.1f}"
                        f" tritonize {best_us(lambda: getattr(tritonize.ops, name)(x)):6.1f}")
                for variant, kernel in kernels.items():
                    out = torch.empty_like(x)
                    times = [best_us(launcher(kernel, x, out, block)) for block in BLOCKS]
                    line += f" | {variant} " + " ".join(f"{t:6.1f}" for t in times)
                print(line, flush=True)


def main():
    print(f"# python -m benchmarks.experiments.bessel_branches ({torch.cuda.get_device_name()}, torch "
          f"{torch.__version__.split('+')[0]}, triton {triton.__version__})", flush=True)
    accuracy()
    speed()


if __name__ == "__main__":
    main()
