"""`@pointwise` and PointwiseFunction: compile once at decoration, specialize per call."""
from __future__ import annotations

import ast
import dataclasses
import functools
import inspect
import math
import os
import sys
import threading
from pathlib import Path

import numpy
import torch
from torch._subclasses.fake_tensor import is_fake

from tritonize import approximations, cache, call, display, log, torch_ops, transforms
from tritonize.class_walks import (ClassWalk, class_walk, dense_structure, leading_key, leading_structure,
                                   LeadingWalk, leading_walk, out_structure, scaled_strides)
from tritonize.launch import direct_launcher, extern_libs, grid_launcher, integer_classes, three_dims
from tritonize.errors import (ArgumentCountError, BroadcastError, CallError, DSLError, OutArgumentError,
                              UnsupportedSyntax, without_internal_frames)
from tritonize.passes import (ParamSpec, Specialization, derive_backward, generate_module, infer_output_types,
                              infer_value_types, run_frontend)
from tritonize.passes.ast_tools import COMPILE_LOCK, names_read
from tritonize.passes.math_table import (calls_heavy_math, caps_registers, costly_calls, gains_from_wide_threads,
                                           prefers_toolkit_libdevice)
from tritonize.passes.type_rules import PYTHON, SHORT_NAMES, by_value_dtype
from tritonize.promotion import normalize, output_dtype
from tritonize.view import StridedView

__version__ = "0.1.0"

# Triton's interpreter patches triton.language globally while a kernel runs
_INTERPRETER_LOCK = threading.Lock()


def _entry_point(method):
    """A public method whose tritonize errors are raised again from here without the frames they
    passed through (errors.without_internal_frames), as __call__ raises its own."""
    @functools.wraps(method)
    def entry_point(*args, **kwargs):
        try:
            return method(*args, **kwargs)
        except (DSLError, CallError) as error:
            raise without_internal_frames(error)
    return entry_point


class PointwiseFunction:
    """A scalar function compiled to element-wise Triton kernels; call it on tensors or numbers."""

    def __init__(self, fn, promotion=None):
        if not inspect.isfunction(fn):
            raise TypeError(f"@pointwise decorates a Python function, got {type(fn).__name__}")
        self.scalar_function = fn
        _, _, ctx = run_frontend(fn)  # refuses what it cannot compile, now
        if "out" in ctx.params:
            raise UnsupportedSyntax("the parameter name 'out' is reserved for output tensors", ctx.location(ctx.tree))
        self._setup(ctx, promotion, inspect.signature(fn))
        functools.update_wrapper(self, fn)
        if fn.__name__ == "<lambda>":  # named as its tree is (the variable it is assigned to, or "lambda"),
            # which also names its generated files and kernels
            self.__name__ = ctx.function_name
            self.__qualname__ = fn.__qualname__.replace("<lambda>", ctx.function_name)

    @classmethod
    def _from_context(cls, ctx) -> "PointwiseFunction":
        """A function compiled from an already lowered body (a derived backward, say)."""
        self = cls.__new__(cls)
        self.scalar_function = None
        parameters = [inspect.Parameter(p, inspect.Parameter.POSITIONAL_OR_KEYWORD) for p in ctx.params]
        self._setup(ctx, None, inspect.Signature(parameters))
        self.__name__ = self.__qualname__ = ctx.function_name
        self.__doc__ = f"The gradient function derived from {ctx.filename}:{ctx.first_line}."
        return self

    def _setup(self, ctx, promotion, signature):
        self._ctx = ctx
        self._costly_calls = costly_calls(ctx.tree)  # chooses launch shapes (call.launch_shape)
        self._wide_threads = gains_from_wide_threads(ctx.tree)  # see call.dependent_block
        self._heavy_math = calls_heavy_math(ctx.tree)  # see call.launch_shape
        self._caps_registers = caps_registers(ctx.tree)  # see call.max_registers
        # see Specialization.toolkit_libdevice: without a float32 tensor, and with one
        self._toolkit_libdevice = (prefers_toolkit_libdevice(ctx.tree), prefers_toolkit_libdevice(ctx.tree, True))
        # the parameters the function reads: a tensor it never reads is not loaded (fill's input),
        # so its bytes do not count in call.moved_bytes
        self._read_params = frozenset(names_read(*ctx.tree.body) & set(ctx.params))
        self._params = list(ctx.params)
        self.num_outputs = ctx.num_outputs
        self.promotion = normalize(promotion, self.num_outputs, self._params, ctx.function_name)
        self._signature = signature
        kinds = [p.kind for p in signature.parameters.values()]
        positional = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
        self._positional_count = sum(kind in positional for kind in kinds)
        self._positional_only = sum(kind == inspect.Parameter.POSITIONAL_ONLY for kind in kinds)
        # calls with every argument by position may take the steady path (no binding needed)
        self._steady_arity = len(self._params) if self._positional_count == len(self._params) else -1
        self._modules: dict[Specialization, tuple] = {}
        self._computed: dict[tuple, list] = {}
        self._value_types: dict[tuple, tuple] = {}  # see _computed_in
        self._recipes: dict[tuple, LaunchRecipe] = {}
        self._out_recipes: dict[tuple, LaunchRecipe] = {}  # calls with out=, keyed by the outputs too
        # a call's plan by its class (dtypes, alignment, the walk's structure), not its shape (see _class_plan)
        self._class_templates: dict[tuple, ClassTemplate] = {}
        # the class key and walk of calls by their structure, from its second call, and the hashes of
        # structures seen once (see _keep_walk)
        self._class_walks: dict[tuple | int, ClassWalk | str] = {}
        # the class key and walk of calls by their signature key less the leading size (or its scaled
        # form, where their strides hold that size), from a kept ClassWalk's, or NO_WALK (see _keep_leading)
        self._leading_walks: dict[tuple, LeadingWalk | str] = {}
        self._leading_probes: set = set()  # of their keys' _probe()s: a cheap test before leading_key's
        self._scaled_probes: set = set()  # of those kept by scaled keys, their keys' _scaled_probe()s
        # hashes of the signatures of CUDA calls launched once by their class, with no recipe (see _run)
        self._seen: set[int] = set()
        # Triton's compiled kernels by what they were compiled for (LaunchRecipe.kernel_key): a
        # recipe of a new shape whose kernel is among them launches it directly at once
        self._kernels: dict[tuple, object] = {}
        self._derivatives: dict[tuple, PointwiseFunction] = {}
        self._ops: dict[tuple, object] = {}
        self._approximations: dict[tuple, tuple] = {}  # approximations.verified's, per dtypes and device
        self._lock = threading.Lock()
        # the likely pattern's op, at once: a program torch.export saved, loaded in a new process, finds it
        torch_ops.op_for(self, torch_ops.default_pattern(self))
        self._trace_key = torch_ops.trace_key(self)

    def __repr__(self) -> str:
        return f"<pointwise {self.__qualname__}{self._signature} from {self._ctx.filename}:{self._ctx.first_line}>"

    def __reduce__(self):
        # pickled by reference, by its module and qualified name, as a def is: a spawned worker
        # (multiprocessing, a DataLoader's) or torch.load imports it there, with kernels of its own;
        # and copy.deepcopy of a model that holds one keeps it (its recipes and locks are this process's)
        return self.__qualname__

    # -- calling ------------------------------------------------------------------------------

    def __call__(self, *args, **kwargs):
        # tritonize's errors are raised again from here without the frames they passed through (the
        # planner's, the compiler's): a try costs the steady path nothing on Python 3.11 and later
        try:
            out = operands = None
            if (len(args) == self._steady_arity and not _is_dynamo_compiling() and _forward_ad._current_level < 0
                    and not _functorch_active()):
                if not kwargs:
                    # one or two plain tensors, the commonest calls, keyed without the loop below:
                    # ~0.3 us of a ~9 us call (its lists, appends and iterations)
                    if len(args) == 2:
                        a, b = args
                        if type(a) is _Tensor and type(b) is _Tensor and not (
                                (a.requires_grad or b.requires_grad) and _is_grad_enabled()):
                            pointer_a, pointer_b = a.data_ptr(), b.data_ptr()
                            key = ((a.dtype, a.shape, a.stride(), a.device, pointer_a & 15 == 0),
                                   (b.dtype, b.shape, b.stride(), b.device, pointer_b & 15 == 0))
                            recipe = self._recipes.get(key)
                            if recipe is not None:
                                return recipe.call(args, (pointer_a, pointer_b))
                            return self._run(args, key=key)  # the loop below would make the same key
                    elif len(args) == 1:
                        a = args[0]
                        if type(a) is _Tensor and not (a.requires_grad and _is_grad_enabled()):
                            pointer_a = a.data_ptr()
                            key = ((a.dtype, a.shape, a.stride(), a.device, pointer_a & 15 == 0),)
                            recipe = self._recipes.get(key)
                            if recipe is not None:
                                return recipe.call(args, (pointer_a,))
                            return self._run(args, key=key)
                    operands, recipes = args, self._recipes
                elif len(kwargs) == 1:
                    # out= keys its tensors after the arguments (lists, numbers and such miss)
                    out, recipes = kwargs.get("out"), self._out_recipes
                    if (len(args) == 2 and type(out) is _Tensor and type(args[0]) is _Tensor
                            and type(args[1]) is _Tensor):
                        # two plain tensors into a third (x.add_(y), add(a, b, out=c)), keyed without the loop
                        # below as two without out= are above: ~0.3 us of a call's ~2.9 us of Python on the CPU
                        # machine; a call that needs grad, or whose pointers the write guard refuses, goes on
                        # to the checks after the loop
                        a, b = args
                        if not ((a.requires_grad or b.requires_grad or out.requires_grad) and _is_grad_enabled()):
                            pointers = (a.data_ptr(), b.data_ptr(), out.data_ptr())
                            key = ((a.dtype, a.shape, a.stride(), a.device, pointers[0] & 15 == 0),
                                   (b.dtype, b.shape, b.stride(), b.device, pointers[1] & 15 == 0),
                                   (out.dtype, out.shape, out.stride(), out.device, pointers[2] & 15 == 0))
                            recipe = recipes.get(key)
                            if recipe is None:
                                return self._run(args, out=out, key=key)
                            if recipe.write(args, pointers, out):
                                return out
                    else:
                        operands = ((*args, out) if type(out) is _Tensor else (*args, *out) if type(out) is tuple
                                    else None)
            if operands is not None:
                # The steady path: a call like an earlier one is its key, a dict lookup and a launch.
                # The key is signature_key's, built here rather than in a function of its own, and
                # each tensor's data_ptr() serves both its key and the launch: at ~0.2 us per Python
                # call, the layers were a quarter of a tiny call's host time.
                key, pointers = [], []
                for a in operands:
                    if type(a) is _Tensor:
                        # an argument (autograd must record the call) or an out= tensor (torch refuses it)
                        if a.requires_grad and _is_grad_enabled():  # the flag first: it is cheaper to read
                            break
                        pointer = a.data_ptr()
                        pointers.append(pointer)
                        key.append((a.dtype, a.shape, a.stride(), a.device, pointer & 15 == 0))
                    elif isinstance(a, _Tensor):  # a subclass (fake tensors among them)
                        break
                    else:
                        key.append(type(a))  # a number; a StridedView, under which no recipe is stored
                else:
                    key = tuple(key)
                    recipe = recipes.get(key)
                    if recipe is not None:
                        if out is None:
                            return recipe.call(args, pointers)
                        if recipe.write(args, pointers, out):
                            return out if type(out) is _Tensor or self.num_outputs > 1 else out[0]
                    if StridedView not in key and (out is None or recipe is None):
                        # plain tensors that need no grad, and numbers: no tracer's (they hand over tensor
                        # subclasses) and no autograd's; the key is signature_key's (of the outputs too)
                        return self._run(args, out=out, key=key)
            if (not kwargs and len(args) == self._steady_arity and _functorch_active() and _forward_ad._current_level < 0
                    and not torch.compiler.is_compiling() and not _traced(args)):
                # under vmap, grad, vjp, jacrev: the op, as _recorded_call makes the call, without the
                # checks and binding below
                if StridedView not in map(type, args):
                    return self._op_result(args)
            out = kwargs.pop("out", None)  # a keyword of its own would cost the steady path its parsing
            if torch.compiler.is_compiling() or _traced(args):
                return self._op_call(args, kwargs, out)
            if torch.is_grad_enabled() and _requires_grad(args, kwargs, out):
                return self._recorded_call(args, kwargs, out, "automatic differentiation, as in torch",
                                           ", or under torch.no_grad()")
            if _forward_ad._current_level >= 0 and transforms.dual(args, kwargs, out):
                return self._recorded_call(args, kwargs, out, "forward-mode automatic differentiation")
            if _functorch_active() and transforms.wrapped(args, {**kwargs, "out": out}):
                # a torch.func transform's tensors (vmap's batched ones) have no storage for a kernel to
                # read: the call is the op, whose kernels take them (or, in forward mode, the
                # autograd.Function whose rules do)
                return self._recorded_call(args, kwargs, out, "torch.func's transforms")
            return self._run(args, kwargs, out)
        except (DSLError, CallError) as error:
            raise without_internal_frames(error)
        except RuntimeError:
            # a sparse or nested tensor fails where the steady path reads its data_ptr(), before any check
            # (call.classify's) sees it: say which argument it is; the handler costs the calls that pass nothing
            error = self._unstrided_argument(args, kwargs, out)
            if error is None:
                raise
            raise without_internal_frames(error) from None

    def _unstrided_argument(self, args, kwargs, out):
        """The LayoutError naming the first argument or out= tensor of this call that keeps no strided storage
        (call.refuse_unstrided), or None."""
        outputs = out if isinstance(out, (tuple, list)) else () if out is None else (out,)
        outputs = [(o, "out" if self.num_outputs == 1 else f"out[{k}]") for k, o in enumerate(outputs)]  # as plan's
        inputs = [*zip(self._params, args), *((k, v) for k, v in kwargs.items() if k != "out")]
        try:
            for label, value in inputs:
                if isinstance(value, torch.Tensor):
                    call.refuse_unstrided(value, f"argument '{label}'", label)
            for value, label in outputs:
                if isinstance(value, torch.Tensor):
                    call.refuse_unstrided(value, label)
        except CallError as error:
            return error
        return None

    def _run(self, args, kwargs=None, out=None, key=None):
        """Plan (or recall the plan of an earlier call like this) and launch. `key`: the
        signature_key of `args`, every parameter by position, and of the out= tensors (plain ones),
        where the steady path found no recipe."""
        outputs = _plain_outputs(out) if out is not None else None
        if outputs is not None and any(o.numel() == 0 for o in outputs) and self._resize_empty(args, kwargs, outputs):
            key = None  # keyed anew, by the outputs' new shapes
        if key is None:
            kwargs = kwargs or {}
            positional = self._positional(args, kwargs)
            if positional is None:
                plan, spec = self.plan(args, kwargs, out)
                recipe, outputs = self._launch_planned(plan, spec)
                return recipe.finish(outputs)
            # the steady path: a call like an earlier one is a dict lookup and a launch
            args = positional
            key = signature_key(args)
            if out is None:
                recipe = self._recipes.get(key)
                if recipe is not None:
                    return recipe(args)
            elif outputs is not None and not any(type(a) is StridedView for a in args):
                key += signature_key(outputs)
                recipe = self._out_recipes.get(key)
                pointers = [a.data_ptr() for a in (*args, *outputs) if isinstance(a, torch.Tensor)]
                if recipe is not None and recipe.write(args, pointers, outputs):
                    return recipe.finish(outputs)
        classed = self._missed_class(args, out, outputs, key)
        if classed is not None and classed[2].type == "cuda" and DIRECT_LAUNCH:
            # A shape seen for the first time launches by its class, with no recipe: many shapes
            # come once (a growing sequence, a varying batch), and a recipe kept for each made
            # that call ~40% dearer (its construction, arming its launcher, and the garbage
            # collector's passes over the recipes kept). A shape that comes again gets its recipe
            # (as does one whose class cannot launch it, below). What is kept of a shape is its
            # key's hash, an int: the keys themselves, ~19 tuples a call that the garbage collector
            # tracks, made its full passes over the heap more frequent (a rotation in place over a
            # growing sequence spent ~20% of its time in them on the CPU machine). Two keys of one
            # hash send the second shape to the planner (a recipe): slower, never wrong.
            seen, signature = self._seen, hash(key)
            if signature not in seen:
                if len(seen) >= MAX_RECIPES:
                    seen.clear()
                seen.add(signature)
                launched = self._class_launch(args, classed, outputs)
                if launched is not None:
                    return launched
        planned = self._class_plan(classed, args, outputs) if classed is not None else None
        if planned is None:
            plan, spec = self.plan(args, {}, out, positional=True)
            if classed is not None:
                self._learn_class(classed, plan, spec)
        else:
            plan, spec = planned
        recipe, launched = self._launch_planned(plan, spec)
        views = any(type(a) is StridedView for a in args)
        if out is None:
            self._remember(self._recipes, key, _ViewRecipe(recipe) if views else recipe)
        elif outputs is not None and not views:
            recipe.write_guard = call.WriteGuard(plan.sizes, plan.inputs, plan.outputs)
            self._remember(self._out_recipes, key, recipe)
        return recipe.finish(launched)

    def _resize_empty(self, args, kwargs, outputs) -> bool:
        """Resize out= tensors with zero elements to the result's shape, as torch resizes them (an
        `out=torch.empty(0)` to be filled), once every output's device and dtype would take the result:
        torch checks those first, and a call refused for them leaves its outputs as they were. True
        where one was resized."""
        if len(outputs) != self.num_outputs:
            return False  # the planner refuses the count
        _, _, _, tensors, device, shape, dtypes = self._analyze(self.bind(args, kwargs or {}))
        if any(o.device != device or not torch.can_cast(dtype, o.dtype) for o, dtype in zip(outputs, dtypes)):
            return False  # the planner says which, and why
        resized, strides = False, None
        for k, output in enumerate(outputs):
            if output.numel() == 0 and tuple(output.shape) != shape:
                label = "out" if self.num_outputs == 1 else f"out[{k}]"
                try:
                    output.resize_(shape)
                except RuntimeError as error:  # storage that is not resizable: a view's, numpy's
                    raise OutArgumentError(f"{label} has zero elements, and resizing it to the result's "
                                           f"shape {shape} failed: {error}") from None
                # laid out as a new result would be, as TensorIterator restrides a resized out: gelu(x.t(),
                # out=torch.empty(0)) gives a transposed out, as torch's ops do
                if strides is None:  # one layout for every output
                    strides = call.result_strides(shape, tensors.values())
                output.as_strided_(shape, strides)
                resized = True
        return resized

    def _missed_class(self, args, out, outputs, key):
        """The class key and walk of a call the steady path missed (_run's `key`, `out` and its plain
        `outputs`), or None: from the LeadingWalk of its leading_key (or its scaled form) where one is
        kept, else from the full class path (_class_key, _out_class_key), which keeps one where a kept
        ClassWalk gives the answer (_keep_leading)."""
        # a call whose signature differs from an earlier one's only in its leading size (a growing
        # sequence, a varying batch) takes its class key and walk from that size alone (LeadingWalk:
        # 48.4 -> 32.8 us of Python for a rotation in place over a growing sequence on the CPU machine,
        # a new batch beside a bias 22.2 -> 17.1; by the scaled key since session 36, a new transposed
        # batch 33.2 -> 27.0, one multiplied in place 40.9 -> 31.0: benchmarks/results/experiment_host_python_cpu.txt)
        walk = leading = scaled = None
        if self._leading_walks and (out is None or outputs is not None):
            walk, leading, scaled = self._leading_walk(key)
            if type(walk) is LeadingWalk:
                return walk.classed(leading[1]) if out is None else walk.out_classed(args, outputs, leading[1])
        noted = [] if walk is None else None
        classed = self._class_key(args, noted) if out is None else self._out_class_key(args, outputs, noted)
        if noted and classed is not None:
            self._keep_leading(key, classed, noted[0], args, outputs, leading, scaled)
        return classed

    def _leading_walk(self, key):
        """(the LeadingWalk kept for calls of this signature key, NO_WALK, or None where none is noted; the
        last leading key asked, or None; whether it is the scaled form). A key whose leading key has no
        walk noted asks the scaled form (a transposed batch's: its strides hold the leading size, so its
        plain leading key is new every call)."""
        walk = leading = None
        if _probe(key) in self._leading_probes:
            leading = leading_key(key)
            walk = None if leading is None else self._leading_walks.get(leading[0])
        if walk is None and self._scaled_probes and _scaled_probe(key) in self._scaled_probes:
            leading = leading_key(key, scaled=True)
            return None if leading is None else self._leading_walks.get(leading[0]), leading, True
        return walk, leading, False

    @staticmethod
    def _remember(recipes: dict, key, recipe):
        if len(recipes) >= MAX_RECIPES:
            recipes.clear()
        recipes[key] = recipe

    # -- torch.compile ------------------------------------------------------------------------

    def _op_call(self, args, kwargs, out):
        """Under torch.compile, a call is one torch.library op with a fake implementation, so
        the graph holds it whole (and AOTAutograd finds its derived backward)."""
        if out is not None:
            raise CallError(f"{self.__name__}(): out= is not supported under torch.compile; return the result")
        if _forward_ad._current_level >= 0:
            # forward mode (torch.func.jvp, jacfwd, forward_ad), whose tangents the op would drop: the
            # call runs eagerly (_recorded_call)
            return self._recorded_call(args, kwargs, out, "forward-mode automatic differentiation")
        values = self.bind(args, kwargs)
        ordered = [values[p] for p in self._params]
        if any(type(v) is StridedView for v in ordered):
            raise CallError(f"{self.__name__}(): a StridedView argument is not supported under torch.compile; "
                            f"pass a tensor (the view's clone(), say)")
        return self._op_result(ordered)

    def _op_result(self, ordered):
        """The call, every parameter by position, as the op of its pattern of tensors and numbers."""
        pattern = tuple(isinstance(v, _Tensor) for v in ordered)
        if _is_dynamo_compiling():
            # Dynamo runs traced_op_name as it traces: a pattern first seen there registers its op, not a graph break
            op = getattr(torch.ops.tritonize, torch_ops.traced_op_name(self._trace_key, pattern)).default
        else:
            op = torch_ops.op_for(self, pattern)
        result = op(*ordered)
        return result if self.num_outputs == 1 else tuple(result)

    # -- autograd -----------------------------------------------------------------------------

    def _recorded_call(self, args, kwargs, out, what: str, hint: str = ""):
        """A call recorded for autograd (reverse or forward mode), or made under torch.func's transforms
        (grad, vmap, ...): `what` names which, and `hint` the other way out, for the refusal of out=."""
        if out is not None:
            raise CallError(f"{self.__name__}(): out= does not support {what}; call it without out={hint}")
        values = self.bind(args, kwargs)
        ordered = [values[p] for p in self._params]
        if any(type(v) is StridedView and v.requires_grad for v in ordered):
            raise CallError(f"{self.__name__}(): a StridedView of a tensor that requires grad: tritonize records "
                            f"no gradient through views; call under torch.no_grad(), or view a detached base")
        functorch = _functorch_active()
        if functorch and _forward_ad._current_level < 0 and StridedView not in map(type, ordered):
            # vmap, grad, vjp, jacrev (not forward mode, whose tangents the op would drop; functorch's jvp
            # opens a forward_ad level): the op, whose autograd kernel records at the transform's level and
            # whose vmap kernel batches, without the Python that functorch puts around an
            # autograd.Function's every call: on the CPU machine per-example gradients of gelu take 400 us
            # a call where they took 1130 (torch's own 240), a vmap of gelu 66 where the decorator's own
            # batching took 62
            return self._op_result(ordered)
        positions = tuple(i for i, v in enumerate(ordered) if isinstance(v, torch.Tensor))
        template = [None if i in positions else v for i, v in enumerate(ordered)]
        # without Dynamo imported, no compiled function can be running
        transformed = functorch or _forward_ad._current_level >= 0
        apply = _untraced_apply() if transformed and "torch._dynamo" in sys.modules else transforms.Recorded.apply
        outputs = apply(self, template, positions, *[ordered[i] for i in positions])
        return outputs[0] if self.num_outputs == 1 else tuple(outputs)

    def _computed_in(self, args) -> tuple:
        """The dtypes of a call's values and of its outputs: two calls that agree compute alike."""
        _, vtypes, _, _, _, _, dtypes = self._analyze(dict(zip(self._params, args)))
        params = tuple(ParamSpec(p, vtypes[p]) for p in self._params)
        found = self._value_types.get(params)
        if found is None:
            found = self._value_types[params] = infer_value_types(self._ctx, params)
        return found, tuple(dtypes)

    def derivative(self, wrt: tuple, output: int | None = None) -> "PointwiseFunction":
        """The derived function (parameters, output gradients) -> gradients of `wrt`; of one output
        alone where `output` names it (parameters, that output's gradient)."""
        key = wrt if output is None else (wrt, output)
        found = self._derivatives.get(key)
        if found is None:
            with self._lock:
                found = self._derivatives.get(key)
                if found is None:
                    found = self._derivatives[key] = PointwiseFunction._from_context(
                        derive_backward(self._ctx, wrt, output))
        return found

    @_entry_point
    def backward_source(self, *args, **kwargs) -> str:
        """The derived gradient function, as scalar Python, for a call with these arguments
        (gradients of every floating-point tensor argument)."""
        values = self.bind(args, kwargs)
        wrt = tuple(p for p in self._params
                    if isinstance(values[p], torch.Tensor) and values[p].is_floating_point())
        return ast.unparse(self.derivative(wrt)._ctx.tree) + "\n"

    def _positional(self, args, kwargs):
        """All arguments by position (keywords and defaults filled in), or None to bind slowly."""
        count = len(self._params)
        if not kwargs and len(args) == count == self._positional_count:
            return args
        if len(args) > self._positional_count:
            return None  # too many, or a keyword-only parameter given by position: bind() says which
        rest, used = [], 0
        for index, param in enumerate(self._params[len(args):], start=len(args)):
            if param in kwargs and index < self._positional_only:
                return None
            if param in kwargs:
                rest.append(kwargs[param])
                used += 1
            elif param in self._ctx.defaults:
                rest.append(self._ctx.defaults[param])
            else:
                return None
        return args + tuple(rest) if used == len(kwargs) else None

    @_entry_point
    def source(self, *args, out=None, **kwargs) -> str:
        """The generated module (its text) that a call with these arguments runs."""
        path = self.source_path(*args, out=out, **kwargs)
        return display.SourceText(path.read_text(), path)

    @_entry_point
    def source_path(self, *args, out=None, **kwargs) -> Path:
        """Where in the cache the generated module for these arguments lives."""
        _, spec = self.plan(args, kwargs, out)
        return self.module_for(spec)[1]

    @property
    def specializations(self) -> dict:
        """Specializations generated so far in this process, and their files."""
        # list() copies in one step: another thread may add a specialization meanwhile
        return {spec: path for spec, (_, path) in list(self._modules.items())}

    # -- planning -----------------------------------------------------------------------------

    def bind(self, args, kwargs) -> dict:
        if not kwargs and len(args) == len(self._params) == self._positional_count:
            return dict(zip(self._params, args))
        try:
            bound = self._signature.bind(*args, **kwargs)
        except TypeError as exc:
            # a keyword of no parameter first, as Python's own call says (bind names a missing one first)
            unknown = [name for name in kwargs if name not in self._signature.parameters]
            reason = f"got an unexpected keyword argument {unknown[0]!r}" if unknown else exc
            raise ArgumentCountError(f"{self.__name__}(): {reason}") from None
        bound.apply_defaults()
        return dict(bound.arguments)

    def plan(self, args, kwargs, out, positional=False, approximate=None):
        """The call's plan and specialization; `positional`: args are every parameter in order;
        `approximate`: the approximations to use (None: those found exact, approximations.py)."""
        bound = dict(zip(self._params, args)) if positional else self.bind(args, kwargs)
        values, vtypes, kernel_values, tensors, device, shape, result_dtypes = self._analyze(bound)

        # every tensor parameter the kernel reads through a pointer, in parameter order; a 0-d
        # tensor has stride 0 everywhere
        inputs = [call.Operand(p, t, call.expanded_strides(t, shape)) for p, t in tensors.items()]
        given = self._given_outputs(out)

        if given is not None:
            outputs = []
            for k, (tensor, dtype) in enumerate(zip(given, result_dtypes)):
                label = "out" if self.num_outputs == 1 else f"out[{k}]"
                call.check_output(label, tensor, shape, dtype, device)
                outputs.append(call.Operand(label, tensor, list(tensor.stride())))
            call.check_overlap(outputs, inputs)  # outputs allocated below share no memory with anything
            perm = call.layout_permutation(shape, [o.strides for o in outputs] + [i.strides for i in inputs])
        else:
            perm = call.layout_permutation(shape, [i.strides for i in inputs])
            strides = call.allocation_strides(shape, perm)
            outputs = [call.Operand(f"out{k}", torch.empty_strided(shape, strides, dtype=dtype, device=device),
                                    strides) for k, dtype in enumerate(result_dtypes)]
        operands = inputs + outputs
        sizes, merged = call.coalesce(shape, perm, [o.strides for o in operands])
        for operand, strides in zip(operands, merged):
            operand.strides = strides
        tile = call.choose_tile(sizes, merged[:len(inputs)])
        if tile is not None:  # which operands (inputs, then outputs) see the dims after p as one run
            tile = (*tile, tuple(call.runs_together(sizes, strides, tile[0]) for strides in merged))
        paired = call.paired_operands(sizes, tile, inputs, outputs, self._read_params)
        traits = self._walk_traits(tuple(sizes), merged, tile, inputs, outputs, paired)
        moved, blocks, warps, chosen = self._size_choices(device, tuple(sizes), merged, tile, *traits)
        choices = dict(zip(SIZE_CHOICES, chosen))
        plan = call.CallPlan(shape, device, vtypes, kernel_values, inputs, outputs, tuple(sizes),
                             choices["index_dtype"], blocks, warps, moved)
        out_dtypes, result_dtypes = tuple(o.tensor.dtype for o in outputs), tuple(result_dtypes)
        spec = Specialization(
            params=tuple(ParamSpec(p, vtypes[p], _stored_dtype(kernel_values[p], vtypes[p]),
                                   by_value=vtypes[p].priority > 0 and p not in tensors) for p in self._params),
            out_dtypes=out_dtypes,
            rank=len(sizes), device_type=device.type,
            opmath=all(rule.opmath for rule in self.promotion), tile=tile,
            result_dtypes=result_dtypes if result_dtypes != out_dtypes else (),  # out= of other dtypes
            broadcast_dims=call.broadcast_dims(inputs), toolkit_libdevice=False, paired=paired,
            max_registers=call.max_registers(device, tile, traits[1], self._caps_registers), **choices)
        toolkit = self._toolkit_libdevice[spec.float32_tensors]
        if device.type == "cuda" and toolkit and extern_libs() is not None:
            spec = dataclasses.replace(spec, toolkit_libdevice=True)
        if approximate is None and approximations.checkable(spec):
            approximate = self._approximate(spec, device)
        if approximate:
            spec = dataclasses.replace(spec, approximate=approximate)
        return plan, spec

    def _walk_traits(self, sizes: tuple, merged, tile, inputs, outputs, paired=()) -> tuple:
        """(gathered, element bytes, vectors, bytes moved): what _size_choices reads of a walk's
        operands (sizes and strides after coalescing, the tile; `paired`: Specialization.paired):
        does some input load elements one by one (call.gathers; paired ones load in vectors), the
        widest element read or written in lines (call.line_bytes), can a tile's lines move in vectors
        (call.tile_vectors), and the bytes the launch reads and writes at least (call.moved_bytes, of
        the inputs the function reads and the outputs)."""
        return (tile is None and call.gathers(merged[:len(inputs)], _paired_inputs(paired, len(inputs))),
                call.line_bytes(inputs + outputs),
                tile is None or call.tile_vectors(list(sizes), tile, merged),
                call.moved_bytes(sizes, [i for i in inputs if i.label in self._read_params] + outputs))

    def _size_choices(self, device, sizes: tuple, merged, tile, gathered: bool, element_bytes: int, vectors: bool,
                      moved: int) -> tuple:
        """(bytes moved, blocks, warps, chosen): what a plan chooses by its sizes once its layout
        is known (sizes and strides after coalescing, the tile, the walk's traits: _walk_traits):
        the launch shape, and `chosen`, the Specialization fields that depend on the size, in
        SIZE_CHOICES's order (index width, eviction, masks, flat indexing, a 2-D grid, a dependent
        launch). plan() and _class_plan() both choose here."""
        dependent = call.dependent_launch(device, sizes, tile, self._costly_calls > 0, gathered, element_bytes, moved)
        blocks, warps = call.launch_shape(device, sizes, tile, self._costly_calls, gathered, element_bytes, vectors,
                                          dependent, moved / max(1, math.prod(sizes)), self._wide_threads,
                                          self._heavy_math)
        # (positional arguments and no dict: a class launch makes these choices on every call)
        if tile is None:  # a flat or decoded walk: no eviction hint, no 2-D grid
            evict, two_dimensional = False, False
        else:
            evict = call.evict_last(device, sizes, tile, blocks)
            two_dimensional = call.two_dimensional_grid(sizes, tile, blocks)
        chosen = (torch.int32 if call.fits_int32(sizes, merged, math.prod(blocks)) else torch.int64, evict,
                  call.unmasked(sizes, tile, blocks), call.flat_indexed(sizes, merged, tile), two_dimensional,
                  dependent)
        return moved, blocks, warps, chosen

    # -- calls planned by their class ------------------------------------------------------------
    # A call whose shape no call had before misses the steady path's memo (its key holds shapes)
    # and plans afresh: 174 us a call on an H100 host where every call brings a new length, eager
    # 7 (benchmarks/results/experiment_new_shapes_h100.txt). Where every tensor argument is dense
    # (contiguous, row-major strides) and of one shape, the plan is a flat walk of numel elements
    # whatever the shape; where their shapes broadcast (a bias beside a batch of rows, a per-row
    # scale, a rotary embedding's (s, 1, d) beside (s, h, d)), it is a walk of the runs of dims
    # along which the same tensors are broadcast. Other layouts (transposed, permuted, sliced) are
    # walked as the planner walks them (_layout_key): their specialization depends on the walk's
    # rank, tile and broadcast dims, not on its sizes. So a plan made once per class (dtypes,
    # alignment, the walk's structure, number types and device) serves every size: only the
    # size-dependent choices are made again.

    def _class_key(self, args, noted=None):
        """(class key, shape, device, walk) where every tensor argument is a plain tensor on one
        device: where all are row-major and of one shape of two elements or more, walk ("flat",
        strides); where they are row-major and their shapes broadcast to a shape whose dims group
        into two or more runs, each tensor broadcast along the whole of a run or along none of it
        (a 0-d tensor along all), walk ("broadcast", ...) (_broadcast_key); else the planner's walk,
        ("layout", ...) (_layout_key). A 0-d tensor in CPU memory is passed by value, as a number: its
        part is its dtype, and the walk leaves it out. None for other calls. `noted`: a list that
        gets (the ClassWalk, False) where a kept walk gives the answer (_run's, for _keep_leading;
        False: writes_apart's `dense` flag, which calls without out= do not ask)."""
        operands = self._class_operands(args)
        return None if operands is None else self._operands_class(*operands, noted=noted)

    def _class_operands(self, args):
        """(tensors, parts, shape, device, row-major strides or None, one_shape) of a call's arguments
        for _class_key: the tensors the kernel reads through pointers, each argument's part of the
        key, the first tensor's shape and device, that shape's row-major strides where every tensor
        has them (else None), and whether all have that shape; None where some argument keeps the
        call from a class."""
        if self._ctx.read_as:
            return None
        shape = device = None
        tensors, parts, flat, one_shape = [], [], True, True
        for value in args:
            if type(value) is _Tensor:
                if not value.shape and value.device.type == "cpu":  # passed by value (_by_value): like a number
                    parts.append(value.dtype)
                    continue
                if shape is None:
                    shape, device = tuple(value.shape), value.device
                elif value.device != device:  # the planner says why not
                    return None
                elif value.shape != shape:
                    flat = one_shape = False  # perhaps a broadcast (_broadcast_key checks every tensor)
                if flat and not call.is_row_major(value):
                    flat = False
                tensors.append(value)
                parts.append((value.dtype, value.data_ptr() & 15 == 0))
            elif isinstance(value, (_Tensor, StridedView)):
                return None
            else:
                parts.append(type(value))
        if shape is None:
            return None
        # (calls with a size 0 are refused by the caller)
        return tensors, parts, shape, device, call.row_major_strides(shape) if flat else None, one_shape

    def _operands_class(self, tensors, parts, shape, device, standard, one_shape, noted=None):
        """_class_key's answer from _class_operands': from the ClassWalk of earlier calls of their
        structure (class_walks.py) where there is one (noted in `noted` as _class_key notes it)."""
        if standard is not None:
            if math.prod(shape) < 2:
                return None
            return (tuple(parts), device, "flat"), shape, device, ("flat", standard)
        structure = dense_structure(tensors, parts, device) or leading_structure(tensors, parts, device)
        walk = self._class_walks.get(structure)
        if type(walk) is ClassWalk:
            if noted is not None:
                noted.append((walk, False))
            return walk.classed(tensors, device)
        if one_shape:  # strided tensors of one shape: no broadcast
            classed = self._layout_key(tensors, parts, device, shape)
        else:
            classed = self._broadcast_key(tensors, parts, device) or self._layout_key(tensors, parts, device)
        self._keep_walk(structure, walk, classed, tensors, device)
        return classed

    def _keep_walk(self, structure, walk, classed, tensors, device, outputs=None):
        """Note a call of this structure (`walk`: what _class_walks held of it) planned as `classed`;
        from its second call on, keep its ClassWalk (or that it has none)."""
        if classed is not None and walk is not NO_WALK:
            # a walk is kept from a structure's second call: one whose strides change with the size
            # (a slice of a transposed batch) never comes again, and making its walk would cost each
            # call. A structure seen once is noted by its hash (an int key beside the structures): kept
            # whole, such structures left ~11 tuples a call for the garbage collector to track. Two
            # structures of one hash keep the second's walk from its first call: checked as any is
            signature = hash(structure)
            if self._class_walks.get(signature) is not SEEN_ONCE:
                self._remember(self._class_walks, signature, SEEN_ONCE)
            else:
                del self._class_walks[signature]
                self._remember(self._class_walks, structure,
                               class_walk(classed, tensors, structure, device, outputs) or NO_WALK)

    def _keep_leading(self, key, classed, noted, args, outputs, asked, asked_scaled):
        """Keep the LeadingWalk of a call (`key`: its signature key; `classed`: its class key and walk,
        which a kept ClassWalk gave: `noted`, _class_key's; `asked`: the leading key _leading_walk asked
        last, or None, and `asked_scaled`, whether it is the scaled form), or NO_WALK where none checks
        out (class_walks.leading_walk). It is kept by the leading key, or by its scaled form where the
        ClassWalk's strides may hold the leading size (not any_leading_size: a transposed batch's)."""
        walk, dense = noted
        scaled = not walk.any_leading_size
        leading = asked if asked is not None and asked_scaled is scaled else leading_key(key, scaled)
        if leading is None or leading[0] in self._leading_walks:
            return
        positions = tuple(k for k, a in enumerate(args) if type(a) is _Tensor and not _by_value(a))
        made = leading_walk(classed, walk, leading[1], args, positions, outputs, dense, scaled)
        if len(self._leading_walks) >= MAX_RECIPES:
            self._leading_probes.clear()
            self._scaled_probes.clear()
        self._remember(self._leading_walks, leading[0], made or NO_WALK)
        if scaled:
            self._scaled_probes.add(_scaled_probe(key))
        else:
            self._leading_probes.add(_probe(key))

    def _out_class_key(self, args, outputs, noted=None):
        """_class_key's answer for a call with out= tensors (`outputs`: plain tensors, else None), keyed
        by the outputs' dtypes too, where each output has the call's shape and device, no stride-0 dim,
        and elements apart from every input's and earlier output's but where it is exactly one of the
        inputs (in place: call.writes_apart); else None, and the planner checks the call
        (check_overlap says what overlaps). Outputs laid out as plan() would allocate them take the
        class of the call without them; others (a strided slice written in place, a transposed out=)
        the planner's walk of the inputs and the outputs (_layout_key). `noted`: as _class_key's, with
        the `dense` flag this asked writes_apart with."""
        if outputs is None or len(outputs) != self.num_outputs:
            return None
        operands = self._class_operands(args)
        if operands is None:
            return None
        tensors, parts, shape, device, standard, one_shape = operands
        dtypes = tuple(o.dtype for o in outputs)
        if standard is None and one_shape:
            # strided tensors of one shape: one walk, of the inputs alone where the outputs are laid
            # out as plan() would allocate them (the permutation of the inputs' dims tells), else of
            # the inputs and the outputs
            structure = out_structure(tensors, outputs, parts, device)
            if not call.writes_apart(tensors, outputs, shape, device, dense=structure[0] == "dense"):
                return None
            walk = self._class_walks.get(structure)
            classed = walk.classed(tensors, device, outputs) if type(walk) is ClassWalk else None
            # (a kept walk of the inputs alone serves outputs laid out as the planner allocates: checked here)
            if classed is not None and (walk.writes or _laid_out_as(outputs, shape, classed[3][4])):
                if noted is not None:
                    noted.append((walk, structure[0] == "dense"))
            else:
                perm = call.layout_permutation(shape, [t.stride() for t in tensors])
                laid_out = _laid_out_as(outputs, shape, call.allocation_strides(shape, perm))
                classed = self._layout_key(tensors, parts, device, shape, None if laid_out else outputs, perm)
                if type(walk) is not ClassWalk:
                    self._keep_walk(structure, walk, classed, tensors, device, outputs)
            return None if classed is None else ((classed[0], "out", dtypes), *classed[1:])
        classed = self._operands_class(*operands, noted=noted)
        if classed is None:
            return None
        key, shape, device, walk = classed
        if not call.writes_apart(tensors, outputs, shape, device):
            return None
        # a flat or broadcast walk's row-major tensors lay the outputs out row-major (size-1 dims aside):
        # the flat walk's strides, the broadcast walk's `standard`; a layout walk's allocation
        allocated = walk[1] if walk[0] == "flat" else walk[4]
        if not _laid_out_as(outputs, shape, allocated):
            if noted:
                noted.clear()  # not the kept walk's answer
            # the planner's walk orders the dims by the outputs' strides first
            classed = self._layout_key(tensors, parts, device, shape if one_shape else None, outputs)
            if classed is None:
                return None
            key, shape, device, walk = classed
        return (key, "out", dtypes), shape, device, walk

    def _layout_key(self, tensors, parts, device, shape=None, outputs=None, perm=None):
        """_class_key's answer for tensors of any strides (none empty, two elements or more in all;
        `shape`: theirs, where all have one): the planner's walk of them, ("layout", sizes, each
        tensor's strides, tile, the outputs' allocation strides, None), their dims ordered and
        coalesced as plan() orders and coalesces them. Given `outputs` (out= tensors), the walk of
        the tensors and them, ("layout", sizes, each tensor's strides, tile, None, each output's
        strides), ordered by their strides first as plan() orders a call with out=. The class key
        holds what the specialization depends on of the walk (its rank, its tile, the dims each
        tensor is broadcast along) beside dtypes, alignment and number types. `perm`: the tensors'
        call.layout_permutation where the caller has it (a walk without outputs)."""
        if shape is None:
            try:
                shape = call.broadcast_shape(dict(enumerate(t.shape for t in tensors)))
            except BroadcastError:
                return None  # the planner says why
            expanded = [call.expanded_strides(t, shape) for t in tensors]
        else:  # none is broadcast: each keeps its strides
            expanded = [list(t.stride()) for t in tensors]
        if 0 in shape or math.prod(shape) < 2:
            return None  # empty calls launch nothing
        given = [list(o.stride()) for o in outputs] if outputs else []
        if perm is None or outputs:  # `perm`: the caller's layout_permutation of the tensors alone
            perm = call.layout_permutation(shape, given + expanded)  # plan() orders by the out= tensors first
        # outputs allocated in the order perm gives coalesce with every dim: plan() merges as here
        sizes, walked = call.coalesce(shape, perm, expanded + given)
        walked, written = walked[:len(tensors)], walked[len(tensors):]
        sizes, tile = tuple(sizes), call.choose_tile(sizes, walked)
        if tile is not None:
            tile = (*tile, (*[call.runs_together(sizes, strides, tile[0]) for strides in walked + written],
                            *[True] * (self.num_outputs - len(written))))
        parts = _masked_parts(parts, tensors, [tuple(stride == 0 for stride in strides) for strides in walked])
        allocated = None if outputs else call.allocation_strides(shape, perm)
        walk = ("layout", sizes, walked, tile, allocated, written or None)
        return (parts, device, "layout", len(sizes), tile), shape, device, walk

    def _broadcast_key(self, tensors, parts, device):
        """_class_key's answer for row-major tensors of several shapes: the shape they broadcast to,
        and the walk the planner makes of it, ("broadcast", sizes, masks, expanded, standard). Its
        dims of two elements or more group into runs of the dims along which the same tensors are
        broadcast (coalesced, as call.coalesce merges them); `sizes` holds each run's elements and
        each tensor's mask says along which runs it is broadcast (a bias beside a batch of rows:
        (False, False) and (True, False); a per-row scale: (False, True)). `expanded`: each
        tensor's strides broadcast to the shape where some dim of it has size 1 (else None, as
        they do not matter then); `standard`: the shape's row-major strides. None for one run."""
        shapes = [tuple(t.shape) for t in tensors]
        for tensor in tensors:  # _class_key checked their devices; a size 0 is refused below
            if not call.is_row_major(tensor):
                return None
        broadcast = call.broadcast_runs(shapes)
        if broadcast is None:
            return None  # not a broadcast, or empty: the planner's (it says why, or launches nothing)
        shape, runs = broadcast
        if len(runs) < 2:
            return None
        masks = list(zip(*[run[0] for run in runs]))  # each tensor's, from each run's
        parts = _masked_parts(parts, tensors, masks)
        # the outputs' layout follows the operands' strides where some dim has size 1 (_class_sizes)
        expanded = [call.expanded_strides(t, shape) for t in tensors] if 1 in shape else None
        walk = ("broadcast", tuple([math.prod([shape[d] for d in dims]) for _, dims in runs]), masks, expanded,
                call.row_major_strides(shape))
        return (parts, device, "broadcast"), shape, device, walk

    def _learn_class(self, classed, plan, spec):
        """Keep a fully planned call's specialization (less its size-dependent choices) for its
        class (`classed`, _class_key's): the template _class_plan starts from, where the planner
        walked as the class does (one flat walk; the runs of a broadcast, each tensor's strides
        those of its mask; a layout's walk, its tile and the outputs' layout)."""
        kind, walk = classed[3][0], classed[3]
        inputs, outputs = plan.inputs, plan.outputs
        allocated = written = None
        if kind == "layout":
            _, sizes, expected, tile, allocated, written = walk
            masks = [tuple(stride == 0 for stride in strides) for strides in expected]
        else:
            masks = [(False,)] * len(inputs) if kind == "flat" else walk[2]
            sizes = (plan.numel,) if kind == "flat" else walk[1]
            expected, tile = [run_strides(sizes, mask) for mask in masks], None
        written = written or [list(call.row_major_strides(sizes))] * len(outputs)
        walked = (spec.rank == len(sizes) and plan.sizes == sizes and spec.tile == tile
                  and [o.strides for o in inputs] == expected and [o.strides for o in outputs] == written
                  and (allocated is None or all(call.same_walk(plan.shape, o.tensor.stride(), allocated)
                                                for o in outputs)))
        if not walked:
            return
        gathered, element_bytes, vectors, moved = self._walk_traits(
            plan.sizes, [o.strides for o in inputs + outputs], spec.tile, inputs, outputs, spec.paired)
        read = tuple((o.tensor.dtype.itemsize, mask) for o, mask in zip(inputs, masks)
                     if o.label in self._read_params)
        template = ClassTemplate(dataclasses.replace(spec, approximate=()), dict(plan.vtypes), element_bytes,
                                 sum(o.tensor.dtype.itemsize for o in outputs), read)
        if (kind != "layout" and (gathered or not vectors)) or moved != template.moved_bytes(sizes):
            return  # not the walk _class_sizes and ClassTemplate.moved_bytes describe
        if len(self._class_templates) >= MAX_RECIPES:
            self._class_templates.clear()
        self._class_templates[classed[0]] = template

    def _class_plan(self, classed, args, given=None):
        """(plan, spec) of a call (`classed`, _class_key's or _out_class_key's) from its class's
        template, making again only what depends on the size, as `plan` makes it (_class_sizes),
        into the `given` out= tensors if any (laid out as the walk writes them: _out_class_key checked
        that); None where the class has no template yet (or the arguments' kinds differ)."""
        template = self._class_templates.get(classed[0])
        if template is None:
            return None
        (_, shape, device, _), vtypes = classed, template.vtypes
        kernel_values = {}
        for param, value in zip(self._params, args):
            vtype, kernel_values[param] = call.classify(param, value, self._ctx.scalar_annotations.get(param))
            if vtype != vtypes[param]:
                return None
        spec, sizes, walked, out_strides, allocated, blocks, warps, moved, _ = self._class_sizes(classed, template)
        tensors = [(p, v) for p, v in kernel_values.items() if type(v) is _Tensor and not _by_value(v)]
        inputs = [call.Operand(p, v, strides) for (p, v), strides in zip(tensors, walked)]
        if given is None:
            outputs = [call.Operand(label, torch.empty_strided(shape, allocated, dtype=dtype, device=device),
                                    list(strides))
                       for label, dtype, strides in zip(template.out_labels, spec.out_dtypes, out_strides)]
        else:  # labelled as plan() labels given outputs
            labels = ["out"] if len(given) == 1 else [f"out[{k}]" for k in range(len(given))]
            outputs = [call.Operand(label, out, list(strides))
                       for label, out, strides in zip(labels, given, out_strides)]
        plan = call.CallPlan(shape, device, vtypes, kernel_values, inputs, outputs, sizes, spec.index_dtype,
                             blocks, warps, moved)
        return plan, spec

    def _class_sizes(self, classed, template) -> tuple:
        """What a call of a class with a template makes again for its size, as `plan` makes
        it: (spec, sizes, each input's strides, each output's strides (of the walk), the outputs'
        allocation strides (None for out= tensors the walk holds), blocks, warps, bytes moved, the
        key of spec in template.specs). The specialization's size-dependent choices: the dependent
        launch, index width, masks, eviction, and the approximations (and a layout's launch shape:
        gathered loads, vectors)."""
        _, shape, device, walk = classed
        numel = math.prod(shape)
        tile, gathered, vectors = None, False, True  # a flat or broadcast walk reads every input in lines
        if walk[0] == "layout":
            _, sizes, walked, tile, allocated, written = walk
            out_strides = written or [list(call.row_major_strides(sizes))] * len(template.out_labels)
            gathered = tile is None and call.gathers(walked, template.paired_inputs)
        else:
            if walk[0] == "flat":
                sizes, out_strides, allocated = (numel,), [[1]] * len(template.out_labels), walk[1]
                expanded, walked = [allocated] * template.tensor_count, [[1] for _ in range(template.tensor_count)]
            else:
                _, sizes, masks, expanded, allocated = walk
                walked = [run_strides(sizes, mask) for mask in masks]
                out_strides = [list(call.row_major_strides(sizes))] * len(template.out_labels)
            if 1 in shape:  # a size-1 dim's place in the outputs' layout follows the operands' strides
                allocated = call.allocation_strides(shape, call.layout_permutation(shape, expanded))
            # where every dim holds two elements or more, the row-major tensors order them row-major
        strides = walked + out_strides
        if tile is not None:
            vectors = call.tile_vectors(list(sizes), tile, strides)
        moved, blocks, warps, chosen = self._size_choices(
            device, sizes, strides, tile, gathered, template.element_bytes, vectors, template.moved_bytes(sizes))
        specs = template.specs
        spec = specs.get(chosen)
        if spec is None:  # dataclasses.replace takes ~4 us: one specialization per set of choices
            spec = specs[chosen] = dataclasses.replace(template.base, **dict(zip(SIZE_CHOICES, chosen)))
        approximate = template.approximate
        if approximate is None:
            # one verdict for every specialization of the class, kept once settled (as a recipe keeps
            # its specialization): building approximations.exact_rank1's Specialization and hashing
            # it, and reading the environment, took several us of each 16-bit class launch
            approximate = self._approximate(spec, device) if approximations.checkable(spec) else ()
            if approximate is None:  # not checked now: ask again on the next call
                approximate = ()
            else:
                template.approximate = approximate
        if approximate:
            chosen = (chosen, approximate)
            approximated = specs.get(chosen)
            if approximated is None:
                approximated = specs[chosen] = dataclasses.replace(spec, approximate=approximate)
            spec = approximated
        # `chosen`, the key of `spec` among the template's, keys its ClassLaunch with blocks and warps
        # (hashing a Specialization, its fields and theirs, took ~1 us of a ~37 us class launch)
        return spec, sizes, walked, out_strides, allocated, blocks, warps, moved, chosen

    def _approximate(self, spec, device) -> tuple | None:
        """The approximations a CUDA specialization may use (approximations.verified's, kept per
        function); None where no check could run now (it uses none then)."""
        key = (approximations.exact_rank1(spec), device)  # the verdict holds for every rank and layout
        found = self._approximations.get(key)
        if found is None:
            found = approximations.verified(self, key[0], device)
            if found is not None:
                self._approximations[key] = found
        return found

    def run_on(self, inputs, out_dtypes, approximate) -> list:
        """The outputs of the rank-1 kernel with these approximations on 1-D inputs of equal length,
        into fresh tensors of `out_dtypes` (the approximations' check)."""
        outputs = [torch.empty_like(inputs[0], dtype=dtype) for dtype in out_dtypes]
        plan, spec = self.plan(inputs, {}, outputs[0] if self.num_outputs == 1 else outputs, positional=True,
                               approximate=approximate)
        assert spec.rank == 1 and spec.approximate == tuple(approximate), spec  # what the check is about
        self._launch_planned(plan, spec)
        return outputs

    def _analyze(self, values):
        """Argument kinds, the device, the broadcast shape and the output dtypes of a call."""
        vtypes, kernel_values = {}, {}
        read_as = self._ctx.read_as
        for param, value in values.items():
            vtypes[param], kernel_values[param] = call.classify(
                param, value, self._ctx.scalar_annotations.get(param), read_as.get(param))
        tensors = {p: v for p, v in kernel_values.items() if isinstance(v, (torch.Tensor, StridedView))}
        device = call.common_device(tensors)
        # 0-d tensors in CPU memory (beside GPU tensors, or not) are passed by value (ParamSpec.by_value):
        # they take no part in the walk
        tensors = {p: t for p, t in tensors.items() if not _by_value(t)}
        shape = call.broadcast_shape({p: t.shape for p, t in tensors.items()})
        computed = self._computed_types(tuple(ParamSpec(p, vtypes[p]) for p in self._params))
        promoted = {p: _promotion_operand(kernel_values[p] if p in read_as else v, read_as.get(p))
                    for p, v in values.items()}
        result_dtypes = [output_dtype(rule, promoted, vt) for rule, vt in zip(self.promotion, computed)]
        return values, vtypes, kernel_values, tensors, device, shape, result_dtypes

    def _fake_outputs(self, args):
        """Outputs of the right shape, dtype, strides and device, computing nothing: what
        torch.compile's fake tensors need."""
        values, _, _, tensors, device, shape, dtypes = self._analyze(dict(zip(self._params, args)))
        strides = call.result_strides(shape, tensors.values())
        outputs = [torch.empty_strided(shape, strides, dtype=d, device=device) for d in dtypes]
        return outputs[0] if self.num_outputs == 1 else tuple(outputs)

    def _computed_types(self, params):
        found = self._computed.get(params)
        if found is None:
            found = self._computed[params] = infer_output_types(self._ctx, params)
        return found

    def _given_outputs(self, out):
        if out is None:
            return None
        if self.num_outputs == 1:
            if isinstance(out, (tuple, list)):
                if len(out) != 1:
                    raise OutArgumentError(f"{self.__name__} returns one value, but out= has {len(out)} tensors")
                out = out[0]
            return [out]
        if not isinstance(out, (tuple, list)) or len(out) != self.num_outputs:
            count = len(out) if isinstance(out, (tuple, list)) else 1
            raise OutArgumentError(f"{self.__name__} returns {self.num_outputs} values, so out= needs a tuple of "
                                   f"{self.num_outputs} tensors, got {count}")
        return list(out)

    # -- generation and launch ----------------------------------------------------------------

    def module_for(self, spec: Specialization):
        found = self._modules.get(spec)
        if found is not None:
            return found
        with self._lock:
            found = self._modules.get(spec)
            if found is None:
                source = generate_module(self._ctx, spec, __version__)
                path = cache.write_module(self._stem(spec), source)
                log.generated(self.__name__, spec, path, source)
                found = self._modules[spec] = (cache.import_module(path), path)
        return found

    def _stem(self, spec: Specialization) -> str:
        dtypes = [SHORT_NAMES[p.vtype.dtype] for p in spec.params if p.vtype.priority != PYTHON]
        parts = [self.__name__, f"rank{spec.rank}", "_".join(dict.fromkeys(dtypes)) or "scalars"]
        if spec.device_type != "cuda":
            parts.append(spec.device_type)
        if spec.approximate:
            parts.append("approx")
        return "_".join(parts)

    def _launch_planned(self, plan, spec):
        """Launch a planned call (its outputs are allocated or given); returns the recipe
        that repeats it for arguments of the same signature, and the outputs."""
        module = self.module_for(spec)[0] if plan.numel > 0 else None
        grid = call.launch_grid(plan, spec.tile, spec.two_dimensional_grid)
        recipe = LaunchRecipe(
            launch=module.launch if module is not None else None, **self._kernel_arguments(spec),
            strides=kernel_strides(plan, spec), sizes=plan.sizes, numel=plan.numel,
            grid=grid, blocks=plan.blocks, warps=plan.warps, tiled=spec.tile is not None, device=plan.device,
            out_shape=plan.shape, out_strides=tuple(plan.outputs[0].tensor.stride()) if plan.outputs else (),
            out_dtypes=spec.out_dtypes, single=self.num_outputs == 1,
            extern_libs=extern_libs() if spec.toolkit_libdevice else None,
            kernels=self._kernels if plan.device.type == "cuda" else None,
            pointer_picks=_pointer_picks(spec),
        )
        outputs = [o.tensor for o in plan.outputs]
        recipe.run([_kernel_operand(plan.kernel_values[p]) for p in self._params], outputs)
        return recipe, outputs

    def _kernel_arguments(self, spec) -> dict:
        """Where the kernel's arguments come from among the call's (all parameters, by position):
        the pointer tensors' positions, and the numbers' positions (0-d tensors passed by value
        among them), the types they are converted to (annotations, read_as; a tensor's value: the
        Python kind of by_value_dtype) and their names (for errors)."""
        numbers = [p for p in spec.params if not p.is_pointer]
        return dict(
            tensor_positions=tuple(self._params.index(p.name) for p in spec.params if p.is_pointer),
            scalar_positions=tuple(self._params.index(p.name) for p in numbers),
            scalar_types=tuple(_by_value_type(p.loaded_dtype) if p.by_value
                               else call.converted_number_type(self._ctx.scalar_annotations.get(p.name),
                                                               self._ctx.read_as.get(p.name)) for p in numbers),
            scalar_labels=tuple(p.name for p in numbers))

    def _class_launch(self, args, classed, given=None):
        """Launch a CUDA call (`args`: every parameter by position; `classed`: _class_key's or
        _out_class_key's, with the `given` out= tensors, which _out_class_key found laid out as the
        walk writes them) of a class with a template, sized as _class_sizes sizes it, with a kernel
        Triton compiled for another size of the class (one of the same kernel_key), on a grid of
        this size, with no recipe; its result, or None where the class has no template or no such
        kernel is compiled yet. The class key fixes every parameter's value type (_class_plan's
        check): the tensors' dtypes, and the numbers' types, which the kernel takes converted as the
        steady path does."""
        template = self._class_templates.get(classed[0])
        if template is None:
            return None
        spec, sizes, walked, out_strides, allocated, blocks, warps, _, chosen = self._class_sizes(classed, template)
        found = template.launches.get((chosen, blocks, warps))
        if found is None:
            found = template.launches[(chosen, blocks, warps)] = ClassLaunch(
                launch=self.module_for(spec)[0].launch, **self._kernel_arguments(spec), blocks=blocks,
                warps=warps, tiled=spec.tile is not None, device=classed[2],
                linked=spec.toolkit_libdevice and extern_libs() is not None, kernels=self._kernels,
                strided=strided_tensors(spec))
        shape, device, numel = classed[1], classed[2], math.prod(classed[1])
        outputs = given or [torch.empty_strided(shape, allocated, dtype=dtype, device=device)
                            for dtype in spec.out_dtypes]
        grid = call.walk_grid(sizes, numel, blocks, spec.tile, spec.two_dimensional_grid)
        if len(found.strided) != len(walked):
            walked = [walked[k] for k in found.strided]
        if not found.run(args, outputs, (*walked, *out_strides), sizes, numel, grid):
            return None
        return outputs[0] if self.num_outputs == 1 else tuple(outputs)

    # -- inspection: dsl/display.py -------------------------------------------------------------

    @_entry_point
    def explain(self, *args, out=None, **kwargs) -> str:
        """How a call with these arguments is planned, in words: broadcast shape, output layout,
        coalesced rank, index width, and the cache file of its kernel."""
        return display.explain(self, args, kwargs, out)

    def _repr_markdown_(self) -> str:
        return display.function_markdown(self)

    def _repr_html_(self) -> str:
        return display.function_html(self)


MAX_RECIPES = 4096
# what PointwiseFunction._class_walks holds of a structure's hash after its first call (SEEN_ONCE), and
# of a structure instead of its ClassWalk (NO_WALK)
SEEN_ONCE, NO_WALK = "seen once", "no walk"
# the Specialization fields that depend on a call's size, in the order _size_choices gives them
SIZE_CHOICES = ("index_dtype", "evict_last", "unmasked", "flat_indexed", "two_dimensional_grid", "dependent_launch")


def _masked_parts(parts: list, tensors: list, masks: list) -> tuple:
    """A class key's parts (each tensor's (dtype, aligned), each number's type) with each tensor's
    mask of the walk's runs or dims it is broadcast along, and whether it is 0-d: a 0-d tensor is
    loaded once, with no strides, on the GPU, where a tensor of size-1 dims is broadcast as well
    but takes strides."""
    flags, masked = iter(zip(masks, tensors)), []
    for part in parts:
        if type(part) is tuple:  # a tensor's
            mask, tensor = next(flags)
            part = (*part, mask, not tensor.shape)
        masked.append(part)
    return tuple(masked)


def run_strides(sizes: tuple, mask: tuple) -> list:
    """A row-major tensor's strides in a walk of runs of `sizes` elements, broadcast along the runs
    its mask marks (PointwiseFunction._broadcast_key): 0 there, and elsewhere the elements of the
    runs after it that it is not broadcast along."""
    strides, running = [0] * len(sizes), 1
    for run in range(len(sizes) - 1, -1, -1):
        if not mask[run]:
            strides[run] = running
            running *= sizes[run]
    return strides


class ClassTemplate:
    """What a class's calls share whatever their size (PointwiseFunction._learn_class): its
    specialization less the size-dependent choices (`base`), the parameters' value types, and the
    walk's traits (_walk_traits) less the bytes moved, which ClassTemplate.moved_bytes gives; and,
    made as calls come, the specializations by their choices and the ClassLaunch of each."""

    def __init__(self, base, vtypes: dict, element_bytes: int, out_bytes: int, read: tuple):
        self.base, self.vtypes, self.element_bytes = base, vtypes, element_bytes
        self.tensor_count = sum(p.is_pointer for p in base.params)
        self.paired_inputs = _paired_inputs(base.paired, self.tensor_count)  # which load in vectors (call.gathers)
        # the bytes moved each element (the outputs', the inputs' read whole), and those moved each
        # element of the runs a mask leaves (the inputs read broadcast, their bytes by their masks)
        by_mask = {}
        for size, mask in read:
            by_mask[mask] = by_mask.get(mask, 0) + size
        self.whole_bytes = out_bytes + sum(size for mask, size in by_mask.items() if not any(mask))
        self.broadcast_bytes = tuple((mask, size) for mask, size in by_mask.items() if any(mask))
        self.out_labels = tuple(f"out{k}" for k in range(len(base.out_dtypes)))  # as plan() names them
        self.specs = {}  # the specialization by its size-dependent choices (and approximations)
        self.approximate = None  # the approximations its CUDA specializations use, once settled
        self.launches = {}  # ClassLaunch by (the specialization's key among specs, blocks, warps)

    def moved_bytes(self, sizes: tuple) -> int:
        """call.moved_bytes of a walk of these runs' sizes: the outputs move each element, an input
        each element of the runs it is not broadcast along."""
        moved = self.whole_bytes * math.prod(sizes)
        for mask, size in self.broadcast_bytes:
            moved += size * math.prod([n for n, broadcast in zip(sizes, mask) if not broadcast])
        return moved


def signature_key(args) -> tuple:
    """What a call's plan and compiled kernel depend on: each tensor's dtype, shape, strides,
    device and 16-byte alignment (Triton specializes on it), and each number's type. A
    StridedView keys by the same metadata (its `key`); the steady path in
    PointwiseFunction.__call__ keys it by its bare type, under which no recipe is stored, so
    calls with views miss the steady path and find their recipe in _run."""
    return tuple((a.dtype, a.shape, a.stride(), a.device, a.data_ptr() & 15 == 0)
                 if isinstance(a, torch.Tensor) else a.key if type(a) is StridedView else type(a) for a in args)


_is_grad_enabled, _Tensor = torch.is_grad_enabled, torch.Tensor
# what the steady path asks: is Dynamo tracing this call (then the op must reach its graph)? Dynamo
# folds both functions to True; this one is a bare `return False` outside it, half the cost of
# torch.compiler.is_compiling. Tracers that are not Dynamo hand over tensor subclasses (fake,
# functional), which miss the steady path by their type
_is_dynamo_compiling = getattr(torch.compiler, "is_dynamo_compiling", torch.compiler.is_compiling)
# a dual level of forward-mode AD (torch.autograd.forward_ad) is open where its _current_level is 0 or
# more: its dual tensors are plain tensors to the steady path, which would drop their tangents
_forward_ad = torch.autograd.forward_ad
# a torch.func transform (vmap, grad, jvp) is running: its tensors have no storage for a kernel to read.
# Asked on the steady path (~0.1 us with the dual-level test, on the CPU machine); found instead by the
# error their data_ptr() raises, a vmap call took ~40 us more (results/experiment_host_python_cpu.txt)
_functorch_active = torch._C._are_functorch_transforms_active


@functools.lru_cache(maxsize=None)
def _untraced_apply():
    """transforms.Recorded.apply, which Dynamo leaves alone: under torch.func's transforms and forward
    mode a call is that autograd.Function (the op's autograd cannot take them), so called inside a
    compiled function it runs eagerly, its kernels' launching Python not handed to Dynamo frame by
    frame. Asked only where torch.compile imported Dynamo (~0.9 s, which tritonize does not pay)."""
    return torch._dynamo.disable(transforms.Recorded.apply)


def kernel_strides(plan, spec) -> tuple:
    """The strides the kernel takes, each tensor's (0-d inputs on the GPU take none), then the outputs'."""
    strides = [tuple(plan.inputs[k].strides) for k in strided_tensors(spec)]
    return tuple(strides + [tuple(o.strides) for o in plan.outputs])


def strided_tensors(spec) -> tuple:
    """The positions, among the tensors the kernel takes pointers to, of those whose strides it
    takes: all but 0-d ones on the GPU, which it loads once (Specialization.has_strides)."""
    return tuple(k for k, p in enumerate([p for p in spec.params if p.is_pointer]) if spec.has_strides(p))


def kernel_tail(strides: tuple, sizes: tuple, numel: int, blocks: tuple, tiled: bool) -> tuple:
    """The kernel's arguments after the pointers and numbers, flat, as Triton binds them: the
    strides, the sizes after the first (a tile kernel takes them all), the element count, the blocks."""
    return (*[s for each in strides for s in each], *(sizes if tiled else sizes[1:]), numel, *blocks)


def kernel_key(launch, blocks: tuple, warps: int, device, linked: bool, integer_classes: tuple,
               tensors: tuple) -> tuple:
    """What Triton's compiled kernel for a launch depends on beyond the module (`launch`, its
    JIT function): the block and warps, the device, whether a toolkit's libdevice is linked, each
    integer argument's class (launch.integer_class of each of kernel_tail's: sizes, strides and the
    element count; the numbers among the arguments are typed and never specialized), and each
    pointer's (dtype, 16-byte aligned?), of the `tensors` it points into (the inputs, then the
    outputs). Specializations of equal code share a module (its file is named by a hash of its
    code, comments aside): a tensor read as float64 loads any dtype, and a kernel may link a
    toolkit's libdevice or Triton's. Launches of one key run one compiled kernel."""
    return (launch, blocks, warps, device, linked, integer_classes,
            tuple((t.dtype, t.data_ptr() % 16 == 0) for t in tensors))


class KernelArguments:
    """What a launch takes from a call's arguments (all parameters, by position): the fields of
    PointwiseFunction._kernel_arguments."""

    def kernel_scalars(self, args) -> list:
        """The numbers among the arguments, as the kernel takes them."""
        return [_kernel_scalar(args[i], kind, label)
                for i, kind, label in zip(self.scalar_positions, self.scalar_types, self.scalar_labels)]


class ClassLaunch(KernelArguments):
    """The launch of a class's calls of one specialization, block and warps, whatever their size
    (PointwiseFunction._class_launch): a call's grid and integer arguments are its own, and its
    kernel is the one Triton compiled for another call of the same kernel_key, launched directly
    (launch.grid_launcher). No recipe is kept per size."""

    def __init__(self, **fields):
        self.__dict__.update(fields)
        # grid_launcher's launch functions by the integer classes of kernel_tail and the outputs' alignment
        self.launchers = {}

    def run(self, args, outputs, strides, sizes, numel, grid) -> bool:
        """Launch on these arguments (all parameters, by position) into fresh `outputs` on `grid`
        (call.walk_grid's); False (nothing launched) where no kernel is compiled for their kernel_key."""
        tail = kernel_tail(strides, sizes, numel, self.blocks, self.tiled)
        written = [o.data_ptr() for o in outputs]
        # the class key holds the inputs' alignment; out= tensors may be misaligned (the odd elements
        # of rows written in place), and Triton specialized the kernel on each pointer's alignment
        found = (integer_classes(tail), tuple([pointer & 15 == 0 for pointer in written]))
        launch = self.launchers.get(found)
        if launch is None:
            tensors = [args[i] for i in self.tensor_positions]
            compiled = self.kernels.get(kernel_key(self.launch, self.blocks, self.warps, self.device, self.linked,
                                                   found[0], (*tensors, *outputs)))
            # None, too, where Triton's launcher is not one grid_launcher knows or a profiler's hook
            # is registered (not kept: the hook may go)
            launch = grid_launcher(compiled, self.device) if compiled is not None else None
            if launch is None:
                return False
            self.launchers[found] = launch
        if _several_gpus() and self.device.index != torch.cuda.current_device():
            return False  # the launcher launches on the current device's context (LaunchRecipe.run's way)
        launch(grid[0], grid[1] if len(grid) == 2 else 1,
               (*[args[i].data_ptr() for i in self.tensor_positions], *written,
                *(self.kernel_scalars(args) if self.scalar_positions else ()), *tail))
        return True


class LaunchRecipe(KernelArguments):
    """A planned call with the arguments left out: allocate the outputs and launch.
    `recipe(args)` runs it. `call(args, pointers)` is the steady path's entry (`pointers`:
    the tensor arguments' data_ptr(), in order); on CUDA it becomes a closure over the
    compiled kernel's own launcher once that launcher has launched this call once."""

    def __init__(self, **fields):
        self.__dict__.update(fields)
        self.cuda = self.device.type == "cuda"
        self.tail = kernel_tail(self.strides, self.sizes, self.numel, self.blocks, self.tiled)
        self.fast = None  # launch(*kernel args), once Triton has compiled the kernel
        self.kernels = fields.get("kernels")  # the function's compiled kernels by kernel_key (CUDA)
        self.launched = False  # has the recipe launched once (see run)
        self.write_guard = None  # a call.WriteGuard, for a recipe of calls with out=
        self.fast_kind = None  # "direct" (launch.direct_launcher) or "runner" (CompiledKernel[grid])
        self.call = self.first_calls
        self.write = self.first_writes

    def first_calls(self, args, pointers):
        return self(args)

    def first_writes(self, args, pointers, out) -> bool:
        """`write` until the launcher is proven: into `out` (a tensor, or a tuple or list of
        them) if the write guard allows these pointers (the tensors', then the outputs')."""
        if not self.write_guard.allows(self.kernel_pointers(pointers)):
            return False
        self.run(args, [out] if isinstance(out, torch.Tensor) else list(out))
        return True

    def __call__(self, args):
        outputs = [torch.empty_strided(self.out_shape, self.out_strides, dtype=d, device=self.device)
                   for d in self.out_dtypes]
        self.run(args, outputs)
        return self.finish(outputs)

    def finish(self, outputs):
        return outputs[0] if self.single else tuple(outputs)

    def run(self, args, outputs):
        if self.numel == 0:
            return
        tensors = [args[i] for i in self.tensor_positions]
        scalars = self.kernel_scalars(args)
        if not self.cuda:
            # masked-off lanes hold zeros in the interpreter; their 0/0 must not warn. Its first run of a
            # kernel parses the kernel's source (COMPILE_LOCK: where parses race, one at a time)
            with _INTERPRETER_LOCK, COMPILE_LOCK, numpy.errstate(all="ignore"):
                self.launch(*tensors, *outputs, *scalars, *self.strides, self.sizes, self.numel, self.grid,
                            *self.blocks, self.warps)
            return
        if _several_gpus() and self.device.index != torch.cuda.current_device():
            with torch.cuda.device(self.device), COMPILE_LOCK:  # Triton may compile: it parses
                self.launch(*tensors, *outputs, *scalars, *self.strides, self.sizes, self.numel, self.grid,
                            *self.blocks, self.warps, extern_libs=self.extern_libs)
            return
        compiled_key = None
        if self.fast is None and self.kernels is not None and FAST_LAUNCH:
            # a kernel Triton compiled for another recipe (another shape) may be this one's too
            compiled_key = self.kernel_key(tensors, outputs)
            compiled = self.kernels.get(compiled_key)
            if compiled is not None:
                self.arm(compiled)
        if self.fast is not None:
            try:  # a launcher that refuses its arguments raises before launching
                if self.fast_kind == "direct":
                    self.fast((*[t.data_ptr() for t in tensors], *[o.data_ptr() for o in outputs], *scalars,
                               *self.tail))
                else:
                    self.fast(*tensors, *outputs, *scalars, *self.tail)
            except Exception:
                self.fast = self.fast_kind = None
            else:
                if not self.launched:
                    # the steady closures wait for a second call: a recipe that took a kernel compiled
                    # for another shape launches directly at once, and a new shape's is often never
                    # called again (making them took ~10 us of such a call)
                    self.launched = True
                elif _several_gpus():
                    pass
                elif self.write_guard is not None:
                    if self.write == self.first_writes:
                        self.write = self.steady_writes()
                elif self.call == self.first_calls:
                    self.call = self.steady_call(tensors)
                return
        with COMPILE_LOCK:  # Triton may compile the kernel, and its compiler parses the kernel's source
            compiled = self.launch(*tensors, *outputs, *scalars, *self.strides, self.sizes, self.numel,
                                   self.grid, *self.blocks, self.warps, extern_libs=self.extern_libs)
        self.launched = True
        # Triton specialized the kernel on each pointer's 16-byte alignment, the outputs' too: a recipe
        # of calls with out= (misaligned ones among them: the odd elements of a row written in place)
        # is keyed by its outputs' alignment as well (signature_key), so this kernel serves its calls
        if self.fast is None and FAST_LAUNCH:
            self.arm(compiled)
            if compiled_key is not None:
                if len(self.kernels) >= MAX_RECIPES:
                    self.kernels.clear()
                self.kernels[compiled_key] = compiled

    def kernel_key(self, tensors, outputs) -> tuple:
        return kernel_key(self.launch, self.blocks, self.warps, self.device, self.extern_libs is not None,
                          integer_classes(self.tail), (*tensors, *outputs))

    def arm(self, compiled):
        """Launch later calls through the compiled kernel's launcher, skipping Triton's
        per-call argument binding. The kernel is specialized on pointer alignment, which the
        signature key holds for the inputs."""
        self.compiled = compiled  # the steady path's launcher is made from it (and benchmarks time it)
        self.fast = direct_launcher(compiled, self.grid, self.device) if DIRECT_LAUNCH else None
        if self.fast is not None:
            self.fast_kind = "direct"
            return
        try:
            self.fast = compiled[three_dims(self.grid)]
            self.fast_kind = "runner"
        except Exception:  # another Triton's launcher: its own path keeps working
            self.fast = self.fast_kind = None

    def steady_call(self, sample):
        """`call` for a proven launcher: one closure doing only what this recipe needs
        (`sample`: the input tensors of a call it serves). `pointers` are the tensor
        arguments' data_ptr(), in order; the numbers among the arguments follow the outputs."""
        if self.numel == 0:
            return self.first_calls
        if not self.single:
            return self.steady_calls_of_outputs(sample)
        like, allocate = self.allocator(sample, self.out_dtypes[0])
        tail, fast = self.tail, self.fast
        if self.scalar_positions:
            if self.fast_kind != "direct":
                return self.first_calls
            numbers, picks = self.kernel_scalars, self.pointer_picks
            if picks is not None:
                def call(args, pointers):
                    out = allocate(args)
                    fast((*[pointers[k] for k in picks[0]], out.data_ptr(), *numbers(args), *tail))
                    return out
                return call

            def call(args, pointers):
                out = allocate(args)
                fast((*pointers, out.data_ptr(), *numbers(args), *tail))
                return out
            return call
        if self.fast_kind == "runner":  # with no numbers, the arguments are the kernel's tensors
            def call(args, pointers):
                out = allocate(args)
                fast(*args, out, *tail)
                return out
            return call
        steady = direct_launcher(self.compiled, self.grid, self.device, output=(like, allocate, tail))
        if steady is not None:
            return steady

        # a profiler registered a launch hook since arming: the armed launch, which hands launches to
        # Triton's runner while a hook is registered, serves (rather than asking again on every call)
        def call(args, pointers):
            out = allocate(args)
            fast((*pointers, out.data_ptr(), *tail))
            return out
        return call

    def steady_calls_of_outputs(self, sample):
        """`call` for a proven direct launcher of a function with several outputs: allocate each,
        launch on the pointers, the outputs' and the numbers (one closure: a two-output 1K call took
        16.7 us through the recipe's own __call__ and run, 13.5 through this, on an H200 host:
        experiments/several_outputs.py)."""
        if self.fast_kind != "direct":
            return self.first_calls
        allocates = tuple(self.allocator(sample, dtype)[1] for dtype in self.out_dtypes)
        fast, tail, numbers, picked = self.fast, self.tail, self.kernel_scalars, self.kernel_pointers

        def call(args, pointers):
            outs = tuple([allocate(args) for allocate in allocates])
            fast((*picked(pointers), *[out.data_ptr() for out in outs], *numbers(args), *tail))
            return outs
        return call

    def steady_writes(self):
        """`write` for a proven direct launcher: the guard, then one launch on the pointers
        (inputs, then outputs, as the kernel takes them) and the numbers among the arguments."""
        if self.numel == 0 or self.fast_kind != "direct":
            return self.first_writes
        allows, fast, tail = self.write_guard.allows, self.fast, self.tail
        if self.scalar_positions:
            numbers, picked = self.kernel_scalars, self.kernel_pointers
            if self.pointer_picks is not None:
                def write(args, pointers, out):
                    pointers = picked(pointers)
                    if not allows(pointers):
                        return False
                    fast((*pointers, *numbers(args), *tail))
                    return True
                return write

            def write(args, pointers, out):
                if not allows(pointers):
                    return False
                fast((*pointers, *numbers(args), *tail))
                return True
            return write

        def write(args, pointers, out):
            if not allows(pointers):
                return False
            fast((*pointers, *tail))
            return True
        return write

    def kernel_pointers(self, pointers):
        """The pointers the kernel takes among the steady path's (each tensor argument's, then each
        output's): all but those of 0-d tensors passed by value (pointer_picks, _pointer_picks')."""
        picks = self.pointer_picks
        if picks is None:
            return pointers
        inputs, count = picks
        return (*[pointers[k] for k in inputs], *pointers[count:])

    def allocator(self, sample, dtype):
        """(like, allocate): the cheapest way to allocate an output of this dtype from the arguments
        (the signature key fixes their shapes, strides, dtypes and device). `like` is the position
        of an argument with the output's layout and dtype, whose torch.empty_like is the output
        (None where there is none); `allocate(args)` allocates it in any case: that empty_like,
        else Tensor.new_empty_strided of an input with its dtype (their Python bindings take
        fewer arguments than torch.empty_strided's)."""
        shape, strides, device = self.out_shape, self.out_strides, self.device
        tensors = [(i, t) for i, t in zip(self.tensor_positions, sample) if t.device == device]
        for i, tensor in tensors:
            if tensor.dtype == dtype and tensor.shape == shape and torch.empty_like(tensor).stride() == strides:
                return i, lambda args, empty_like=torch.empty_like: empty_like(args[i])
        for i, tensor in tensors:
            if tensor.dtype == dtype:
                return None, lambda args: args[i].new_empty_strided(shape, strides)
        return None, lambda args, empty=torch.empty_strided: empty(shape, strides, dtype=dtype, device=device)


class _ViewRecipe:
    """A memoized call with StridedView arguments: each view reaches the kernel as the
    pointer to its first element (the recipe holds its strides)."""

    def __init__(self, recipe):
        self.recipe = recipe

    def __call__(self, args):
        return self.recipe([_kernel_operand(a) for a in args])


def _paired_inputs(paired: tuple, input_count: int) -> tuple:
    """The positions of the inputs among Specialization.paired's pairs."""
    return tuple(k for pair in paired for k in pair if k < input_count)


def _probe(key: tuple):
    """The strides of a signature key's first tensor where its first argument is one, else None: the
    same in every key of one leading_key (its strides are the leading key's), so a key whose probe no
    kept LeadingWalk's key had has none (a transposed batch's strides hold its leading size: a new
    probe every call, which a set answers in ~0.1 us where leading_key takes ~1-2)."""
    first = key[0] if key else None
    return first[2] if type(first) is tuple and len(first) == 5 else None


def _scaled_probe(key: tuple):
    """_probe of leading_key's scaled form: the first tensor's strides as scaled_strides writes them at
    its own leading size where that is two or more (the call's, where it is of the call's rank)."""
    first = key[0] if key else None
    if type(first) is not tuple or len(first) != 5:
        return None
    shape = first[1]
    return scaled_strides(first[2], shape[0]) if shape and shape[0] > 1 else first[2]


def _laid_out_as(outputs, shape, allocated) -> bool:
    """Are the given outputs laid out as plan() would allocate them (`allocated`: those strides),
    so that the class's walk writes them? Strides of size-1 dims never move, so they may differ."""
    return all(call.same_walk(shape, out.stride(), allocated) for out in outputs)


def _pointer_picks(spec):
    """Where a call has 0-d tensors passed by value (ParamSpec.by_value): which of its tensor
    arguments the kernel takes pointers to (their positions among them) and how many tensor
    arguments it has; else None. The steady path gathers every tensor argument's pointer."""
    tensors = [p for p in spec.params if p.is_tensor]
    if all(p.is_pointer for p in tensors):
        return None
    return tuple(k for k, p in enumerate(tensors) if p.is_pointer), len(tensors)


def _by_value(tensor) -> bool:
    """Is this tensor passed to kernels by its value (ParamSpec.by_value): 0-d, in CPU memory?"""
    return tensor.device.type == "cpu" and not tensor.shape


def _kernel_operand(value):
    return value.pointer if type(value) is StridedView else value


def _promotion_operand(value, read_as=None):
    """What torch's type promotion reads for an argument: a view, or a tensor read as a dtype
    (a number read as one comes converted), as an empty meta tensor of that dtype and its rank."""
    if type(value) is StridedView or (read_as is not None and isinstance(value, torch.Tensor)):
        return torch.empty((0,) * value.dim(), dtype=read_as or value.dtype, device="meta")
    return value


def _stored_dtype(value, vtype):
    """ParamSpec.stored: a tensor's own dtype where its parameter reads it as another."""
    if isinstance(value, (torch.Tensor, StridedView)) and value.dtype != vtype.dtype:
        return value.dtype
    return None


def _traced(args) -> bool:
    """Fake tensors (AOTAutograd tracing a graph) must reach the op, not a kernel launch."""
    # a plain torch.Tensor is never fake: only subclasses need the (slower) question
    return any(type(a) is not torch.Tensor and isinstance(a, torch.Tensor) and is_fake(a) for a in args)


def _requires_grad(args, kwargs, out=None) -> bool:
    """Does an argument (or an out= tensor: torch refuses to write one that requires grad
    while grad is enabled) require grad?"""
    for value in args:
        if isinstance(value, (torch.Tensor, StridedView)) and value.requires_grad:
            return True
    if any(isinstance(v, (torch.Tensor, StridedView)) and v.requires_grad for v in kwargs.values()):
        return True
    outputs = out if isinstance(out, (tuple, list)) else (out,)
    return any(isinstance(o, torch.Tensor) and o.requires_grad for o in outputs)


def _plain_outputs(out):
    """out= as a list of plain tensors (the steady path's), or None for anything else. (One
    that requires grad never gets here while grad is enabled: __call__ refuses it first.)"""
    outputs = [out] if type(out) is _Tensor else list(out) if type(out) is tuple else None
    if not outputs or any(type(o) is not _Tensor for o in outputs):
        return None
    return outputs


@functools.lru_cache(maxsize=None)
def _several_gpus() -> bool:
    """With one GPU the current device is the tensors' device; no need to ask each call."""
    return torch.cuda.device_count() > 1


# TRITONIZE_FAST_LAUNCH=0 keeps every launch on Triton's JITFunction path;
# TRITONIZE_FAST_LAUNCH=runner stops at Triton's CompiledKernel[grid] runner
FAST_LAUNCH = os.environ.get("TRITONIZE_FAST_LAUNCH", "1") != "0"
DIRECT_LAUNCH = os.environ.get("TRITONIZE_FAST_LAUNCH", "1") not in ("0", "runner")


def _by_value_type(dtype: torch.dtype):
    """What a 0-d tensor of `dtype` passed by value becomes for the kernel: the Python kind of
    by_value_dtype, a uint64's as the int64 of its bits (the kernel converts it back)."""
    if dtype == torch.uint64:
        return call.int64_bits
    return float if by_value_dtype(dtype).is_floating_point else int


def _kernel_scalar(value, annotation, label):
    """A Python number as the kernel takes it: converted to its parameter's annotation,
    bools as ints (Triton 3.6's interpreter refuses bool arguments), ints within int64."""
    if annotation is not None:
        value = call.convert_number(label, value, annotation)
    kind = type(value)
    if kind is float:
        return value
    if kind is int:
        if not -2**63 <= value < 2**63:
            raise CallError(f"argument '{label}' = {value} does not fit in int64")
        return value
    if kind is bool:
        return int(value)
    return _kernel_scalar(call.classify(label, value)[1], None, label)  # numpy scalars and such


def pointwise(fn=None, *, promotion=None):
    """Compile a plain-Python scalar function into element-wise Triton kernels.

    Use bare (`@pointwise`) or with arguments (`@pointwise(promotion="int_to_float")`).
    """
    if fn is None:
        return functools.partial(pointwise, promotion=promotion)  # no frame of ours in its tracebacks
    try:
        return PointwiseFunction(fn, promotion=promotion)
    except DSLError as error:  # raised again from here, without the passes' frames
        raise without_internal_frames(error)
