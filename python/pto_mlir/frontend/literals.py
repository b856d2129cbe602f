"""MLIR literal text of Python numbers: the constants the tracer hoists
(``arith.constant`` of index, integer and float types) and the f64 fill
values of ``pto.full``."""

from __future__ import annotations

import math
import struct

from .trace_context import _error


def _float_text(value: float, type: str) -> str:
    try:
        struct.pack("<f" if type != "f16" else "<e", value)
    except (OverflowError, struct.error):
        raise _error(f"the scalar {value!r} is out of the range of {type}") from None
    if type == "f32":
        bits = struct.unpack("<I", struct.pack("<f", value))[0]
        if not math.isfinite(value):
            return f"0x{bits:08X}"
        value32 = struct.unpack("<f", struct.pack("<f", value))[0]
        for digits in range(1, 10):  # MLIR float literals need a "."
            text = f"{value32:.{digits}e}"
            if struct.unpack("<I", struct.pack("<f", float(text)))[0] == bits:
                return text
        return f"0x{bits:08X}"
    if type == "f16":
        return f"0x{struct.unpack('<H', struct.pack('<e', value))[0]:04X}"
    if type == "bf16":
        bits = struct.unpack("<I", struct.pack("<f", value))[0]
        if (bits & 0x7FFFFFFF) > 0x7F800000:
            return "0x7FC0"
        bits = (bits + 0x7FFF + ((bits >> 16) & 1)) >> 16
        return f"0x{bits:04X}"
    return repr(float(value))


def _constant_text(value, type: str) -> str:
    if type.startswith("f") or type == "bf16":
        return _float_text(float(value), type)
    return str(int(value))


def _f64_literal(value: float) -> str:
    """An MLIR f64 attribute literal of ``value``."""
    text = repr(value)
    if not math.isfinite(value):
        # MLIR has no inf/nan float literal: the f64 bits (-inf: the running max's start)
        return f"0x{struct.unpack('<Q', struct.pack('<d', value))[0]:016X}"
    if "e" in text and "." not in text:   # MLIR float literals need a "." (1e+30 -> 1.0e+30)
        text = text.replace("e", ".0e")
    return text
