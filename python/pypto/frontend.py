"""``pypto.frontend``: the ``@pypto.frontend.jit`` and ``@pypto.frontend.function``
decorators."""

from pto_mlir.frontend.control import function
from pto_mlir.frontend.dtypes import NamedDynamic as dynamic
from pto_mlir.frontend.jit import jit

from ._unsupported import module_getattr

__all__ = ["dynamic", "function", "jit"]


__getattr__ = module_getattr("pypto.frontend")


def __dir__():
    return __all__
