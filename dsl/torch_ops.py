"""@pointwise functions as torch.library ops (namespace `tritonize`), so that torch.compile
puts a call into its graph whole, with a fake implementation for shapes and dtypes and a
backward op that runs the derived gradient kernel.

A function takes a tensor or a number in each parameter; an op's schema cannot, so there is
one op per pattern of tensors and numbers (`Tensor x, Scalar beta`). The likely pattern
(annotated parameters numbers, the rest tensors) is registered when the function is defined,
since torch.compile cannot trace a registration; others when a call first uses them. Names
are a hash of the lowered function and the pattern, so a graph that Inductor cached in
another process finds the same ops here.
"""
from __future__ import annotations

import ast
import hashlib
import re
import threading

import torch

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


def _op_name(fn, pattern) -> str:
    content = ast.dump(fn._ctx.tree) + repr(pattern) + repr(fn.promotion)
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

    def backward_op(*args):
        *args, grads, wanted = args
        return gradients(fn, args, grads, wanted)

    def fake_gradients(*args):
        *args, _, wanted = args
        return [torch.empty_like(args[i]) for i in wanted]

    def setup_context(ctx, inputs, output):
        ctx.save_for_backward(*[v for v in inputs if isinstance(v, torch.Tensor)])
        ctx.template = [None if isinstance(v, torch.Tensor) else v for v in inputs]

    def backward(ctx, *grad_outputs):
        tensors = iter(ctx.saved_tensors)
        args = [next(tensors) if is_tensor else value for value, is_tensor in zip(ctx.template, pattern)]
        wanted = [i for i, is_tensor in enumerate(pattern) if is_tensor and ctx.needs_input_grad[i]
                  and args[i].is_floating_point()]
        grads = [None] * len(args)
        if wanted:
            computed = getattr(torch.ops.tritonize, f"{name}_backward").default(*args, list(grad_outputs), wanted)
            for i, grad in zip(wanted, computed):
                grads[i] = grad
        return tuple(grads)

    qualified = f"tritonize::{name}"
    LIBRARY.impl(name, forward, "CompositeExplicitAutograd")
    LIBRARY.impl(f"{name}_backward", backward_op, "CompositeExplicitAutograd")
    torch.library.register_fake(qualified, lambda *args: fn._fake_outputs(args), lib=LIBRARY)
    torch.library.register_fake(f"{qualified}_backward", fake_gradients, lib=LIBRARY)
    torch.library.register_autograd(qualified, backward, setup_context=setup_context, lib=LIBRARY)

    def batched(info, in_dims, *args):
        from tritonize import transforms  # it imports this module
        positions = tuple(i for i, is_tensor in enumerate(pattern) if is_tensor)
        template = [None if is_tensor else value for value, is_tensor in zip(args, pattern)]
        outputs = transforms.batched(fn, template, positions, [args[i] for i in positions],
                                     [in_dims[i] for i in positions], info.batch_size)
        return (outputs[0], 0) if fn.num_outputs == 1 else (outputs, (0,) * fn.num_outputs)

    torch.library.register_vmap(qualified, batched, lib=LIBRARY)  # vmap inside torch.compile
    op = _REGISTERED[name] = getattr(torch.ops.tritonize, name).default
    return op


def gradients(fn, args, grads, wanted):
    """The derived kernel's gradients of the parameters `wanted`, summed back over broadcast
    dims and in each input's dtype. An unused output contributes no gradient."""
    result = fn.derivative(tuple(fn._params[i] for i in wanted))(*args, *[g if g is not None else 0.0 for g in grads])
    result = result if isinstance(result, tuple) else (result,)
    out = []
    for i, grad in zip(wanted, result):
        if grad.shape != args[i].shape:
            grad = grad.sum_to_size(args[i].shape)
        out.append(grad.to(args[i].dtype))
    return out
