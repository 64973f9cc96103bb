"""Lower the typed straight-line function to Triton statements with Python/PyTorch semantics:
explicit casts where torch would promote, floor `//` and `%`, `**` as products or pow, guarded
shifts, selects as `tl.where`, math through the one table. Loads and stores are not here.
"""
from __future__ import annotations

import ast
import os
from typing import NamedTuple

import torch

from tritonize.passes.ast_tools import (NameAllocator, comment, constant, expr, is_math_call, math_name,
                                        name)
from tritonize.passes.fold_constants import literal
from tritonize.passes.math_table import CHEAP_EXPONENTS, LIBDEVICE_WITH_A_TOOLKIT, MATH_TABLE
from tritonize.passes.type_rules import (BIT_WIDTH, FLOAT8_DTYPES, UNSIGNED_DTYPES, VType, compute_dtype,
                                         is_float, triton_dtype)

_INT_RANGE = {torch.int8: (-2**7, 2**7), torch.int16: (-2**15, 2**15), torch.int32: (-2**31, 2**31),
              torch.int64: (-2**63, 2**63), torch.uint8: (0, 2**8), torch.uint16: (0, 2**16),
              torch.uint32: (0, 2**32), torch.uint64: (0, 2**64), torch.bool: (0, 2)}
_FLOAT32_MAX = 3.4028234663852886e38


class Lowered(NamedTuple):
    """A Triton expression, its torch type, and its dtype in the kernel (None: a Python literal)."""

    node: ast.expr
    vtype: VType
    dtype: torch.dtype | None
    value: object = None

    @property
    def is_literal(self) -> bool:
        return self.dtype is None


class KernelBody(NamedTuple):
    statements: list
    outputs: list  # Lowered, one per output
    approximable: tuple  # what spec.approximate could name here: ("division", "exp"), sorted


def _wrap_int(value: int, dtype: torch.dtype) -> int:
    low, high = _INT_RANGE[dtype]
    if dtype == torch.bool:
        return int(bool(value))
    return (value - low) % (high - low) + low


def _scalar_shape(spec) -> ast.expr:
    """The shape a literal made a value takes: the kernel's scalar shape (see Specialization.scalars_as_blocks),
    or a scalar's where no specialization is given."""
    return expr(spec.scalar_shape if spec is not None else "[]")


def cast_value(value: Lowered, dtype: torch.dtype, bare_literal_ok: bool = False, spec=None) -> ast.expr:
    """`value` converted to `dtype`; a literal stays bare only where Triton keeps `dtype`."""
    if dtype in FLOAT8_DTYPES or value.dtype in FLOAT8_DTYPES:
        return _cast_float8(value, dtype, spec)
    if value.is_literal:
        literal = _literal_as(value.value, dtype)
        if bare_literal_ok and _literal_is_exact(literal, dtype):
            return constant(literal)
        return expr("tl.full(shape, v, D)", shape=_scalar_shape(spec), v=constant(literal), D=expr(triton_dtype(dtype)))
    if value.dtype == dtype:
        return value.node
    if value.dtype == torch.bfloat16 and spec is not None and spec.scalars_as_blocks:
        # Triton's interpreter widens bfloat16 subnormals wrongly (its float conversion clamps their
        # exponent: 9.2e-41 became 0) and has no bfloat16 arithmetic; bfloat16 is float32's top
        # half, so widen on the bits and go on from float32
        widened = Lowered(expr("portable_bfloat16_to_float32(v)", v=value.node), value.vtype, torch.float32)
        return cast_value(widened, dtype, bare_literal_ok, spec)
    if dtype == torch.bool:
        return expr("v != 0", v=value.node)
    integer = not value.dtype.is_floating_point and value.dtype != torch.bool
    if dtype == torch.bfloat16 and spec is not None and (spec.scalars_as_blocks or integer):
        # Triton's interpreter truncates float32 -> bfloat16 (the GPU rounds to nearest even) and
        # converts integers to bfloat16 by reinterpreting them: go through float32, then round.
        # Compiled, integers take that path too: LLVM turns a {-1, 0} integer (`-1 if x < 0 else
        # 0`, `-int(x < 0)`) into `sitofp i1`, which Triton 3.6 lowers to bfloat16 as if unsigned
        # (-1 became +1.0 in vectorized code); rounding the float32's bits leaves no such cast.
        # torch converts integers to bfloat16 through float32 too.
        source = value.node if value.dtype == torch.float32 else expr("v.to(tl.float32)", v=value.node)
        return expr("portable_round_to_bfloat16(v)", v=source)
    return expr("v.to(D)", v=value.node, D=expr(triton_dtype(dtype)))


# torch 2.12 made float32 -> float8_e4m3fn saturate (c10's fp8e4m3fn_from_fp32_value): before, what rounds past
# 448 was NaN. Kernels round as the torch in use does.
_E4M3FN_ROUNDING = ("portable_round_to_float8e4m3fn"
                    if torch.tensor(1e6).to(torch.float8_e4m3fn).view(torch.uint8).item() == 0x7E
                    else "portable_round_to_float8e4m3fn_nan_overflow")
_FROM_FLOAT8 = {torch.float8_e4m3fn: "portable_float8e4m3fn_to_float32",
                torch.float8_e5m2: "portable_float8e5m2_to_float32",
                torch.float8_e8m0fnu: "portable_float8e8m0fnu_to_float32"}
_TO_FLOAT8 = {torch.float8_e4m3fn: _E4M3FN_ROUNDING, torch.float8_e5m2: "portable_round_to_float8e5m2",
              torch.float8_e8m0fnu: "portable_round_to_float8e8m0fnu"}


def _cast_float8(value: Lowered, dtype: torch.dtype, spec) -> ast.expr:
    """A conversion to or from an 8-bit float, on the bits (portable_math's helpers): through float32, as
    torch converts (c10's Float8 types take and give a float). Kernels hold an 8-bit float as its code, a
    uint8."""
    if value.dtype == dtype:
        return value.node
    if value.is_literal:  # rounded here as the kernel would round it at run time: through float32
        code = torch.tensor(float(value.value), dtype=torch.float32).to(dtype).view(torch.uint8).item()
        return expr("tl.full(shape, c, tl.uint8)", shape=_scalar_shape(spec), c=constant(code))
    if value.dtype in FLOAT8_DTYPES:
        widened = Lowered(expr(f"{_FROM_FLOAT8[value.dtype]}(v)", v=value.node), value.vtype, torch.float32)
        return cast_value(widened, dtype, spec=spec)
    narrowed = cast_value(value, torch.float32, spec=spec)
    return expr(f"{_TO_FLOAT8[dtype]}(v)", v=narrowed)


def _literal_as(value, dtype):
    if dtype == torch.bool:
        return bool(value)
    if is_float(dtype):
        return float(value)
    return _wrap_int(int(value), dtype)


def _literal_is_exact(value, dtype) -> bool:
    """Will Triton keep `dtype` when this literal meets a `dtype` tensor? (Its scalar rule.)"""
    if isinstance(value, float):
        finite = value == value and abs(value) != float("inf")
        return finite and (dtype == torch.float64 or abs(value) <= _FLOAT32_MAX)
    return True


def _elements(value):
    return value.elts if isinstance(value, ast.Tuple) else [value]


class LowerToTriton:
    """
    >>> # y = x // 2    (x: int32 tensor)     becomes
    >>> # q = x // 2
    >>> # y = q - ((x - q * 2 != 0) & ((x - q * 2 < 0) != (2 < 0))).to(tl.int32)   (floor, not C's trunc)
    """

    def __init__(self, ctx, spec, names: NameAllocator):
        self.ctx, self.spec, self.names = ctx, spec, names
        self.approximable: set[str] = set()
        self.env: dict[str, tuple[VType, torch.dtype]] = {}
        for param in spec.params:
            self.env[param.name] = (param.vtype, self.rep(param.vtype))
        # the names whose values read device memory (a tensor the kernel loads, or a value computed
        # from one); the rest are Python numbers, 0-d tensors passed by value, and what is made of them
        self.read_from_device = {param.name for param in spec.params if param.is_pointer}

    # -- representation and casts -------------------------------------------------------------

    def rep(self, vt: VType) -> torch.dtype:
        """The dtype a value of torch type `vt` has inside the kernel."""
        return vt.dtype if vt.is_python else compute_dtype(vt.dtype)

    def cast(self, value: Lowered, dtype: torch.dtype, bare_literal_ok: bool = False) -> ast.expr:
        result = cast_value(value, dtype, bare_literal_ok, self.spec)
        if isinstance(value.node, ast.Name) and result is not value.node and not value.is_literal:
            # the same named value converted twice is converted once
            key = (value.node.id, dtype)
            if key not in self.casts:
                temp = self.names.fresh(value.node.id)
                self.statements.append(ast.Assign(targets=[name(temp, store=True)], value=result))
                self.casts[key] = temp
            return name(self.casts[key])
        return result

    def in_common_dtype(self, nodes, values, promoted: VType) -> list:
        """Tensor values meeting in a 16-bit float dtype that is not their own, rounded to it first:
        torch casts every tensor operand to the common dtype before its opmath. An integer tensor
        (int64 2049 + float16 0.5 is 2048 + 0.5, which rounds to 2048, not 2050) and a 0-d float tensor
        of another dtype (x_bf16 * torch.tensor(0.3, device="cuda") multiplies by bfloat16's 0.30078125),
        through float32 as c10's conversions go. Python numbers, 0-d tensors in CPU memory (passed by
        value) and values made only of them stay exact, as torch's CUDA kernels read CPU scalars
        straight into opmath."""
        if promoted.dtype not in (torch.float16, torch.bfloat16) or compute_dtype(promoted.dtype) != torch.float32:
            return values
        return [Lowered(self.round_to(self.cast(v, torch.float32), promoted.dtype), promoted, torch.float32)
                if self.is_cast_to(node, v, promoted.dtype) else v for node, v in zip(nodes, values)]

    def is_cast_to(self, node, value: Lowered, dtype: torch.dtype) -> bool:
        """Does torch cast this operand to `dtype` before computing: a tensor value of another dtype
        (bool tensors are exact in any dtype) that reads device memory?"""
        if value.is_literal or value.vtype is None or value.vtype.is_python:
            return False
        if value.vtype.dtype in (dtype, torch.bool) or not self.reads_device_memory(node):
            return False
        return True

    def reads_device_memory(self, node) -> bool:
        """Is this expression computed from a tensor the kernel loads (not only from numbers and
        0-d tensors passed by value)?"""
        return any(isinstance(n, ast.Name) and n.id in self.read_from_device for n in ast.walk(node))

    def operands(self, values, dtype):
        bare = any(not v.is_literal for v in values)
        return [self.cast(v, dtype, bare_literal_ok=bare) for v in values]

    def hoist(self, value: Lowered, base="t") -> Lowered:
        """Give a value a name so that it can be used twice without computing it twice."""
        if value.is_literal or isinstance(value.node, ast.Name):
            return value
        temp = self.names.fresh(base)
        self.statements.append(ast.Assign(targets=[name(temp, store=True)], value=value.node))
        return value._replace(node=name(temp))

    def hoisted(self, value: Lowered, dtype, base="t") -> ast.expr:
        node = self.cast(value, dtype)
        if isinstance(node, (ast.Name, ast.Constant)):
            return node
        return self.hoist(Lowered(node, value.vtype, dtype), base).node

    def truthy(self, value: Lowered) -> ast.expr:
        if value.is_literal:
            return constant(bool(value.value))
        if value.dtype == torch.bool:
            return value.node
        return expr("v != 0", v=value.node)

    # -- statements ---------------------------------------------------------------------------

    def run(self, tree: ast.FunctionDef) -> KernelBody:
        self.statements: list[ast.stmt] = []
        self.casts: dict[tuple, str] = {}
        last_line = None
        outputs = []
        for statement in tree.body:
            line = getattr(statement, "lineno", None)
            computes = isinstance(statement, ast.Assign) or not all(
                isinstance(v, (ast.Name, ast.Constant)) for v in _elements(statement.value))
            if line is not None and line != last_line and computes:
                last_line = line
                text = self.source_line(statement)
                if text:
                    self.statements.append(comment(text))
            if isinstance(statement, ast.Assign):
                target = statement.targets[0].id
                value = self.lower(statement.value)
                if value.is_literal:
                    dtype = self.rep(value.vtype)
                    value = Lowered(self.cast(value, dtype), value.vtype, dtype)
                self.statements.append(ast.Assign(targets=[name(target, store=True)], value=value.node))
                self.env[target] = (value.vtype, value.dtype)
                if self.reads_device_memory(statement.value):
                    self.read_from_device.add(target)
                else:
                    self.read_from_device.discard(target)
            else:
                values = statement.value.elts if isinstance(statement.value, ast.Tuple) else [statement.value]
                outputs = [self.lower(v) for v in values]
        return KernelBody(self.statements, outputs, tuple(sorted(self.approximable)))

    def source_line(self, statement) -> str:
        location = self.ctx.location(statement)
        if location is None:
            return ""
        return f"src[{os.path.basename(location.filename)}:{location.lineno}]: {location.line_text().strip()}"

    # -- expressions --------------------------------------------------------------------------

    def lower(self, node) -> Lowered:
        value = literal(node)
        if value is not None:  # `-2` parses as a negation of 2
            return Lowered(constant(value), node.tz_type, None, value)
        method = getattr(self, "lower_" + type(node).__name__)
        return method(node)

    def lower_Constant(self, node):
        return Lowered(node, node.tz_type, None, node.value)

    def lower_Name(self, node):
        vt, dtype = self.env[node.id]
        return Lowered(name(node.id), vt, dtype)

    def result(self, node, ast_node, dtype=None) -> Lowered:
        vt = node.tz_type
        dtype = self.rep(vt) if dtype is None else dtype
        if not self.spec.opmath and not vt.is_python and vt.dtype in (torch.float16, torch.bfloat16, *FLOAT8_DTYPES) \
                and dtype == torch.float32:
            # no_opmath: each 16-bit (or 8-bit) operation rounds to its dtype, as torch's 16-bit
            # arithmetic does; the value stays float32 (the interpreter has no bfloat16 arithmetic: it read
            # bfloat16 operands as garbage), which also keeps one result on both devices
            ast_node = self.round_to(ast_node, vt.dtype)
        return Lowered(ast_node, vt, dtype)

    def round_to(self, value: ast.expr, dtype: torch.dtype) -> ast.expr:
        """A float32 value rounded to the nearest `dtype` (a 16-bit float), held in float32."""
        rounded = cast_value(Lowered(value, None, torch.float32), dtype, spec=self.spec)
        return cast_value(Lowered(rounded, None, dtype), torch.float32, spec=self.spec)

    def lower_UnaryOp(self, node):
        operand = self.lower(node.operand)
        if isinstance(node.op, ast.Not):
            return self.result(node, expr("v == 0", v=self.truthy(operand)))
        dtype = self.rep(node.tz_operands)
        value = self.cast(operand, dtype)
        if isinstance(node.op, ast.UAdd):
            return self.result(node, value, dtype)
        if isinstance(node.op, ast.Invert) and dtype == torch.bool:
            return self.result(node, expr("v == 0", v=value), dtype)  # torch: ~bool is logical not
        if isinstance(node.op, ast.Invert) and dtype in UNSIGNED_DTYPES:
            # Triton 3.6's interpreter inverts as an xor with -1, which numpy 2 refuses for unsigned arrays
            return self.result(node, expr("v ^ m", v=value, m=constant(2**BIT_WIDTH[dtype] - 1)), dtype)
        if isinstance(node.op, ast.USub) and is_float(dtype):
            # Triton lowers -x to 0 - x, which turns -0.0 into +0.0; a product by -1 flips the sign
            return self.result(node, expr("v * -1.0", v=value), dtype)
        return self.result(node, ast.UnaryOp(op=node.op, operand=value), dtype)

    def lower_BinOp(self, node):
        left, right = self.in_common_dtype([node.left, node.right], [self.lower(node.left), self.lower(node.right)],
                                           node.tz_operands)
        dtype = self.rep(node.tz_operands)
        op = node.op
        if isinstance(op, ast.Div):
            return self.result(node, self.true_divide(left, right, dtype))
        if isinstance(op, ast.FloorDiv):
            return self.result(node, self.floor_divide(left, right, dtype, node.tz_operands))
        if isinstance(op, ast.Mod):
            return self.result(node, self.remainder(left, right, dtype))
        if isinstance(op, ast.Pow):
            return self.result(node, self.power(left, right, dtype, node.tz_operands))
        if isinstance(op, (ast.LShift, ast.RShift)):
            return self.result(node, self.shift(op, left, right, dtype))
        if dtype == torch.bool and isinstance(op, ast.Add):
            op = ast.BitOr()  # torch: True + True is True
        if dtype == torch.bool and isinstance(op, ast.Mult):
            op = ast.BitAnd()
        a, b = self.operands([left, right], dtype)
        return self.result(node, ast.BinOp(left=a, op=op, right=b))

    def true_divide(self, left, right, dtype):
        if dtype == torch.float32:
            return self.divide(self.cast(left, dtype), self.cast(right, dtype), dtype)
        a, b = self.operands([left, right], dtype)
        return self.divide(a, b, dtype)

    def divide(self, a, b, dtype):
        if dtype == torch.float32:
            if self.approximates("division"):
                return ast.BinOp(left=a, op=ast.Div(), right=b)  # Triton's `/`: div.full, 2 ulp
            # `/` on float32 is not correctly rounded on NVIDIA GPUs; torch's division is
            return expr("tl.math.div_rn(a, b)", a=a, b=b)
        return ast.BinOp(left=a, op=ast.Div(), right=b)

    def approximates(self, kind: str) -> bool:
        """May a faster, inexact `kind` of operation stand in for the exact one here? Only where
        the specialization says so (after dsl/approximations.py checked it); noted either way."""
        if self.spec.portable_math:  # the interpreter has no faster variant
            return False
        self.approximable.add(kind)
        return kind in self.spec.approximate

    def by_literal_zero(self, right, dtype):
        """An integer `//` or `%` by a literal 0 (after folding): 0, as `nonzero_divisor` gives
        for a zero found at run time, with no division left in the kernel."""
        if not is_float(dtype) and right.is_literal and not isinstance(right.value, float) and right.value == 0:
            return self.cast(Lowered(None, None, None, 0), dtype)  # a block where scalars are blocks
        return None

    def nonzero_divisor(self, b, dtype):
        """An integer divisor with 0 replaced by 1 (a literal is left as it is): x // 0 and x % 0
        are 0 on every device, as in NumPy (Python raises, torch's CUDA kernels leave it undefined).
        It also keeps a divisor that folds to a constant 0 (`x // (y - y)`) away from Triton's
        CUDA compiler, which crashed on it (AxisInfo); `tl.where(b == 0, 1, b)` folds to 1."""
        if isinstance(b, ast.Constant):
            return b
        return self.hoist(Lowered(expr("tl.where(b == 0, 1, b)", b=b), None, dtype), "nz").node

    def floor_divide(self, left, right, dtype, operands=None):
        undefined = self.by_literal_zero(right, dtype)
        if undefined is not None:
            return undefined
        a = self.hoisted(left, dtype, "a")
        b = self.hoisted(right, dtype, "b")
        if not is_float(dtype):
            divisor = self.nonzero_divisor(b, dtype)
            quotient = self.hoist(Lowered(expr("a // d", a=a, d=divisor), None, dtype), "q").node
            if dtype not in UNSIGNED_DTYPES:
                rem = self.hoist(Lowered(expr("a - q * d", a=a, d=divisor, q=quotient), None, dtype), "r").node
                # Triton's // truncates like C; step down where the signs differ (Python floors)
                quotient = expr("q - ((r != 0) & ((r < 0) != (d < 0))).to(D)", q=quotient, r=rem, d=divisor,
                                D=expr(triton_dtype(dtype)))
            if divisor is b:
                return quotient
            return expr("tl.where(b == 0, 0, q)", b=b, q=quotient)
        if dtype == torch.float32:
            return self.float32_floor_divide(a, b, band=not self.half_inputs(operands, left, right))
        return self.eager_floor_divide(a, b, dtype)

    def half_inputs(self, operands, *values) -> bool:
        """Are `values` the kernel's own 16-bit inputs (parameters as loaded, so 16-bit values),
        all of the 16-bit dtype `operands` (their promoted torch type) names?"""
        if operands is None or operands.is_python or operands.dtype not in (torch.float16, torch.bfloat16):
            return False
        return all(isinstance(v.node, ast.Name) and v.node.id in self.ctx.params and v.vtype is not None
                   and not v.vtype.is_python and v.vtype.dtype == operands.dtype for v in values)

    def eager_floor_divide(self, a, b, dtype):
        """torch's div_floor_floating (c10/util/generic_math.h), which Python's float // matches."""
        mod = self.hoist(Lowered(self.fmod(a, b), None, dtype), "mod").node
        # correctly rounded: an ulp off here survives the floor (1e30 // 0.3 on the GPU)
        exact = self.divide(expr("a - mod", a=a, mod=mod), b, dtype)
        div = self.hoist(Lowered(exact, None, dtype), "div").node
        div = self.hoist(Lowered(expr("tl.where((mod != 0) & ((b < 0) != (mod < 0)), div - 1, div)",
                                      mod=mod, b=b, div=div), None, dtype), "div").node
        floor = self.hoist(Lowered(expr("tl.floor(div)", div=div), None, dtype), "fl").node
        floor = expr("tl.where(div - fl > 0.5, fl + 1, fl)", div=div, fl=floor)
        zero = self.copysign_zero(expr("a / b", a=a, b=b), dtype)
        return expr("tl.where(b == 0, a / b, tl.where(div != 0, fl, z))", a=a, b=b, div=div, fl=floor, z=zero)

    def float32_floor_divide(self, a, b, band=True):
        """eager_floor_divide's results without its fmod: floor(q) of the correctly rounded
        quotient q = a / b, one step down where q is an integer the exact quotient lies below
        (the sign of r = a - floor(q) * b, from an fma); NaN for an infinite dividend, as eager's
        fmod makes it. That is the exact floor, and eager's result but where 2^22 <= |q| < 2^25,
        where eager rounds a - fmod(a, b) to float32 and differs; there it is eager's formula,
        with trunc(a / b) and fmod(a, b) derived from r (exact there: |a / b - floor(q)| < 1).
        `band=False` (both operands 16-bit inputs, the result rounded to their dtype): the exact
        floor alone, which is c10's result after that rounding for every pair of 16-bit values."""
        # benchmarks/experiments/floor_divide.py: every pair of bfloat16 values and 33.5M float32
        # pairs (random bits, near multiples of the divisor, special values) give c10's results
        def lowered(node, base, dtype=torch.float32):
            return self.hoist(Lowered(node, None, dtype), base).node

        q = lowered(expr("tl.math.div_rn(a, b)", a=a, b=b), "q")
        floor = lowered(expr("tl.floor(q)", q=q), "fl")
        if self.spec.portable_math:  # the interpreter's fma rounds twice (Triton 3.6); float64 holds a - fl * b
            product = expr("(a.to(tl.float64) - fl.to(tl.float64) * b.to(tl.float64)).to(tl.float32)", a=a, b=b,
                           fl=floor)
        else:
            product = expr("tl.fma(-fl, b, a)", a=a, b=b, fl=floor)
        # a where floor(q) is 0: b may be infinite, and 0 * inf is NaN
        residual = lowered(expr("tl.where(fl == 0, a, r)", a=a, fl=floor, r=product), "r")
        below = lowered(expr("(r != 0) & ((r < 0) != (b < 0))", r=residual, b=b), "below", torch.bool)
        exact = expr("tl.where((q == fl) & below, fl - 1, fl)", q=q, fl=floor, below=below)
        exact = expr("tl.where((tl.abs(a) == float('inf')) & (b != 0), float('nan'), e)", a=a, b=b, e=exact)
        if not band:
            return exact
        # hoisted before the band's steps, so that q, below and a die there: left inside the
        # final select they stayed live through the band and took 91 registers a thread against
        # 70 (5 blocks of 4 warps an SM instead of 7), 77 us against 70 at 2^24 on an H100
        exact = lowered(exact, "exact")
        band = lowered(expr("(tl.abs(q) >= 4194304.0) & (tl.abs(q) < 33554432.0)", q=q), "band", torch.bool)
        # in the band: r of floor(a / b), then trunc(a / b) (one more for a negative, not whole
        # quotient) and fmod(a, b) = a - trunc * b; c10 rounds a - fmod = trunc * b once
        floor_residual = lowered(expr("tl.where(below, r + b, r)", below=below, r=residual, b=b), "r")
        up = lowered(expr("(r != 0) & ((r < 0) != (a < 0))", r=floor_residual, a=a), "up", torch.bool)
        mod = lowered(expr("tl.where(up, r - b, r)", up=up, r=floor_residual, b=b), "mod")
        rest = expr("((fl.to(tl.float64) - below.to(tl.float64) + up.to(tl.float64)) * b.to(tl.float64))"
                    ".to(tl.float32)", fl=floor, below=below, up=up, b=b)
        # outside the band the division is of 1 by 1: its short path
        div = lowered(expr("tl.math.div_rn(tl.where(band, rest, 1.0), tl.where(band, b, 1.0))", band=band, rest=rest,
                           b=b), "div")
        div = lowered(expr("tl.where((mod != 0) & ((b < 0) != (mod < 0)), div - 1, div)", mod=mod, b=b, div=div), "div")
        div_floor = lowered(expr("tl.floor(div)", div=div), "fl")
        return expr("tl.where(band, tl.where(div - dfl > 0.5, dfl + 1, dfl), exact)", band=band, div=div,
                    dfl=div_floor, exact=exact)

    def copysign_zero(self, sign_source, dtype):
        """A zero with the sign bit of `sign_source`, made from bits (a literal -0.0 can fold to 0.0)."""
        width = {torch.float64: 64, torch.float32: 32, torch.float16: 16, torch.bfloat16: 16}[dtype]
        return expr("(v.to(I, bitcast=True) & m).to(D, bitcast=True)", v=sign_source, I=expr(f"tl.int{width}"),
                    m=constant(-2**(width - 1)), D=expr(triton_dtype(dtype)))

    def fmod(self, a, b):
        """C's fmod. Triton's float `%` is fmod in the interpreter but inexact on the GPU
        (inf % inf gave inf under triton 3.6), so CUDA calls libdevice as torch does."""
        if self.spec.portable_math:
            return expr("a % b", a=a, b=b)
        return expr("libdevice.fmod(a, b)", a=a, b=b)

    def remainder(self, left, right, dtype):
        undefined = self.by_literal_zero(right, dtype)
        if undefined is not None:
            return undefined
        a = self.hoisted(left, dtype, "a")
        b = self.hoisted(right, dtype, "b")
        if not is_float(dtype):
            b = self.nonzero_divisor(b, dtype)  # x % 1 is 0, the result for a zero divisor
        rem = self.hoist(Lowered(self.fmod(a, b) if is_float(dtype) else expr("a % b", a=a, b=b), None, dtype),
                         "r").node
        if dtype in UNSIGNED_DTYPES:
            return rem
        # Triton's % takes the dividend's sign (C fmod); torch.remainder takes the divisor's
        return expr("tl.where((r != 0) & ((r < 0) != (b < 0)), r + b, r)", r=rem, b=b)

    def power(self, left, right, dtype, operands=None):
        if right.is_literal and not isinstance(right.value, bool):
            special = self.power_by_constant(left, right.value, dtype)
            if special is not None:
                return special
        if is_float(dtype):
            two = left.is_literal and not isinstance(left.value, bool) and left.value == 2
            if two and right.dtype is not None and not is_float(right.dtype) \
                    and right.dtype != torch.bool and dtype == torch.float32:
                return self.power_of_two(self.hoisted(right, right.dtype, "e"), right.dtype)
            # exp2 of every bfloat16 value rounds to pow(2, x)'s bfloat16, bit for bit on the GPU
            # (benchmarks/experiments/power_of_two.py; float16 has 3 that differ), at a copy's speed
            if two and operands is not None and operands.dtype == torch.bfloat16 and self.half_inputs(operands, right):
                return self.math("exp2", [right], dtype)
            return self.math("pow", [left, right], dtype)
        return self.integer_power(left, right, dtype)

    def power_of_two(self, exponent, exponent_dtype):
        """2.0 ** e for an integer e, in float32 (as torch computes it), built from its bits:
        pow(2, e) exactly (a normal power of two, a subnormal one, inf past the largest, 0 past
        the smallest), as pow gives it, without pow's few dozen instructions (ldexp is
        x * 2.0 ** e)."""
        mantissa, bias, integer = 23, 127, "tl.int32"  # float32's
        # clamped in int64 (every integer e but a uint64's fits; an unsigned e would wrap a negative bound),
        # then narrowed to the integer type the bits are built in
        widened = f"tl.minimum(e, {bias + 1})" if exponent_dtype == torch.uint64 else "e"
        clamped = f"tl.minimum(tl.maximum({widened}.to(tl.int64), {-bias - mantissa - 1}), {bias + 1}).to(I)"
        e = self.hoist(Lowered(expr(clamped, e=exponent, I=expr(integer)), None, torch.int32), "e").node
        normal = expr(f"((e + {bias}) << {mantissa})", e=e)
        subnormal = expr(f"(tl.full([], 1, I) << tl.maximum(e + {bias + mantissa - 1}, 0))", e=e, I=expr(integer))
        bits = expr(f"tl.where(e > {bias}, {(2 * bias + 1) << mantissa}, tl.where(e >= {1 - bias}, n, "
                    f"tl.where(e >= {1 - bias - mantissa}, s, 0)))", e=e, n=normal, s=subnormal)
        return expr("b.to(I).to(tl.float32, bitcast=True)", b=bits, I=expr(integer))

    def power_by_constant(self, base, exponent, dtype):
        if exponent not in CHEAP_EXPONENTS:  # the exponents math_table.costly_calls counts as cheap
            return None
        if float(exponent) == 0.0:
            return self.cast(Lowered(None, None, None, 1), dtype)  # x ** 0 == 1, nan too
        if is_float(dtype):
            if exponent == 0.5:
                return self.math("sqrt", [base], dtype)
            if exponent in (-1, -2, -0.5):
                positive = self.power_by_constant(base, -exponent, dtype)
                one = Lowered(ast.Constant(1.0), base.vtype, None, 1.0)
                return self.true_divide(one, Lowered(positive, base.vtype, dtype), dtype)
        if float(exponent).is_integer() and 0 < exponent <= 4:
            value = self.hoisted(base, dtype, "x")
            result = value
            for _ in range(int(exponent) - 1):
                result = ast.BinOp(left=result, op=ast.Mult(), right=value)
            return result
        return None

    def integer_power(self, base, exponent, dtype):
        """Square-and-multiply over the exponent's bits; torch's rules for negative exponents."""
        b = self.hoisted(base, dtype, "base")
        e = self.hoisted(exponent, dtype, "e")
        result, square, bits = self.names.fresh("p"), self.names.fresh("sq"), self.names.fresh("bits")
        self.statements += [
            ast.Assign(targets=[name(result, store=True)], value=self.cast(Lowered(None, None, None, 1), dtype)),
            ast.Assign(targets=[name(square, store=True)], value=b),
            ast.Assign(targets=[name(bits, store=True)], value=e),
            ast.For(target=name("_", store=True), iter=expr("tl.static_range(n)", n=constant(BIT_WIDTH[dtype])),
                    body=[ast.Assign(targets=[name(result, store=True)],
                                     value=expr("tl.where((bits & 1) != 0, p * sq, p)", bits=name(bits),
                                                p=name(result), sq=name(square))),
                          ast.Assign(targets=[name(square, store=True)], value=expr("sq * sq", sq=name(square))),
                          ast.Assign(targets=[name(bits, store=True)], value=expr("bits >> 1", bits=name(bits)))],
                    orelse=[], lineno=0),
        ]
        if dtype in UNSIGNED_DTYPES:
            return name(result)
        # torch: 1 ** -n == 1, (-1) ** -n == +-1, anything else ** -n == 0
        return expr("tl.where(e < 0, tl.where(b == 1, 1, tl.where(b == -1, tl.where((e & 1) != 0, -1, 1), 0)), p).to(D)",
                    e=e, b=b, p=name(result), D=expr(triton_dtype(dtype)))

    def shift(self, op, left, right, dtype):
        if right.is_literal and 0 <= right.value < BIT_WIDTH[dtype]:
            a, b = self.operands([left, right], dtype)
            return ast.BinOp(left=a, op=op, right=b)
        a = self.hoisted(left, dtype, "a")
        b = self.hoisted(right, dtype, "b")
        width, D = constant(BIT_WIDTH[dtype]), expr(triton_dtype(dtype))
        # C leaves shifts by >= the width undefined; torch gives 0 (or the sign for >>)
        if isinstance(op, ast.LShift):
            return expr("tl.where((b < 0) | (b >= w), 0, a << b).to(D)", a=a, b=b, w=width, D=D)
        if dtype in UNSIGNED_DTYPES:
            return expr("tl.where((b < 0) | (b >= w), 0, a >> b).to(D)", a=a, b=b, w=width, D=D)
        return expr("tl.where((b < 0) | (b >= w), tl.where(a < 0, -1, 0), a >> b).to(D)", a=a, b=b, w=width, D=D)

    def lower_Compare(self, node):
        operands = [node.left, node.comparators[0]]
        left, right = self.in_common_dtype(operands, [self.lower(n) for n in operands], node.tz_operands)
        a, b = self.operands([left, right], self.rep(node.tz_operands))
        return self.result(node, ast.Compare(left=a, ops=node.ops, comparators=[b]))

    def lower_BoolOp(self, node):
        values = [self.lower(v) for v in node.values]
        if node.tz_type.dtype == torch.bool and all(v.vtype.dtype == torch.bool for v in values):
            op = ast.BitAnd() if isinstance(node.op, ast.And) else ast.BitOr()
            result = self.truthy(values[0])
            for value in values[1:]:
                result = ast.BinOp(left=result, op=op, right=self.truthy(value))
            return self.result(node, result)
        # Python's value semantics: `a and b` is b if a is truthy, else a
        dtype = self.rep(node.tz_operands)
        result = values[-1]
        for value in reversed(values[:-1]):
            value = self.hoist(Lowered(self.cast(value, dtype), value.vtype, dtype))
            test = self.truthy(value)
            chosen = [result, value] if isinstance(node.op, ast.And) else [value, result]
            a, b = self.operands(chosen, dtype)
            result = Lowered(expr("tl.where(c, a, b)", c=test, a=a, b=b), node.tz_operands, dtype)
        return self.result(node, self.cast(result, dtype))

    def lower_IfExp(self, node):
        test = self.truthy(self.lower(node.test))
        body, orelse = self.in_common_dtype([node.body, node.orelse], [self.lower(node.body), self.lower(node.orelse)],
                                            node.tz_operands)
        a, b = self.operands([body, orelse], self.rep(node.tz_operands))
        return self.result(node, expr("tl.where(c, a, b)", c=test, a=a, b=b))

    def lower_Call(self, node):
        args = [self.lower(a) for a in node.args]
        if is_math_call(node):
            fname = math_name(node)
            dtype = self.rep(node.tz_operands)
            if MATH_TABLE[fname].kind != "ldexp":  # ldexp's exponent stays an integer
                args = self.in_common_dtype(node.args, args, node.tz_operands)
            if fname == "log" and len(args) == 2:
                log_x = Lowered(self.math("log", args[:1], dtype), node.tz_operands, dtype)
                log_base = Lowered(self.math("log", args[1:], dtype), node.tz_operands, dtype)
                return self.result(node, self.true_divide(log_x, log_base, dtype))
            entry = MATH_TABLE[fname]
            if fname == "nextafter" and node.tz_operands.dtype != torch.float64:
                return self.result(node, self.nextafter_in(node.tz_operands.dtype, args, dtype))
            if entry.kind == "same" and not is_float(dtype):
                return self.result(node, self.cast(args[0], dtype))
            return self.result(node, self.math(fname, args, dtype))
        builtin = node.func.id
        if builtin in ("min", "max"):
            dtype = self.rep(node.tz_operands)
            args = self.in_common_dtype(node.args, args, node.tz_operands)
            values = self.operands(args, dtype)
            function = "tl.minimum" if builtin == "min" else "tl.maximum"
            wins = "<" if builtin == "min" else ">"
            if is_float(dtype):
                # as torch.minimum/maximum: NaN wins, and on a tie (-0.0 vs 0.0) the first
                # argument, as Python's min does (IEEE min would order -0.0 below 0.0)
                result = self.hoisted(args[0], dtype, "v")
                for arg in args[1:]:
                    b = self.hoisted(arg, dtype, "v")
                    result = expr(f"tl.where((b {wins} a) | (b != b), b, a)", a=result, b=b)
                    if arg is not args[-1]:
                        result = self.hoist(Lowered(result, None, dtype), "lo" if builtin == "min" else "hi").node
                return self.result(node, result)
            result = values[0]
            for value in values[1:]:
                result = expr(f"{function}(a, b)", a=result, b=value)
            return self.result(node, result)
        value = args[0]
        if builtin == "abs":
            dtype = self.rep(node.tz_operands)
            if dtype == torch.bool:
                return self.result(node, self.cast(value, dtype))
            return self.result(node, expr("tl.abs(v)", v=self.cast(value, dtype)))
        if builtin == "bool":
            return self.result(node, self.truthy(value))
        return self.result(node, self.cast(value, self.rep(node.tz_type)))  # float(), int()

    def nextafter_in(self, storage, args, dtype) -> ast.expr:
        """math.nextafter one unit in the last place of the value's own dtype, from its bits:
        computed in float32 (opmath) or float64 (the interpreter's math) and rounded, a step
        would round back to where it started. bfloat16 steps by 2^16 in float32's bits (it is
        float32's top half), so no bfloat16 arithmetic is needed (the interpreter has none)."""
        work = torch.float16 if storage == torch.float16 else torch.float32
        width = 16 if work == torch.float16 else 32
        unit = 65536 if storage == torch.bfloat16 else 1
        W, I = expr(triton_dtype(work)), expr(f"tl.int{width}")
        a, b = args
        if storage != work:  # round to bfloat16 first, then widen
            a = Lowered(self.cast(a, storage), a.vtype, storage)
            b = Lowered(self.cast(b, storage), b.vtype, storage)
        a, b = self.hoisted(a, work, "a"), self.hoisted(b, work, "b")
        int_dtype = torch.int16 if width == 16 else torch.int32
        bits = self.hoist(Lowered(expr("a.to(I, bitcast=True)", a=a, I=I), None, int_dtype), "bits").node
        step = expr("tl.where((b > a) == (a > 0), bits + u, bits - u).to(W, bitcast=True)",
                    a=a, b=b, bits=bits, u=constant(unit), W=W)
        # from zero: the smallest subnormal, with b's sign
        tiny = expr("tl.where(b < 0, m, u).to(I).to(W, bitcast=True)", b=b, m=constant(-2**(width - 1) + unit),
                    u=constant(unit), I=I, W=W)
        result = expr("tl.where((a != a) | (b != b), a + b, tl.where(a == b, b, tl.where(a == 0, t, s)))",
                      a=a, b=b, t=tiny, s=step)
        return result if work == dtype else expr("v.to(D)", v=result, D=expr(triton_dtype(dtype)))

    def math(self, fname, args, dtype) -> ast.expr:
        """A math call computed in `dtype`'s float (portable: float64) and returned in `dtype`."""
        entry = MATH_TABLE[fname]
        if entry.kind == "bool":
            values = [self.hoisted(a, dtype, "v") for a in args]
            return expr(entry.cuda, **dict(zip("abc", values)))
        work = compute_dtype(dtype)
        composite = entry.float32 and not (self.spec.toolkit_libdevice and fname in LIBDEVICE_WITH_A_TOOLKIT)
        if not self.spec.portable_math and work == torch.float32 and composite:
            template = entry.float32
        elif self.spec.portable_math or entry.cuda.startswith("portable_"):
            work = torch.float64  # the portable composites compute in float64
            template = entry.portable if self.spec.portable_math else entry.cuda
            if self.spec.portable_math and entry.portable_narrow and dtype != torch.float64:
                template = entry.portable_narrow
        else:
            template = entry.cuda
            if entry.fast and work == torch.float32 and self.approximates(fname):
                template = entry.fast
        if work == torch.float64 and compute_dtype(dtype) == torch.float32:
            # a number in a float32 computation is float32 on CUDA (and in torch): so too in the
            # portable composites, which widen their arguments to float64
            args = [Lowered(self.cast(a, torch.float32), a.vtype, torch.float32)
                    if a.dtype in (None, torch.float64) and entry.kind != "ldexp" else a for a in args]
        arg_dtypes = [work] * len(args)
        if entry.kind == "ldexp":
            arg_dtypes[1] = torch.int64 if self.spec.portable_math else torch.int32
        values = [self.hoisted(a, d, "v") if template.count(p) > 1 else self.cast(a, d)
                  for a, d, p in zip(args, arg_dtypes, "abc")]
        result = expr(template, **dict(zip("abc", values)))
        if work != dtype:
            result = expr("v.to(D)", v=result, D=expr(triton_dtype(dtype)))
        return result
