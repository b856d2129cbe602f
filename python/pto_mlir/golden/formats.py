"""The two 16-bit float formats of SK-16/SK-01's cube operands: BF16 and FP16.

The kernels read q, k, v, o, dO in one 16-bit format and round P and dS (SK-16)
or P and o (SK-01) to it. The goldens apply that format's rounding where the
kernel rounds, and scale their tolerances with its machine epsilon:

* BF16 lives as uint16 bit patterns (NumPy has no bfloat16; ``bf16.py``);
* FP16 lives as NumPy ``float16`` (IEEE binary16, ``<f2`` in .npy). NumPy's
  float32 -> float16 conversion rounds to nearest even with gradual underflow,
  as the emulation's and pto-isa's ``_Float16`` conversion (CAST_RINT) do.

FP16 exists because the real pto-isa CPU simulator cannot run BF16 (it needs
C++23 ``std::bfloat16_t``), so FP16 is the 16-bit format that runs on both
simulators (docs/Runtime.md "Against the real pto-isa").
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .bf16 import bf16_bits_to_f32, f32_to_bf16_bits


@dataclass(frozen=True)
class HalfFormat:
    name: str        # the .npy / manifest dtype name
    mlir: str        # the element type in pto IR
    eps: float       # machine epsilon: 2^-(mantissa bits)
    storage: np.dtype

    @property
    def unit_roundoff(self) -> float:
        """max |round(x) - x| / |x| for round to nearest (normal range)."""
        return self.eps / 2

    def encode(self, x) -> np.ndarray:
        """FP32 values -> this format's storage (RNE)."""
        a = np.asarray(x, dtype=np.float32)
        if self.name == "bf16":
            return f32_to_bf16_bits(a)
        with np.errstate(over="ignore"):  # overflow is +-inf, as on the device
            return a.astype(np.float16)

    def widen(self, a) -> np.ndarray:
        """Storage -> exact float32."""
        a = np.asarray(a)
        if self.name == "bf16":
            return bf16_bits_to_f32(a)
        return a.astype(np.float32)

    def round(self, x) -> np.ndarray:
        """FP32 -> this format -> FP32: the value a cube operand carries."""
        return self.widen(self.encode(x))


BF16 = HalfFormat("bf16", "bf16", 2.0**-7, np.dtype("<u2"))
FP16 = HalfFormat("fp16", "f16", 2.0**-10, np.dtype("<f2"))
FORMATS = {f.name: f for f in (BF16, FP16)}


def get_format(name: str) -> HalfFormat:
    try:
        return FORMATS[name]
    except KeyError:
        raise ValueError(f"unknown 16-bit format {name!r}; expected one of "
                         f"{', '.join(FORMATS)}") from None


def format_of(array) -> HalfFormat:
    """The format an input tensor is stored in: uint16 bits are BF16, float16
    is FP16 (float32 input is taken as BF16-valued, the goldens' convention)."""
    return FP16 if np.asarray(array).dtype == np.float16 else BF16
