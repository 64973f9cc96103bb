"""Logging: the `tritonize` logger, and TRITONIZE_PRINT_CODE.

Each generated module is logged at DEBUG level with its specialization and file. Turn it on
with the standard library (`logging.getLogger("tritonize").setLevel(logging.DEBUG)` and a
handler, or `logging.basicConfig(level=logging.DEBUG)`). TRITONIZE_PRINT_CODE=1 also prints
each generated module's text to stderr, once per process and specialization.
"""
from __future__ import annotations

import logging
import os
import sys

from tritonize.passes.build_kernel import describe_spec

logger = logging.getLogger("tritonize")
logger.addHandler(logging.NullHandler())  # a library leaves configuration to the application

_TRUE = {"1", "true", "yes", "on"}


def print_code_enabled() -> bool:
    return os.environ.get("TRITONIZE_PRINT_CODE", "").strip().lower() in _TRUE


def generated(function_name: str, spec, path, source: str) -> None:
    """Note a module that this process generated (or found in the cache) for `spec`."""
    logger.debug("%s: generated %s (%s)", function_name, path, describe_spec(spec))
    if print_code_enabled():
        print(f"# ---- tritonize: {function_name} -> {path}\n{source}", file=sys.stderr, flush=True)
