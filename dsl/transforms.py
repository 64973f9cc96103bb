"""A @pointwise call recorded for autograd and for torch.func's transforms (grad, vjp, jacrev,
jvp, jacfwd, hessian, vmap): the autograd.Function whose backward and jvp run derived gradient
functions, and whose vmap rule runs the kernel once on the batched tensors' own tensors."""
from __future__ import annotations

import torch

from tritonize import torch_ops

_functorch = torch._C._functorch
try:  # what vmapped needs of torch's functorch (`import torch` has loaded it); without it, Recorded's rule
    from torch._functorch.pyfunctorch import retrieve_current_functorch_interpreter as _current_interpreter
except ImportError:
    _current_interpreter = None
_VMAP = getattr(getattr(_functorch, "TransformType", None), "Vmap", None)


def wrapped(args, kwargs) -> bool:
    """Is an argument a tensor of a torch.func transform (vmap's batched tensors, grad's tracking
    ones)? They have no storage of their own, so a kernel cannot read them."""
    if not torch._C._are_functorch_transforms_active():
        return False
    values = (*args, *kwargs.values())
    values += tuple(v for value in values if isinstance(value, (tuple, list)) for v in value)  # out=(a, b)
    return any(isinstance(v, torch.Tensor) and _functorch.is_functorch_wrapped_tensor(v) for v in values)


def dual(args, kwargs, out) -> bool:
    """Is an argument (or an out= tensor) a dual tensor of forward-mode AD's open level, one with a
    tangent?"""
    outputs = out if isinstance(out, (tuple, list)) else (out,)
    return any(isinstance(v, torch.Tensor) and torch.autograd.forward_ad.unpack_dual(v).tangent is not None
               for v in (*args, *kwargs.values(), *outputs))


def filled(template, positions, tensors) -> tuple:
    """The call's arguments: the template's numbers, with the tensors at their positions."""
    args = list(template)
    for position, tensor in zip(positions, tensors):
        args[position] = tensor
    return tuple(args)


class Recorded(torch.autograd.Function):
    """A @pointwise call as autograd and torch.func see it: forward runs the kernel, backward the
    derived function, vmap the kernel on the batch (written as torch.func requires: a forward
    without ctx, and setup_context)."""

    @staticmethod
    def forward(fn, template, positions, *tensors):
        result = fn._run(filled(template, positions, tensors))
        return result if isinstance(result, tuple) else (result,)

    @staticmethod
    def setup_context(ctx, inputs, output):
        fn, template, positions, *tensors = inputs
        ctx.fn, ctx.template, ctx.positions = fn, template, positions
        ctx.save_for_backward(*tensors)
        ctx.save_for_forward(*tensors)
        ctx.output_dtypes = [o.dtype for o in output]
        ctx.mark_non_differentiable(*[o for o in output if not o.is_floating_point()])

    @staticmethod
    def backward(ctx, *grad_outputs):
        tensors = ctx.saved_tensors
        needs = ctx.needs_input_grad[3:]
        wanted = [p for p, need in zip(ctx.positions, needs) if need]
        if not wanted:
            return (None, None, None) + (None,) * len(tensors)
        args = filled(ctx.template, ctx.positions, tensors)
        computed = iter(torch_ops.gradients(ctx.fn, args, grad_outputs, wanted))
        return (None, None, None, *[next(computed) if need else None for need in needs])

    @staticmethod
    def jvp(ctx, *tangents):
        # the function is elementwise: each output's tangent is the sum over the inputs of its
        # partial derivative (the derived function of that output alone, given a gradient of 1)
        # times the input's tangent
        args = filled(ctx.template, ctx.positions, ctx.saved_tensors)
        moving = [(position, tangent) for position, tangent in zip(ctx.positions, tangents[3:])
                  if tangent is not None and args[position].is_floating_point()]
        wrt = tuple(ctx.fn._params[position] for position, _ in moving)
        output_tangents = []
        for output, dtype in enumerate(ctx.output_dtypes):
            if not moving or not dtype.is_floating_point:
                output_tangents.append(None)
                continue
            partials = ctx.fn.derivative(wrt, output)(*args, 1.0)
            partials = partials if isinstance(partials, tuple) else (partials,)
            total = sum(partial * tangent for partial, (_, tangent) in zip(partials, moving))
            output_tangents.append(total.to(dtype))
        return tuple(output_tangents)

    @staticmethod
    def vmap(info, in_dims, fn, template, positions, *tensors):
        outputs = batched(fn, template, positions, tensors, in_dims[3:], info.batch_size)
        return outputs, (0,) * len(outputs)


def vmapped(fn, template, positions, tensors) -> tuple | None:
    """The outputs of a call under vmap, batched at its level, or None where vmap is not the transform
    running or no argument is batched at its level. It is what torch.func makes of Recorded's vmap
    rule (custom_function_call_vmap_helper: unwrap at the level, the rule one level down, wrap),
    without autograd.Function's and pytree's Python around it: a vmap of gelu took 221 us of Python
    through it on the CPU machine and 71 this way (500-650 and 170 us on an H200 host)."""
    if _current_interpreter is None:
        return None
    try:
        interpreter = _current_interpreter()
        if interpreter.key() != _VMAP:
            return None
        level = interpreter.level()
        unwrapped = [_functorch._unwrap_batched(t, level) for t in tensors]
    except (AttributeError, RuntimeError):  # another torch's functorch: Recorded's rule
        return None
    dims = [dim for _, dim in unwrapped]
    if all(dim is None for dim in dims):
        return None
    with interpreter.lower():
        outputs = batched(fn, template, positions, [t for t, _ in unwrapped], dims, interpreter.batch_size())
    return tuple(_functorch._add_batch_dim(output, 0, level) for output in outputs)




def batched(fn, template, positions, tensors, dims, batch_size) -> tuple:
    """The outputs of a call over a batch, the batch first: each batched tensor's batch dim moved
    to the front and the rest lined up with the other tensors' dims (their logical shapes
    broadcast from the right, as the call's would), then one call on the whole batch."""
    ranks = [t.dim() - (d is not None) for t, d in zip(tensors, dims)]
    rank = max(ranks, default=0)
    lined_up = []
    for tensor, d, own_rank in zip(tensors, dims, ranks):
        if d is not None:
            tensor = tensor.movedim(d, 0)
            for _ in range(rank - own_rank):
                tensor = tensor.unsqueeze(1)
        lined_up.append(tensor)
    physical = filled(template, positions, lined_up)
    if batch_size and any(d is not None and own_rank == 0 for d, own_rank in zip(dims, ranks)):
        # a 0-d tensor is weak in torch's promotion beside tensors with dims; batched, its batch dim
        # makes it one of them, which may change the dtypes the call computes in: where it does,
        # one call an example
        logical = filled(template, positions, [t if d is None else t.select(d, 0) for t, d in zip(tensors, dims)])
        if fn._computed_in(logical) != fn._computed_in(physical):
            return _example_by_example(fn, template, positions, tensors, dims, batch_size)
    result = fn(*physical)
    return result if isinstance(result, tuple) else (result,)


def _example_by_example(fn, template, positions, tensors, dims, batch_size) -> tuple:
    examples = []
    for index in range(batch_size):
        each = [t if d is None else t.select(d, index) for t, d in zip(tensors, dims)]
        result = fn(*filled(template, positions, each))
        examples.append(result if isinstance(result, tuple) else (result,))
    return tuple(torch.stack(outputs) for outputs in zip(*examples))
