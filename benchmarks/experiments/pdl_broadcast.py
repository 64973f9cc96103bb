"""Why is dependent launch slower for a bfloat16 row-broadcast add at 2^22 as CUDA graphs (6.47 ->
6.81 us in benchmarks.run) when it speeds other adds up? pdl_unary's three ways (off, on with the
next launch released after our loads, on with it released at our end) for broadcast adds at
2^21..2^23, beside a contiguous bfloat16 add and a float32 row-broadcast add at 2^22.

    python -m benchmarks.experiments.pdl_broadcast
"""
import torch

from benchmarks import run
from benchmarks.cases import add, bytes_moved, make_inputs
from benchmarks.experiments import header
from benchmarks.experiments.pdl_unary import compare_ways

ROWS = [("row broadcast", torch.bfloat16, 21), ("row broadcast", torch.bfloat16, 22),
        ("row broadcast", torch.bfloat16, 23), ("column broadcast", torch.bfloat16, 22),
        ("contiguous", torch.bfloat16, 22), ("row broadcast", torch.float32, 22)]


def main():
    print(header("pdl_broadcast"), flush=True)
    for case, dtype, exponent in ROWS:
        inputs = make_inputs(case, 2**exponent, 2, dtype, "cuda")
        moved = bytes_moved(inputs, [torch.add(*inputs)])
        sets = [inputs] + [make_inputs(case, 2**exponent, 2, dtype, "cuda") for _ in range(run.rotating_sets(moved) - 1)]
        compare_ways(add.__wrapped__, sets, f"add | {case} | {str(dtype)[6:]} | 2^{exponent}")


if __name__ == "__main__":
    main()
