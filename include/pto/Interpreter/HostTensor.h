//===- HostTensor.h - GM tensors on host memory, .npy I/O ------*- C++ -*-===//
#ifndef PTO_INTERPRETER_HOSTTENSOR_H
#define PTO_INTERPRETER_HOSTTENSOR_H

#include "mlir/IR/Types.h"
#include "mlir/Support/LLVM.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace mlir::pto::interp {

/// Element types a GM tensor can hold on the host. BF16 is kept as its 16-bit
/// pattern, exactly as in a `.npy` file of dtype `<u2`; Bool (PyPTO's
/// DT_BOOL, `i1`) one byte of 0 or 1, as NumPy's `|b1`.
enum class ElementKind { BF16, F16, F32, Bool, I8, I16, I32, I64 };

/// The kind for an MLIR element type, or std::nullopt (e.g. fp8).
std::optional<ElementKind> getElementKind(Type type);
int64_t getByteSize(ElementKind kind);
/// The NumPy dtype string of a kind (`<u2` for BF16).
StringRef getNumpyDescr(ElementKind kind);
StringRef getKindName(ElementKind kind); // "bf16", "f32", ...

/// A dense row-major tensor in host memory, or only its kind and shape
/// (`shapeOnly`: `pto-run --no-numerics`, where no element is ever read or
/// written and `bytes` stays empty).
struct HostTensor {
  ElementKind kind = ElementKind::F32;
  SmallVector<int64_t> shape;
  std::vector<uint8_t> bytes;
  bool shapeOnly = false;

  HostTensor() = default;
  /// Zero-filled storage; the size must have passed getStorageBytes.
  HostTensor(ElementKind kind, ArrayRef<int64_t> shape);
  /// A zero-filled tensor, or an error naming `what`, the shape and the
  /// size when its byte size overflows or exceeds kMaxHostTensorBytes.
  static llvm::Expected<HostTensor>
  create(ElementKind kind, ArrayRef<int64_t> shape, const llvm::Twine &what);

  /// A tensor without storage (no size limit applies: nothing is allocated).
  static HostTensor makeShapeOnly(ElementKind kind, ArrayRef<int64_t> shape);

  int64_t getNumElements() const;
  /// The size of the data in bytes, whether or not it is held.
  uint64_t getStorageSize() const;
  /// Reads element `i` (row-major) widened to double (exact for every kind).
  double load(int64_t i) const;
  /// Reads element `i` as float (BF16/F16 widened exactly).
  float loadFloat(int64_t i) const;
  /// Stores `value` into element `i`; float kinds round to nearest even.
  void storeFloat(int64_t i, float value);
  int64_t loadInt(int64_t i) const;
  void storeInt(int64_t i, int64_t value);
  std::string shapeString() const;
};

/// The largest buffer pto-run allocates (16 GiB): an argument, a workspace
/// or a tile over it is refused with an error instead of exhausting memory.
constexpr uint64_t kMaxHostTensorBytes = uint64_t(1) << 34;

/// elements(shape) * byteSize(kind), or std::nullopt when a dim is negative
/// or the product overflows int64.
std::optional<uint64_t> getStorageBytes(ElementKind kind,
                                        ArrayRef<int64_t> shape);

/// Reads a NumPy `.npy` file (format 1.0-3.0, little-endian, C order).
/// `shapeOnly`: checks the header and payload size but keeps no data.
llvm::Expected<HostTensor> readNpy(StringRef path, bool shapeOnly = false);
/// Writes `tensor` as a `.npy` file (BF16 as `<u2` bit patterns).
llvm::Error writeNpy(StringRef path, const HostTensor &tensor);

/// The matrix held by NZ storage (pto/Dialect/PTO/IR/NZLayout.h): `storage`
/// has shape [..., cols / c0, rows / 16, 16, c0] and the result [..., rows,
/// cols], element (r, c) read from [c / c0][r / 16][r % 16][c % c0]. An error
/// naming `what` when the storage is not of that form (rank under 4, last two
/// dims not 16 and c0). A shape-only tensor gives a shape-only result.
llvm::Expected<HostTensor> fromNZStorage(const HostTensor &storage, int64_t c0,
                                         const llvm::Twine &what);
/// The NZ storage of `matrix` (fromNZStorage's inverse); its last two dims
/// are multiples of 16 and c0 (the kernel verifier's rule).
HostTensor toNZStorage(const HostTensor &matrix, int64_t c0);

} // namespace mlir::pto::interp

#endif // PTO_INTERPRETER_HOSTTENSOR_H
