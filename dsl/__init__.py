"""tritonize: element-wise GPU operations written as plain-Python scalar functions.

    @tritonize.pointwise
    def gelu(x):
        return 0.5 * x * (1.0 + math.erf(x * 0.7071067811865476))

    y = gelu(torch.randn(4, 5, device="cuda"))
"""
from tritonize.errors import (ArgumentCountError, BroadcastError, CallError, ControlFlowError, DeviceError,
                              DSLError, DtypeError, LayoutError, OutArgumentError, OutDtypeError, RecursiveHelper,
                              ScalarTypeError, StridedViewError, UnknownName, UnsupportedCall, UnsupportedSyntax)
from tritonize.decorator import PointwiseFunction, __version__, pointwise
from tritonize.cache import cache_dir
from tritonize.promotion import Promotion
from tritonize.view import StridedView
from tritonize import math  # noqa: F401  (tritonize.math.erfinv ...; not in __all__: it would shadow math)
from tritonize.launch import warm_triton as _warm_triton

_warm_triton()

__all__ = [
    "pointwise", "PointwiseFunction", "Promotion", "StridedView", "cache_dir", "__version__",
    "DSLError", "UnsupportedSyntax", "UnknownName", "UnsupportedCall", "RecursiveHelper", "ControlFlowError",
    "ScalarTypeError", "CallError", "BroadcastError", "OutArgumentError", "OutDtypeError", "DeviceError",
    "DtypeError", "LayoutError",
    "ArgumentCountError", "StridedViewError",
]

# the op library's registration into PyTorch, imported on first use: defining the op library's
# ~170 @pointwise functions (their passes, their torch.library ops) took ~0.3 s of `import
# tritonize`, which a program of its own @pointwise functions does not need
_REGISTRY_NAMES = ("enable", "disable", "enabled", "registered_ops")
__all__ += list(_REGISTRY_NAMES)


def __getattr__(name):
    if name in _REGISTRY_NAMES:
        from tritonize.ops import registry
        return getattr(registry, name)
    if name == "ops":  # `import tritonize; tritonize.ops.gelu(...)`
        import importlib
        return importlib.import_module("tritonize.ops")
    raise AttributeError(f"module 'tritonize' has no attribute {name!r}")
