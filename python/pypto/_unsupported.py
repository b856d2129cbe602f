"""The error for a PyPTO name pto-mlir does not support yet, located at the
kernel's line that uses it."""

from __future__ import annotations

import sys

from pto_mlir.frontend.errors import TraceError
from pto_mlir.frontend.graph import Location
from pto_mlir.frontend.trace_context import _frame_position


class UnsupportedConstruct(TraceError, AttributeError):
    """``pypto.NAME`` that pto-mlir does not support yet."""


def unsupported(qualified_name: str, depth: int = 2) -> UnsupportedConstruct:
    """The error for ``qualified_name``, located at the frame ``depth`` levels
    up (the caller of the ``__getattr__`` that raises it)."""
    frame = sys._getframe(depth)
    line, column = _frame_position(frame)
    return UnsupportedConstruct(
        f"{qualified_name} is not supported yet by pto-mlir's PyPTO front end "
        f"(docs/Frontend.md lists the supported API)",
        Location(frame.f_code.co_filename, line, column))


def module_getattr(module_name: str):
    """A module ``__getattr__`` for ``module_name``: dunder look-ups are plain
    AttributeErrors, any other name is unsupported at the caller's line."""
    def __getattr__(name: str):
        if name.startswith("__"):
            raise AttributeError(f"module '{module_name}' has no attribute '{name}'")
        raise unsupported(f"{module_name}.{name}")
    return __getattr__
