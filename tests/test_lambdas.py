"""A lambda is a scalar function too: `pointwise(lambda x: 2 * x)` compiles the `def` it stands
for, named by the variable it is assigned to, with locations in its own file."""
from __future__ import annotations

import math
import os
import sys

import pytest
import torch

from tensor_strategies import python_elementwise
from tritonize import DSLError, UnsupportedSyntax, pointwise

double = pointwise(lambda x: 2 * x)
scaled = pointwise(
    lambda x, alpha=3.0: x * alpha if x > 0 else x / alpha)
logistic = pointwise(promotion="int_to_float")(lambda x: 1 / (1 + math.exp(-x)))
first, (second, third) = pointwise(lambda x: x + 1), [pointwise(lambda x: x * 3), pointwise(lambda x: -x)]
square = lambda v: v * v  # a helper that the def below calls  # noqa: E731


@pointwise
def square_plus_one(x):
    return square(x) + 1


def scaler(k):
    return pointwise(lambda x: x * k)


def values(device, dtype=torch.float32):
    return torch.linspace(-4, 4, 301, dtype=torch.float64).to(dtype).to(device)


def as_python(fn, x: torch.Tensor, *rest) -> torch.Tensor:
    """The scalar function run in plain Python, element by element, in float64."""
    return torch.tensor(python_elementwise(fn, (x, *rest), x.shape)[0], dtype=torch.float64)


def test_a_lambda_computes_what_it_computes_in_python(device):
    x = values(device)
    assert torch.equal(double(x), 2 * x)
    torch.testing.assert_close(double(x).double().cpu(), as_python(lambda v: 2 * v, x), rtol=0, atol=0)
    torch.testing.assert_close(scaled(x).double().cpu(), as_python(scaled.scalar_function, x), rtol=1e-6, atol=1e-6)
    torch.testing.assert_close(scaled(x, 0.5).double().cpu(), as_python(scaled.scalar_function, x, 0.5),
                               rtol=1e-6, atol=1e-6)
    assert torch.equal(square_plus_one(x), x * x + 1)
    assert torch.equal(scaler(3)(x), x * 3)
    assert torch.equal(scaler(-5)(x), x * -5)  # one lambda decorated again: its file's tree is reused


def test_lambdas_on_one_line_each_compile_their_own_body(device):
    x = values(device)
    if sys.version_info < (3, 11):  # code objects keep no columns to tell them apart: refused
        with pytest.raises(UnsupportedSyntax, match="several alike on its line"):
            pointwise(lambda x: x + 1), pointwise(lambda x: x - 1)
        return
    plus_one, minus_one = pointwise(lambda x: x + 1), pointwise(lambda x: x - 1)
    assert torch.equal(plus_one(x), x + 1)
    assert torch.equal(minus_one(x), x - 1)
    assert (plus_one.__name__, minus_one.__name__) == ("plus_one", "minus_one")  # assigned in a tuple


def test_a_lambdas_promotion_and_dtypes_follow_torch(device):
    integers = torch.arange(-5, 6, device=device)
    result = logistic(integers)
    assert result.dtype == torch.float32
    torch.testing.assert_close(result, torch.sigmoid(integers.float()))
    halves = values(device, torch.float16)
    assert double(halves).dtype == torch.float16
    assert torch.equal(double(halves), 2 * halves)


def test_a_lambda_is_named_by_its_variable(device):
    x = values(device)
    assert double.__name__ == "double" and "double" in repr(double)
    assert scaled.__name__ == "scaled" and logistic.__name__ == "logistic"
    assert scaler(2).__qualname__ == "scaler.<locals>.lambda"
    # assigned in a tuple: each by its own name
    assert (first.__name__, second.__name__, third.__name__) == ("first", "second", "third")
    torch.testing.assert_close(second(x), x * 3)
    path = double.source_path(x)
    assert os.path.basename(path).startswith("double_rank1_f32")
    source = double.source(x)
    assert "def double_kernel(" in source
    line = next(n for n, text in enumerate(open(__file__), 1) if text.startswith("double = "))
    assert f"# source: {__file__}:{line}  double()" in source
    assert "# src[test_lambdas.py:" in source and "2 * x" in source


def test_a_refusal_in_a_lambda_points_into_it(tmp_path):
    module = tmp_path / "user_lambdas.py"
    module.write_text("import tritonize\n"
                      "f = tritonize.pointwise(\n"
                      "    lambda x: [x, x])\n")
    with pytest.raises(UnsupportedSyntax) as info:
        exec(compile(module.read_text(), str(module), "exec"), {})
    error = info.value
    assert (error.location.filename, error.location.lineno, error.location.col) == (str(module), 3, 14)
    assert "lists are not supported" in str(error) and "lambda x: [x, x])" in str(error)


def test_a_lambda_without_source_is_refused_with_its_file():
    with pytest.raises(UnsupportedSyntax, match=r"cannot read the source of the lambda at <string>:1"):
        eval("pointwise(lambda x: x + 1)", {"pointwise": pointwise})


def test_an_async_def_is_refused_where_it_is(tmp_path):
    module = tmp_path / "user_async.py"
    module.write_text("import tritonize\n\n"
                      "@tritonize.pointwise\n"
                      "async def f(x):\n"
                      "    return x\n")
    with pytest.raises(DSLError) as info:
        exec(compile(module.read_text(), str(module), "exec"), {})
    assert "not an `async def`" in info.value.message
    assert (info.value.location.lineno, info.value.location.col) == (4, 0)
