"""NumPy goldens for pto-mlir kernels (BF16 helpers, .npy convention, SK-16).

The SK-16 names are imported lazily so that ``python3 -m pto_mlir.golden.sk16``
does not find its own module pre-imported by the package.
"""

from .bf16 import MODES, bf16_bits_to_f32, f32_bits_to_bf16_bits, f32_to_bf16_bits, round_bf16
from .npy import load_tensor, save_tensor, to_storage

_SK16 = (
    "CASES", "INPUT_NAMES", "OUTPUT_NAMES", "DTYPES", "SPEC_RTOL", "SPEC_ATOL", "Sk16Case",
    "get_case", "make_inputs", "widen", "golden_backward", "fp64_backward", "check_close",
    "assert_close", "flops", "scale_of", "cu_offsets", "write_case", "compare_dir", "dtypes",
    "tolerance",
)

__all__ = [
    "MODES", "bf16_bits_to_f32", "f32_bits_to_bf16_bits", "f32_to_bf16_bits", "round_bf16",
    "load_tensor", "save_tensor", "to_storage", *_SK16,
]


def __getattr__(name):
    if name in _SK16:
        from . import sk16
        return getattr(sk16, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
