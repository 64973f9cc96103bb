"""torch.compile traces @pointwise functions as torch.library ops: no graph breaks, the same
outputs and gradients as eager, the derived backward inside the compiled graph."""
from __future__ import annotations

import math
from unittest import mock

import torch
import torch.autograd.forward_ad as forward_ad

from tritonize import pointwise, transforms


@pointwise
def silu_and_mul(x, y):
    return x / (1.0 + math.exp(-x)) * y


@pointwise
def leaky(x, slope: float):
    return x if x > 0 else x * slope


@pointwise
def polar(r, theta):
    return r * math.cos(theta), r * math.sin(theta)


class Block(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.gate, self.up, self.down = torch.nn.Linear(6, 16), torch.nn.Linear(6, 16), torch.nn.Linear(16, 6)

    def forward(self, x):
        hidden = leaky(silu_and_mul(self.gate(x), self.up(x)), 0.1)
        re, im = polar(hidden, hidden * 0.5)
        return self.down(re + im)


def test_compiled_model_matches_eager_with_gradients(device):
    torch.manual_seed(0)
    model = Block().double().to(device)
    x = torch.randn(5, 6, dtype=torch.float64, device=device)
    expected = model(x)
    expected.sum().backward()
    eager_grads = [p.grad.clone() for p in model.parameters()]
    model.zero_grad()

    explanation = torch._dynamo.explain(model)(x)
    assert explanation.graph_break_count == 0
    compiled = torch.compile(model, fullgraph=True)
    got = compiled(x)
    got.sum().backward()
    torch.testing.assert_close(got, expected)
    for p, g in zip(model.parameters(), eager_grads):
        torch.testing.assert_close(p.grad, g)


def test_ops_appear_in_the_graph(device):
    seen = []

    def backend(graph_module, example_inputs):
        seen.extend(str(node.target) for node in graph_module.graph.nodes if node.op == "call_function")
        return graph_module.forward

    x = torch.randn(8, device=device)
    fn = torch.compile(lambda t: silu_and_mul(t, t) + 1, backend=backend, fullgraph=True)
    torch.testing.assert_close(fn(x), silu_and_mul(x, x) + 1)
    assert any(target.startswith("tritonize.silu_and_mul") for target in seen), seen


def test_a_0d_cpu_tensor_beside_the_device_compiles(device):
    """A 0-d tensor in CPU memory beside tensors on the device (a scale kept as a CPU tensor) traces
    with no graph break and runs the kernel that takes its value, with eager's results, for each new
    value of it."""
    x = torch.randn(4, 6, device=device)
    fn = torch.compile(lambda t, s: silu_and_mul(t, s) + 1, fullgraph=True)
    for value in (0.5, -2.0, 3.25):
        scale = torch.tensor(value)
        torch.testing.assert_close(fn(x, scale), silu_and_mul(x, scale) + 1)
        torch.testing.assert_close(fn(x, scale), x * torch.sigmoid(x) * value + 1)


def test_vmap_inside_torch_compile_runs_the_op_on_the_batch(device):
    """vmap traced by torch.compile reaches the op's own vmap rule (one call on the whole batch, not
    torch's per-example fallback), with no graph break and the results of the uncompiled vmap."""
    x, theta = torch.randn(4, 6, device=device), torch.randn(6, 4, device=device)
    fn = torch.compile(lambda r, t: torch.func.vmap(polar, in_dims=(0, 1))(r, t), fullgraph=True)
    with mock.patch.object(transforms, "batched", wraps=transforms.batched) as rule:
        got = fn(x, theta)
    assert rule.called
    for g, e in zip(got, torch.func.vmap(polar, in_dims=(0, 1))(x, theta)):
        torch.testing.assert_close(g, e)
    scale = torch.randn(4, device=device)  # a per-example number: a batched 0-d tensor
    compiled = torch.compile(lambda a, s: torch.func.vmap(silu_and_mul)(a, s), fullgraph=True)
    torch.testing.assert_close(compiled(x, scale), torch.func.vmap(silu_and_mul)(x, scale))


def test_forward_mode_inside_torch_compile_keeps_its_tangents(device):
    """A compiled graph reaches the op without forward-mode tangents (torch.library registers no
    forward formula), where it gave zeros: such a call runs eagerly, as its autograd.Function."""
    x, t = torch.randn(6, device=device, dtype=torch.float64), torch.randn(6, device=device, dtype=torch.float64)

    def torch_silu_and_mul(v):
        return torch.nn.functional.silu(v) * v

    expected = torch.func.jvp(torch_silu_and_mul, (x,), (t,))[1]
    compiled = torch.compile(lambda a, b: torch.func.jvp(lambda v: silu_and_mul(v, v), (a,), (b,))[1])
    torch.testing.assert_close(compiled(x, t), expected)
    forward = torch.compile(lambda a: silu_and_mul(a, a))
    with forward_ad.dual_level():
        result = forward(forward_ad.make_dual(x, t))
        torch.testing.assert_close(forward_ad.unpack_dual(result).tangent, expected)


def test_reverse_mode_transforms_inside_torch_compile(device):
    """grad, jacrev, a grad of grad and vmap over grad traced by torch.compile give torch's own values
    (they failed while tracing: torch.library.register_autograd's Function is one torch.func refuses;
    and a grad of grad must not come out as zeros, which the op's forward gave while it ran its lower
    levels with grad mode off)."""
    x = torch.randn(6, device=device, dtype=torch.float64)
    batch = torch.randn(3, 6, device=device, dtype=torch.float64)

    def torch_silu_and_mul(v, w):
        return torch.nn.functional.silu(v) * w

    def transforms_of(fn):
        loss = lambda v: fn(v, x).sum()  # noqa: E731
        return [
            lambda: torch.func.grad(loss)(x),
            lambda: torch.func.jacrev(lambda v: fn(v, v))(x),
            lambda: torch.func.grad(lambda v: torch.func.grad(loss)(v).sum())(x),
            lambda: torch.func.vmap(torch.func.grad(loss))(batch),
            lambda: torch.func.grad(lambda r: polar(r, x)[1].sum() if fn is silu_and_mul
                                    else (r * torch.sin(x)).sum())(x),
        ]

    for ours, theirs in zip(transforms_of(silu_and_mul), transforms_of(torch_silu_and_mul)):
        torch.testing.assert_close(torch.compile(ours)(), theirs())


@pointwise
def scale_add(x, y, alpha):
    return x + alpha * y


def test_a_pattern_first_seen_inside_a_trace_registers_its_op_there(device):
    """A call that passes a number where the function was registered for tensors (an unannotated
    `alpha` of 0.5) compiles with fullgraph=True: its pattern's op is registered while Dynamo traces
    (a graph break before), and the compiled graph gives eager's results and gradients."""
    torch.manual_seed(0)
    x = torch.randn(5, 7, device=device, dtype=torch.float64, requires_grad=True)
    y = torch.randn(7, device=device, dtype=torch.float64, requires_grad=True)
    calls = {(True, True, False): lambda a, b: scale_add(a, b, 0.5) * 2,
             (True, False, False): lambda a, b: scale_add(a, 3.0, 0.25) + b,
             (False, True, True): lambda a, b: scale_add(1.5, b, a)}
    for pattern, call in calls.items():
        assert pattern not in scale_add._ops  # the trace must register it
        explanation = torch._dynamo.explain(call)(x, y)
        assert explanation.graph_break_count == 0, explanation.break_reasons
        assert pattern in scale_add._ops
        torch._dynamo.reset()
        got = torch.compile(call, fullgraph=True)(x, y)
        expected = call(x, y)
        torch.testing.assert_close(got, expected)
        got_grads = torch.autograd.grad(got.sum(), (x, y), allow_unused=True)
        expected_grads = torch.autograd.grad(expected.sum(), (x, y), allow_unused=True)
        for g, e in zip(got_grads, expected_grads):
            assert (g is None) == (e is None)
            if g is not None:
                torch.testing.assert_close(g, e)
    torch.testing.assert_close(scale_add(x, y, 0.5), x + 0.5 * y)  # the scalar function's meaning


@pointwise
def hash32(x):
    x = (x ^ (x >> 16)) * 0x45D9F3B
    return x ^ (x >> 16)


@pointwise(promotion=torch.float8_e4m3fn)
def quantize(x, scale):
    return min(max(x * scale, -448.0), 448.0)


def test_unsigned_and_8_bit_tensors_pass_through_a_compiled_graph(device):
    """The dtypes torch has few kernels for compile too (fullgraph=True): a uint32 hash and an 8-bit quantize
    whose result the graph goes on with, each giving its eager call's bits."""
    k = torch.arange(0, 2**32, 2**32 // 300, dtype=torch.int64)[:300].to(torch.uint32).to(device)
    got = torch.compile(lambda t: hash32(t), fullgraph=True)(k)
    assert got.dtype == torch.uint32 and torch.equal(got.view(torch.int32), hash32(k).view(torch.int32))
    x = torch.randn(300, device=device) * 100
    compiled = torch.compile(lambda t: quantize(t, 1.5).float() * 2, fullgraph=True)
    torch.testing.assert_close(compiled(x), quantize(x, 1.5).float() * 2, rtol=0, atol=0)
