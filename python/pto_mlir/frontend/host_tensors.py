"""Kernel arguments as PyPTO passes them: torch tensors (or NumPy arrays).

PyPTO kernels are called with torch tensors. Here a kernel runs on the host,
so a torch argument must be a CPU tensor; it is handed to the interpreter as
a NumPy array (BF16 as its uint16 bit patterns, the interpreter's convention)
and what the kernel wrote is copied back into it. torch is imported only when
a torch tensor is passed.
"""

from __future__ import annotations

import sys

from . import dtypes as dt
from .errors import TraceError

# torch dtype name -> (pypto dtype, the NumPy dtype torch shares its memory as)
_TORCH_DTYPES = {
    "torch.float32": (dt.DT_FP32, None),
    "torch.float16": (dt.DT_FP16, None),
    "torch.bfloat16": (dt.DT_BF16, "int16"),
    "torch.bool": (dt.DT_BOOL, None),
    "torch.int8": (dt.DT_INT8, None),
    "torch.int16": (dt.DT_INT16, None),
    "torch.int32": (dt.DT_INT32, None),
    "torch.int64": (dt.DT_INT64, None),
}


def is_torch_tensor(value) -> bool:
    torch = sys.modules.get("torch")
    return torch is not None and isinstance(value, torch.Tensor)


def torch_dtype(value) -> dt.DataType | None:
    """The pypto dtype of a torch tensor, None if it holds none."""
    entry = _TORCH_DTYPES.get(str(value.dtype))
    return entry[0] if entry else None


def torch_dtypes() -> list:
    """The pypto dtypes a torch argument can carry."""
    return [entry[0] for entry in _TORCH_DTYPES.values()]


def as_array(value, want: dt.DataType):
    """The NumPy array the interpreter runs on for one tensor argument."""
    if not is_torch_tensor(value):
        return value
    import numpy as np
    import torch
    if value.device.type == "meta":
        return ShapeOnly(tuple(value.shape), want)
    if value.device.type != "cpu":
        raise TraceError(f"a torch tensor on device '{value.device}': pto-mlir runs kernels on "
                         f"the host; pass CPU tensors (tensor.cpu())")
    entry = _TORCH_DTYPES.get(str(value.dtype))
    if entry is None or entry[0] != want:
        raise TraceError(f"a torch {value.dtype} tensor where the annotation says {want!r}")
    tensor = value.detach().contiguous()
    if entry[1] is not None:
        tensor = tensor.view(getattr(torch, entry[1]))
    array = tensor.numpy()
    if want == dt.DT_BF16:
        array = array.view(np.uint16)
    # A copy: the kernel's writes reach the tensor through write_back only,
    # so a failed run leaves the caller's tensors as they were.
    return np.array(array, copy=True)


class ShapeOnly:
    """A ``meta`` torch tensor's shape and dtype: enough to trace, nothing to
    run (the interpreter refuses it)."""

    def __init__(self, shape: tuple, dtype: dt.DataType):
        self.shape = shape
        self.dtype = dtype.numpy or dtype.mlir

    def __repr__(self) -> str:
        return f"ShapeOnly({self.shape}, {self.dtype})"


def write_back(value, array) -> None:
    """Copies what the kernel wrote into a torch argument (NumPy arguments
    are updated in place by the run itself)."""
    if not is_torch_tensor(value) or isinstance(array, ShapeOnly):
        return
    import torch
    source = torch.from_numpy(array.view("int16") if value.dtype == torch.bfloat16 else array)
    if value.dtype == torch.bfloat16:
        source = source.view(torch.bfloat16)
    with torch.no_grad():
        value.copy_(source.reshape(value.shape))


def _storage_key(value):
    """(address, shape, strides, dtype) of a host tensor's memory, or None."""
    if is_torch_tensor(value):
        if value.device.type != "cpu":
            return None
        return (value.data_ptr(), tuple(value.shape), tuple(value.stride()), str(value.dtype))
    interface = getattr(value, "__array_interface__", None)
    if interface is None:
        return None
    return (interface["data"][0], tuple(value.shape), interface.get("strides"),
            str(value.dtype))


def aliases(names, given: dict) -> dict:
    """Parameters given the very same host tensor as an earlier one (PyPTO
    kernels update state in place by passing one tensor as both an input
    and an output): later name -> the first name with that tensor."""
    first, result = {}, {}
    for name in names:
        key = _storage_key(given.get(name))
        if key is None:
            continue
        if key in first:
            result[name] = first[key]
        else:
            first[key] = name
    return result
