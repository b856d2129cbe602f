"""The tracing context: the tracer recording on this thread and where the
user's code is. Every op is located at the innermost stack frame outside
this package (the kernel's line), so the package's own modules never appear
in a location or a ``TraceError``."""

from __future__ import annotations

import os
import sys
import threading

from typing import TYPE_CHECKING

from .errors import TraceError
from .graph import Location

if TYPE_CHECKING:
    from .tracer import Tracer


_PACKAGE_DIR = os.path.dirname(os.path.abspath(__file__))
_state = threading.local()
_positions_cache: dict = {}


def _frame_position(frame, lasti: int | None = None) -> tuple:
    code = frame.f_code
    positions = _positions_cache.get(code)
    if positions is None:
        try:
            positions = list(code.co_positions())
        except AttributeError:  # Python < 3.11: line only
            positions = []
        _positions_cache[code] = positions
    line, column = frame.f_lineno, 0
    index = (frame.f_lasti if lasti is None else lasti) // 2
    if 0 <= index < len(positions):
        pos_line, _, pos_col, _ = positions[index]
        if pos_line is not None:
            line = pos_line
        if pos_col is not None:
            column = pos_col
    return line, column + 1


def _user_frame():
    """The innermost stack frame outside pto_mlir.frontend."""
    frame = sys._getframe(1)
    while frame is not None and os.path.dirname(os.path.abspath(frame.f_code.co_filename)) \
            == _PACKAGE_DIR:
        frame = frame.f_back
    return frame


def user_location() -> Location:
    """The user's file:line:col (the innermost frame outside the package)."""
    frame = _user_frame()
    if frame is None:
        return Location("<unknown>", 0, 0)
    line, column = _frame_position(frame)
    return Location(frame.f_code.co_filename, line, column)


def current_tracer(what: str) -> "Tracer":
    tracer = getattr(_state, "tracer", None)
    if tracer is None:
        raise TraceError(f"{what} is only available inside a @pypto.jit kernel while it is "
                         f"traced (call kernel.trace(...) or the kernel itself)")
    tracer.name_locals()
    return tracer


def _error(message: str) -> TraceError:
    return TraceError(message, user_location())
