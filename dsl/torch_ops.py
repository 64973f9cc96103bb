"""@pointwise functions as torch.library ops (namespace `tritonize`), so that torch.compile
puts a call into its graph whole, with a fake implementation for shapes and dtypes and the
derived backward registered for AOTAutograd.

A function takes a tensor or a number in each parameter; an op's schema cannot, so there is
one op per pattern of tensors and numbers (`Tensor x, Scalar beta`), registered when a call
first uses it and, for the likely pattern (annotated parameters numbers, the rest tensors),
when the function is defined, since torch.compile cannot trace a registration.
"""
from __future__ import annotations

import itertools
import re
import threading

import torch

LIBRARY = torch.library.Library("tritonize", "FRAGMENT")
_NUMBERS = itertools.count()
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


def _register(fn, pattern):
    name = f"{re.sub(r'[^0-9a-zA-Z_]', '_', fn._ctx.function_name)}_{next(_NUMBERS)}"
    arguments = ", ".join(f"{'Tensor' if is_tensor else 'Scalar'} {param}"
                          for param, is_tensor in zip(fn._params, pattern))
    returns = "Tensor" if fn.num_outputs == 1 else "(" + ", ".join(["Tensor"] * fn.num_outputs) + ")"
    LIBRARY.define(f"{name}({arguments}) -> {returns}")
    qualified = f"tritonize::{name}"

    def run(*args):
        return fn._run(args)

    def setup_context(ctx, inputs, output):
        tensors = [v for v in inputs if isinstance(v, torch.Tensor)]
        ctx.save_for_backward(*tensors)
        ctx.template = [None if isinstance(v, torch.Tensor) else v for v in inputs]

    def backward(ctx, *grad_outputs):
        tensors = iter(ctx.saved_tensors)
        args = [next(tensors) if is_tensor else value for value, is_tensor in zip(ctx.template, pattern)]
        wanted = [i for i, is_tensor in enumerate(pattern) if is_tensor and ctx.needs_input_grad[i]
                  and args[i].is_floating_point()]
        grads = [None] * len(args)
        if not wanted:
            return tuple(grads)
        gradients = [g if g is not None else 0.0 for g in grad_outputs]
        result = fn.derivative(tuple(fn._params[i] for i in wanted))(*args, *gradients)
        result = result if isinstance(result, tuple) else (result,)
        for i, grad in zip(wanted, result):
            if grad.shape != args[i].shape:
                grad = grad.sum_to_size(args[i].shape)
            grads[i] = grad.to(args[i].dtype)
        return tuple(grads)

    LIBRARY.impl(name, run, "CompositeExplicitAutograd")
    torch.library.register_fake(qualified, lambda *args: fn._fake_outputs(args), lib=LIBRARY)
    torch.library.register_autograd(qualified, backward, setup_context=setup_context, lib=LIBRARY)
    return getattr(torch.ops.tritonize, name).default
