"""What torch.compile (static shapes) generates for the tiled rows where it beat tritonize as
CUDA graphs (2026-11-23 H200 run: transposed and rank-3 permuted adds at 2^20, 0.92-0.93x;
at 2^22 0.95x): inductor's Triton kernel source and the configs its autotuner timed, to
compare with tritonize's tiles (`benchmarks.tune --graph` times those).

    python -m benchmarks.experiments.inductor_tiles
    python -m benchmarks.experiments.inductor_tiles costly   # the tiled rows of tiled_costly.py
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


# rows of tiled_costly.py where no tile edges of tritonize's reached torch.compile
COSTLY_ROWS = [("two outputs (user)", "transposed + contiguous", torch.float32, 22),
               ("two outputs (user)", "transposed + contiguous", torch.float32, 24),
               ("two outputs (user)", "rank-4 permuted", torch.float32, 26),
               ("silu_and_mul", "transposed + contiguous", torch.bfloat16, 23)]


def chosen_configs(printed: set):
    """(kernel name, config, registers per thread) of each inductor kernel autotuned since the
    last call (`printed`: the tuners given before): its debug log does not always say which
    config won."""
    import gc

    from torch._inductor.runtime.triton_heuristics import CachingAutotuner

    for tuner in gc.get_objects():
        # type(), not isinstance: some of gc's objects are lazy proxies that raise on __class__
        if issubclass(type(tuner), CachingAutotuner) and len(tuner.launchers) == 1 and id(tuner) not in printed:
            printed.add(id(tuner))
            launcher = tuner.launchers[0]
            yield tuner.fn.__name__, launcher.config, getattr(launcher, "n_regs", "?")


def main():
    import sys

    if sys.argv[1:] == ["costly"]:
        rows = COSTLY_ROWS
    else:
        rows = [("add", case, torch.float32, exponent)
                for case in ("transposed + contiguous", "rank-3 permuted") for exponent in (20, 22)]
    for name in ("torch._inductor.runtime.triton_heuristics", "torch._inductor.runtime.coordinate_descent_tuner"):
        logger = logging.getLogger(name)
        logger.setLevel(logging.DEBUG)
        logger.addHandler(Recorder())
    printed = set()
    for op_name, case, dtype, exponent in rows:
        op = OPS[op_name]
        inputs = make_inputs(case, 2**exponent, op.arity, dtype, "cuda", op.bool_first)
        compiled = compile_static(op.eager)
        print(f"== {op_name} | {case} | {str(dtype)[6:]} | 2^{exponent}", flush=True)
        _, sources = run_and_get_code(compiled, *inputs)
        for source in sources:
            start = source.find("@triton_heuristics")
            end = source.find("''', device_str=")
            print(source[start:end if end > 0 else start + 3000], flush=True)
        for kernel, config, registers in chosen_configs(printed):
            print(f"  chosen for {kernel}: {config}, {registers} registers", flush=True)


if __name__ == "__main__":
    main()
