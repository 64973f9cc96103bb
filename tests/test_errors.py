"""The bad-input catalogue, each error asserting WHERE it points.

DSL errors (raised when the decorator runs, or at call time for type errors that depend on
the argument dtypes) must name `file:line:col` in this file, with the 1-based line of the
offending construct and a 1-based column, show that source line and a caret under the
column, and show no compiler frames. Lines are found by the `# @marker` comments at their
ends, never hard-coded.

Call errors (tritonize.CallError subclasses) must name what is wrong, and a failed call
must leave a pre-allocated `out=` tensor exactly as it was: nothing half-written.
"""
import math
import os
import traceback
from math import gamma

import numpy
import pytest
import torch

import tritonize
import tritonize.math as tm
from tritonize import (ArgumentCountError, BroadcastError, CallError, ControlFlowError, DeviceError, DSLError,
                       DtypeError, LayoutError, OutArgumentError, RecursiveHelper, ScalarTypeError, UnknownName,
                       UnsupportedCall, UnsupportedSyntax, pointwise)
from source_markers import MarkedSource

SOURCE = MarkedSource(__file__)
marked_line, assert_points_at = SOURCE.line, SOURCE.assert_points_at


def sentinel(shape=(3,), dtype=torch.float32, device="cpu") -> torch.Tensor:
    return torch.full(shape, -7, dtype=dtype, device=device)


def assert_untouched(*tensors: torch.Tensor):
    for t in tensors:
        assert torch.equal(t.cpu(), torch.full(t.shape, -7, dtype=t.dtype)), f"out= was written: {t}"


# ================================================================================================
# Unsupported constructs: module-level functions, refused when pointwise() runs on them
# ================================================================================================

SCALE = 2.0
N = 3
A_LIST = [1.0, 2.0]
A_STRING = "scale"
A_TENSOR = torch.ones(3)


def for_loop(x):
    for _ in range(3):  # @for_loop
        x = x + 1
    return x


def while_loop(x):
    while x > 0:  # @while_loop
        x = x - 1
    return x


def list_literal(x):
    y = [x, x]  # @list_literal
    return x


def dict_literal(x):
    return {1: x}  # @dict_literal


def set_literal(x):
    return {x}  # @set_literal


def list_comprehension(x):
    y = [v * 2 for v in range(3)]  # @list_comprehension
    return x


def generator_expression(x):
    y = sum(v for v in range(3))  # @generator_expression
    return x


def subscript(x):
    return x[0]  # @subscript


def lambda_expression(x):
    f = lambda v: v  # @lambda_expression
    return x


def nested_def(x):
    def inner(v):  # @nested_def
        return v
    return x


def global_statement(x):
    global SCALE  # @global_statement
    return x


def try_statement(x):
    try:  # @try_statement
        y = x
    except ValueError:
        y = x
    return y


def with_statement(x):
    with x:  # @with_statement
        y = x
    return y


def raise_statement(x):
    raise ValueError("no")  # @raise_statement


def assert_statement(x):
    assert x > 0  # @assert_statement
    return x


def import_statement(x):
    import os  # @import_statement
    return x


def import_from(x):
    from math import exp  # @import_from
    return exp(x)


def walrus(x):
    return (y := x * 2)  # @walrus


def string_constant(x):
    y = "hello"  # @string_constant
    return x


def f_string(x):
    y = f"{x}"  # @f_string
    return x


def attribute_of_parameter(x):
    return x.real  # @attribute_of_parameter


def attribute_of_tensor_constant(x):
    return x + A_TENSOR.shape  # @attribute_of_tensor_constant


def method_call(x):
    return x.exp()  # @method_call


def is_comparison(x):
    return x is None  # @is_comparison


def is_not_comparison(x):
    return x is not None  # @is_not_comparison


def in_comparison(x):
    return x in x  # @in_comparison


def not_in_comparison(x):
    return x not in x  # @not_in_comparison


def call_a_parameter(x):
    return x(1)  # @call_a_parameter


def call_a_constant(x):
    return N(x)  # @call_a_constant


class _Unhashable:
    """A callable that cannot be a dict key: the math functions are looked up by identity, not hashed."""
    __hash__ = None

    def __call__(self, value):
        return value


UNHASHABLE_CALLABLE = _Unhashable()


def call_an_unhashable_callable(x):
    return UNHASHABLE_CALLABLE(x)  # @call_an_unhashable_callable


def call_print(x):
    y = print(x)  # @call_print
    return x


def star_args(*xs):  # @star_args
    return xs


def star_kwargs(x, **options):  # @star_kwargs
    return x


def bare_return(x):
    return  # @bare_return


def expression_statement(x):
    x + 1  # @expression_statement
    return x


def delete_statement(x):
    del x  # @delete_statement
    return 1.0


def assign_to_subscript(x):
    x[0] += 1  # @assign_to_subscript
    return x


def assign_to_attribute(x):
    x.y = 1  # @assign_to_attribute
    return x


def default_not_a_literal(x, y=math.pi):  # @default_not_a_literal
    return x


def tuple_as_a_value(x):
    y = (x, x)  # @tuple_as_a_value
    return x


def out_parameter(x, out):  # @out_parameter
    return x


def unknown_name(x):
    y = x * 2
    return y + undefined_name  # @unknown_name


def unknown_math_function(x):
    return math.no_such_function(x)  # @unknown_math_function


def list_constant(x):
    return x * A_LIST  # @list_constant


def str_constant(x):
    return x * A_STRING  # @str_constant


def tensor_constant(x):
    return x * A_TENSOR  # @tensor_constant


def unknown_tritonize_math_function(x):
    return tm.no_such_function(x)  # @unknown_tritonize_math_function


def unknown_tritonize_math_dotted(x):
    return x + tritonize.math.gamma(x)  # @unknown_tritonize_math_dotted


def tritonize_math_wrong_arity(x):
    return tm.erfinv(x, 2)  # @tritonize_math_wrong_arity


def tritonize_math_private(x):
    return tm._math.gamma(x)  # @tritonize_math_private


def math_gamma(x):
    return math.gamma(x)  # @math_gamma


def math_factorial(x):
    return math.factorial(x)  # @math_factorial


def imported_gamma(x):
    return gamma(x)  # @imported_gamma


def math_function_as_value(x):
    f = math.exp  # @math_function_as_value
    return x


def math_wrong_arity(x):
    return math.exp(x, 2)  # @math_wrong_arity


def half(v, k=0.5):
    return v * k


def two_values(v):
    return v + 1, v - 1


def helper_wrong_arity(x):
    return half(x, 1.0, 2.0)  # @helper_wrong_arity


def helper_two_values_as_one(x):
    return two_values(x) + 1  # @helper_two_values_as_one


def helper_with_unknown_name(v):
    return v * not_defined_in_helper  # @helper_with_unknown_name


def calls_broken_helper(x):
    return helper_with_unknown_name(x) + 1


def ping(v):
    return pong(v - 1) + 1


def pong(v):
    return ping(v) * 2  # @pong_calls_ping


def calls_ping(x):
    return ping(x)


def calls_itself(x):
    return calls_itself(x - 1)  # @calls_itself


def different_counts(x):
    if x > 0:
        return x, x
    return x  # @different_counts


def path_without_return(x):
    if x > 0:  # @path_without_return
        return x


def no_return_at_all(x):  # @no_return_at_all
    y = x * 2


def bound_on_one_branch(x):
    if x > 0:
        y = x * 2
    return y + 1  # @bound_on_one_branch


def used_before_assignment(x):
    y = z + 1  # @used_before_assignment
    z = x
    return y


CATALOGUE = [
    # (function, error class, snippet the caret must point at)
    (for_loop, UnsupportedSyntax, "for _"),
    (while_loop, UnsupportedSyntax, "while"),
    (list_literal, UnsupportedSyntax, "[x, x]"),
    (dict_literal, UnsupportedSyntax, "{1: x}"),
    (set_literal, UnsupportedSyntax, "{x}"),
    (list_comprehension, UnsupportedSyntax, "[v * 2"),
    (generator_expression, UnsupportedSyntax, "(v for"),
    (subscript, UnsupportedSyntax, "x[0]"),
    (lambda_expression, UnsupportedSyntax, "lambda"),
    (nested_def, UnsupportedSyntax, "def inner"),
    (global_statement, UnsupportedSyntax, "global"),
    (try_statement, UnsupportedSyntax, "try"),
    (with_statement, UnsupportedSyntax, "with"),
    (raise_statement, UnsupportedSyntax, "raise"),
    (assert_statement, UnsupportedSyntax, "assert"),
    (import_statement, UnsupportedSyntax, "import os"),
    (import_from, UnsupportedSyntax, "from math"),
    (walrus, UnsupportedSyntax, "y :="),
    (string_constant, UnsupportedSyntax, '"hello"'),
    (f_string, UnsupportedSyntax, 'f"'),
    (attribute_of_parameter, UnsupportedSyntax, "x.real"),
    (attribute_of_tensor_constant, UnsupportedSyntax, "A_TENSOR.shape"),
    (method_call, UnsupportedCall, "x.exp"),
    (is_comparison, UnsupportedSyntax, "x is None"),
    (is_not_comparison, UnsupportedSyntax, "x is not"),
    (in_comparison, UnsupportedSyntax, "x in x"),
    (not_in_comparison, UnsupportedSyntax, "x not in"),
    (call_a_parameter, UnsupportedCall, "x(1)"),
    (call_a_constant, UnsupportedCall, "N(x)"),
    (call_print, UnsupportedCall, "print"),
    (call_an_unhashable_callable, UnsupportedCall, "UNHASHABLE_CALLABLE(x)"),
    (star_args, UnsupportedSyntax, "xs"),
    (star_kwargs, UnsupportedSyntax, "options"),
    (bare_return, UnsupportedSyntax, "return"),
    (expression_statement, UnsupportedSyntax, "x + 1"),
    (delete_statement, UnsupportedSyntax, "del"),
    (assign_to_subscript, UnsupportedSyntax, "x[0]"),
    (assign_to_attribute, UnsupportedSyntax, "x.y"),
    (default_not_a_literal, UnsupportedSyntax, "math.pi"),
    (tuple_as_a_value, UnsupportedSyntax, "(x, x)"),
    (out_parameter, UnsupportedSyntax, "def"),
    (unknown_name, UnknownName, "undefined_name"),
    (unknown_math_function, UnknownName, "math.no_such_function"),
    (unknown_tritonize_math_function, UnknownName, "tm.no_such_function"),
    (unknown_tritonize_math_dotted, UnknownName, "tritonize.math.gamma"),
    (tritonize_math_wrong_arity, UnsupportedCall, "tm.erfinv"),
    (tritonize_math_private, UnsupportedCall, "tm._math.gamma"),
    (list_constant, UnsupportedSyntax, "A_LIST"),
    (str_constant, UnsupportedSyntax, "A_STRING"),
    (tensor_constant, UnsupportedSyntax, "A_TENSOR"),
    (math_gamma, UnsupportedCall, "math.gamma"),
    (math_factorial, UnsupportedCall, "math.factorial"),
    (imported_gamma, UnsupportedCall, "gamma"),
    (math_function_as_value, UnsupportedSyntax, "math.exp"),
    (math_wrong_arity, UnsupportedCall, "math.exp"),
    (helper_wrong_arity, UnsupportedCall, "half("),
    (helper_two_values_as_one, ControlFlowError, "two_values("),
    (calls_itself, RecursiveHelper, "calls_itself(x - 1)"),
    (different_counts, ControlFlowError, "return"),
    (path_without_return, ControlFlowError, "if"),
    (no_return_at_all, ControlFlowError, "def"),
    (bound_on_one_branch, ControlFlowError, "y + 1"),
    (used_before_assignment, ControlFlowError, "z + 1"),
]


@pytest.mark.parametrize("fn,error,snippet", CATALOGUE, ids=[c[0].__name__ for c in CATALOGUE])
def test_refused_when_decorated(fn, error, snippet):
    with pytest.raises(error) as info:
        pointwise(fn)
    assert isinstance(info.value, DSLError)
    assert_points_at(info.value, fn.__name__, snippet)


def test_messages_say_what_is_wrong():
    expectations = {
        for_loop: "loop", while_loop: "while", subscript: "indexing", lambda_expression: "lambda",
        global_statement: "global", is_comparison: "`is`", in_comparison: "`in`", star_args: "*args",
        star_kwargs: "**kwargs", unknown_name: "undefined_name", list_constant: "A_LIST",
        str_constant: "A_STRING", tensor_constant: "A_TENSOR", math_gamma: "math.gamma",
        math_factorial: "math.factorial", different_counts: "same number of values",
        unknown_tritonize_math_function: "module 'tritonize.math' has no attribute 'no_such_function'; it has "
                                         "airy_ai, bessel_j0, bessel_j1, bessel_y0, bessel_y1, digamma, erfcx, erfinv",
        tritonize_math_wrong_arity: "tritonize.math.erfinv takes 1 positional argument",
        bound_on_one_branch: "'y'", out_parameter: "'out'",
    }
    for fn, words in expectations.items():
        with pytest.raises(DSLError) as info:
            pointwise(fn)
        assert words in info.value.message, f"{fn.__name__}: {info.value}"


def test_unknown_name_in_a_helper_points_into_the_helper():
    with pytest.raises(UnknownName) as info:
        pointwise(calls_broken_helper)
    assert_points_at(info.value, "helper_with_unknown_name", "not_defined_in_helper")


def test_recursion_between_two_helpers():
    with pytest.raises(RecursiveHelper) as info:
        pointwise(calls_ping)
    assert_points_at(info.value, "pong_calls_ping", "ping(v)")
    message = info.value.message  # without the source line, whose marker says "pong"
    assert "ping" in message and "pong" in message, message  # the cycle names both helpers


def test_different_return_counts_names_the_other_return():
    with pytest.raises(ControlFlowError) as info:
        pointwise(different_counts)
    other = marked_line("different_counts") - 1  # the `return x, x` above it
    assert SOURCE.lines[other - 1].strip() == "return x, x"
    assert f"line {other}" in str(info.value)


def test_bound_on_one_branch_names_the_if():
    with pytest.raises(ControlFlowError) as info:
        pointwise(bound_on_one_branch)
    the_if = marked_line("bound_on_one_branch") - 2
    assert SOURCE.lines[the_if - 1].strip() == "if x > 0:"
    assert f"line {the_if}" in str(info.value)


# ================================================================================================
# Indented functions and decorators with arguments: columns stay absolute
# ================================================================================================

def test_indented_function_columns_are_absolute():
    with pytest.raises(UnsupportedSyntax) as info:
        @pointwise
        def indented(x):
            y = x * 2
            return y[1]  # @indented
    assert_points_at(info.value, "indented", "y[1]")


def test_doubly_indented_function():
    def factory():
        @pointwise
        def deeper(x):
            """A docstring does not shift the lines."""
            # a comment neither
            y = x + 1
            while y > 0:  # @deeper
                y = y - 1
            return y
        return deeper

    with pytest.raises(UnsupportedSyntax) as info:
        factory()
    assert_points_at(info.value, "deeper", "while")


def test_decorator_with_arguments():
    with pytest.raises(UnknownName) as info:
        @pointwise(promotion="int_to_float")
        def decorated(x):
            y = x + 1
            return y * not_defined_anywhere  # @decorated
    assert_points_at(info.value, "decorated", "not_defined_anywhere")


def test_decorator_with_arguments_over_several_lines():
    with pytest.raises(ControlFlowError) as info:
        @pointwise(
            promotion="int_to_float",
        )
        def multiline(x):
            if x > 0:
                z = x
            return z  # @multiline
    assert_points_at(info.value, "multiline", "z  #")


def test_indented_signature_errors():
    with pytest.raises(UnsupportedSyntax) as info:
        @pointwise
        def indented_varargs(x, *rest):  # @indented_varargs
            return x
    assert_points_at(info.value, "indented_varargs", "rest")


def test_indented_helper_columns_are_absolute():
    def indented_helper(v):
        return v + missing_in_indented_helper  # @indented_helper

    with pytest.raises(UnknownName) as info:
        @pointwise
        def uses_indented_helper(x):
            return indented_helper(x) * 2
    assert_points_at(info.value, "indented_helper", "missing_in_indented_helper")


# ================================================================================================
# Type errors that only appear at call time
# ================================================================================================

@pointwise
def bit_not(x):
    return ~x  # @bit_not


@pointwise
def shift_left(x):
    y = x << 1  # @shift_left
    return y


@pointwise
def shift_in_place(x):
    x <<= 2  # @shift_in_place
    return x


@pointwise
def negate(b):
    return -b  # @negate


@pointwise
def subtract(a, b):
    return a - b  # @subtract


@pointwise
def ldexp_by(x, e):
    return math.ldexp(x, e)  # @ldexp_by


def invert_helper(v):
    return ~v  # @invert_helper


@pointwise
def calls_invert_helper(x):
    return invert_helper(x) + 1


TYPE_ERRORS = [
    # (function, arguments (as makers of device tensors), marker, snippet)
    (bit_not, lambda d: (torch.ones(3, device=d),), "bit_not", "~x"),
    (bit_not, lambda d: (1.5,), "bit_not", "~x"),
    (shift_left, lambda d: (torch.ones(3, device=d),), "shift_left", "x << 1"),
    (shift_left, lambda d: (torch.ones(3, dtype=torch.float16, device=d),), "shift_left", "x << 1"),
    (shift_in_place, lambda d: (torch.ones(3, dtype=torch.float64, device=d),), "shift_in_place", "x <<= 2"),
    (negate, lambda d: (torch.ones(3, dtype=torch.bool, device=d),), "negate", "-b"),
    (subtract, lambda d: (torch.ones(3, dtype=torch.bool, device=d), True), "subtract", "a - b"),
    (ldexp_by, lambda d: (torch.ones(3, device=d), 1.5), "ldexp_by", "math.ldexp"),
]


@pytest.mark.parametrize("fn,make_args,marker,snippet", TYPE_ERRORS,
                         ids=[f"{c[2]}-{i}" for i, c in enumerate(TYPE_ERRORS)])
def test_type_errors_at_call_time_point_at_the_user_line(fn, make_args, marker, snippet, device):
    out = sentinel(device=device)
    with pytest.raises(ScalarTypeError) as info:
        fn(*make_args(device), out=out)
    assert_points_at(info.value, marker, snippet)
    assert_untouched(out)


def test_type_error_in_a_helper_points_into_the_helper(device):
    out = sentinel(device=device)
    with pytest.raises(ScalarTypeError) as info:
        calls_invert_helper(torch.ones(3, device=device), out=out)
    assert_points_at(info.value, "invert_helper", "~v")
    assert_untouched(out)


def test_type_error_leaves_the_function_usable(device):
    with pytest.raises(ScalarTypeError):
        bit_not(torch.ones(3, device=device))
    x = torch.tensor([0, 5, -3], dtype=torch.int32, device=device)
    torch.testing.assert_close(bit_not(x), torch.bitwise_not(x))
    b = torch.tensor([True, False], device=device)
    torch.testing.assert_close(bit_not(b), ~b)


# ================================================================================================
# Call errors
# ================================================================================================

@pointwise
def add2(x, y):
    return x + y


@pointwise
def pair(x, y):
    return x + y, x - y


@pointwise
def scaled(x, s: float):
    return x * s


@pointwise
def scaled_string_annotation(x, s: "float"):  # what `from __future__ import annotations` gives
    return x * s


def test_wrong_argument_count(device):
    x, out = torch.ones(3, device=device), sentinel(device=device)
    for args, kwargs, words in [((x,), {}, "'y'"), ((x, x, x), {}, "too many"), ((), {}, "'x'"),
                                ((x, x), {"z": 1.0}, "'z'"), ((x, x), {"x": 1.0}, "'x'"),
                                ((x,), {"y": x, "scale": 2.0}, "'scale'"),
                                ((x,), {"z": x}, "unexpected keyword argument 'z'")]:
        with pytest.raises(ArgumentCountError) as info:
            add2(*args, out=out, **kwargs)
        assert isinstance(info.value, TypeError) and isinstance(info.value, CallError)
        message = str(info.value)
        assert "add2" in message and words in message, message
    assert_untouched(out)


# Tracebacks: an error is raised again from the entry point the user called, without the frames
# of the passes and the planner it came through (TRITONIZE_FULL_TRACEBACK=1 keeps them)

def frames_outside_this_file(error) -> list:
    """(file name, function) of each frame of `error`'s traceback that is not this file's."""
    return [(os.path.basename(frame.filename), frame.name) for frame in traceback.extract_tb(error.__traceback__)
            if frame.filename != __file__]


def test_dsl_errors_come_from_the_decorator_without_the_compilers_frames():
    for decorate in (pointwise, pointwise(promotion="int_to_float")):
        with pytest.raises(UnsupportedCall) as info:
            decorate(method_call)
        assert frames_outside_this_file(info.value) == [("decorator.py", "pointwise")]
        assert_points_at(info.value, "method_call", "x.exp()")


def test_call_errors_come_from_the_call_without_the_planners_frames(device):
    def unbroadcastable():
        return torch.ones(2, 3, device=device), torch.ones(4, device=device)

    calls = [
        (BroadcastError, lambda: add2(*unbroadcastable()), "__call__"),
        (ScalarTypeError, lambda: bit_not(torch.ones(3, device=device)), "__call__"),
        (BroadcastError, lambda: add2.source(*unbroadcastable()), "entry_point"),
        (ScalarTypeError, lambda: bit_not.source_path(torch.ones(3, device=device)), "entry_point"),
        (BroadcastError, lambda: add2.explain(*unbroadcastable()), "entry_point"),
    ]
    for error, call, entry in calls:
        with pytest.raises(error) as info:
            call()
        shown = "".join(traceback.format_exception(info.value))
        assert frames_outside_this_file(info.value) == [("decorator.py", entry)], shown
        assert info.value.__cause__ is None and info.value.__context__ is None, shown


def test_full_traceback_keeps_the_compilers_frames(monkeypatch, device):
    monkeypatch.setenv("TRITONIZE_FULL_TRACEBACK", "1")
    with pytest.raises(UnsupportedCall) as info:
        pointwise(method_call)
    assert "resolve_names.py" in [name for name, _ in frames_outside_this_file(info.value)]
    with pytest.raises(BroadcastError) as info:
        add2(torch.ones(2, 3, device=device), torch.ones(4, device=device))
    assert "call.py" in [name for name, _ in frames_outside_this_file(info.value)]


def test_keywords_work(device):
    x = torch.arange(3.0, device=device)
    torch.testing.assert_close(add2(y=x, x=1.0), x + 1)


def test_unbroadcastable_shapes(device):
    out = sentinel((2, 3), device=device)
    with pytest.raises(BroadcastError) as info:
        add2(torch.ones(2, 3, device=device), torch.ones(4, 1, 2, device=device), out=out)
    message = str(info.value)
    assert "'x'" in message and "'y'" in message and "(2, 3)" in message and "(4, 1, 2)" in message, message
    assert_untouched(out)


def test_unbroadcastable_shapes_of_keyword_arguments(device):
    out = sentinel((3,), device=device)
    with pytest.raises(BroadcastError) as info:
        add2(y=torch.ones(3, device=device), x=torch.ones(4, device=device), out=out)
    message = str(info.value)
    assert "'x'" in message and "'y'" in message and "(3,)" in message and "(4,)" in message, message
    assert_untouched(out)


def test_out_of_the_wrong_shape(device):
    out = sentinel((4,), device=device)
    with pytest.raises(OutArgumentError) as info:
        add2(torch.ones(3, device=device), torch.ones(3, device=device), out=out)
    assert "(4,)" in str(info.value) and "(3,)" in str(info.value)
    assert_untouched(out)
    out = sentinel((1, 3), device=device)  # same numel, not the same shape
    with pytest.raises(OutArgumentError):
        add2(torch.ones(3, device=device), 1.0, out=out)
    assert_untouched(out)


def test_out_with_zero_elements_is_resized_only_where_the_call_goes_ahead(device):
    """A zero-element out= is resized (as torch resizes it) only once the call's other checks of it
    pass: one of a dtype the result cannot be cast to keeps its shape, as in torch."""
    x = torch.ones(3, device=device)
    out = torch.empty(0, dtype=torch.int64, device=device)
    with pytest.raises(OutArgumentError, match="int64"):
        add2(x, 0.5, out=out)
    assert out.shape == (0,)
    with pytest.raises(RuntimeError, match="can't be cast"):
        torch.add(x, 0.5, out=out)  # torch refuses it, and leaves it, alike
    assert out.shape == (0,)


def test_out_with_zero_elements_in_memory_that_cannot_grow():
    frozen = torch.from_numpy(numpy.empty(0, dtype=numpy.float32))  # numpy's memory: torch cannot grow it
    with pytest.raises(OutArgumentError, match=r"out has zero elements, and resizing it to the result's shape \(3,\)"):
        add2(torch.ones(3), 0.5, out=frozen)


def test_out_of_a_dtype_the_result_cannot_be_cast_to(device):
    out = sentinel(dtype=torch.int64, device=device)
    with pytest.raises(OutArgumentError) as info:
        add2(torch.ones(3, device=device), 0.5, out=out)
    assert "int64" in str(info.value) and "float32" in str(info.value)
    assert_untouched(out)
    out = sentinel(dtype=torch.bool, device=device)
    with pytest.raises(OutArgumentError):
        add2(torch.ones(3, dtype=torch.int32, device=device), 1, out=out)
    assert_untouched(out)


def test_out_of_an_unsupported_dtype(device):
    out = sentinel(dtype=torch.complex64, device=device)
    with pytest.raises(DtypeError) as info:
        add2(torch.ones(3, device=device), 1.0, out=out)
    assert "complex64" in str(info.value)
    assert_untouched(out)


def test_out_on_another_device(device):
    other = "cpu" if device == "cuda" else "meta"
    out = sentinel(device=other)
    with pytest.raises(OutArgumentError) as info:
        add2(torch.ones(3, device=device), 1.0, out=out)
    assert other in str(info.value)
    if other != "meta":
        assert_untouched(out)


def test_out_of_the_wrong_count(device):
    x = torch.ones(3, device=device)
    a, b, c = sentinel(device=device), sentinel(device=device), sentinel(device=device)
    with pytest.raises(OutArgumentError) as info:
        pair(x, x, out=a)
    assert "pair" in str(info.value) and "2" in str(info.value)
    with pytest.raises(OutArgumentError):
        pair(x, x, out=(a, b, c))
    with pytest.raises(OutArgumentError):
        pair(x, x, out=(a,))
    with pytest.raises(OutArgumentError):
        add2(x, x, out=(a, b))
    assert_untouched(a, b, c)


def test_one_bad_output_leaves_the_other_untouched(device):
    x = torch.ones(3, device=device)
    other = "cpu" if device == "cuda" else "meta"
    for bad in (sentinel((4,), device=device), sentinel(dtype=torch.int32, device=device), sentinel(device=other),
                sentinel((1,), device=device).expand(3)):
        good = sentinel(device=device)
        with pytest.raises(OutArgumentError):
            pair(x, x, out=(good, bad))
        assert_untouched(good)
        good = sentinel(device=device)
        with pytest.raises(OutArgumentError):
            pair(x, x, out=(bad, good))
        assert_untouched(good)


def test_out_that_is_not_a_tensor(device):
    x = torch.ones(3, device=device)
    a = sentinel(device=device)
    with pytest.raises(OutArgumentError):
        add2(x, x, out=[1.0])
    with pytest.raises(OutArgumentError):
        pair(x, x, out=(a, [1.0, 2.0, 3.0]))
    assert_untouched(a)


def test_out_partially_overlapping_an_input(device):
    base = torch.arange(5.0, device=device)
    with pytest.raises(OutArgumentError) as info:
        add2(base[:-1], 1.0, out=base[1:])
    assert "'x'" in str(info.value)
    torch.testing.assert_close(base, torch.arange(5.0, device=device))


def test_out_overlapping_an_input_through_another_view(device):
    base = torch.arange(9.0, device=device).reshape(3, 3)
    before = base.clone()
    with pytest.raises(OutArgumentError):
        add2(base, 1.0, out=base.t())
    torch.testing.assert_close(base, before)


def test_outputs_overlapping_each_other(device):
    x = torch.ones(3, device=device)
    a, b = sentinel(device=device), sentinel(device=device)
    with pytest.raises(OutArgumentError):
        pair(x, x, out=(a, a))
    big = sentinel((4,), device=device)
    with pytest.raises(OutArgumentError):
        pair(x, x, out=(big[:3], big[1:]))
    assert_untouched(a, b, big)


def test_out_exactly_aliasing_an_input_runs_in_place(device):
    x = torch.arange(5.0, device=device)
    result = add2(x, 1.0, out=x)
    assert result.data_ptr() == x.data_ptr()
    torch.testing.assert_close(x, torch.arange(5.0, device=device) + 1)

    x = torch.arange(6.0, device=device).reshape(2, 3)
    y = torch.tensor([10.0, 20.0, 30.0], device=device)
    add2(x, y, out=x)  # the broadcast input is another tensor
    torch.testing.assert_close(x, torch.arange(6.0, device=device).reshape(2, 3) + y)

    z = torch.arange(6.0, device=device).reshape(3, 2).t()  # a non-contiguous view, written in place
    add2(z, z, out=z)
    torch.testing.assert_close(z, 2 * torch.arange(6.0, device=device).reshape(3, 2).t())


def test_out_with_a_stride_0_dim(device):
    storage = sentinel((1,), device=device)
    out = storage.expand(3)
    with pytest.raises(OutArgumentError) as info:
        add2(torch.ones(3, device=device), 1.0, out=out)
    assert "stride" in str(info.value)
    assert_untouched(storage)
    storage = sentinel((2, 1), device=device)
    with pytest.raises(OutArgumentError):
        add2(torch.ones(2, 3, device=device), 1.0, out=storage.expand(2, 3))
    assert_untouched(storage)


UNSUPPORTED_DTYPES = [torch.complex64, torch.complex128]


@pytest.mark.parametrize("dtype", UNSUPPORTED_DTYPES, ids=str)
def test_unsupported_input_dtypes(dtype, device):
    out = sentinel(device=device)
    x = torch.zeros(3, device=device).to(dtype)
    with pytest.raises(DtypeError) as info:
        add2(x, 1.0, out=out)
    assert str(dtype).replace("torch.", "") in str(info.value) and "'x'" in str(info.value)
    assert_untouched(out)
    with pytest.raises(DtypeError):
        add2(torch.ones(3, device=device), x[0], out=out)  # a 0-d tensor is checked too
    assert_untouched(out)


@pytest.mark.parametrize("value", [2**63, -2**63 - 1, 10**30])
def test_python_int_beyond_int64(value, device):
    out = sentinel(device=device)
    with pytest.raises(CallError) as info:
        add2(torch.ones(3, device=device), value, out=out)
    assert "'y'" in str(info.value) and str(value) in str(info.value)
    assert_untouched(out)


def test_int64_limits_are_accepted(device):
    x = torch.zeros(2, dtype=torch.int64, device=device)
    assert add2(x, 2**63 - 1).tolist() == [2**63 - 1] * 2
    assert add2(x, -2**63).tolist() == [-2**63] * 2


@pytest.mark.parametrize("value", [[1.0, 2.0], "1.0", None, (1.0,), 1 + 2j], ids=["list", "str", "None", "tuple",
                                                                                 "complex"])
def test_argument_that_is_not_a_tensor_or_a_number(value, device):
    out = sentinel(device=device)
    with pytest.raises(CallError) as info:
        add2(torch.ones(3, device=device), value, out=out)
    assert "'y'" in str(info.value)
    assert_untouched(out)


def test_numpy_scalars_are_python_numbers(device):
    """numpy's scalars take the Python number's rules: np.bool_ (which is no numbers.Number) as a bool, its
    floats and ints as floats and ints (torch's own arithmetic takes np.bool_ as a float: int64 * np.bool_(True)
    is float32 there); a Number of another kind is refused, named with its module."""
    import decimal

    import numpy

    x = torch.arange(4, dtype=torch.int64, device=device)
    assert torch.equal(add2(x, numpy.bool_(True)), add2(x, True)) and add2(x, numpy.bool_(True)).dtype == torch.int64
    assert torch.equal(add2(x, numpy.int32(3)), add2(x, 3)) and add2(x, numpy.float32(0.5)).dtype == torch.float32
    out = sentinel(device=device)
    with pytest.raises(CallError) as info:
        add2(x.float(), decimal.Decimal("1.5"), out=out)
    assert "'y'" in str(info.value) and "decimal.Decimal" in str(info.value)
    assert_untouched(out)


def test_tensor_for_a_float_annotated_parameter(device):
    out = sentinel(device=device)
    with pytest.raises(CallError) as info:
        scaled(torch.ones(3, device=device), torch.ones(3, device=device), out=out)
    assert "'s'" in str(info.value) and "float" in str(info.value)
    assert_untouched(out)
    with pytest.raises(CallError):
        scaled(torch.ones(3, device=device), torch.tensor(2.0, device=device), out=out)  # 0-d too
    assert_untouched(out)


def test_string_annotations_are_honoured(device):
    # under `from __future__ import annotations` every annotation is a string
    out = sentinel(device=device)
    with pytest.raises(CallError) as info:
        scaled_string_annotation(torch.ones(3, device=device), torch.ones(3, device=device), out=out)
    assert "'s'" in str(info.value) and "float" in str(info.value)
    assert_untouched(out)


def test_meta_tensors_are_refused(device):
    out = sentinel(device=device)
    with pytest.raises(DeviceError) as info:
        add2(torch.ones(3, device="meta"), 1.0, out=out)
    assert "meta" in str(info.value)
    assert_untouched(out)
    with pytest.raises(DeviceError):
        add2(torch.ones(3, device="meta"), torch.ones(3, device=device), out=out)
    assert_untouched(out)


# tensors that keep no strided storage: a kernel reads a pointer and strides, which these have not
UNSTRIDED = {"sparse_coo": lambda t: t.to_sparse(), "sparse_csr": lambda t: t.to_sparse_csr(),
             "nested": lambda t: torch.nested.nested_tensor([t[0], t[1]])}


@pytest.mark.parametrize("kind", sorted(UNSTRIDED))
def test_tensors_of_no_strided_storage_are_refused_naming_the_argument(kind, device):
    """A sparse or nested tensor is refused with a CallError that names the argument and what it is, and says
    what to pass instead: on a first call and on the steady path (after a dense call of the same shape; the
    key's data_ptr() raised torch's "Cannot access data pointer of Tensor that doesn't have storage" before
    any check saw it), as either argument, through the op library, and by explain() (which planned a sparse
    tensor as one of strides (0, 0)); as out= too. A LayoutError, a CallError; nothing is written."""
    dense = torch.randn(2, 3, device=device)
    odd = UNSTRIDED[kind](dense)
    out = sentinel((2, 3), device=device)
    cases = [(lambda: add2(odd, 1.0, out=out), "'x'"), (lambda: add2(dense, odd, out=out), "'y'"),
             (lambda: tritonize.ops.add(odd, dense, out=out), "'input'"), (lambda: add2.explain(odd, 1.0), "'x'")]
    for attempt in range(2):  # the second time, the steady path holds a recipe for dense tensors of this shape
        for call, label in cases:
            with pytest.raises(LayoutError) as info:
                call()
            message = str(info.value)
            assert label in message and kind.replace("_", " ") in message.replace("_", " "), message
            assert ("to_padded_tensor" if kind == "nested" else ".to_dense()") in message, message
            assert "data pointer" not in message
            assert_untouched(out)
        add2(dense, 1.0, out=torch.empty_like(dense))
        add2(dense, dense, out=torch.empty_like(dense))
    for call in (lambda: add2(dense, 1.0, out=UNSTRIDED[kind](torch.zeros_like(dense))),
                 lambda: tritonize.ops.add(dense, 1.0, out=UNSTRIDED[kind](torch.zeros_like(dense)))):
        with pytest.raises(LayoutError) as info:
            call()
        assert "out is a" in str(info.value) and "out= takes a strided tensor" in str(info.value)


def test_mixed_devices():
    if not torch.cuda.is_available():
        # no second real device here: a meta tensor beside a CPU tensor must still be refused
        out = sentinel()
        with pytest.raises(DeviceError) as info:
            add2(torch.ones(3), torch.ones(3, device="meta"), out=out)
        assert "'x'" in str(info.value) and "'y'" in str(info.value)
        assert_untouched(out)
        return
    out = sentinel(device="cuda")
    with pytest.raises(DeviceError) as info:
        add2(torch.ones(3, device="cuda"), torch.ones(3), out=out)
    assert "'x'" in str(info.value) and "'y'" in str(info.value)
    assert_untouched(out)
    # a 0-d CPU tensor may join CUDA tensors, as in torch
    torch.testing.assert_close(add2(torch.ones(3, device="cuda"), torch.tensor(2.0)),
                               torch.full((3,), 3.0, device="cuda"))


def test_call_errors_are_one_family():
    for cls in (ArgumentCountError, BroadcastError, OutArgumentError, DeviceError, DtypeError, LayoutError):
        assert issubclass(cls, CallError) and issubclass(cls, getattr(tritonize, cls.__name__))
    for cls in (UnsupportedSyntax, UnknownName, UnsupportedCall, RecursiveHelper, ControlFlowError,
                ScalarTypeError):
        assert issubclass(cls, DSLError)
