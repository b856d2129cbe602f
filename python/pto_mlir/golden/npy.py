"""On-disk tensor convention shared by the golden and the C++ tools.

Every tensor is one ``.npy`` file (format 1.0, little-endian, C order):

* ``bf16``  -> ``<u2`` holding the raw BF16 bit patterns (NumPy has no bfloat16;
  widen with ``bf16_bits_to_f32``, i.e. ``float32(bits << 16)``);
* ``fp16``  -> ``<f2`` (IEEE binary16, NumPy ``float16``);
* ``fp32``  -> ``<f4``;
* ``int8`` -> ``|i1``, ``int16`` -> ``<i2``, ``int32`` -> ``<i4``;
* ``bool``  -> ``|b1`` (PyPTO's DT_BOOL: one byte of 0 or 1 per element).

The .npy header alone cannot tell a BF16 tensor from a genuine uint16 one, so
writers also record the logical dtype in a manifest (``case.json`` for SK-16).
"""

from __future__ import annotations

import os

import numpy as np

from .bf16 import f32_to_bf16_bits

STORAGE = {"bf16": np.dtype("<u2"), "fp16": np.dtype("<f2"), "fp32": np.dtype("<f4"),
           "int8": np.dtype("|i1"), "int16": np.dtype("<i2"), "int32": np.dtype("<i4"),
           "bool": np.dtype("|b1")}


def to_storage(array, dtype_name: str) -> np.ndarray:
    """Return ``array`` in the storage dtype of ``dtype_name``.

    For ``bf16``, uint16 input is taken as bit patterns and float input is
    rounded with RNE (the default A2/A3 cast); ``fp16`` rounds wider floats
    with RNE too.
    """
    if dtype_name not in STORAGE:
        raise ValueError(f"unknown dtype name {dtype_name!r}; expected one of {sorted(STORAGE)}")
    a = np.asarray(array)
    if dtype_name == "bf16":
        if a.dtype == np.uint16:
            out = a
        elif np.issubdtype(a.dtype, np.floating):
            out = f32_to_bf16_bits(a)
        else:
            raise TypeError(f"bf16 tensor needs uint16 bits or floats, got {a.dtype}")
    elif dtype_name == "fp16":
        if not np.issubdtype(a.dtype, np.floating):
            raise TypeError(f"fp16 tensor needs floats, got {a.dtype}")
        # float16 as is; wider floats round once, to nearest even, and
        # overflow to +-inf as the cast on the device does.
        with np.errstate(over="ignore"):
            out = a.astype(np.float16, copy=False)
    elif dtype_name == "bool":
        if a.dtype != np.bool_:
            raise TypeError(f"bool tensor needs a bool array, got {a.dtype}")
        out = a
    elif dtype_name == "fp32":
        if not np.issubdtype(a.dtype, np.floating):
            raise TypeError(f"fp32 tensor needs floats, got {a.dtype}")
        out = a
    else:
        if not np.issubdtype(a.dtype, np.integer):
            raise TypeError(f"{dtype_name} tensor needs integers, got {a.dtype}")
        bits = STORAGE[dtype_name].itemsize * 8
        if a.size and (a.min() < -(2**(bits - 1)) or a.max() >= 2**(bits - 1)):
            raise ValueError(f"{dtype_name} tensor out of range")
        out = a
    return np.ascontiguousarray(out, dtype=STORAGE[dtype_name])


def save_tensor(path: str | os.PathLike, array, dtype_name: str) -> None:
    """Write ``array`` as ``dtype_name`` following the module convention."""
    np.save(path, to_storage(array, dtype_name), allow_pickle=False)


def load_tensor(path: str | os.PathLike, dtype_name: str | None = None) -> np.ndarray:
    """Load a tensor; with ``dtype_name`` also check its storage dtype."""
    a = np.load(path, allow_pickle=False)
    if dtype_name is not None and a.dtype != STORAGE[dtype_name]:
        raise TypeError(f"{path}: expected {dtype_name} stored as {STORAGE[dtype_name]}, got {a.dtype}")
    return a
