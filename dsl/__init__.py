"""tritonize: element-wise GPU operations written as plain-Python scalar functions.

    @tritonize.pointwise
    def gelu(x):
        return 0.5 * x * (1.0 + math.erf(x * 0.7071067811865476))

    y = gelu(torch.randn(4, 5, device="cuda"))
"""
from tritonize.errors import (ArgumentCountError, BroadcastError, CallError, ControlFlowError, DeviceError,
                              DSLError, DtypeError, OutArgumentError, OutDtypeError, RecursiveHelper,
                              ScalarTypeError, StridedViewError, UnknownName, UnsupportedCall, UnsupportedSyntax)
from tritonize.decorator import PointwiseFunction, __version__, pointwise
from tritonize.cache import cache_dir
from tritonize.promotion import Promotion
from tritonize.view import StridedView
from tritonize import math  # noqa: F401  (tritonize.math.erfinv ...; not in __all__: it would shadow math)

__all__ = [
    "pointwise", "PointwiseFunction", "Promotion", "StridedView", "cache_dir", "__version__",
    "DSLError", "UnsupportedSyntax", "UnknownName", "UnsupportedCall", "RecursiveHelper", "ControlFlowError",
    "ScalarTypeError", "CallError", "BroadcastError", "OutArgumentError", "OutDtypeError", "DeviceError",
    "DtypeError",
    "ArgumentCountError", "StridedViewError",
]

# the op library's registration into PyTorch (imports tritonize.ops, which uses the names above)
from tritonize.ops.registry import disable, enable, enabled, registered_ops  # noqa: E402

__all__ += ["enable", "disable", "enabled", "registered_ops"]
