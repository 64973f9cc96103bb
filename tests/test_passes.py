"""Per-pass tests: tiny source in, unparsed source out.

Each front-end pass is run on a small function defined in this file (the passes read source
with `inspect`), after the passes before it, exactly as `run_frontend` chains them; the result
is compared with `ast.unparse` (the whole function where the output is stable, targeted `in`
checks elsewhere). Fully lowered functions are also executed as plain Python and compared
with the original function: the front end must keep Python's meaning.

The back end is checked on hand-built Specializations: `tz_type` from InferTypes against
torch's own promotion, snippets of LowerToTriton's output, and the render round trip.
"""
import ast
import copy
import importlib
import inspect
import itertools
import linecache
import math
import math as m_alias
import re
import textwrap
from math import exp

import numpy
import pytest
import torch

import tritonize
import tritonize.math as tm
from tritonize import ControlFlowError, ScalarTypeError, UnsupportedSyntax, pointwise
from tritonize.math import erfinv as imported_erfinv
from tritonize.passes import FRONTEND, ParamSpec, Specialization, generate_module, make_context, run_frontend
from tritonize.passes.ast_tools import NameAllocator
from tritonize.passes.build_kernel import MODULE_NAMES, BuildKernel
from tritonize.passes.build_module import BuildModule
from tritonize.passes.check_subset import CheckSubset
from tritonize.passes.desugar_assignments import DesugarAssignments
from tritonize.passes.fold_constants import FoldConstants
from tritonize.passes.infer_types import InferTypes
from tritonize.passes.inline_helpers import InlineHelpers
from tritonize.passes.lower_chained_comparisons import LowerChainedComparisons
from tritonize.passes.lower_control_flow import LowerControlFlow
from tritonize.passes.lower_to_triton import LowerToTriton
from tritonize.passes.render import render
from tritonize.passes.resolve_names import ResolveNames, local_names
from tritonize.passes.type_rules import PYTHON, TENSOR, ZERO_DIM, VType

THIS_FILE = inspect.getsourcefile(lambda: None)
render_module = importlib.import_module("tritonize.passes.render")  # the package re-exports the function


# -- running the pipeline up to a pass -----------------------------------------------------------

def run_until(fn, last, nth=1):
    """(tree, ctx) after the pipeline has run up to and including the `nth` run of `last`."""
    tree, ctx = make_context(fn)
    seen = 0
    for index, pass_ in enumerate(FRONTEND):
        if index == 2:  # as run_frontend does, once names are resolved
            ctx.names = NameAllocator(local_names(tree) | MODULE_NAMES)
        tree = pass_(ctx).run(tree)
        if pass_ is last:
            seen += 1
            if seen == nth:
                return tree, ctx
    raise AssertionError(f"{last.__name__} runs fewer than {nth} times in FRONTEND")


def after(fn, last, nth=1) -> str:
    return ast.unparse(run_until(fn, last, nth)[0])


def lowered(fn) -> str:
    """The unparsed output of the whole front end."""
    return after(fn, FoldConstants, nth=2)


def expected(text: str) -> str:
    return textwrap.dedent(text).strip("\n")


def as_python(fn):
    """The fully lowered function, compiled back into a Python function."""
    tree, _ = run_until(fn, FoldConstants, nth=2)
    namespace = {"math": math}
    exec(compile(ast.unparse(tree), f"<lowered {fn.__name__}>", "exec"), namespace)
    return namespace[fn.__name__]


def assert_same_meaning(fn, *grids):
    """The lowered function gives the original's results on every combination of the grids."""
    lowered_fn = as_python(fn)
    for args in itertools.product(*grids):
        want, got = fn(*args), lowered_fn(*args)
        assert got == want, f"{fn.__name__}{args}: lowered gives {got!r}, Python gives {want!r}"


def assert_straight_line_ssa(fn):
    """No `if` statements left, one return at the end, and every name assigned once."""
    tree, _ = run_until(fn, FoldConstants, nth=2)
    *body, ret = tree.body
    assert isinstance(ret, ast.Return)
    assert all(isinstance(s, ast.Assign) for s in body), ast.unparse(tree)
    targets = [s.targets[0].id for s in body]
    params = [a.arg for a in tree.args.args]
    duplicates = sorted({t for t in targets if targets.count(t) > 1} | (set(targets) & set(params)))
    assert not duplicates, f"names assigned more than once: {duplicates}\n{ast.unparse(tree)}"


def line_of(fn, snippet: str) -> int:
    """The absolute line in this file of the first line of `fn` that contains `snippet`."""
    lines, first = inspect.getsourcelines(fn)
    hits = [first + i for i, text in enumerate(lines) if snippet in text]
    assert hits, f"{snippet!r} not in {fn.__name__}"
    return hits[0]


# -- module-level names the functions below read -----------------------------------------------

SCALE = 2.5
N = 3
NEG = -2
FLAG = True
NP_HALF = numpy.float32(0.5)


# ================================================================================================
# CheckSubset
# ================================================================================================

def plain(x, y):
    """A docstring is allowed."""
    if x > y:
        z = x - y
    else:
        z = y - x
    z += 1
    return z, x


def test_check_subset_rewrites_nothing():
    tree, _ = run_until(plain, CheckSubset)
    source = textwrap.dedent(inspect.getsource(plain))
    assert ast.dump(tree) == ast.dump(ast.parse(source).body[0])


def test_check_subset_locations_are_absolute():
    tree, ctx = run_until(plain, CheckSubset)
    assert ctx.filename == THIS_FILE
    assert tree.lineno == line_of(plain, "def plain")
    ret = tree.body[-1]
    assert ret.lineno == line_of(plain, "return z, x")
    assert ret.col_offset == 4


def test_check_subset_nested_function_columns_are_absolute():
    def nested(x):
        y = x * 2
        return y

    tree, _ = run_until(nested, CheckSubset)
    assign = tree.body[0]
    assert assign.lineno == line_of(nested, "y = x * 2")
    assert assign.col_offset == 8  # the `y` of the indented source, not of the dedented one
    assert assign.value.col_offset == 12


def loops(x):
    for _ in range(3):
        x = x + 1
    return x


def test_check_subset_refuses_a_loop():
    with pytest.raises(UnsupportedSyntax, match="loops are not supported"):
        run_until(loops, CheckSubset)


# ================================================================================================
# ResolveNames
# ================================================================================================

def constants(x):
    return x * SCALE + N + math.pi - math.e + NEG + FLAG + NP_HALF


def test_resolve_names_module_constants_become_literals():
    assert after(constants, ResolveNames) == expected("""
        def constants(x):
            return x * 2.5 + 3 + 3.141592653589793 - 2.718281828459045 + -2 + True + 0.5
    """)


def test_resolve_names_records_the_constants_read():
    _, ctx = run_until(constants, ResolveNames)
    assert ctx.constants_read == {"SCALE": 2.5, "N": 3, "NEG": -2, "FLAG": True, "NP_HALF": 0.5}


def make_scaler(factor, offset):
    def scaler(x):
        return x * factor + offset
    return scaler


def test_resolve_names_closure_constants_become_literals():
    assert after(make_scaler(4.0, -1), ResolveNames) == expected("""
        def scaler(x):
            return x * 4.0 + -1
    """)


def from_import(x):
    return exp(x) + m_alias.sin(x) + m_alias.tau


def test_resolve_names_from_math_import_and_module_alias_become_math_calls():
    assert after(from_import, ResolveNames) == expected("""
        def from_import(x):
            return math.exp(x) + math.sin(x) + 6.283185307179586
    """)


def specials(x):
    return max(x, math.inf) + min(x, -math.inf) + abs(x) + float(x) + int(x) + bool(x) + (x == math.nan)


def test_resolve_names_keeps_builtins_and_spells_non_finite_constants():
    source = after(specials, ResolveNames)
    assert source == expected("""
        def specials(x):
            return max(x, float('inf')) + min(x, -float('inf')) + abs(x) + float(x) + int(x) + bool(x) + (x == float('nan'))
    """)


def shadowing(x):
    SCALE = x + 1
    return x * SCALE


def test_resolve_names_locals_shadow_globals():
    assert after(shadowing, ResolveNames) == expected("""
        def shadowing(x):
            SCALE = x + 1
            return x * SCALE
    """)


def half(v, k=0.5):
    return v * k


def calls_a_helper(x):
    return half(x) + math.sqrt(x)


def test_resolve_names_marks_helpers_and_keeps_math():
    tree, _ = run_until(calls_a_helper, ResolveNames)
    calls = [n for n in ast.walk(tree) if isinstance(n, ast.Call)]
    helper_calls = [n for n in calls if getattr(n, "tz_helper", None) is not None]
    assert [c.tz_helper for c in helper_calls] == [half]
    assert ast.unparse(tree).endswith("return half(x) + math.sqrt(x)")


def tritonize_math_three_ways(x):
    return imported_erfinv(x) + tm.erfinv(x) * tritonize.math.digamma(x)


def test_resolve_names_tritonize_math_by_import_alias_and_dotted_name_become_math_calls():
    # the rows the passes know by name, whichever module the user called them from
    assert after(tritonize_math_three_ways, ResolveNames) == expected("""
        def tritonize_math_three_ways(x):
            return math.erfinv(x) + math.erfinv(x) * math.digamma(x)
    """)


def tritonize_math_of_literals(x):
    return x * tm.erfinv(0.5) + tm.digamma(1.0)


def test_fold_constants_evaluates_tritonize_math_as_python_does():
    assert after(tritonize_math_of_literals, FoldConstants) == expected(f"""
        def tritonize_math_of_literals(x):
            return x * {tm.erfinv(0.5)!r} + {tm.digamma(1.0)!r}
    """)


# ================================================================================================
# InlineHelpers
# ================================================================================================

def two(v):
    return v + 1, v - 1


@pointwise
def square(v):
    return v * v


def outer(v):
    return half(v) + square(v)


def default_argument(x):
    return half(x + 1.0)


def test_inline_helper_with_default_argument():
    assert after(default_argument, InlineHelpers) == expected("""
        def default_argument(x):
            v = x + 1.0
            return v * 0.5
    """)


def keyword_argument(x):
    return half(x, k=2.0)


def test_inline_helper_called_with_a_keyword():
    assert after(keyword_argument, InlineHelpers) == expected("""
        def keyword_argument(x):
            return x * 2.0
    """)


def unpacks_two(x):
    a, b = two(x * 2)
    return a * b


def test_inline_helper_returning_two_values():
    assert after(unpacks_two, InlineHelpers) == expected("""
        def unpacks_two(x):
            v = x * 2
            a, b = (v + 1, v - 1)
            return a * b
    """)
    assert after(unpacks_two, DesugarAssignments).count("=") == 5  # v, t, t_1, a, b
    assert lowered(unpacks_two) == expected("""
        def unpacks_two(x):
            v = x * 2
            t = v + 1
            t_1 = v - 1
            return t * t_1
    """)


def uses_pointwise(x):
    return square(x) + 1


def test_inline_pointwise_function_as_helper():
    assert after(uses_pointwise, InlineHelpers) == expected("""
        def uses_pointwise(x):
            return x * x + 1
    """)


def nested_helpers(x):
    return outer(x * 3)


def test_inline_nested_helpers():
    assert after(nested_helpers, InlineHelpers) == expected("""
        def nested_helpers(x):
            v = x * 3
            return v * 0.5 + v * v
    """)


def helper_with_locals(v):
    y = v * 2
    if y > 1:
        y = y - 1
    return y


def calls_twice(x, y):
    return helper_with_locals(x) + helper_with_locals(y) + y


def test_inline_helper_locals_are_renamed_apart():
    source = after(calls_twice, InlineHelpers)
    tree = ast.parse(source)
    stored = [n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)]
    assert "y" not in stored  # the caller's parameter y is not clobbered by the helper's local y
    assert len(stored) == len(set(stored))
    assert_same_meaning(calls_twice, [-1.0, 0.25, 0.75, 3.0], [-2.0, 0.5, 1.0, 2.5])
    assert_straight_line_ssa(calls_twice)


def helper_in_branches(x):
    if half(x) > 1:
        y = outer(x) if x > 3 else half(x, k=-1.0)
    else:
        y = half(x, 3.0)
    return y


def test_inline_helpers_in_an_if_test_and_branches():
    source = after(helper_in_branches, InlineHelpers)
    assert "half(" not in source and "outer(" not in source
    assert_same_meaning(helper_in_branches, [-3.0, 0.5, 2.5, 4.0])


def records_helpers(x):
    return outer(x)


def test_inline_helpers_records_helper_sources():
    _, ctx = run_until(records_helpers, InlineHelpers)
    assert {"outer", "half", "square"} <= set(ctx.helper_sources)
    assert all(path == THIS_FILE for path in ctx.helper_sources.values())


# ================================================================================================
# DesugarAssignments
# ================================================================================================

def augmented(x):
    x += 1
    x *= 2
    return x


def test_desugar_augmented_assignment():
    assert after(augmented, DesugarAssignments) == expected("""
        def augmented(x):
            x = x + 1
            x = x * 2
            return x
    """)
    assert lowered(augmented) == expected("""
        def augmented(x):
            x_1 = x + 1
            x_2 = x_1 * 2
            return x_2
    """)


def swap(x, y):
    a, b = x, y
    a, b = b, a
    return a - b


def test_desugar_tuple_swap():
    assert after(swap, DesugarAssignments) == expected("""
        def swap(x, y):
            t = x
            t_1 = y
            a = t
            b = t_1
            t_2 = b
            t_3 = a
            a = t_2
            b = t_3
            return a - b
    """)
    assert lowered(swap) == expected("""
        def swap(x, y):
            return y - x
    """)


def fibonacci_step(a, b):
    a, b = b, a + b
    return a, b


def test_desugar_tuple_assignment_reads_the_old_values():
    assert_same_meaning(fibonacci_step, [1, 2, 5], [3, 8])


def chained_assignment(x):
    a = b = x + 1
    return a * b


def test_desugar_chained_assignment_evaluates_once():
    assert after(chained_assignment, DesugarAssignments) == expected("""
        def chained_assignment(x):
            t = x + 1
            a = t
            b = t
            return a * b
    """)


def annotated(x):
    """Dropped."""
    y: float = x * 2
    pass
    return y


def test_desugar_annotation_docstring_and_pass():
    assert after(annotated, DesugarAssignments) == expected("""
        def annotated(x):
            y = x * 2
            return y
    """)


def unpack_mismatch(x, y):
    a, b = x, y, x
    return a + b


def test_desugar_refuses_unpacking_a_wrong_count():
    with pytest.raises(ControlFlowError, match="cannot unpack 3 values into 2 names"):
        run_until(unpack_mismatch, DesugarAssignments)


# ================================================================================================
# FoldConstants
# ================================================================================================

def python_semantics(x):
    return (7 // -2, -7 % 3, 7 % -3, 2 ** -1, 7 / 2, -7 // 2.0, True + True, 1 << 3, ~5, not 0,
            3 < 4, 2.0 ** 3 / 4, 0.1 + 0.2, int(-3.7), min(3, 2.5), max(-1, -2), abs(-3),
            math.floor(2.5), math.sqrt(16.0), math.exp(0.0), 0 or 2.5, 3 and 0, -(-3), 5 ^ 3,
            float(2), bool(0.0), 10 // 3 * 3 + 10 % 3)


def test_fold_constants_python_semantics():
    tree, _ = run_until(python_semantics, FoldConstants)
    folded = tree.body[-1].value.elts
    originals = ast.parse(textwrap.dedent(inspect.getsource(python_semantics))).body[0].body[-1].value.elts
    assert len(folded) == len(originals)
    for original, result in zip(originals, folded):
        if ast.unparse(original) == "math.floor(2.5)":
            continue  # kept a float on purpose (torch.floor); checked below
        want = eval(ast.unparse(original), {"math": math})
        text = ast.unparse(result)
        got = ast.literal_eval(text)
        assert type(got) is type(want) and got == want, f"{ast.unparse(original)} folded to {text}, Python: {want!r}"


def test_fold_constants_examples_from_the_brief():
    tree, _ = run_until(python_semantics, FoldConstants)
    folded = [ast.unparse(e) for e in tree.body[-1].value.elts]
    assert folded[0] == "-4"        # 7 // -2 floors
    assert folded[1] == "2"         # -7 % 3 takes the divisor's sign
    assert folded[3] == "0.5"       # 2 ** -1 is a float
    assert folded[17] == "2.0"      # math.floor(2.5) keeps a float, as torch.floor does


def zero_remainders(x):
    return 3 % -1.5, -3.0 % 1.5, -0.0 % 1.5, 0.0 % -1.5, 3 % -2


def test_fold_constants_signs_a_zero_remainder_as_the_kernels_do(device):
    """A float `%` that is zero takes the dividend's sign, as torch.remainder and the kernels give it
    (Python gives the divisor's): folded and computed from tensors alike (a fuzz program drew 3 % -1.5)."""
    folded = ast.unparse(run_until(zero_remainders, FoldConstants)[0].body[-1].value)
    assert folded == "(0.0, -0.0, -0.0, 0.0, -1)"
    pairs = [(3.0, -1.5), (-3.0, 1.5), (-0.0, 1.5), (0.0, -1.5)]
    dividends, divisors = (torch.tensor(v, dtype=torch.float64, device=device) for v in zip(*pairs))
    computed = pointwise(lambda a, b: a % b)(dividends, divisors)
    assert [math.copysign(1.0, v) for v in computed.tolist()] == [math.copysign(1.0, ast.literal_eval(text))
                                                                  for text in folded[1:-1].split(", ")[:4]]
    assert [math.copysign(1.0, v) for v in torch.remainder(dividends, divisors).tolist()] == [1.0, -1.0, -1.0, 1.0]


def not_folded(x):
    return x + (1 / 0) + 2 ** 64 + (-8.0) ** 0.5 + 5 // 0 + math.log(-1.0) + math.inf


def test_fold_constants_leaves_what_raises_overflows_or_is_complex():
    source = after(not_folded, FoldConstants)
    for text in ("1 / 0", "2 ** 64", "(-8.0) ** 0.5", "5 // 0", "math.log(-1.0)", "float('inf')"):
        assert text in source


def in_an_expression(x):
    return x * (2 ** 3 / 4)


def test_fold_constants_inside_an_expression():
    assert after(in_an_expression, FoldConstants) == expected("""
        def in_an_expression(x):
            return x * 2.0
    """)


def with_module_constants(x):
    return x * (SCALE * 2) + N ** 2 + math.pi / 2


def test_fold_constants_with_module_constants():
    assert after(with_module_constants, FoldConstants) == expected(f"""
        def with_module_constants(x):
            return x * 5.0 + 9 + {math.pi / 2!r}
    """)


def propagates(x):
    k = 2 * 3
    j = k + 1
    return x * k + j


def test_fold_constants_propagates_names_bound_to_literals():
    assert after(propagates, FoldConstants) == expected("""
        def propagates(x):
            return x * 6 + 7
    """)


def rebinds_a_literal(x):
    y = 3
    y = y + x
    return y


def test_fold_constants_forgets_a_literal_when_the_name_is_rebound():
    # `y` is 3 only until it is rebound to `3 + x`; returning the literal 3 is wrong
    assert_same_meaning(rebinds_a_literal, [-1.0, 0.0, 2.5])
    source = lowered(rebinds_a_literal)
    assert "return 3\n" not in source + "\n"


def test_fold_constants_rebound_literal_end_to_end(device):
    f = pointwise(rebinds_a_literal)
    x = torch.tensor([1.0, -2.0, 0.5], device=device)
    torch.testing.assert_close(f(x), x + 3)


def folds_after_chains(x):
    flag = 1 < 2 < 3
    return x if flag else -x


def test_fold_constants_second_run_folds_lowered_chains():
    assert lowered(folds_after_chains) == expected("""
        def folds_after_chains(x):
            return x
    """)


# ================================================================================================
# LowerControlFlow
# ================================================================================================

def if_else(x, y):
    if x > 0:
        z = x * y
    else:
        z = x - y
    return z


def test_lower_if_else_assignments_to_a_select():
    assert after(if_else, LowerControlFlow) == expected("""
        def if_else(x, y):
            cond = bool(x > 0)
            z = x * y
            z_1 = x - y
            z_2 = z if cond else z_1
            return z_2
    """)


def early_return(x):
    if x > 0:
        return x
    return -x


def test_lower_early_return():
    assert after(early_return, LowerControlFlow) == expected("""
        def early_return(x):
            cond = bool(x > 0)
            ret = x if cond else -x
            return ret
    """)


def if_elif_else(x, y):
    if x > 0:
        z = x * y
    elif x < -1:
        z = x - y
    else:
        z = y
    return z


def test_lower_if_elif_else_assignments():
    source = after(if_elif_else, LowerControlFlow)
    assert source.count(" if ") == 2  # two selects
    assert_straight_line_ssa(if_elif_else)
    assert_same_meaning(if_elif_else, [-3.0, -1.0, -0.5, 0.0, 2.0], [-1.5, 4.0])


def if_elif_returns(x):
    if x > 0:
        return x
    elif x < -1:
        return -x
    return 0.0


def test_lower_if_elif_early_returns():
    assert_straight_line_ssa(if_elif_returns)
    assert_same_meaning(if_elif_returns, [-3.0, -1.0, -0.5, 0.0, 2.0])


def test_lower_if_elif_early_returns_end_to_end(device):
    f = pointwise(if_elif_returns)
    x = torch.tensor([2.0, -3.0, -0.5, 0.0], device=device)
    torch.testing.assert_close(f(x), torch.tensor([2.0, 3.0, 0.0, 0.0], device=device))


def nested_ifs(x, y):
    if x > 0:
        if y > 0:
            r = x + y
        else:
            r = x - y
    else:
        r = y
    return r


def test_lower_nested_ifs():
    assert_straight_line_ssa(nested_ifs)
    assert_same_meaning(nested_ifs, [-1.0, 0.0, 2.0], [-3.0, 0.0, 5.0])


def nested_returns(x, y):
    if x > 0:
        if y > 0:
            return x * y
        y = y * 2
    else:
        return y
    return x + y


def test_lower_nested_ifs_with_early_returns():
    assert_straight_line_ssa(nested_returns)
    assert_same_meaning(nested_returns, [-1.0, 0.0, 2.0], [-3.0, 0.0, 5.0])


def branch_returns_other_assigns(x):
    if x > 0:
        return x
    else:
        y = 1.0
    return y


def test_lower_name_bound_where_the_other_branch_returns():
    assert_same_meaning(branch_returns_other_assigns, [-2.0, 0.0, 3.0])


def updates_in_one_branch(x):
    y = x
    if x > 0:
        y = 2 * x
    return y + 1


def test_lower_update_in_one_branch_keeps_the_earlier_value():
    assert after(updates_in_one_branch, LowerControlFlow) == expected("""
        def updates_in_one_branch(x):
            cond = bool(x > 0)
            y = 2 * x
            y_1 = y if cond else x
            return y_1 + 1
    """)
    assert_same_meaning(updates_in_one_branch, [-2.0, 0.0, 3.0])


def bound_in_one_branch(x):
    if x > 0:
        y = 1.0
    return y


def test_lower_name_bound_in_one_branch_then_used_is_an_error():
    with pytest.raises(ControlFlowError) as info:
        run_until(bound_in_one_branch, LowerControlFlow)
    assert f"{THIS_FILE}:{line_of(bound_in_one_branch, 'return y')}:12" in str(info.value)
    assert f"line {line_of(bound_in_one_branch, 'if x > 0')}" in str(info.value)


def bound_in_one_branch_unused(x):
    if x > 0:
        y = 1.0
    return x


def test_lower_name_bound_in_one_branch_unused_is_fine():
    assert after(bound_in_one_branch_unused, LowerControlFlow).endswith("return x")


def constant_conditions(x):
    if True:
        y = x + 1
    else:
        y = x - 1
    if N > 5:
        return y
    if FLAG:
        y = y * 2
    return y


def test_lower_constant_conditions_keep_one_branch():
    assert after(constant_conditions, LowerControlFlow) == expected("""
        def constant_conditions(x):
            y = x + 1
            y_1 = y * 2
            return y_1
    """)


def constant_condition_in_a_branch(x):
    if x > 0:
        pass
    else:
        if True:
            pass
        elif x > 1:
            pass
        x += 1.0
    return x


def test_lower_a_constant_condition_in_a_branch_lowers_what_follows_it_once():
    """The statements after a constant `if` inside a branch are lowered with the branch it keeps,
    and not again after it: `x += 1.0` was applied twice (a Hypothesis program found it)."""
    assert after(constant_condition_in_a_branch, LowerControlFlow) == expected("""
        def constant_condition_in_a_branch(x):
            cond = bool(x > 0)
            x_1 = x + 1.0
            x_2 = x if cond else x_1
            return x_2
    """)


def same_value_both_branches(x):
    if x > 0:
        y = x * 2
        z = 1.0
    else:
        y = x * 3
        z = 1.0
    return y + z


def test_lower_names_that_agree_need_no_select():
    source = after(same_value_both_branches, LowerControlFlow)
    assert source.count(" if cond") == 1  # y only
    assert source.endswith("+ 1.0")


def two_outputs(x):
    if x > 0:
        return x, 1.0
    return -x, 2.0


def test_lower_early_return_with_two_values():
    tree, ctx = run_until(two_outputs, LowerControlFlow)
    assert ast.unparse(tree) == expected("""
        def two_outputs(x):
            cond = bool(x > 0)
            ret0 = x if cond else -x
            ret1 = 1.0 if cond else 2.0
            return (ret0, ret1)
    """)
    assert ctx.num_outputs == 2


def user_names_like_generated_ones(x, cond):
    ret = x * 2
    if x > cond:
        return ret
    return x - cond


def test_lower_generated_names_do_not_clash_with_user_names():
    assert_straight_line_ssa(user_names_like_generated_ones)
    assert_same_meaning(user_names_like_generated_ones, [-1.0, 0.0, 3.0], [-2.0, 0.0, 1.0])


def helper_with_branches(v):
    if v < 0:
        return -v
    return v


def branches_around_a_helper(x):
    y = helper_with_branches(x)
    if x > 1:
        y = y * 2
    elif x < -1:
        y = helper_with_branches(y - 5)
    return y


def test_lower_branches_in_helpers_and_caller():
    assert_straight_line_ssa(branches_around_a_helper)
    assert_same_meaning(branches_around_a_helper, [-7.0, -2.0, -0.5, 0.0, 1.5, 4.0])


def no_return_on_a_path(x):
    if x > 0:
        return x


def different_counts(x):
    if x > 0:
        return x, x
    return x


def test_lower_missing_return_and_different_counts():
    with pytest.raises(ControlFlowError, match="without returning"):
        run_until(no_return_on_a_path, LowerControlFlow)
    with pytest.raises(ControlFlowError, match="same number of values"):
        run_until(different_counts, LowerControlFlow)


# ================================================================================================
# LowerChainedComparisons
# ================================================================================================

def chain_name_middle(x, y):
    return 0 < x < math.exp(y)


def test_lower_chain_with_a_name_in_the_middle():
    assert after(chain_name_middle, LowerChainedComparisons) == expected("""
        def chain_name_middle(x, y):
            return 0 < x and x < math.exp(y)
    """)


def chain_call_middle(x, y):
    return 0 < math.exp(y) <= x


def test_lower_chain_names_the_middle_once():
    source = after(chain_call_middle, LowerChainedComparisons)
    assert source == expected("""
        def chain_call_middle(x, y):
            m = math.exp(y)
            return 0 < m and m <= x
    """)
    assert source.count("math.exp(") == 1


def chain_helper_middle(x, y, m):
    return m < half(x) < y != m


def test_lower_chain_fresh_name_avoids_user_names():
    source = after(chain_helper_middle, LowerChainedComparisons)
    assert source == expected("""
        def chain_helper_middle(x, y, m):
            m_1 = x * 0.5
            return m < m_1 and m_1 < y and (y != m)
    """)
    assert_same_meaning(chain_helper_middle, [-1.0, 2.0, 5.0], [0.0, 1.0, 3.0], [-1.0, 1.0])


def single_comparison(x, y):
    return x < y


def test_lower_chain_leaves_single_comparisons():
    assert after(single_comparison, LowerChainedComparisons) == expected("""
        def single_comparison(x, y):
            return x < y
    """)


def chain_in_a_branch(x, y):
    if -1 < x * y < 1:
        return x
    return y


def test_lower_chain_in_a_condition():
    source = lowered(chain_in_a_branch)
    assert source.count("x * y") == 1
    assert_same_meaning(chain_in_a_branch, [-2.0, 0.0, 0.5, 3.0], [-1.0, 0.5, 2.0])


# ================================================================================================
# InferTypes
# ================================================================================================

def typed(fn, **params) -> dict:
    """{unparsed expression: tz_type} for the straight-line body, given parameter VTypes."""
    _, _, ctx = run_frontend(fn)
    tree = copy.deepcopy(ctx.tree)
    spec = Specialization(params=tuple(ParamSpec(p, params[p]) for p in ctx.params), out_dtypes=(), rank=1,
                          index_dtype=torch.int32, device_type="cpu")
    InferTypes(ctx, spec).run(tree)
    types = {}
    for node in ast.walk(tree):
        if hasattr(node, "tz_type"):
            types.setdefault(ast.unparse(node), node.tz_type)
    return types


def mixed(x, y):
    a = x * 2.0
    b = x // y
    c = x / y
    d = x < y
    e = x ** -1
    return a + b + c + d + e


def test_infer_types_int_tensor_and_0d_tensor():
    types = typed(mixed, x=VType(torch.int32, TENSOR), y=VType(torch.int64, ZERO_DIM))
    assert types["x * 2.0"] == VType(torch.float32, TENSOR)
    assert types["2.0"] == VType(torch.float64, PYTHON)
    assert types["x // y"] == VType(torch.int32, TENSOR)  # a 0-d int64 does not widen an int32 tensor
    assert types["x / y"] == VType(torch.float32, TENSOR)
    assert types["x < y"] == VType(torch.bool, TENSOR)
    assert types["x ** (-1)"] == VType(torch.float32, TENSOR)  # Python: 2 ** -1 == 0.5
    assert types["a + b + c + d + e"] == VType(torch.float32, TENSOR)


def test_infer_types_python_numbers_stay_full_width():
    types = typed(mixed, x=VType(torch.int64, PYTHON), y=VType(torch.float64, PYTHON))
    assert types["x * 2.0"] == VType(torch.float64, PYTHON)
    assert types["x // y"] == VType(torch.float64, PYTHON)
    assert types["x < y"] == VType(torch.bool, PYTHON)


def math_and_builtins(x):
    return math.exp(x), math.floor(x), math.isnan(x), float(x), int(x), bool(x), abs(x), min(x, 2.5)


def test_infer_types_math_and_builtins():
    types = typed(math_and_builtins, x=VType(torch.int16, TENSOR))
    assert types["math.exp(x)"] == VType(torch.float32, TENSOR)
    assert types["math.floor(x)"] == VType(torch.int16, TENSOR)  # floor of an int is the int
    assert types["math.isnan(x)"] == VType(torch.bool, TENSOR)
    assert types["float(x)"] == VType(torch.float32, TENSOR)
    assert types["int(x)"] == VType(torch.int16, TENSOR)
    assert types["bool(x)"] == VType(torch.bool, TENSOR)
    assert types["abs(x)"] == VType(torch.int16, TENSOR)
    assert types["min(x, 2.5)"] == VType(torch.float32, TENSOR)
    half_types = typed(math_and_builtins, x=VType(torch.float16, TENSOR))
    assert half_types["math.exp(x)"] == VType(torch.float16, TENSOR)  # computed in float32, stored as half
    assert half_types["int(x)"] == VType(torch.int64, TENSOR)


def binary_ops(x, y):
    return x + y, x * y, x < y, x == y


def divide(x, y):
    return x / y


_KINDS = {
    "tensor": lambda d: torch.ones(2, dtype=d),
    "0-d": lambda d: torch.ones((), dtype=d),
}
_PYTHON_SAMPLES = {torch.bool: True, torch.int64: 3, torch.float64: 1.5}
_DTYPES = [torch.bool, torch.uint8, torch.int8, torch.int32, torch.int64, torch.float16, torch.bfloat16,
           torch.float32, torch.float64]


def _samples():
    out = []
    for kind, make in _KINDS.items():
        for dtype in _DTYPES:
            priority = TENSOR if kind == "tensor" else ZERO_DIM
            out.append((f"{kind}-{str(dtype)[6:]}", make(dtype), VType(dtype, priority)))
    for dtype, value in _PYTHON_SAMPLES.items():
        out.append((f"py-{type(value).__name__}", value, VType(dtype, PYTHON)))
    return out


@pytest.mark.parametrize("left,right", [(a, b) for a, b in itertools.product(_samples(), repeat=2)
                                        if max(a[2].priority, b[2].priority) > PYTHON],
                         ids=lambda s: s[0])
def test_infer_types_matches_torch_promotion(left, right):
    (_, a, va), (_, b, vb) = left, right
    priority = max(va.priority, vb.priority)
    types = typed(binary_ops, x=va, y=vb)
    results = {"x + y": lambda: a + b, "x * y": lambda: a * b, "x < y": lambda: a < b, "x == y": lambda: a == b}
    if not va.dtype == vb.dtype == torch.bool:  # see test_infer_types_true_division_of_bools
        types.update(typed(divide, x=va, y=vb))
        results["x / y"] = lambda: a / b
    for text, compute in results.items():
        want = compute().dtype
        assert types[text] == VType(want, priority), f"{text} with x={va}, y={vb}"


def test_infer_types_true_division_of_bools():
    # torch: bool_tensor / bool_tensor is a float32 tensor (1.0 or nan); only `-`, `//`, `%`, `**` refuse
    types = typed(divide, x=VType(torch.bool, TENSOR), y=VType(torch.bool, TENSOR))
    assert types["x / y"] == VType(torch.float32, TENSOR)
    types = typed(divide, x=VType(torch.bool, TENSOR), y=VType(torch.bool, PYTHON))
    assert types["x / y"] == VType(torch.float32, TENSOR)


def invert(x):
    return ~x


def negate(b):
    return -b


def test_infer_types_refuses_what_torch_refuses():
    with pytest.raises(ScalarTypeError, match="`~` needs an integer or bool operand"):
        typed(invert, x=VType(torch.float32, TENSOR))
    with pytest.raises(ScalarTypeError, match="negation"):
        typed(negate, b=VType(torch.bool, TENSOR))
    assert typed(invert, x=VType(torch.bool, TENSOR))["~x"] == VType(torch.bool, TENSOR)
    assert typed(negate, b=VType(torch.bool, PYTHON))["-b"] == VType(torch.int64, PYTHON)  # -True == -1


# ================================================================================================
# LowerToTriton
# ================================================================================================

def lower_body(fn, device_type="cpu", **params) -> str:
    _, _, ctx = run_frontend(fn)
    tree = copy.deepcopy(ctx.tree)
    spec = Specialization(params=tuple(params[p] if isinstance(params[p], ParamSpec) else ParamSpec(p, params[p])
                                       for p in ctx.params), out_dtypes=(), rank=1,
                          index_dtype=torch.int32, device_type=device_type)
    InferTypes(ctx, spec).run(tree)
    body = LowerToTriton(ctx, spec, NameAllocator(ctx.names.taken)).run(tree)
    statements = body.statements + [ast.Expr(o.node) for o in body.outputs]
    return ast.unparse(ast.fix_missing_locations(ast.Module(body=statements, type_ignores=[])))


def int_floor_ops(x, y):
    q = x // y
    r = x % y
    return q + r


def test_lower_to_triton_integer_floor_division_and_remainder():
    source = lower_body(int_floor_ops, x=VType(torch.int32, TENSOR), y=VType(torch.int32, TENSOR))
    # Triton's // and % truncate like C: the quotient steps down and the remainder takes the
    # divisor's sign where the signs differ; a zero divisor becomes 1 and the quotient 0
    # (generated names vary; the shapes do not)
    quotient = re.search(r"(\w+) = tl.where\(y == 0, 1, y\)\n(\w+) = x // \1\n(\w+) = x - \2 \* \1\n", source)
    assert quotient, source
    d, q, r = quotient.groups()
    assert f"= tl.where(y == 0, 0, {q} - (({r} != 0) & (({r} < 0) != ({d} < 0))).to(tl.int32))" in source
    remainder = re.search(r"(\w+) = tl.where\(y == 0, 1, y\)\n(\w+) = x % \1\n", source)
    assert remainder, source
    d, r = remainder.groups()
    assert f"tl.where(({r} != 0) & (({r} < 0) != ({d} < 0)), {r} + {d}, {r})" in source


def test_lower_to_triton_source_comments_point_at_user_lines():
    source = lower_body(int_floor_ops, x=VType(torch.int32, TENSOR), y=VType(torch.int32, TENSOR))
    name = THIS_FILE.rsplit("/", 1)[-1]
    assert f"src[{name}:{line_of(int_floor_ops, 'q = x // y')}]: q = x // y" in source
    assert f"src[{name}:{line_of(int_floor_ops, 'return q + r')}]: return q + r" in source


def float_ops(x, y):
    if x > y:
        return math.exp(x) / y
    return x ** 2 + min(x, y) + y ** 0.5


def test_lower_to_triton_float_ops_cpu():
    source = lower_body(float_ops, x=VType(torch.float32, TENSOR), y=VType(torch.float32, TENSOR))
    assert "tl.where(cond," in source
    assert "tl.exp(" in source and "libdevice" not in source  # the interpreter cannot call libdevice
    assert ".to(tl.float64)" in source  # portable math computes in float64
    assert "tl.math.div_rn(" in source  # correctly rounded float32 division
    assert "x * x" in source  # x ** 2
    assert "tl.sqrt(" in source  # y ** 0.5
    assert "tl.where((y < x) | (y != y), y, x)" in source  # torch.minimum: NaN wins, ties keep the first


def test_lower_to_triton_float_ops_cuda():
    source = lower_body(float_ops, "cuda", x=VType(torch.float32, TENSOR), y=VType(torch.float32, TENSOR))
    assert "libdevice.exp(x)" in source
    assert "libdevice.sqrt_rn(y)" in source  # rounded to nearest, not sqrtf's sqrt.approx


def zero_dims(x, s, c):
    t = s * 2.0
    u = c * 2.0
    return x * t + u


def test_lower_to_triton_rounds_only_what_reads_device_memory():
    """A 0-d float32 tensor the kernel loads (and t, computed from it) is rounded to float16 where it
    meets the float16 tensor, as torch casts tensor operands; one passed by value (in CPU memory) and u,
    made only of it, are not, as torch's CUDA kernels read CPU scalars in opmath."""
    source = lower_body(zero_dims, "cuda", x=VType(torch.float16, TENSOR), s=VType(torch.float32, ZERO_DIM),
                        c=ParamSpec("c", VType(torch.float32, ZERO_DIM), by_value=True))
    assert re.search(r"t\.to\(tl\.float16\)\.to\(tl\.float32\)", source), source
    assert "u.to(tl.float16)" not in source and "c.to(tl.float16)" not in source, source


def test_lower_to_triton_half_computes_in_float32():
    source = lower_body(float_ops, "cuda", x=VType(torch.float16, TENSOR), y=VType(torch.float64, PYTHON))
    assert "y.to(tl.float32)" in source  # the Python float meets the half tensor in opmath
    assert "tl.float16" not in source


def erf_of(x):
    return math.erf(x)


def test_lower_to_triton_float32_erf_on_cuda_is_the_composite():
    # float32 work (float32, and 16-bit types in opmath) calls float32_math.f32_erf; float64 keeps
    # libdevice; the interpreter computes in float64
    for dtype in (torch.float32, torch.float16, torch.bfloat16):
        source = lower_body(erf_of, "cuda", x=VType(dtype, TENSOR))
        assert "f32_erf(" in source and "libdevice" not in source, source
    source = lower_body(erf_of, "cuda", x=VType(torch.float64, TENSOR))
    assert "libdevice.erf(x)" in source and "f32_erf" not in source, source
    source = lower_body(erf_of, x=VType(torch.float32, TENSOR))
    assert "tl.math.erf(" in source and "f32_erf" not in source, source


def special_functions(x):
    return tm.erfinv(x) + tm.digamma(x)


def test_lower_to_triton_tritonize_math_cpu_runs_the_float64_composites():
    source = lower_body(special_functions, x=VType(torch.float32, TENSOR))
    cast = re.search(r"(\w+) = x\.to\(tl\.float64\)\n", source)
    assert cast, source
    assert f"portable_erfinv({cast.group(1)}).to(tl.float32)" in source
    assert f"portable_digamma({cast.group(1)}).to(tl.float32)" in source
    assert "libdevice" not in source


def test_lower_to_triton_tritonize_math_cuda_erfinv_is_libdevice_in_opmath():
    for dtype in (torch.float32, torch.float64, torch.float16):
        source = lower_body(special_functions, "cuda", x=VType(dtype, TENSOR))
        work = "tl.float64" if dtype == torch.float64 else "tl.float32"  # half types compute in float32
        assert "libdevice.erfinv(x)" in source, source
        assert "tl.float16" not in source
        # libdevice has no digamma: float32 work (half types too) takes the float32 composite,
        # float64 the float64 one
        digamma = "portable_digamma(x)" if dtype == torch.float64 else "f32_digamma("
        assert digamma in source and ("portable_digamma" in source) == (dtype == torch.float64), source


def int_min_and_shifts(x, y):
    return min(x, y) + (x << 3) + (x >> y)


def test_lower_to_triton_integer_min_and_guarded_shifts():
    source = lower_body(int_min_and_shifts, x=VType(torch.int32, TENSOR), y=VType(torch.int32, TENSOR))
    assert "tl.minimum(x, y)" in source
    assert "x << 3" in source  # a constant in range needs no guard
    assert "tl.where((y < 0) | (y >= 32), tl.where(x < 0, -1, 0), x >> y)" in source


def bool_arith(x, y):
    return x + y, x * y, not x


def test_lower_to_triton_bool_arithmetic_is_logical():
    source = lower_body(bool_arith, x=VType(torch.bool, TENSOR), y=VType(torch.bool, TENSOR))
    assert "x | y" in source and "x & y" in source and "x == 0" in source


def int8_literal(x):
    return x + 1, x * 2.5


def test_lower_to_triton_literals_and_casts():
    source = lower_body(int8_literal, x=VType(torch.int8, TENSOR))
    assert "x + 1" in source  # the literal keeps the tensor's int8
    assert "x.to(tl.float32)" in source and "* 2.5" in source  # int8 * Python float is float32
    assert "tl.full([], 2.5" not in source  # a float literal that float32 keeps stays bare


# ================================================================================================
# render: the generated module round trip
# ================================================================================================

def module_tree(fn, spec) -> tuple[ast.Module, object]:
    """The generated module's AST before rendering (generate_module's steps)."""
    _, _, ctx = run_frontend(fn)
    tree = copy.deepcopy(ctx.tree)
    names = NameAllocator(ctx.names.taken)
    tree = InferTypes(ctx, spec).run(tree)
    body = LowerToTriton(ctx, spec, names).run(tree)
    kernel, kernel_args = BuildKernel(ctx, spec, names).run(body)
    return BuildModule(ctx, spec, "test").run(kernel, kernel_args), ctx


def unary(x):
    return 0.5 * x * (1.0 + x * 0.7071067811865476)


def broadcast_binary(a, b):
    return a * 2.5 - b / 4 + 1


def with_scalar(x, beta: float = 1.0, threshold: float = 20.0):
    if x * beta > threshold:
        return x
    return x * beta - threshold


def with_helper(x, y):
    return outer(x) * y


def with_portable_math(x):
    return math.expm1(x) + math.tanh(x)


F32, F64, I32, I64 = torch.float32, torch.float64, torch.int32, torch.int64


def _spec(params, outs, rank=1, index=I32, device_type="cpu"):
    return Specialization(params=tuple(ParamSpec(n, v) for n, v in params), out_dtypes=outs, rank=rank,
                          index_dtype=index, device_type=device_type)


RENDER_CASES = {
    "unary": (unary, _spec([("x", VType(F32, TENSOR))], (F32,))),
    "broadcast_binary": (broadcast_binary, _spec([("a", VType(F32, TENSOR)), ("b", VType(I32, TENSOR))], (F32,),
                                                 rank=3)),
    "zero_dim_and_int64_index": (broadcast_binary, _spec([("a", VType(F64, TENSOR)), ("b", VType(F32, ZERO_DIM))],
                                                         (F64,), rank=2, index=I64)),
    "if_else_scalars": (with_scalar, _spec([("x", VType(torch.float16, TENSOR)), ("beta", VType(F64, PYTHON)),
                                            ("threshold", VType(F64, PYTHON))], (torch.float16,), rank=2)),
    "helper": (with_helper, _spec([("x", VType(F32, TENSOR)), ("y", VType(F32, TENSOR))], (F32,), rank=2)),
    "two_outputs": (two_outputs, _spec([("x", VType(I64, TENSOR))], (I64, F32))),
    "mixed_cuda": (float_ops, _spec([("x", VType(F32, TENSOR)), ("y", VType(F32, TENSOR))], (F32,), rank=4,
                                    device_type="cuda")),
    "int_ops": (int_floor_ops, _spec([("x", VType(I32, TENSOR)), ("y", VType(I64, PYTHON))], (I32,), rank=2)),
    "portable_math": (with_portable_math, _spec([("x", VType(F32, TENSOR))], (F32,))),
    "portable_math_cuda": (with_portable_math, _spec([("x", VType(F32, TENSOR))], (F32,), device_type="cuda")),
}


def _dump(source: str) -> str:
    return ast.dump(ast.parse(source))


@pytest.mark.parametrize("case", list(RENDER_CASES))
def test_render_round_trip(case):
    fn, spec = RENDER_CASES[case]
    tree, ctx = module_tree(fn, spec)
    with_astor = render(copy.deepcopy(tree), use_astor=True)
    without_astor = render(copy.deepcopy(tree), use_astor=False)
    for source in (with_astor, without_astor):
        parsed = ast.parse(source)
        assert _dump(ast.unparse(parsed)) == ast.dump(parsed)  # parse -> unparse -> parse
        assert "__tritonize_comment__" not in source
        assert source.startswith("# Generated by tritonize test;")
    assert _dump(with_astor) == _dump(without_astor)  # the two renderers agree on the code
    assert generate_module(ctx, spec, "test") == with_astor


@pytest.mark.parametrize("case", ["unary", "broadcast_binary", "helper"])
def test_render_keeps_source_comments(case):
    fn, spec = RENDER_CASES[case]
    tree, _ = module_tree(fn, spec)
    source = render(tree)
    name = THIS_FILE.rsplit("/", 1)[-1]
    return_line = line_of(fn, "return")
    assert f"# src[{name}:{return_line}]: {linecache.getline(THIS_FILE, return_line).strip()}" in source
    assert f"# source: {THIS_FILE}:{line_of(fn, 'def ')}  {fn.__name__}()" in source


def test_render_astor_wraps_long_signatures():
    pytest.importorskip("astor")  # a declared dependency; images without it render with ast.unparse
    tree, _ = module_tree(*RENDER_CASES["mixed_cuda"])
    with_astor = render(copy.deepcopy(tree), use_astor=True)
    code_lines = [line for line in with_astor.splitlines() if not line.lstrip().startswith("#")]
    assert max(len(line) for line in code_lines) <= 100


def test_render_falls_back_to_unparse(monkeypatch):
    tree, _ = module_tree(*RENDER_CASES["two_outputs"])
    plain_source = render(copy.deepcopy(tree), use_astor=False)
    monkeypatch.setattr(render_module, "astor", None)
    assert render(copy.deepcopy(tree), use_astor=True) == plain_source


def test_render_falls_back_when_astor_fails(monkeypatch):
    tree, _ = module_tree(*RENDER_CASES["unary"])
    plain_source = render(copy.deepcopy(tree), use_astor=False)

    class Broken:
        @staticmethod
        def to_source(*args, **kwargs):
            raise AttributeError("no visitor for this node")

    monkeypatch.setattr(render_module, "astor", Broken)
    assert render(copy.deepcopy(tree), use_astor=True) == plain_source


def test_render_module_imports_and_runs(device):
    """The rendered text of one specialization, through the decorator, computes the right values."""
    f = pointwise(broadcast_binary)
    a = torch.arange(6.0, device=device).reshape(2, 3)
    b = torch.tensor([1, 2, 3], dtype=torch.int32, device=device)
    src = f.source(a, b)
    ast.parse(src)
    torch.testing.assert_close(f(a, b), a * 2.5 - b / 4 + 1)


def _erf_helper(x):
    return math.erf(x)


@pytest.mark.parametrize("source, calls", [
    ("def f(x):\n    return x * 2 + 1", 0),
    ("def f(x, y):\n    return abs(x) + math.floor(y) + math.copysign(x, y) + (x if math.isnan(y) else y)", 0),
    ("def f(x):\n    return x ** 2 + x ** -1", 0),
    ("def f(x, y):\n    return x ** y", 1),
    ("def f(x):\n    return x ** 1.5", 1),
    ("def f(x):\n    return x ** 0.5 + x ** -2", 0),
    ("def f(x):\n    return math.exp(x)", 1),
    ("def f(x):\n    return 1 if x > 0 else math.sin(x)", 1),
    ("def f(x):\n    return _erf_helper(x) * 2", 1),  # found through the inlined helper
    ("def f(r, t):\n    return r * math.cos(t), r * math.sin(t)", 2),
    ("def f(x):\n    return math.exp(x) if x > 0 else x ** 2.5", 2),  # both sides of a select run
    ("def f(x):\n    return _erf_helper(x) + _erf_helper(x * 2) + math.floor(x)", 2),
])
def test_costly_calls(source, calls, tmp_path):
    from tritonize.passes.math_table import costly_calls
    namespace = {"math": math, "_erf_helper": _erf_helper}
    path = tmp_path / "costly_case.py"
    path.write_text(source + "\n")
    exec(compile(path.read_text(), str(path), "exec"), namespace)
    linecache.checkcache(str(path))
    *_, ctx = run_frontend(namespace["f"])
    assert costly_calls(ctx.tree) == calls


def test_source_comments_of_inlined_helpers_name_the_helpers_files():
    """Each `# src[FILE:LINE]: TEXT` comment shows line LINE of FILE, also for statements inlined from a
    helper in another file (golden_functions.if_else, whose if/else lowers to new statements) and from
    math.frexp's helper (passes/math_helpers.py); they were labelled with the caller's file."""
    import golden_functions
    import tritonize.passes.math_helpers as math_helpers

    @pointwise
    def calls_helpers(x):
        y = golden_functions.if_else(x)
        mantissa, exponent = math.frexp(y)
        return mantissa * exponent

    source = calls_helpers.source(torch.rand(8))
    files = {THIS_FILE.rsplit("/", 1)[-1]: THIS_FILE, "golden_functions.py": golden_functions.__file__,
             "math_helpers.py": math_helpers.__file__}
    comments = re.findall(r"# src\[([^:\]]+):(\d+)\]: (.*)", source)
    assert {file for file, _, _ in comments} == set(files)
    for file, line, text in comments:
        assert linecache.getline(files[file], int(line)).strip() == text.strip(), (file, line, text)
