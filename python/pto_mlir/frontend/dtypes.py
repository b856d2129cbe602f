"""Data types, enums and the ``Tensor`` parameter annotation (PyPTO names)."""

from __future__ import annotations

import enum
from dataclasses import dataclass


@dataclass(frozen=True)
class DataType:
    """A PyPTO dtype (``DT_BF16``) and its MLIR element type (``bf16``)."""

    name: str          # DT_BF16
    mlir: str          # bf16
    itemsize: int
    is_float: bool
    numpy: str | None  # how NumPy holds it for the interpreter ("<u2" for bf16)

    def __repr__(self) -> str:
        return self.name


DT_BF16 = DataType("DT_BF16", "bf16", 2, True, "<u2")
DT_FP16 = DataType("DT_FP16", "f16", 2, True, "<f2")
DT_FP32 = DataType("DT_FP32", "f32", 4, True, "<f4")
DT_BOOL = DataType("DT_BOOL", "i1", 1, False, "|b1")  # masks: pypto.ge, pypto.where
DT_INT8 = DataType("DT_INT8", "i8", 1, False, "|i1")
DT_INT16 = DataType("DT_INT16", "i16", 2, False, "<i2")
DT_INT32 = DataType("DT_INT32", "i32", 4, False, "<i4")
DT_INT64 = DataType("DT_INT64", "i64", 8, False, "<i8")
DT_FP8E4M3 = DataType("DT_FP8E4M3", "f8E4M3FN", 1, True, None)
DT_FP8E5M2 = DataType("DT_FP8E5M2", "f8E5M2", 1, True, None)

ALL_DTYPES = (DT_BF16, DT_FP16, DT_FP32, DT_BOOL, DT_INT8, DT_INT16, DT_INT32, DT_INT64,
              DT_FP8E4M3, DT_FP8E5M2)

# PyPTO's DataType is an enum: kernels also spell pypto.DataType.DT_FP32.
for _dtype in ALL_DTYPES:
    setattr(DataType, _dtype.name, _dtype)
del _dtype


class TileOpFormat(enum.Enum):
    """PyPTO's tensor formats
    (https://github.com/hicann/pypto/blob/master/docs/api/datatype/TileOpFormat.md):
    ``TILEOP_ND`` is the row-major layout; ``TILEOP_NZ`` the fractal layout
    of cube weights (``pto.layout = "nz"`` on the kernel argument: the host
    passes the matrix, the call stores it as 16-row fractals, see
    ``nz_storage``)."""

    TILEOP_ND = "TILEOP_ND"
    TILEOP_NZ = "TILEOP_NZ"


class Element:
    """``pypto.Element(dtype, value)``: a scalar constant of a given dtype
    (https://github.com/hicann/pypto/blob/master/docs/api/element/pypto-Element_constructor.md).
    It stands wherever a Python number may (the scalar operand of ``add``,
    ``eq``, ``where``, ...), with its own dtype instead of the tile's: a tile
    of another dtype is an error at the line. ``dtype`` and ``value`` are
    read-only, as in PyPTO."""

    __slots__ = ("_dtype", "_value")

    def __init__(self, dtype, data):
        if not isinstance(dtype, DataType):
            raise TypeError(f"pypto.Element(dtype, data): dtype must be a pypto DataType "
                            f"(pypto.DT_FP32, ...), got {dtype!r}")
        if isinstance(data, bool) or not isinstance(data, (int, float)):
            raise TypeError(f"pypto.Element({dtype!r}, data): data must be an int or a float, "
                            f"got {type(data).__name__} {data!r}")
        if dtype == DT_BOOL or not (dtype.is_float or dtype.name.startswith("DT_INT")):
            raise TypeError(f"pypto.Element({dtype!r}, {data!r}): an Element holds a number "
                            f"of an integer or float dtype")
        if not dtype.is_float and isinstance(data, float) and not data.is_integer():
            raise TypeError(f"pypto.Element({dtype!r}, {data!r}): {data!r} is not an integer; "
                            f"use a float dtype or an integral value")
        self._dtype = dtype
        self._value = float(data) if dtype.is_float else int(data)

    @property
    def dtype(self) -> DataType:
        return self._dtype

    @property
    def value(self):
        return self._value

    def __repr__(self) -> str:
        return f"Element({self._dtype!r}, {self._value!r})"


class _Dynamic:
    """``pypto.DYN``: a dimension known only at run time."""

    def __repr__(self) -> str:
        return "DYN"


DYN = DYNAMIC = _Dynamic()


class NamedDynamic(_Dynamic):
    """``pypto.frontend.dynamic("N")``: a dynamic dim with a name. Every dim
    annotated with the same name must have the same size at a call (PyPTO:
    "all uses of the same symbolic dimension must have consistent values",
    hicann/pypto ``python/pypto/frontend/__init__.py``)."""

    def __init__(self, name: str):
        if not isinstance(name, str) or not name:
            raise TypeError(f"pypto.frontend.dynamic(name) takes a non-empty string, got "
                            f"{name!r}")
        self.name = name

    def __repr__(self) -> str:
        return f"dynamic({self.name!r})"

    def _used(self, *_):
        raise TypeError(f"pypto.frontend.dynamic({self.name!r}) names a dynamic dim in tensor "
                        f"annotations only; in the kernel body read the size from a tensor "
                        f"(x.shape[i])")

    __add__ = __radd__ = __sub__ = __rsub__ = __mul__ = __rmul__ = _used
    __floordiv__ = __rfloordiv__ = __mod__ = __index__ = __int__ = _used


class _Static:
    """``pypto.STATIC``: a static dimension whose size is taken from the
    tensor the kernel is called (or traced) with; a new size retraces."""

    def __repr__(self) -> str:
        return "STATIC"


STATIC = _Static()


class RunMode(enum.IntEnum):
    """``runtime_options["run_mode"]``: PyPTO runs a kernel on the NPU (0) or
    in its cost-model simulator (1). Here both run on the host (pto-run, or
    the pipeline the caller selects); the mode is carried on the kernel."""

    NPU = 0
    SIM = 1


class PrecisionType(enum.Enum):
    INTRINSIC = "INTRINSIC"
    HIGH_PRECISION = "HIGH_PRECISION"


class CastMode(enum.Enum):
    CAST_NONE = "NONE"
    CAST_RINT = "RINT"
    CAST_ROUND = "ROUND"
    CAST_FLOOR = "FLOOR"
    CAST_CEIL = "CEIL"
    CAST_TRUNC = "TRUNC"
    CAST_ODD = "ODD"


class SaturationMode(enum.Enum):
    OFF = "OFF"
    ON = "ON"


def default_cast_mode(src: DataType, dst: DataType, arch: str) -> CastMode:
    """The mode ``CAST_NONE`` stands for on this dtype pair (the table of
    docs/PyPTOModel.md#casts, as the dialect's verifier has it): explicit in the
    traced IR so readers see the rounding; CAST_NONE for exact widenings and
    for pairs the verifier rejects."""
    f32, bf16, f16 = DT_FP32, DT_BF16, DT_FP16
    ints = {DT_INT16, DT_INT32, DT_INT64}
    if src in (bf16, f16) and dst == f32:
        return CastMode.CAST_NONE
    if src == f32 and dst in (bf16, f16, f32):
        return CastMode.CAST_RINT
    if (src == f32 and dst in ints) or (src == f16 and dst in {DT_INT8, DT_INT16, DT_INT32}) \
            or (src == bf16 and dst == DT_INT32):
        return CastMode.CAST_TRUNC
    if src in ints and dst == f32:
        return CastMode.CAST_RINT
    if arch == "DAV_3510":
        if (src == bf16 and dst == f16) or (src == f32 and dst in (DT_FP8E4M3, DT_FP8E5M2)):
            return CastMode.CAST_RINT
    return CastMode.CAST_NONE


class Tensor:
    """The annotation of a kernel's tensor parameter:
    ``pypto.Tensor([pypto.DYN, ...], pypto.DT_BF16)``.

    Each dim is an int (static), ``DYN`` (dynamic: a change does not
    recompile), ``STATIC`` (static, its size taken from the tensor the kernel
    is traced or called with) or a trailing ``...`` (every remaining dim
    ``STATIC``). A shape with a ``DYN`` or ``STATIC`` entry sets a minimum
    rank, as in PyPTO: an argument of higher rank keeps it, its extra
    trailing dims static; a shape of ints alone needs the exact rank. An
    empty shape (``Tensor([], dt)``, or no shape) takes the
    rank and every dim, static, from the tensor. Without a dtype
    (``Tensor()``, ``Tensor([...])``, or the bare class as the annotation) the
    dtype too is taken from the argument at each call, as PyPTO's
    ``pypto.frontend.jit`` does; a new dtype retraces. ``cumulative=True`` (a
    pto-mlir extension) marks 1-D integer tensors of cumulative varlen offsets
    (start at 0, never decrease; ``pto.cumulative``, checked by the
    interpreter).
    """

    def __init__(self, shape=None, dtype: DataType | None = None, format=None, *,
                 cumulative: bool = False):
        if dtype is not None and not isinstance(dtype, DataType):
            raise TypeError(f"Tensor(shape, dtype): dtype must be a pypto dtype such as "
                            f"DT_BF16 (or left out: taken from the argument), got {dtype!r}")
        if isinstance(format, TileOpFormat):
            format = format.value
        if format not in (None, "TILEOP_ND", "TILEOP_NZ"):
            raise TypeError(
                f"Tensor(..., format={format!r}): the format is "
                f"pypto.TileOpFormat.TILEOP_ND (row-major) or TILEOP_NZ (16-row fractals)")
        self.format = format if format == "TILEOP_NZ" else None
        dims = [] if shape is None else list(shape)
        # Named dynamic dims are DYN dims whose sizes must agree by name.
        self.dim_names = {i: d.name for i, d in enumerate(dims) if isinstance(d, NamedDynamic)}
        dims = [DYN if isinstance(d, NamedDynamic) else d for d in dims]
        for i, d in enumerate(dims):
            ok = d is DYN or d is STATIC or d is Ellipsis or \
                (isinstance(d, int) and not isinstance(d, bool) and d >= 0)
            if not ok:
                raise TypeError(f"Tensor shape entry {i} is {d!r}: use an int >= 0, "
                                f"pypto.DYN, pypto.STATIC or a trailing ...")
            if d is Ellipsis and i != len(dims) - 1:
                raise TypeError("Tensor shape: '...' must be the last entry")
        self.shape = tuple(dims)
        self.dtype = dtype
        self.cumulative = cumulative

    @property
    def rank_from_argument(self) -> bool:
        """True for ``Tensor([], dt)``: rank and dims come from the argument."""
        return not self.shape

    @property
    def is_status_shape(self) -> bool:
        """True when some dim is ``DYN`` or ``STATIC`` (PyPTO's "status
        shape"): an argument of higher rank is accepted, its extra trailing
        dims static. A shape of ints alone needs the exact rank."""
        return any(d is DYN or d is STATIC for d in self.shape)

    @property
    def dtype_from_argument(self) -> bool:
        """True when the annotation gives no dtype: the argument's is used."""
        return self.dtype is None

    def with_dtype(self, dtype: DataType) -> "Tensor":
        """This annotation with the dtype an argument supplied."""
        shape = [NamedDynamic(self.dim_names[i]) if i in self.dim_names else d
                 for i, d in enumerate(self.shape)]
        return Tensor(shape, dtype, self.format, cumulative=self.cumulative)

    def __class_getitem__(cls, item):
        shape, dtype = item
        return cls(shape, dtype)

    def __repr__(self) -> str:
        dims = ", ".join("..." if d is Ellipsis else repr(d) for d in self.shape)
        dtype = "" if self.dtype is None else f", {self.dtype!r}"
        extra = ", cumulative=True" if self.cumulative else ""
        extra += ", format=TILEOP_NZ" if self.format else ""
        return f"Tensor([{dims}]{dtype}{extra})"


def dtype_of_array(array) -> DataType | None:
    """The pypto dtype of a NumPy array (or anything with a NumPy ``dtype``)
    under the interpreter's conventions: uint16 holds BF16 bit patterns.
    None when no pypto dtype is held that way."""
    import numpy as np
    try:
        kind = np.dtype(array.dtype)
    except TypeError:
        return None
    for dtype in ALL_DTYPES:
        if dtype.numpy is not None and np.dtype(dtype.numpy) == kind:
            return dtype
    return None


NZ_FRACTAL_ROWS = 16


def nz_fractal_cols(dtype: DataType) -> int:
    """C0, the columns of one NZ fractal: a fractal row is 32 bytes."""
    return 32 // dtype.itemsize


def nz_storage(name: str, matrix, dtype: DataType):
    """What ``torch_npu.npu_format_cast(matrix, 29)`` puts on the device: the
    [..., rows, cols] matrix as NZ storage [..., cols / C0, rows / 16, 16, C0]
    (element (r, c) at [c // C0][r // 16][r % 16][c % C0], C0 = 32 bytes of
    the dtype; include/pto/Dialect/PTO/IR/NZLayout.h). ``name`` is the
    argument, for the error when the shape does not fill whole fractals."""
    import numpy as np
    c0 = nz_fractal_cols(dtype)
    shape = tuple(matrix.shape)
    if len(shape) < 2 or shape[-2] % NZ_FRACTAL_ROWS or shape[-1] % c0:
        raise TypeError(
            f"argument '{name}' is declared format=TILEOP_NZ, so it is stored as 16 x {c0} "
            f"fractals of {dtype.name}: its last two dims (rows, cols) must be multiples of "
            f"16 and {c0}, but its shape is {list(shape)}; pad the weight with zeros to "
            f"whole fractals or declare it TILEOP_ND")
    rows, cols = shape[-2], shape[-1]
    batch = shape[:-2]
    split = matrix.reshape(batch + (rows // NZ_FRACTAL_ROWS, NZ_FRACTAL_ROWS, cols // c0, c0))
    n = len(batch)
    order = tuple(range(n)) + (n + 2, n, n + 1, n + 3)
    return np.ascontiguousarray(split.transpose(order))


def nz_matrix(storage):
    """The [..., rows, cols] matrix of NZ storage (``nz_storage``'s inverse)."""
    shape = tuple(storage.shape)
    batch, (col_blocks, row_blocks, rows, c0) = shape[:-4], shape[-4:]
    n = len(batch)
    order = tuple(range(n)) + (n + 1, n + 2, n, n + 3)
    return storage.transpose(order).reshape(batch + (row_blocks * rows, col_blocks * c0))
