//===- PTOTypes.cpp - pto types -------------------------------------------===//

#include "pto/Dialect/PTO/IR/PTODialect.h"

#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/CheckedArithmetic.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace mlir::pto;

#define GET_TYPEDEF_CLASSES
#include "pto/Dialect/PTO/IR/PTOOpsTypes.cpp.inc"

void PTODialect::registerTypes() {
  addTypes<
#define GET_TYPEDEF_LIST
#include "pto/Dialect/PTO/IR/PTOOpsTypes.cpp.inc"
      >();
}

static bool isPTOElementType(Type type) {
  if (type.isBF16() || type.isF16() || type.isF32())
    return true;
  if (isa<Float8E4M3FNType, Float8E5M2Type>(type))
    return true;
  if (auto intType = dyn_cast<IntegerType>(type))
    return intType.isSignless() &&
           llvm::is_contained({1u, 8u, 16u, 32u, 64u}, intType.getWidth());
  return false;
}

static int64_t elementByteSize(Type type) {
  return std::max<int64_t>(1, type.getIntOrFloatBitWidth() / 8);
}

/// `<` dims `x` element-type `>`. `?` is always accepted here: the type
/// verifiers reject it where it is not allowed, with a better message than the
/// parser's "expected static shape".
static ParseResult parseShapeAndElement(AsmParser &parser,
                                        SmallVectorImpl<int64_t> &shape,
                                        Type &elementType) {
  if (parser.parseLess() ||
      parser.parseDimensionList(shape, /*allowDynamic=*/true,
                                /*withTrailingX=*/true) ||
      parser.parseType(elementType) || parser.parseGreater())
    return failure();
  return success();
}

static void printShapeAndElement(AsmPrinter &printer, ArrayRef<int64_t> shape,
                                 Type elementType) {
  printer << '<';
  for (int64_t dim : shape) {
    if (ShapedType::isDynamic(dim))
      printer << '?';
    else
      printer << dim;
    printer << 'x';
  }
  printer << elementType << '>';
}

/// The largest static size of a tile or tensor type, in bytes (256 TiB).
constexpr int64_t kMaxStaticBytes = int64_t(1) << 48;

static LogicalResult
verifyShapeAndElement(function_ref<InFlightDiagnostic()> emitError,
                      StringRef what, ArrayRef<int64_t> shape, Type elementType,
                      bool allowDynamic) {
  if (shape.empty())
    return emitError() << what << " must have rank >= 1";
  for (int64_t dim : shape) {
    if (ShapedType::isDynamic(dim)) {
      if (!allowDynamic)
        return emitError() << what
                           << " dims must be static; use a view's valid shape "
                              "for run-time extents";
      continue;
    }
    if (dim <= 0)
      return emitError() << what << " dims must be positive, got " << dim;
  }
  if (!isPTOElementType(elementType))
    return emitError()
           << what << " element type " << elementType
           << " is not one of bf16, f16, f32, i1 (DT_BOOL), i8, i16, "
              "i32, i64, f8E4M3FN, f8E5M2";
  // The static part of the size must be representable with room to spare, so
  // that passes and pto-run can multiply sizes, offsets and strides in int64
  // without overflow (docs/Guarantees.md).
  int64_t bytes = std::max<int64_t>(1, elementType.getIntOrFloatBitWidth() / 8);
  for (int64_t dim : shape) {
    if (ShapedType::isDynamic(dim))
      continue;
    std::optional<int64_t> product = llvm::checkedMul(bytes, dim);
    if (!product || *product > kMaxStaticBytes) {
      InFlightDiagnostic diag = emitError() << what << " of shape [";
      llvm::interleaveComma(shape, diag, [&](int64_t d) {
        if (ShapedType::isDynamic(d))
          diag << "?";
        else
          diag << d;
      });
      return diag << "] x " << elementType << " is over the limit of 2^"
                  << llvm::Log2_64(kMaxStaticBytes) << " bytes";
    }
    bytes = *product;
  }
  return success();
}

//===----------------------------------------------------------------------===//
// GMTensorType
//===----------------------------------------------------------------------===//

Type GMTensorType::parse(AsmParser &parser) {
  SmallVector<int64_t> shape;
  Type elementType;
  if (parseShapeAndElement(parser, shape, elementType))
    return {};
  return parser.getChecked<GMTensorType>(parser.getContext(), shape,
                                         elementType);
}

void GMTensorType::print(AsmPrinter &printer) const {
  printShapeAndElement(printer, getShape(), getElementType());
}

LogicalResult GMTensorType::verify(function_ref<InFlightDiagnostic()> emitError,
                                   ArrayRef<int64_t> shape, Type elementType) {
  return verifyShapeAndElement(emitError, "!pto.tensor", shape, elementType,
                               /*allowDynamic=*/true);
}

GMTensorType GMTensorType::cloneWith(std::optional<ArrayRef<int64_t>> shape,
                                     Type elementType) const {
  return GMTensorType::get(getContext(), shape ? *shape : getShape(),
                           elementType);
}

int64_t GMTensorType::getElementByteSize() const {
  return elementByteSize(getElementType());
}

//===----------------------------------------------------------------------===//
// TileType
//===----------------------------------------------------------------------===//

Type TileType::parse(AsmParser &parser) {
  SmallVector<int64_t> shape;
  Type elementType;
  if (parseShapeAndElement(parser, shape, elementType))
    return {};
  return parser.getChecked<TileType>(parser.getContext(), shape, elementType);
}

void TileType::print(AsmPrinter &printer) const {
  printShapeAndElement(printer, getShape(), getElementType());
}

LogicalResult TileType::verify(function_ref<InFlightDiagnostic()> emitError,
                               ArrayRef<int64_t> shape, Type elementType) {
  return verifyShapeAndElement(emitError, "!pto.tile", shape, elementType,
                               /*allowDynamic=*/false);
}

TileType TileType::cloneWith(std::optional<ArrayRef<int64_t>> shape,
                             Type elementType) const {
  return TileType::get(getContext(), shape ? *shape : getShape(), elementType);
}

int64_t TileType::getElementByteSize() const {
  return elementByteSize(getElementType());
}
