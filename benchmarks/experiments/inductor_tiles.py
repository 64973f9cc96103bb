"""What torch.compile (static shapes) generates for the tiled rows where it beat tritonize as
CUDA graphs (2026-11-23 H200 run: transposed and rank-3 permuted adds at 2^20, 0.92-0.93x;
at 2^22 0.95x): inductor's Triton kernel source and the configs its autotuner timed, to
compare with tritonize's tiles (`benchmarks.tune --graph` times those).

    python -m benchmarks.experiments.inductor_tiles
"""
import logging

import torch
from torch._inductor.utils import run_and_get_code

from benchmarks.cases import OPS, make_inputs
from benchmarks.run import compile_static


class Recorder(logging.Handler):
    def emit(self, record):
        message = record.getMessage()
        if "config" in message.lower() or "benchmark" in message.lower():
            print("  autotune:", message[:400], flush=True)


def main():
    for name in ("torch._inductor.runtime.triton_heuristics", "torch._inductor.runtime.coordinate_descent_tuner"):
        logger = logging.getLogger(name)
        logger.setLevel(logging.DEBUG)
        logger.addHandler(Recorder())
    for case in ("transposed + contiguous", "rank-3 permuted"):
        for exponent in (20, 22):
            inputs = make_inputs(case, 2**exponent, 2, torch.float32, "cuda")
            compiled = compile_static(OPS["add"].eager)
            print(f"== add | {case} | float32 | 2^{exponent}", flush=True)
            _, sources = run_and_get_code(compiled, *inputs)
            for source in sources:
                start = source.find("@triton_heuristics")
                end = source.find("''', device_str=")
                print(source[start:end if end > 0 else start + 3000], flush=True)


if __name__ == "__main__":
    main()
