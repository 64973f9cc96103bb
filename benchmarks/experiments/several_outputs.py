"""Host time of a steady call of a function with two outputs (polar: r*cos(t), r*sin(t)) on 1K
float32 tensors, back to back: the steady closure of session 31
(LaunchRecipe.steady_calls_of_outputs) against the path it replaced (the recipe's own __call__
and run: allocate with torch.empty_strided, gather the pointers, launch), in one process with the
rounds taking them in turn, since hosts drift by more than the difference; beside a one-output
call (r * t) and eager's four kernels (cos, sin, two products):

    python -m benchmarks.experiments.several_outputs
"""
import math

import torch
import triton

import tritonize
from benchmarks.run import per_call_us


@tritonize.pointwise
def polar(r, theta):
    return r * math.cos(theta), r * math.sin(theta)


@tritonize.pointwise
def product(r, theta):
    return r * theta


def main():
    r, theta = torch.randn(1024, device="cuda"), torch.randn(1024, device="cuda")
    for _ in range(3):
        polar(r, theta)
        product(r, theta)
    (recipe,) = polar._recipes.values()
    closure = recipe.call
    assert closure != recipe.first_calls, "no steady closure: the recipe's launcher is not a direct one"
    # the path before: run() found no steady closure for several outputs and kept first_calls
    recipe.steady_calls_of_outputs = lambda sample: recipe.first_calls
    expected = (r * torch.cos(theta), r * torch.sin(theta))
    for path in (closure, recipe.first_calls):
        recipe.call = path
        got = polar(r, theta)
        torch.testing.assert_close(got, expected)

    def with_path(path):
        def call():
            recipe.call = path
            return polar(r, theta)
        return call

    # each timed function sets the path it takes (one attribute store, ~0.03 us, in both)
    times = per_call_us({"two outputs, steady closure": with_path(closure),
                         "two outputs, __call__ and run": with_path(recipe.first_calls),
                         "one output, steady closure": lambda: product(r, theta),
                         "eager, four kernels": lambda: (r * torch.cos(theta), r * torch.sin(theta))},
                        5000, rounds=9)
    print(f"# python -m benchmarks.experiments.several_outputs ({torch.cuda.get_device_name()}, torch "
          f"{torch.__version__}, triton {triton.__version__}): us per call, 1K float32, back to back, "
          f"least of 9 rounds in turn")
    for label, us in times.items():
        print(f"{label:32s} {us:7.2f} us")


if __name__ == "__main__":
    main()
