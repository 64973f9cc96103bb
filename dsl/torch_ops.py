"""@pointwise functions as torch.library ops (namespace `tritonize`), so that torch.compile
puts a call into its graph whole, with a fake implementation for shapes and dtypes and a
backward op that runs the derived gradient kernel. Each op's autograd and vmap kernels are ones
that torch.func's transforms pass through, eager (grad, vjp, jacrev, vmap: the decorator calls the
op there) and inside torch.compile.

A function takes a tensor or a number in each parameter; an op's schema cannot, so there is
one op per pattern of tensors and numbers (`Tensor x, Scalar beta`). The likely pattern
(annotated parameters numbers, the rest tensors) is registered when the function is defined;
others when a call first uses them, a call that torch.compile traces too (`traced_op_name`,
which Dynamo runs rather than traces). Names are a hash of the lowered function and the
pattern, so a graph that Inductor cached in another process finds the same ops here.
"""
from __future__ import annotations

import ast
import hashlib
import re
import threading
import weakref
from pathlib import Path

import torch

from tritonize import transforms

LIBRARY = torch.library.Library("tritonize", "FRAGMENT")
_REGISTERED: dict[str, object] = {}  # op name -> op: the same function defined again reuses its op
_LOCK = threading.Lock()


def default_pattern(fn) -> tuple:
    return tuple(p not in fn._ctx.scalar_annotations for p in fn._params)


def op_for(fn, pattern: tuple):
    """The op for this function and pattern of tensor (True) and number (False) arguments."""
    found = fn._ops.get(pattern)
    if found is not None:
        return found
    with _LOCK:
        found = fn._ops.get(pattern)
        if found is None:
            found = fn._ops[pattern] = _register(fn, pattern)
    return found


def trace_key(fn) -> str:
    """The name `traced_op_name` knows `fn` by: Dynamo hands such a function only constants."""
    key = f"{fn._ctx.function_name}@{id(fn)}"
    _TRACED[key] = fn
    return key


_TRACED: weakref.WeakValueDictionary = weakref.WeakValueDictionary()  # trace_key -> function


@torch.compiler.assume_constant_result
def traced_op_name(key: str, pattern: tuple) -> str:
    """The name of op_for's op for the function of `key`, for a call that torch.compile traces. Dynamo runs
    a function marked so when it traces a call of it, and keeps the result as a constant; traced as code,
    the registration of a pattern first seen in the trace would break the graph (Dynamo cannot trace
    torch.library.define, nor the lock)."""
    return op_for(_TRACED[key], pattern)._schema.name.split("::", 1)[1]


# Op names carry a hash of this file and of transforms.py: a graph that torch.compile cached (AOTAutograd's,
# Inductor's) holds what the ops' autograd and vmap kernels made of a call when it was traced, which a
# changed kernel must not be handed
_KERNELS = hashlib.sha256(b"".join(Path(module).read_bytes()
                                   for module in (__file__, transforms.__file__))).hexdigest()[:12]


def _op_name(fn, pattern) -> str:
    content = ast.dump(fn._ctx.tree) + repr(pattern) + repr(fn.promotion) + _KERNELS
    digest = hashlib.sha256(content.encode()).hexdigest()[:12]
    return f"{re.sub(r'[^0-9a-zA-Z_]', '_', fn._ctx.function_name)}_{digest}"


def _register(fn, pattern):
    name = _op_name(fn, pattern)
    if name in _REGISTERED:
        return _REGISTERED[name]
    arguments = ", ".join(f"{'Tensor' if is_tensor else 'Scalar'} {param}"
                          for param, is_tensor in zip(fn._params, pattern))
    returns = "Tensor" if fn.num_outputs == 1 else "(" + ", ".join(["Tensor"] * fn.num_outputs) + ")"
    LIBRARY.define(f"{name}({arguments}) -> {returns}")
    LIBRARY.define(f"{name}_backward({arguments}, Tensor?[] grads, int[] wanted) -> Tensor[]")

    def forward(*args):
        return fn._run(args)

    def backward(*args):
        *args, grads, wanted = args
        return transforms.gradients(fn, args, grads, wanted)

    def fake_gradients(*args):
        *args, _, wanted = args
        return [torch.empty_like(args[i]) for i in wanted]

    qualified = f"tritonize::{name}"
    LIBRARY.impl(name, forward, "CompositeExplicitAutograd")
    LIBRARY.impl(f"{name}_backward", backward, "CompositeExplicitAutograd")
    torch.library.register_fake(qualified, lambda *args: fn._fake_outputs(args), lib=LIBRARY)
    torch.library.register_fake(f"{qualified}_backward", fake_gradients, lib=LIBRARY)
    op = getattr(torch.ops.tritonize, name).default
    backward_op = getattr(torch.ops.tritonize, f"{name}_backward").default
    LIBRARY.impl(name, _autograd_kernel(op, backward_op, pattern), "Autograd", with_keyset=True)
    LIBRARY.impl(f"{name}_backward", _backward_autograd_kernel(fn, backward_op), "Autograd", with_keyset=True)
    # vmap, eager and inside torch.compile (one call on the batch), and vmap over the backward (jacrev)
    LIBRARY.impl(name, transforms.batched_kernel(fn, pattern, op), "FuncTorchBatched", with_keyset=True)
    torch.library.register_vmap(f"{qualified}_backward", lambda info, in_dims, *args: transforms.batched_gradients(
        fn, info, in_dims, args), lib=LIBRARY)
    _REGISTERED[name] = op
    return op


# -- autograd ---------------------------------------------------------------------------------------
# The ops' own Autograd kernels, where torch.library.register_autograd's would do for autograd alone:
# its autograd.Function is one that torch.func's transforms refuse (grad and jacrev inside
# torch.compile failed while tracing), and an aten op's formula is what they take: the kernel records
# at its level with a plain autograd Function, and the levels below see the call in grad mode.

_AFTER_AUTOGRAD = torch._C._after_autograd_keyset
_functorch = torch._C._functorch


class _OpGradient(torch.autograd.Function):
    """An op's call as autograd records it: forward runs the op below autograd, backward its
    backward op."""

    @staticmethod
    def forward(ctx, op, backward_op, pattern, keyset, *args):
        # apply turned grad mode off; the levels of torch.func's transforms below this one (the inner
        # call of a grad of grad) record in the call's mode, which was on, as under an aten op's formula
        with torch._C._AutoDispatchBelowAutograd(), torch.enable_grad():
            result = op.redispatch(keyset & _AFTER_AUTOGRAD, *args)
        ctx.backward_op = backward_op
        ctx.positions = tuple(i for i, is_tensor in enumerate(pattern) if is_tensor)
        ctx.template = [None if is_tensor else value for value, is_tensor in zip(args, pattern)]
        ctx.save_for_backward(*[args[i] for i in ctx.positions])
        outputs = result if isinstance(result, tuple) else (result,)
        ctx.mark_non_differentiable(*[o for o in outputs if not o.is_floating_point()])
        return result

    @staticmethod
    def backward(ctx, *grad_outputs):
        args = transforms.filled(ctx.template, ctx.positions, ctx.saved_tensors)
        needs = ctx.needs_input_grad[4:]
        wanted = [i for i in ctx.positions if needs[i] and args[i].is_floating_point()]
        grads = [None] * len(args)
        if wanted:
            for i, grad in zip(wanted, ctx.backward_op(*args, list(grad_outputs), wanted)):
                grads[i] = grad
        return (None, None, None, None, *grads)


# autograd.Function's apply without the Python in front of it, which hands a call under torch.func's
# transforms to functorch's custom_function_call (no Autograd kernel of its own: it failed here)
_apply = super(torch.autograd.Function, _OpGradient).apply


def _autograd_kernel(op, backward_op, pattern):
    def kernel(keyset, *args):
        if not (torch.is_grad_enabled() and torch._C._any_requires_grad(*args)):
            with torch._C._AutoDispatchBelowAutograd():
                return op.redispatch(keyset & _AFTER_AUTOGRAD, *args)
        if not torch._C._are_functorch_transforms_active():
            return _apply(op, backward_op, pattern, keyset, *args)
        # a transform's level: its interpreter has wrapped the arguments for this level alone, the case
        # functorch's own single-level Functions are allowed for
        allowed = _functorch.get_single_level_autograd_function_allowed()
        _functorch.set_single_level_autograd_function_allowed(True)
        try:
            return _apply(op, backward_op, pattern, keyset, *args)
        finally:
            _functorch.set_single_level_autograd_function_allowed(allowed)
    return kernel


def _backward_autograd_kernel(fn, backward_op):
    def kernel(keyset, *args):
        *values, grads, wanted = args
        if torch.is_grad_enabled() and torch._C._any_requires_grad(*values, *[g for g in grads if g is not None]):
            # a gradient that is differentiated again (create_graph, a grad of grad, jacrev of jacrev): the
            # derived function called as any call is, which records it (through its own op, under a transform)
            return transforms.gradients(fn, values, grads, wanted)
        with torch._C._AutoDispatchBelowAutograd():
            return backward_op.redispatch(keyset & _AFTER_AUTOGRAD, *args)
    return kernel

