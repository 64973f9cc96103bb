"""The compiler: AST passes from a scalar Python function to a generated Triton module.

The pipeline reads top to bottom. The front end runs once, when the decorator runs, and
refuses what it cannot compile; the back end runs once per specialization (argument dtypes,
rank, index width, device).
"""
from __future__ import annotations

import ast
import copy
import inspect

import torch

from tritonize.errors import ScalarTypeError
from tritonize.passes.ast_tools import NameAllocator
from tritonize.passes.build_kernel import MODULE_NAMES, BuildKernel
from tritonize.passes.build_module import BuildModule
from tritonize.passes.check_subset import CheckSubset
from tritonize.passes.context import FrontendContext, ParamSpec, Specialization
from tritonize.passes.desugar_assignments import DesugarAssignments
from tritonize.passes.differentiate import Differentiate
from tritonize.passes.fold_constants import FoldConstants
from tritonize.passes.infer_types import InferTypes
from tritonize.passes.inline_helpers import InlineHelpers
from tritonize.passes.lower_chained_comparisons import LowerChainedComparisons
from tritonize.passes.lower_control_flow import LowerControlFlow
from tritonize.passes.lower_to_triton import LowerToTriton
from tritonize.passes.parse_source import parse_function
from tritonize.passes.render import render
from tritonize.passes.resolve_names import ResolveNames, local_names
from tritonize.passes.type_rules import SUPPORTED_DTYPES

__all__ = ["run_frontend", "approximable", "generate_module", "infer_output_types", "infer_value_types", "derive_backward", "FrontendContext", "ParamSpec", "Specialization", "FRONTEND"]

FRONTEND = [
    CheckSubset,               # refuse what is outside the scalar subset, with file:line:col
    ResolveNames,              # math.*, constants, builtins, helpers
    InlineHelpers,             # helper calls -> their (already straight-line) bodies
    DesugarAssignments,        # x += e, a, b = e1, e2 -> single assignments
    FoldConstants,             # literal arithmetic, Python semantics
    LowerControlFlow,          # if/elif/else, early returns -> selects, single assignment
    LowerChainedComparisons,   # a < b < c -> (a < b) and (b < c)
    FoldConstants,             # again, now that names bound to literals are known
]


_SCALAR_TYPES = {"float": float, "int": int, "bool": bool}


def make_context(fn, helper_stack=()) -> tuple[ast.FunctionDef, FrontendContext]:
    tree, filename = parse_function(fn)
    closure = {}
    if fn.__closure__:
        for var, cell in zip(fn.__code__.co_freevars, fn.__closure__):
            try:
                closure[var] = cell.cell_contents
            except ValueError:  # an empty cell: the name is not bound yet
                pass
    signature = inspect.signature(fn)
    # the tree's name: a lambda's is the variable it is assigned to, or "lambda" (parse_lambda)
    ctx = FrontendContext(fn=fn, filename=filename, function_name=tree.name, globals=fn.__globals__,
                          closure=closure, helper_stack=helper_stack, first_line=tree.lineno)
    ctx.params = list(signature.parameters)
    arg_nodes = {arg.arg: arg for arg in tree.args.posonlyargs + tree.args.args + tree.args.kwonlyargs}
    for param in signature.parameters.values():
        annotation = _SCALAR_TYPES.get(param.annotation, param.annotation)  # "float" under PEP 563
        if annotation in (float, int, bool):
            ctx.scalar_annotations[param.name] = annotation
        else:
            dtype = _annotated_dtype(annotation, ctx)
            if dtype is not None:
                where = ctx.location(arg_nodes[param.name].annotation) if param.name in arg_nodes else None
                if dtype not in SUPPORTED_DTYPES:
                    raise ScalarTypeError(f"parameter '{param.name}' is annotated {dtype}, which tritonize kernels "
                                          f"do not compute in; a dtype annotation must be one of "
                                          f"{', '.join(str(d) for d in SUPPORTED_DTYPES)}", where)
                if helper_stack:
                    # inlined, a helper's parameters are its caller's values, which no load converts
                    raise ScalarTypeError(f"helper parameter '{param.name}' is annotated {dtype}: only the "
                                          f"@pointwise function's own parameters are read as a dtype", where)
                ctx.read_as[param.name] = dtype
        if param.default is not inspect.Parameter.empty:
            ctx.defaults[param.name] = param.default
    return tree, ctx


def _annotated_dtype(annotation, ctx) -> torch.dtype | None:
    """The torch dtype a parameter annotation names (`torch.float64`, or that text under PEP
    563, looked up in the function's closure and globals), else None."""
    if isinstance(annotation, str):
        head, *attributes = annotation.split(".")
        found = ctx.closure.get(head, ctx.globals.get(head)) if head.isidentifier() else None
        for attribute in attributes:
            found = getattr(found, attribute, None) if attribute.isidentifier() else None
        annotation = found
    return annotation if isinstance(annotation, torch.dtype) else None


def run_frontend(fn, helper_stack=()):
    """Straight-line single-assignment body, the return values, and the context."""
    tree, ctx = make_context(fn, helper_stack)
    for pass_ in FRONTEND[:2]:
        tree = pass_(ctx).run(tree)
    ctx.names = NameAllocator(local_names(tree) | MODULE_NAMES)
    for pass_ in FRONTEND[2:]:
        tree = pass_(ctx).run(tree)
    *body, ret = tree.body
    values = ret.value.elts if isinstance(ret.value, ast.Tuple) else [ret.value]
    ctx.tree = tree
    return body, values, ctx


def derive_backward(ctx: FrontendContext, wrt: tuple, output: int | None = None) -> FrontendContext:
    """The context of the function that maps (parameters, output gradients) to the gradients
    of the parameters in `wrt`: the forward context's straight-line body, differentiated; of
    one output alone where `output` names it (its function takes that output's gradient only)."""
    derived_ctx = copy.copy(ctx)
    derived_ctx.names = NameAllocator(ctx.names.taken)
    forward = copy.deepcopy(ctx.tree)
    if output is not None:
        returned = forward.body[-1]
        if isinstance(returned.value, ast.Tuple):
            returned.value = returned.value.elts[output]
    tree = Differentiate(derived_ctx, wrt).run(forward)
    derived_ctx.tree = tree
    derived_ctx.function_name = tree.name
    derived_ctx.params = [a.arg for a in tree.args.args]
    derived_ctx.num_outputs = len(wrt)
    derived_ctx.defaults = {}
    return derived_ctx


def infer_output_types(ctx: FrontendContext, params: tuple) -> list:
    """The torch types of the return values for these parameter types (op-by-op promotion)."""
    ret = _typed_tree(ctx, params).body[-1].value
    return [v.tz_type for v in (ret.elts if isinstance(ret, ast.Tuple) else [ret])]


def infer_value_types(ctx: FrontendContext, params: tuple) -> tuple:
    """The dtype of every value in the lowered body, in order, for these parameter types: two sets of
    parameter types that give the same compute the same (a value's priority, 0-d tensor or not,
    only chooses dtypes)."""
    return tuple(getattr(getattr(node, "tz_type", None), "dtype", None) for node in ast.walk(_typed_tree(ctx, params)))


def _typed_tree(ctx: FrontendContext, params: tuple) -> ast.FunctionDef:
    """A copy of the lowered body with every value's type, for these parameter types."""
    spec = Specialization(params=params, out_dtypes=(), rank=1, index_dtype=None, device_type="cpu")
    return InferTypes(ctx, spec).run(copy.deepcopy(ctx.tree))


def approximable(ctx: FrontendContext, spec: Specialization) -> tuple:
    """What spec.approximate could name in this specialization's kernel ("division", "exp")."""
    tree = InferTypes(ctx, spec).run(copy.deepcopy(ctx.tree))
    return LowerToTriton(ctx, spec, NameAllocator(ctx.names.taken)).run(tree).approximable


def generate_module(ctx: FrontendContext, spec: Specialization, version: str) -> str:
    """Render the generated module for one specialization."""
    tree = copy.deepcopy(ctx.tree)
    names = NameAllocator(ctx.names.taken)
    tree = InferTypes(ctx, spec).run(tree)
    body = LowerToTriton(ctx, spec, names).run(tree)
    kernel, kernel_args = BuildKernel(ctx, spec, names).run(body)
    module = BuildModule(ctx, spec, version).run(kernel, kernel_args)
    return render(module)
