"""Locating and loading ``pto_mlir._pto``, the in-process bindings.

The extension module is built by CMake (target ``PTOPythonModule``) into
``<build>/python/pto_mlir/``. It is found, in order:

1. next to this file (an installed package: ``cmake --install`` puts it in
   ``<prefix>/python_packages/pto_mlir/``);
2. in ``$PTO_BUILD_DIR/python/pto_mlir/`` (default: ``build/`` at the
   repository root), so the source tree's package uses the build's module.

The pure-Python parts of ``pto_mlir`` (front end, goldens) never import it.
"""

from __future__ import annotations

import importlib.machinery
import importlib.util
import sys
from pathlib import Path

from .tools import build_dir

_MODULE_NAME = "pto_mlir._pto"


class NativeModuleNotFound(ImportError):
    """The bindings are not built (or not for this Python)."""


def _candidates():
    here = Path(__file__).resolve().parent
    yield here
    yield build_dir() / "python" / "pto_mlir"


def native_path() -> Path | None:
    """The path of the ``_pto`` extension this process uses, if any."""
    module = sys.modules.get(_MODULE_NAME)
    if module is not None and getattr(module, "__file__", None):
        return Path(module.__file__)
    for directory in _candidates():
        for suffix in importlib.machinery.EXTENSION_SUFFIXES:
            path = directory / f"_pto{suffix}"
            if path.exists():
                return path
    return None


def load():
    """Imports and returns the ``_pto`` extension module."""
    module = sys.modules.get(_MODULE_NAME)
    if module is not None:
        return module
    path = native_path()
    if path is None:
        searched = ", ".join(str(d) for d in _candidates())
        raise NativeModuleNotFound(
            f"pto_mlir._pto (the in-process bindings) is not built for Python "
            f"{sys.version_info.major}.{sys.version_info.minor}: searched {searched}. "
            f"Build it with `ninja -C build` (needs the Debian packages pybind11-dev and "
            f"python3-dev) or point PTO_BUILD_DIR at the build directory.")
    loader = importlib.machinery.ExtensionFileLoader(_MODULE_NAME, str(path))
    spec = importlib.util.spec_from_file_location(_MODULE_NAME, path, loader=loader)
    module = importlib.util.module_from_spec(spec)
    sys.modules[_MODULE_NAME] = module
    try:
        loader.exec_module(module)
    except BaseException:
        del sys.modules[_MODULE_NAME]
        raise
    return module
