"""@pointwise calls under autograd and torch.func's transforms (grad, vjp, jacrev, jvp, jacfwd,
hessian, vmap): the autograd.Function that records an eager call (its backward and jvp run derived
gradient functions, its vmap rule the kernel once on the batch), the batched call, and the op's
kernel for vmap's batched tensors."""
from __future__ import annotations

import torch

_functorch = torch._C._functorch


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
    tangent? Not while forward grad is off: the op library's aten kernels switch it off, since below
    autograd a dual tensor's primal can no longer be read (unpack_dual reaches _fw_primal's kernel, which
    asserts) and aten's formulas give the tangents."""
    if not torch._C._is_fwd_grad_enabled():
        return False
    outputs = out if isinstance(out, (tuple, list)) else (out,)
    return any(isinstance(v, torch.Tensor) and torch.autograd.forward_ad.unpack_dual(v).tangent is not None
               for v in (*args, *kwargs.values(), *outputs))


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
        computed = iter(gradients(ctx.fn, args, grad_outputs, wanted))
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


_BATCHED = torch._C.DispatchKeySet(torch._C.DispatchKey.FuncTorchBatched)


def batched_kernel(fn, pattern, op):
    """The op's kernel for vmap's batched tensors (its FuncTorchBatched dispatch key), eager or inside
    torch.compile: the call unwrapped at its vmap level, batched (`batched`) and wrapped, as
    torch.library.register_vmap's kernel does it (custom_function_call_vmap_helper) without the pytree
    Python around every call. On the CPU machine a vmap of gelu took 66 us a call (62 where the
    decorator batched it itself, 221 through autograd.Function's rule), and per-example gradients
    400 (1130 through autograd.Function at the grad level); with functorch's C++ interpreter in
    place of pyfunctorch's wrappers and the batch at dim 0 passed as it is, 41-46 us where it took
    56-71, and 257-300 where it took 331-383 (a vmap of the identity: 24 us)."""
    positions = tuple(i for i, is_tensor in enumerate(pattern) if is_tensor)
    single = fn.num_outputs == 1

    def lowered(args, tensors, dims, batch_size):
        """The call one level down: the op itself where nothing is batched at this level (no batch
        size), else the batch's outputs."""
        if batch_size is None:
            return op(*args)
        template = [None if is_tensor else value for value, is_tensor in zip(args, pattern)]
        return batched(fn, template, positions, tensors, dims, batch_size)

    def kernel(keyset, *args):
        # functorch's C++ interpreter, and its stack popped and pushed by hand, not through
        # pyfunctorch's Python wrappers (retrieve_current_functorch_interpreter builds a
        # VmapInterpreter, 2.7 us a call on the CPU machine, and its batch_size 0.5 more; lower()'s
        # contextlib generator takes 3.2 us where the pop and push take 0.3): what
        # temporarily_pop_interpreter_stack does, in torch 2.0 to 2.13
        interpreter = _functorch.peek_interpreter_stack()
        level = interpreter.level()
        unwrapped = [_functorch._unwrap_batched(args[i], level) for i in positions]
        tensors = [tensor for tensor, _ in unwrapped]
        dims = [dim for _, dim in unwrapped]
        unbatched = dims.count(None) == len(dims)
        batch_size = None if unbatched else _functorch.CVmapInterpreterPtr(interpreter).batchSize()
        # one level down, as torch's helper goes there: where this level is the only one and its
        # tensors are plain, out of functorch altogether, so that the call below takes the steady path
        # (a nested transform's interpreters must stay, and a tracer's tensors' Python dispatch too:
        # popping there trips asserts of functorch's, and of torch 2.11's Python fallback); elsewhere
        # this key excluded. Popped, no tensor of the call has this key (the level's tensors are
        # unwrapped, and with no other level there is no other batched tensor), so the guard
        # (0.55 us) is left out there
        if _functorch.get_dynamic_layer_stack_depth() == 1 and all(type(t) is torch.Tensor for t in tensors):
            saved = _functorch.pop_dynamic_layer_stack()
            try:
                result = lowered(args, tensors, dims, batch_size)
            finally:
                _functorch.push_dynamic_layer_stack(saved)
        else:
            with torch._C._ExcludeDispatchKeyGuard(_BATCHED):
                result = lowered(args, tensors, dims, batch_size)
        if unbatched:
            return result
        if single:
            return _functorch._add_batch_dim(result[0], 0, level)
        return tuple(_functorch._add_batch_dim(output, 0, level) for output in result)
    return kernel


def batched_gradients(fn, info, in_dims, args) -> tuple:
    """The backward op's vmap rule (jacrev, and vmap over grad): `gradients` over a batch, the derived
    function called once on it (`batched`), each gradient summed back over its input's broadcast dims
    example by example, the batch first."""
    *args, grads, wanted = args
    *arg_dims, grad_dims, _ = in_dims
    batch_size = info.batch_size
    grad_dims = [None if g is None else d for g, d in zip(grads, grad_dims)]
    values = [*args, *[0.0 if g is None else g for g in grads]]
    dims = [*arg_dims, *grad_dims]
    positions = tuple(i for i, v in enumerate(values) if isinstance(v, torch.Tensor))
    template = [None if i in positions else v for i, v in enumerate(values)]
    derived = fn.derivative(tuple(fn._params[i] for i in wanted))
    results = batched(derived, template, positions, [values[i] for i in positions], [dims[i] for i in positions],
                      batch_size)
    rank = max((values[i].dim() - (dims[i] is not None) for i in positions), default=0)
    out = []
    for i, grad in zip(wanted, results):
        shape = args[i].shape if arg_dims[i] is None else args[i].movedim(arg_dims[i], 0).shape[1:]
        lined_up = (batch_size,) + (1,) * (rank - len(shape)) + tuple(shape)
        out.append(grad.expand(batch_size, *grad.shape[1:]).sum_to_size(lined_up).reshape(batch_size, *shape)
                   .to(args[i].dtype))
    return out, [0] * len(out)


def batched(fn, template, positions, tensors, dims, batch_size) -> tuple:
    """The outputs of a call over a batch, the batch first: each batched tensor's batch dim moved
    to the front and the rest lined up with the other tensors' dims (their logical shapes
    broadcast from the right, as the call's would), then one call on the whole batch."""
    ranks = [t.dim() - (d is not None) for t, d in zip(tensors, dims)]
    rank = max(ranks, default=0)
    lined_up = []
    for tensor, d, own_rank in zip(tensors, dims, ranks):
        # the common batch, at dim 0 and of the full rank, passes as it is (a movedim to where it is
        # already made an alias, 0.9 us a tensor on the CPU machine)
        if d is not None:
            if d != 0:
                tensor = tensor.movedim(d, 0)
            for _ in range(rank - own_rank):
                tensor = tensor.unsqueeze(1)
        lined_up.append(tensor)
    physical = filled(template, positions, lined_up)
    if batch_size and 0 in ranks and any(d is not None and own_rank == 0 for d, own_rank in zip(dims, ranks)):
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
