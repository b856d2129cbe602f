"""``pypto.frontend``: the ``@pypto.frontend.jit`` decorator."""

from pto_mlir.frontend.jit import jit

from ._unsupported import module_getattr

__all__ = ["jit"]


__getattr__ = module_getattr("pypto.frontend")


def __dir__():
    return __all__
