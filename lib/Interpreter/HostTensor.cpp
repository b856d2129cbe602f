//===- HostTensor.cpp - GM tensors on host memory, .npy I/O ---------------===//

#include "pto/Interpreter/HostTensor.h"
#include "pto/Dialect/PTO/IR/NZLayout.h"
#include "pto/Interpreter/Numerics.h"

#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/CheckedArithmetic.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

#include "pto/runtime/checks.hpp"

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>

using namespace mlir;
using namespace mlir::pto;
using namespace mlir::pto::interp;

static_assert(kMaxHostTensorBytes == pto_check::kMaxBufferBytes,
              "pto-run and emitted programs share one buffer limit");

std::optional<ElementKind> interp::getElementKind(Type type) {
  if (type.isBF16())
    return ElementKind::BF16;
  if (type.isF16())
    return ElementKind::F16;
  if (type.isF32())
    return ElementKind::F32;
  if (type.isSignlessInteger(1))
    return ElementKind::Bool;
  if (type.isSignlessInteger(8))
    return ElementKind::I8;
  if (type.isSignlessInteger(16))
    return ElementKind::I16;
  if (type.isSignlessInteger(32))
    return ElementKind::I32;
  if (type.isSignlessInteger(64))
    return ElementKind::I64;
  return std::nullopt;
}

int64_t interp::getByteSize(ElementKind kind) {
  switch (kind) {
  case ElementKind::Bool:
  case ElementKind::I8:
    return 1;
  case ElementKind::BF16:
  case ElementKind::F16:
  case ElementKind::I16:
    return 2;
  case ElementKind::F32:
  case ElementKind::I32:
    return 4;
  case ElementKind::I64:
    return 8;
  }
  return 4;
}

StringRef interp::getNumpyDescr(ElementKind kind) {
  switch (kind) {
  case ElementKind::BF16:
    return "<u2";
  case ElementKind::F16:
    return "<f2";
  case ElementKind::F32:
    return "<f4";
  case ElementKind::Bool:
    return "|b1";
  case ElementKind::I8:
    return "|i1";
  case ElementKind::I16:
    return "<i2";
  case ElementKind::I32:
    return "<i4";
  case ElementKind::I64:
    return "<i8";
  }
  return "";
}

StringRef interp::getKindName(ElementKind kind) {
  switch (kind) {
  case ElementKind::BF16:
    return "bf16";
  case ElementKind::F16:
    return "f16";
  case ElementKind::F32:
    return "f32";
  case ElementKind::Bool:
    return "bool";
  case ElementKind::I8:
    return "i8";
  case ElementKind::I16:
    return "i16";
  case ElementKind::I32:
    return "i32";
  case ElementKind::I64:
    return "i64";
  }
  return "";
}

HostTensor::HostTensor(ElementKind kind, ArrayRef<int64_t> shape)
    : kind(kind), shape(shape.begin(), shape.end()) {
  bytes.assign(getNumElements() * getByteSize(kind), 0);
}

std::optional<uint64_t> interp::getStorageBytes(ElementKind kind,
                                                ArrayRef<int64_t> shape) {
  int64_t total = getByteSize(kind);
  for (int64_t d : shape) {
    if (d < 0)
      return std::nullopt;
    std::optional<int64_t> product = llvm::checkedMul(total, d);
    if (!product)
      return std::nullopt;
    total = *product;
  }
  return uint64_t(total);
}

llvm::Expected<HostTensor> HostTensor::create(ElementKind kind,
                                              ArrayRef<int64_t> shape,
                                              const llvm::Twine &what) {
  std::vector<int64_t> dims(shape.begin(), shape.end());
  std::string rule = pto_check::buffer_size(
      dims, getKindName(kind).str().c_str(), getByteSize(kind));
  if (!rule.empty())
    return llvm::createStringError(what.str() + ": " + rule);
  // Out of memory is an input error (exit 2), not LLVM's crash banner: probe
  // the allocation before std::vector would throw (no exceptions here).
  uint64_t size = *getStorageBytes(kind, shape);
  if (!pto_check::can_allocate(size))
    return llvm::createStringError(pto_check::out_of_memory(size, what.str()));
  return HostTensor(kind, shape);
}

HostTensor HostTensor::makeShapeOnly(ElementKind kind,
                                     ArrayRef<int64_t> shape) {
  HostTensor tensor;
  tensor.kind = kind;
  tensor.shape.assign(shape.begin(), shape.end());
  tensor.shapeOnly = true;
  return tensor;
}

uint64_t HostTensor::getStorageSize() const {
  return shapeOnly ? uint64_t(getNumElements()) * getByteSize(kind)
                   : bytes.size();
}

int64_t HostTensor::getNumElements() const {
  int64_t n = 1;
  for (int64_t d : shape)
    n *= d;
  return n;
}

template <typename T>
static T loadAs(const std::vector<uint8_t> &bytes, int64_t i) {
  T value;
  std::memcpy(&value, bytes.data() + i * sizeof(T), sizeof(T));
  return value;
}

template <typename T>
static void storeAs(std::vector<uint8_t> &bytes, int64_t i, T value) {
  std::memcpy(bytes.data() + i * sizeof(T), &value, sizeof(T));
}

float HostTensor::loadFloat(int64_t i) const {
  switch (kind) {
  case ElementKind::BF16:
    return bf16ToFloat(loadAs<uint16_t>(bytes, i));
  case ElementKind::F16:
    return static_cast<float>(loadAs<_Float16>(bytes, i));
  case ElementKind::F32:
    return loadAs<float>(bytes, i);
  default:
    return static_cast<float>(loadInt(i));
  }
}

double HostTensor::load(int64_t i) const {
  switch (kind) {
  case ElementKind::BF16:
  case ElementKind::F16:
  case ElementKind::F32:
    return loadFloat(i);
  default:
    return static_cast<double>(loadInt(i));
  }
}

/// Float to integer without host UB: saturating, NaN to 0 (docs/Guarantees.md).
static int64_t saturatingToInt(double value) {
  if (std::isnan(value))
    return 0;
  if (value >= 9223372036854775807.0)
    return std::numeric_limits<int64_t>::max();
  if (value <= -9223372036854775808.0)
    return std::numeric_limits<int64_t>::min();
  return static_cast<int64_t>(value);
}

void HostTensor::storeFloat(int64_t i, float value) {
  switch (kind) {
  case ElementKind::BF16:
    return storeAs<uint16_t>(bytes, i, floatToBF16(value, CastMode::RINT));
  case ElementKind::F16:
    return storeAs<_Float16>(bytes, i, static_cast<_Float16>(value));
  case ElementKind::F32:
    return storeAs<float>(bytes, i, value);
  default:
    return storeInt(i, saturatingToInt(value));
  }
}

int64_t HostTensor::loadInt(int64_t i) const {
  switch (kind) {
  case ElementKind::Bool:
    return loadAs<uint8_t>(bytes, i) != 0;
  case ElementKind::I8:
    return loadAs<int8_t>(bytes, i);
  case ElementKind::I16:
    return loadAs<int16_t>(bytes, i);
  case ElementKind::I32:
    return loadAs<int32_t>(bytes, i);
  case ElementKind::I64:
    return loadAs<int64_t>(bytes, i);
  default:
    return saturatingToInt(loadFloat(i));
  }
}

void HostTensor::storeInt(int64_t i, int64_t value) {
  switch (kind) {
  case ElementKind::Bool:
    return storeAs<uint8_t>(bytes, i, value != 0);
  case ElementKind::I8:
    return storeAs<int8_t>(bytes, i, static_cast<int8_t>(value));
  case ElementKind::I16:
    return storeAs<int16_t>(bytes, i, static_cast<int16_t>(value));
  case ElementKind::I32:
    return storeAs<int32_t>(bytes, i, static_cast<int32_t>(value));
  case ElementKind::I64:
    return storeAs<int64_t>(bytes, i, value);
  default:
    return storeFloat(i, static_cast<float>(value));
  }
}

std::string HostTensor::shapeString() const {
  std::string s = "[";
  for (auto [i, d] : llvm::enumerate(shape))
    s += (i ? ", " : "") + std::to_string(d);
  return s + "]";
}

//===----------------------------------------------------------------------===//
// .npy
//===----------------------------------------------------------------------===//

static llvm::Error npyError(StringRef path, const Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                 "'" + path + "': " + message);
}

llvm::Expected<HostTensor> interp::readNpy(StringRef path, bool shapeOnly) {
  // Mapped, not copied: no terminating NUL is needed (a copy of a large
  // file would be a second buffer of its size).
  auto file = llvm::MemoryBuffer::getFile(path, /*IsText=*/false,
                                          /*RequiresNullTerminator=*/false);
  if (!file)
    return npyError(path, "cannot read: " + file.getError().message());
  StringRef data = (*file)->getBuffer();
  pto_check::NpyHeader header;
  std::string rule =
      pto_check::parse_npy_header(data.data(), data.size(), header);
  if (!rule.empty())
    return npyError(path, rule);
  std::optional<ElementKind> kind;
  for (ElementKind k : {ElementKind::BF16, ElementKind::F16, ElementKind::F32,
                        ElementKind::Bool, ElementKind::I8, ElementKind::I16,
                        ElementKind::I32, ElementKind::I64})
    if (getNumpyDescr(k).drop_front() == header.type)
      kind = k;
  if (!kind)
    return npyError(path, "dtype '" + header.descr +
                              "' is not supported; use <u2 (bf16 bit "
                              "patterns), <f2, <f4, |b1, |i1, <i2, <i4 or <i8");
  // Check the payload against the header before allocating anything: a
  // hostile header may claim any shape.
  rule = pto_check::npy_payload(header, data.size(),
                                getKindName(*kind).str().c_str(),
                                getByteSize(*kind));
  if (!rule.empty())
    return npyError(path, rule);
  if (shapeOnly)
    return HostTensor::makeShapeOnly(*kind, header.shape);
  llvm::Expected<HostTensor> created =
      HostTensor::create(*kind, header.shape, "'" + path + "'");
  if (!created)
    return created.takeError();
  HostTensor &tensor = *created;
  if (!tensor.bytes.empty()) // zero-size arrays: no data pointer to copy into
    std::memcpy(tensor.bytes.data(), data.data() + header.data_offset,
                tensor.bytes.size());
  return std::move(*created);
}

llvm::Error interp::writeNpy(StringRef path, const HostTensor &tensor) {
  if (tensor.shapeOnly)
    return llvm::createStringError("cannot write '" + path +
                                   "': the tensor holds no data (a "
                                   "--no-numerics run)");
  std::string dict = "{'descr': '" + getNumpyDescr(tensor.kind).str() +
                     "', 'fortran_order': False, 'shape': (";
  for (int64_t d : tensor.shape)
    dict += std::to_string(d) + ",";
  if (tensor.shape.size() > 1)
    dict.pop_back();
  dict += "), }";
  // Pad so that the data starts on a 64-byte boundary, header ends in '\n'.
  size_t total = 10 + dict.size() + 1;
  dict.append((64 - total % 64) % 64, ' ');
  dict += '\n';
  std::error_code ec;
  llvm::raw_fd_ostream os(path, ec, llvm::sys::fs::OF_None);
  if (ec)
    return llvm::createStringError("cannot write '" + path +
                                   "': " + ec.message());
  os << "\x93NUMPY" << char(1) << char(0) << char(dict.size() & 0xFF)
     << char((dict.size() >> 8) & 0xFF) << dict;
  os.write(reinterpret_cast<const char *>(tensor.bytes.data()),
           tensor.bytes.size());
  os.close();
  if (os.has_error()) {
    // Cleared, or the stream's destructor reports a fatal "IO failure".
    std::string message = os.error().message();
    os.clear_error();
    return llvm::createStringError("cannot write '" + path + "': " + message);
  }
  return llvm::Error::success();
}

/// Copies each element between a [..., rows, cols] matrix and its NZ storage
/// ([..., cols / c0, rows / 16, 16, c0]): `toStorage` picks the direction.
static void copyNZ(const HostTensor &from, HostTensor &to, int64_t batch,
                   int64_t rows, int64_t cols, int64_t c0, bool toStorage) {
  int64_t bytes = getByteSize(from.kind);
  int64_t fractalRows = rows / kNZFractalRows;
  for (int64_t b = 0; b < batch; ++b)
    for (int64_t r = 0; r < rows; ++r)
      for (int64_t c = 0; c < cols; ++c) {
        int64_t matrixIndex = (b * rows + r) * cols + c;
        int64_t storageIndex =
            b * rows * cols +
            ((c / c0 * fractalRows + r / kNZFractalRows) * kNZFractalRows +
             r % kNZFractalRows) *
                c0 +
            c % c0;
        int64_t src = toStorage ? matrixIndex : storageIndex;
        int64_t dst = toStorage ? storageIndex : matrixIndex;
        std::memcpy(&to.bytes[dst * bytes], &from.bytes[src * bytes], bytes);
      }
}

llvm::Expected<HostTensor> interp::fromNZStorage(const HostTensor &storage,
                                                 int64_t c0,
                                                 const llvm::Twine &what) {
  ArrayRef<int64_t> shape = storage.shape;
  size_t rank = shape.size();
  if (rank < 4 || shape[rank - 2] != kNZFractalRows || shape[rank - 1] != c0)
    return llvm::createStringError(
        what +
        " is NZ (pto.layout = \"nz\"), so its data is the NZ storage "
        "[..., cols / " +
        Twine(c0) + ", rows / 16, 16, " + Twine(c0) + "] of " +
        getKindName(storage.kind) + " fractals, but the data has shape " +
        storage.shapeString() +
        "; convert the row-major matrix m with "
        "m.reshape(rows // 16, 16, cols // " +
        Twine(c0) + ", " + Twine(c0) + ").transpose(2, 0, 1, 3)");
  SmallVector<int64_t> matrixShape(shape.drop_back(4));
  int64_t batch = 1;
  for (int64_t d : matrixShape)
    batch *= d;
  int64_t rows = shape[rank - 3] * kNZFractalRows;
  int64_t cols = shape[rank - 4] * c0;
  matrixShape.append({rows, cols});
  if (storage.shapeOnly)
    return HostTensor::makeShapeOnly(storage.kind, matrixShape);
  HostTensor matrix(storage.kind, matrixShape);
  copyNZ(storage, matrix, batch, rows, cols, c0, /*toStorage=*/false);
  return matrix;
}

HostTensor interp::toNZStorage(const HostTensor &matrix, int64_t c0) {
  ArrayRef<int64_t> shape = matrix.shape;
  size_t rank = shape.size();
  int64_t rows = shape[rank - 2], cols = shape[rank - 1];
  SmallVector<int64_t> storageShape(shape.drop_back(2));
  int64_t batch = 1;
  for (int64_t d : storageShape)
    batch *= d;
  storageShape.append({cols / c0, rows / kNZFractalRows, kNZFractalRows, c0});
  if (matrix.shapeOnly)
    return HostTensor::makeShapeOnly(matrix.kind, storageShape);
  HostTensor storage(matrix.kind, storageShape);
  copyNZ(matrix, storage, batch, rows, cols, c0, /*toStorage=*/true);
  return storage;
}
