"""Host time of calls whose shape changes every call (a sequence growing by one, a batch of
varying size): each such call misses the steady path's memo (its key holds the shapes) and plans
afresh. `a + b` on float32 CUDA tensors of 1024 + k elements, k new on every call, launched back
to back (benchmarks.run.host_new_shapes), beside the same with one shape of 1024 throughout
(benchmarks.run.per_call_us), for tritonize, eager and torch.compile (dynamic shapes); then the
same with a batch of 16 + k rows of 64 elements beside a bias of 64 (a varying batch).

    python -m benchmarks.experiments.new_shapes
"""
import torch

from benchmarks.run import HOST_ROUNDS, NEW_SHAPE_ROW, host_new_shapes, new_shape_systems, per_call_us

CALLS = 2000


def main():
    print(f"# python -m benchmarks.experiments.new_shapes ({torch.cuda.get_device_name()}, torch "
          f"{torch.__version__.split('+')[0]}): us per call, {CALLS} calls back to back, least of {HOST_ROUNDS} rounds")
    systems = new_shape_systems("cuda")
    a, b = torch.randn(1024, device="cuda"), torch.randn(1024, device="cuda")
    one_shape = per_call_us({label: lambda fn=fn: fn(a, b) for label, fn in systems.items()}, CALLS)
    new_shapes = host_new_shapes("cuda", CALLS, systems)
    for label in systems:
        print(f"{label:26} one shape {one_shape[label]:7.2f} us   a new shape every call {new_shapes[label]:7.2f} us",
              flush=True)
    x, bias = torch.randn(100, NEW_SHAPE_ROW, device="cuda"), torch.randn(NEW_SHAPE_ROW, device="cuda")
    one_batch = per_call_us({label: lambda fn=fn: fn(x, bias) for label, fn in systems.items()}, CALLS)
    new_batches = host_new_shapes("cuda", CALLS, systems, row=NEW_SHAPE_ROW)
    for label in systems:
        print(f"{label:26} one batch {one_batch[label]:7.2f} us   a new batch with a bias every call "
              f"{new_batches[label]:7.2f} us", flush=True)


if __name__ == "__main__":
    main()
