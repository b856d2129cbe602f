"""``import pypto`` for PyPTO kernel files: PyPTO's spellings over
``pto_mlir.frontend``.

With ``python/`` on ``sys.path`` an unmodified PyPTO kernel file's
``import pypto`` resolves here, so ``@pypto.frontend.jit`` kernels trace to
``pto`` IR and run on the host (docs/Frontend.md). A name PyPTO has and
pto-mlir does not yet support fails where the kernel uses it::

    kernel.py:42:17: pypto.scatter is not supported yet by pto-mlir ...

(``UnsupportedConstruct``, a ``TraceError`` that is also an
``AttributeError``, so ``hasattr(pypto, name)`` is False for it).
"""

from pto_mlir.frontend import *  # noqa: F401,F403 - the supported API, re-exported
from pto_mlir.frontend import __all__ as _frontend_all
from pto_mlir.frontend.dtypes import STATIC, RunMode
from pto_mlir.frontend.jit import OptionRemark, run_kernels_with

from ._unsupported import UnsupportedConstruct, module_getattr
import importlib as _importlib

# The submodule, not pto_mlir.frontend's `frontend` namespace object that the
# star import brought in (a plain `from . import frontend` would find that one).
frontend = _importlib.import_module("pypto.frontend")
from .experimental import experimental  # noqa: E402

__all__ = sorted(set(_frontend_all) | {"STATIC", "RunMode", "OptionRemark", "run_kernels_with",
                                       "UnsupportedConstruct", "frontend", "experimental"})


__getattr__ = module_getattr("pypto")


def __dir__():
    return __all__
