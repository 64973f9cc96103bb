"""Triton's bundled libdevice against a CUDA toolkit's (dsl/launch.toolkit_libdevice): each
libdevice function in a bare kernel at 2^24 elements, bfloat16 and float32 in and out (computed in
float32; float64 in float64), linked with one and then the other (Triton's `extern_libs` option),
beside eager; how many results differ.

    python -m benchmarks.experiments.libdevice [--dtypes bfloat16,float32,float64] [--only sin,cos]
"""
import argparse
import importlib.util
import os
import sys
import tempfile

import torch
import triton

from benchmarks.experiments import best_us
from tritonize.launch import toolkit_libdevice

FUNCTIONS = [("atan", "libdevice.atan(x)", torch.atan), ("atan2", "libdevice.atan2(x, y)", torch.atan2),
             ("sinh", "libdevice.sinh(x)", torch.sinh), ("cosh", "libdevice.cosh(x)", torch.cosh),
             ("tanh", "libdevice.tanh(x)", torch.tanh), ("asinh", "libdevice.asinh(x)", torch.asinh),
             ("pow", "libdevice.pow(x, y)", torch.pow), ("exp", "libdevice.exp(x)", torch.exp),
             ("erf", "libdevice.erf(x)", torch.erf), ("sin", "libdevice.sin(x)", torch.sin),
             ("cos", "libdevice.cos(x)", torch.cos), ("tan", "libdevice.tan(x)", torch.tan),
             ("log1p", "libdevice.log1p(x)", torch.log1p), ("lgamma", "libdevice.lgamma(x)", torch.lgamma)]
NUMEL = 2**24


def kernel(call: str, compute: str = "tl.float32"):
    text = ("import triton\nimport triton.language as tl\nfrom triton.language.extra import libdevice\n\n\n"
            "@triton.jit\ndef apply(x_ptr, y_ptr, out_ptr, BLOCK: tl.constexpr):\n"
            "    i = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)\n"
            f"    x = tl.load(x_ptr + i).to({compute})\n"
            f"    y = tl.load(y_ptr + i).to({compute})\n"
            f"    tl.store(out_ptr + i, ({call}).to(out_ptr.dtype.element_ty))\n")
    path = os.path.join(tempfile.mkdtemp(), "libdevice_kernel.py")
    with open(path, "w") as handle:
        handle.write(text)
    spec = importlib.util.spec_from_file_location(f"libdevice_kernel_{abs(hash((call, compute)))}", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module.apply


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--dtypes", default="bfloat16,float32")
    parser.add_argument("--only", default="")
    options = parser.parse_args()
    only = set(filter(None, options.only.split(",")))
    toolkit = toolkit_libdevice()
    bundled = os.path.join(os.path.dirname(triton.__file__), "backends", "nvidia", "lib", "libdevice.10.bc")
    print(f"# python -m benchmarks.experiments.libdevice ({torch.cuda.get_device_name()}, torch "
          f"{torch.__version__.split('+')[0]} (CUDA {torch.version.cuda}), triton {triton.__version__}): us per launch "
          f"(best of 3 do_bench medians) at 2^24 elements\n# Triton's: {bundled} ({os.path.getsize(bundled)} bytes)\n"
          f"# toolkit's: {toolkit} ({os.path.getsize(toolkit) if toolkit else 0} bytes)", flush=True)
    if toolkit is None:
        print("# no CUDA toolkit of torch's CUDA version here: nothing to compare")
        return
    generator = torch.Generator(device="cuda").manual_seed(0)
    for dtype in [getattr(torch, name) for name in options.dtypes.split(",")]:
        drawn = torch.float64 if dtype == torch.float64 else torch.float32
        x = (torch.randn(NUMEL, device="cuda", generator=generator, dtype=drawn) * 3).to(dtype)
        y = torch.randn(NUMEL, device="cuda", generator=generator, dtype=drawn).to(dtype)
        compute = "tl.float64" if dtype == torch.float64 else "tl.float32"
        for name, call, eager in FUNCTIONS:
            if only and name not in only:
                continue
            args = ((x.float().abs() + 0.5).to(dtype), y) if name == "pow" else \
                (x.abs(), y) if name == "log1p" else (x, y)
            apply, times, results = kernel(call, compute), {}, {}
            for label, path in (("triton", bundled), ("toolkit", toolkit)):
                out = torch.empty_like(x)

                def run(out=out, path=path):
                    apply[(NUMEL // 1024,)](*args, out, BLOCK=1024, num_warps=4, enable_reflect_ftz=False,
                                            enable_fp_fusion=False, extern_libs={"libdevice": path})
                run()
                results[label], times[label] = out, best_us(run)
            expected = eager(*args[:2]) if name in ("atan2", "pow") else eager(args[0])
            times["eager"] = best_us(lambda: eager(*args[:2]) if name in ("atan2", "pow") else eager(args[0]))
            a, b = results["triton"], results["toolkit"]
            differ = int(((a != b) & ~(a.isnan() & b.isnan())).sum())
            off_eager = {label: int(((r != expected) & ~(r.isnan() & expected.isnan())).sum()) for label, r in results.items()}
            print(f"{name:7s} {str(dtype)[6:]:9s} Triton's {times['triton']:6.1f}  toolkit's {times['toolkit']:6.1f}  "
                  f"eager {times['eager']:6.1f} us ({times['eager'] / times['toolkit']:.3f}x with the toolkit's, "
                  f"{times['eager'] / times['triton']:.3f}x with Triton's); the two differ on {differ}; off eager: "
                  f"Triton's {off_eager['triton']}, the toolkit's {off_eager['toolkit']}", flush=True)


if __name__ == "__main__":
    main()
