"""Loading unmodified PyPTO kernel files (and their tests) on a CPU machine.

A PyPTO kernel file imports ``pypto``, ``torch`` and usually ``torch_npu``.
With ``python/`` on ``sys.path`` ``import pypto`` is pto-mlir's front end;
torch is Debian's ``python3-torch`` (CPU). ``torch_npu`` (Ascend's torch
backend) cannot exist without an NPU, so ``ensure_torch_npu()`` registers a
minimal stand-in when, and only when, the real one is not importable, and
says so: ``torch.npu.is_available()`` is False, ``torch.npu.synchronize()``
returns at once (host runs are synchronous), ``set_device`` / ``current_device``
select device 0, and every other ``torch.npu`` / ``torch_npu`` name raises,
naming itself. Kernel files are never edited.

A test written for the NPU creates its tensors with ``device="npu:0"``;
``npu_on_host()`` runs such code with the ``npu`` device mapped to the host
CPU (or to ``meta``, tensors without data, to trace at shapes too large to
run), so the test's own input and golden code runs unmodified.

    from pto_mlir import kernel_files
    module = kernel_files.load("path/to/xxx_impl.py")
    for name, kernel in kernel_files.jit_kernels(module).items(): ...
"""

from __future__ import annotations

import contextlib
import importlib.util
import sys
import types
import warnings
from pathlib import Path

PYTHON_DIR = Path(__file__).resolve().parent.parent   # holds pypto/ and pto_mlir/


class TorchNpuStandIn(UserWarning):
    """torch_npu is not installed; pto-mlir registered its host stand-in."""


class _Namespace(types.ModuleType):
    def __init__(self, name: str, members: dict):
        super().__init__(name)
        self.__dict__.update(members)

    def __getattr__(self, attr: str):
        if attr.startswith("__"):
            raise AttributeError(attr)
        raise AttributeError(f"{self.__name__}.{attr} is not available: torch_npu is not "
                             f"installed and pto-mlir's stand-in has only "
                             f"torch.npu.is_available(), torch.npu.synchronize() and "
                             f"torch_npu.npu_format_cast")


def _set_device(device) -> None:
    if device not in (0, "npu", "npu:0") and str(device) not in ("0", "npu:0"):
        raise RuntimeError(f"torch.npu.set_device({device!r}): pto-mlir's torch_npu stand-in "
                           f"has one device, 0 (the host)")


# ACL formats npu_format_cast takes: 2 is ND, 29 FRACTAL_NZ
# (https://www.hiascend.com/document/detail/en/CANNCommunityEdition/900/API/ascendtb/ascendtb_01_0083.html).
_ACL_FORMAT_ND, _ACL_FORMAT_FRACTAL_NZ = 2, 29


def _npu_format_cast(tensor, acl_format: int):
    """``torch_npu.npu_format_cast``: on the device a new tensor of the same
    values in another storage layout. The host keeps the values (the matrix);
    an argument declared ``format=TILEOP_NZ`` is laid out as NZ fractals when
    the kernel is called (``pypto.frontend.dtypes.nz_storage``), so a test's
    cast to 29 followed by the kernel call gives the kernel NZ storage, as on
    the device."""
    if acl_format not in (_ACL_FORMAT_ND, _ACL_FORMAT_FRACTAL_NZ):
        raise RuntimeError(f"torch_npu.npu_format_cast(tensor, {acl_format!r}): pto-mlir's "
                           f"torch_npu stand-in casts to {_ACL_FORMAT_ND} (ND) and "
                           f"{_ACL_FORMAT_FRACTAL_NZ} (FRACTAL_NZ) only")
    return tensor.clone()


def ensure_torch_npu() -> bool:
    """Makes ``import torch_npu`` work. Returns True if the stand-in was
    registered (False: the real torch_npu, or the stand-in already)."""
    if "torch_npu" in sys.modules:
        return False
    if importlib.util.find_spec("torch_npu") is not None:
        return False
    import torch
    npu = _Namespace("torch.npu", {"is_available": lambda: False,
                                   "synchronize": lambda *args, **kwargs: None,
                                   "set_device": _set_device,
                                   "current_device": lambda: 0,
                                   "device_count": lambda: 1})
    stand_in = _Namespace("torch_npu", {"npu": npu, "npu_format_cast": _npu_format_cast,
                                        "__pto_mlir_stand_in__": True})
    sys.modules["torch_npu"] = stand_in
    if not hasattr(torch, "npu"):
        torch.npu = npu
    warnings.warn("torch_npu is not installed: registered pto-mlir's stand-in "
                  "(torch.npu.is_available() is False, torch.npu.synchronize() returns at "
                  "once); kernels run on the host", TorchNpuStandIn, stacklevel=2)
    return True


def load(path, search_paths=(), name: str | None = None) -> types.ModuleType:
    """Imports the Python file at ``path`` unmodified (as module ``name``,
    default derived from the path) with ``python/`` and ``search_paths`` on
    ``sys.path``, after ``ensure_torch_npu()``."""
    path = Path(path).resolve()
    ensure_torch_npu()
    for entry in [PYTHON_DIR, *map(Path, search_paths), path.parent]:
        text = str(entry)
        if text not in sys.path:
            sys.path.insert(0, text)
    name = name or "pto_kernel_file_" + "_".join(path.with_suffix("").parts[-3:])
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    except BaseException:
        del sys.modules[name]
        raise
    return module


def jit_kernels(module) -> dict:
    """The ``@jit`` kernels a module defines, by name, in source order."""
    from pto_mlir.frontend.jit import JitFunction
    found = [(value.fn.__code__.co_firstlineno, name, value)
             for name, value in vars(module).items()
             if isinstance(value, JitFunction) and value.fn.__module__ == module.__name__]
    return {name: value for _, name, value in sorted(found)}


def _is_npu(device) -> bool:
    import torch
    if isinstance(device, str):
        return device == "npu" or device.startswith("npu:")
    return isinstance(device, torch.device) and device.type == "npu"


@contextlib.contextmanager
def npu_on_host(target: str = "cpu"):
    """Within the block, torch calls given ``device="npu..."`` (factories,
    ``Tensor.to``) get ``target`` instead: ``"cpu"`` to run, ``"meta"`` for
    shape-only tensors."""
    import torch
    from torch.overrides import TorchFunctionMode

    class _NpuOnHost(TorchFunctionMode):
        def __torch_function__(self, func, types, args=(), kwargs=None):
            kwargs = dict(kwargs or {})
            if _is_npu(kwargs.get("device")):
                kwargs["device"] = target
            args = tuple(target if _is_npu(a) else a for a in args)
            return func(*args, **kwargs)

    with _NpuOnHost():
        yield
