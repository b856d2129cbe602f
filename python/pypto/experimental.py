"""``pypto.experimental``: what ``pto_mlir.frontend.ops.experimental``
provides; any other name fails at the kernel's line as not supported yet."""

from pto_mlir.frontend import ops as _ops

from ._unsupported import unsupported


class _Experimental:
    def __getattr__(self, name: str):
        if name.startswith("__"):
            raise AttributeError(name)
        found = getattr(_ops.experimental, name, None)
        if found is None:
            raise unsupported(f"pypto.experimental.{name}")
        return found

    def __dir__(self):
        return sorted(n for n in vars(_ops.experimental) if not n.startswith("_"))


experimental = _Experimental()
