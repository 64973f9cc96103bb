"""aten::binary_cross_entropy_backward (a mean, with and without a weight) and a tensor divided by a
number, at 4096 x 4096 (2^24 elements), float32 and bfloat16: tritonize.ops against eager's aten
kernels, each result checked bit for bit against eager's first; us per call, do_bench medians (least of
three rounds), single launches. Eager's backward is its kernel, then the weight's mul_ and the mean's
div_ (three passes); tritonize's one kernel takes the same steps.

    python -m benchmarks.experiments.loss_division
"""
import torch

import tritonize.ops as tops
from benchmarks.experiments import best_us


def main():
    import triton

    print(f"# python -m benchmarks.experiments.loss_division ({torch.cuda.get_device_name()}, torch "
          f"{torch.__version__.split('+')[0]}, triton {triton.__version__}): us per call, single launches, "
          "least of 3 rounds of do_bench medians")
    n = 4096
    for dtype in (torch.float32, torch.bfloat16):
        generator = torch.Generator(device="cuda").manual_seed(0)
        x, y = (torch.rand(n, n, device="cuda", generator=generator).to(dtype) for _ in range(2))
        weight = torch.rand(n, device="cuda", generator=generator).to(dtype)
        grad = torch.tensor(0.7, device="cuda", dtype=dtype)
        rows = {
            "bce_backward mean": (lambda: tops.binary_cross_entropy_backward(grad, x, y, None, 1),
                                  lambda: torch.ops.aten.binary_cross_entropy_backward(grad, x, y, None, 1)),
            "bce_backward mean, weight": (lambda: tops.binary_cross_entropy_backward(grad, x, y, weight, 1),
                                          lambda: torch.ops.aten.binary_cross_entropy_backward(grad, x, y, weight, 1)),
            "x / 3.0": (lambda: tops.div(x, 3.0), lambda: torch.div(x, 3.0)),
        }
        for name, (ours, theirs) in rows.items():
            assert torch.equal(ours(), theirs()), name
            ours_us, eager_us = best_us(ours), best_us(theirs)
            print(f"{name:28s} {str(dtype)[6:]:9s} tritonize {ours_us:8.1f} us  eager {eager_us:8.1f} us  "
                  f"eager/tritonize {eager_us / ours_us:.3f}x  (bit for bit)")


if __name__ == "__main__":
    main()
