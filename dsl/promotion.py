"""Output dtype rules (`promotion=`): torch's elementwise type-promotion kinds, per output,
optionally restricted to some parameters."""
from __future__ import annotations

from dataclasses import dataclass

import torch
from torch._prims_common import ELEMENTWISE_TYPE_PROMOTION_KIND as Kind
from torch._prims_common import elementwise_dtypes

KINDS = {
    "default": Kind.DEFAULT,
    "int_to_float": Kind.INT_TO_FLOAT,
    "always_bool": Kind.ALWAYS_BOOL,
    "bool_to_long": Kind.BOOL_TO_LONG,
    "no_opmath": Kind.NO_OPMATH,
}


@dataclass(frozen=True)
class Promotion:
    """One output's dtype rule: a kind from KINDS or a fixed torch.dtype, over some parameters.

    The kind None (what `@pointwise` uses unless told) gives the dtype the function itself
    computes: torch's promotion applied operation by operation, so `x < 0` is bool and
    `a / b` of ints is float32.

    `Promotion("default", over=("a", "b"))` promotes over a and b only, as `where` needs.
    """

    kind: str | torch.dtype | None = None
    over: tuple[str, ...] | None = None

    def __post_init__(self):
        if self.kind is not None and not isinstance(self.kind, torch.dtype) and self.kind not in KINDS:
            raise ValueError(f"promotion must be one of {sorted(KINDS)} or a torch.dtype, got {self.kind!r}")

    @property
    def opmath(self) -> bool:
        return self.kind != "no_opmath"


def normalize(promotion, num_outputs: int, params: list[str], where: str) -> tuple[Promotion, ...]:
    """Accept a rule, a Promotion, or a list with one per output."""
    rules = promotion if isinstance(promotion, (list, tuple)) else [promotion] * num_outputs
    if len(rules) != num_outputs:
        raise ValueError(f"{where}: promotion= gives {len(rules)} rules for {num_outputs} outputs")
    normalized = []
    for rule in rules:
        rule = rule if isinstance(rule, Promotion) else Promotion(rule)
        for param in rule.over or ():
            if param not in params:
                raise ValueError(f"{where}: promotion over unknown parameter {param!r}; parameters: {params}")
        normalized.append(rule)
    return tuple(normalized)


def from_computed(vtype) -> torch.dtype:
    """A computed value's dtype; a Python float result is stored as the default dtype."""
    if vtype.priority == 0 and vtype.dtype == torch.float64:
        return torch.get_default_dtype()
    return vtype.dtype


def output_dtype(rule: Promotion, values: dict, computed) -> torch.dtype:
    """The dtype torch gives this output for these argument values (tensors or numbers)."""
    if rule.kind is None:
        return from_computed(computed)
    if isinstance(rule.kind, torch.dtype):
        return rule.kind
    operands = [values[p] for p in rule.over] if rule.over else list(values.values())
    if not operands:
        return torch.get_default_dtype()
    _, result = elementwise_dtypes(*operands, type_promotion_kind=KINDS[rule.kind])
    return result
