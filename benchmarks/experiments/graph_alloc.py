"""What allocating its output costs or saves a call timed inside a CUDA graph (the `--graph` timings
of benchmarks.run and benchmarks.tune): a bfloat16 copy and eager sigmoid at 2^20..2^22 elements,
each into an output of its own per input set, and allocating its output per call as an op does
(the graph's pool then hands each call the block the call before freed, still in the L2).

    python -m benchmarks.experiments.graph_alloc
"""
import torch

from benchmarks.run import graph_us, rotating_sets


def main():
    print(f"# {torch.cuda.get_device_name()}, torch {torch.__version__}; us per launch, CUDA graphs")
    for exponent in (20, 21, 22):
        n = 2**exponent  # 2n bytes read, 2n written
        sets = [torch.randn(n, device="cuda").to(torch.bfloat16) for _ in range(rotating_sets(4 * n))]
        outs = [torch.empty_like(x) for x in sets]
        copy_own = graph_us([lambda x=x, o=o: o.copy_(x) for x, o in zip(sets, outs)])
        copy_allocated = graph_us([lambda x=x: torch.empty_like(x).copy_(x) for x in sets])
        sigmoid_own = graph_us([lambda x=x, o=o: torch.sigmoid(x, out=o) for x, o in zip(sets, outs)])
        sigmoid_allocated = graph_us([lambda x=x: torch.sigmoid(x) for x in sets])
        print(f"2^{exponent} bfloat16: copy into outputs of its own {copy_own:.2f} us, allocating "
              f"{copy_allocated:.2f}; eager sigmoid into outputs of its own {sigmoid_own:.2f}, allocating "
              f"{sigmoid_allocated:.2f}", flush=True)


if __name__ == "__main__":
    main()
