"""``pypto.frontend``: the ``@pypto.frontend.jit`` decorator."""

from pto_mlir.frontend.jit import jit

from ._unsupported import unsupported

__all__ = ["jit"]


def __getattr__(name: str):
    if name.startswith("__"):
        raise AttributeError(f"module 'pypto.frontend' has no attribute '{name}'")
    raise unsupported(f"pypto.frontend.{name}")


def __dir__():
    return __all__
