"""What compiling without fma contraction costs: the benchmark's float ops (and 16-bit gelu,
compute-bound on an H200) timed as tritonize generates them (`enable_fp_fusion=False`) and with
that launch keyword dropped (Triton's default, contraction on), each variant in its own process
and cache directory, the two taken in turn for ROUNDS rounds; the best time of each is kept.

    python -m benchmarks.experiments.fp_fusion
"""
import json
import os
import subprocess
import sys
import tempfile

import torch

ROUNDS = 3
ROWS = [(name, dtype, exponent) for name in ("gelu", "silu", "sigmoid", "silu_and_mul", "if_else (user)",
                                             "two outputs (user)")
        for dtype in ("float32", "bfloat16") for exponent in (24, 27)]


def contract_again():
    """Drop enable_fp_fusion=False from the launch that BuildModule generates."""
    from tritonize.passes.build_module import BuildModule
    generate = BuildModule.launcher

    def launcher(self, *args, **kwargs):
        function = generate(self, *args, **kwargs)
        call = function.body[0].value
        call.keywords = [k for k in call.keywords if k.arg != "enable_fp_fusion"]
        return function
    BuildModule.launcher = launcher


def time_rows(fused: bool) -> dict:
    from benchmarks.cases import OPS
    from benchmarks.experiments import best_us

    if fused:
        contract_again()
    times = {}
    for name, dtype, exponent in ROWS:
        op = OPS[name]
        generator = torch.Generator(device="cuda").manual_seed(0)
        inputs = [torch.randn(2**exponent, device="cuda", generator=generator).to(getattr(torch, dtype)) * 3
                  for _ in range(op.arity)]
        source = op.ours.source(*inputs)
        assert ("enable_fp_fusion" in source) != fused, "the variant's launch keyword"
        times[f"{name} {dtype} 2^{exponent}"] = best_us(lambda: op.ours(*inputs), rounds=1)
    return times


def main():
    if len(sys.argv) > 1:
        print(json.dumps(time_rows(sys.argv[1] == "fused")))
        return
    best = {}
    caches = {variant: tempfile.mkdtemp(prefix=f"tritonize-{variant}-") for variant in ("fused", "unfused")}
    for _ in range(ROUNDS):
        for variant, cache in caches.items():
            env = dict(os.environ, TRITONIZE_CACHE_DIR=cache)
            output = subprocess.run([sys.executable, "-m", "benchmarks.experiments.fp_fusion", variant], env=env,
                                    check=True, capture_output=True, text=True).stdout
            for row, us in json.loads(output.splitlines()[-1]).items():
                best.setdefault(row, {})[variant] = min(us, best.get(row, {}).get(variant, float("inf")))
    print(f"# python -m benchmarks.experiments.fp_fusion ({torch.cuda.get_device_name()}, torch "
          f"{torch.__version__.split('+')[0]}): best of {ROUNDS} rounds, us")
    print(f"{'row':40} {'contracted':>10} {'no fma contraction':>19} {'ratio':>6}")
    for row, times in best.items():
        print(f"{row:40} {times['fused']:10.1f} {times['unfused']:19.1f} {times['fused'] / times['unfused']:6.3f}")


if __name__ == "__main__":
    main()
