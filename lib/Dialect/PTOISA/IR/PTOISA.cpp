//===- PTOISA.cpp - the pto_isa dialect -----------------------------------===//
//
// Types, attributes and verifiers of the ISA level. The verifiers enforce
// what pto-isa enforces with static_asserts and run-time asserts
// (docs/AscendTarget.md#tile, docs/AscendTarget.md#instructions) plus the data
// paths of each architecture (docs/AscendTarget.md#data-paths), so that IR
// which verifies prints as C++ that compiles and runs.
//
// This file holds the dialect, its tile type, alloc_tile and the helpers
// the verifiers share (VerifierUtils.h); the verifiers of the op families
// are split by concern: DataMovementOps.cpp, MatmulOps.cpp, VectorOps.cpp,
// SyncOps.cpp, MaskOps.cpp and SortOps.cpp.
//
//===----------------------------------------------------------------------===//

#include "pto/Dialect/PTOISA/IR/PTOISA.h"
#include "VerifierUtils.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "mlir/IR/Matchers.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::ptoisa;

#include "pto/Dialect/PTOISA/IR/PTOISAEnums.cpp.inc"
#include "pto/Dialect/PTOISA/IR/PTOISAInterfaces.cpp.inc"
#include "pto/Dialect/PTOISA/IR/PTOISAOpsDialect.cpp.inc"

#define GET_TYPEDEF_CLASSES
#include "pto/Dialect/PTOISA/IR/PTOISAOpsTypes.cpp.inc"

#define GET_OP_CLASSES
#include "pto/Dialect/PTOISA/IR/PTOISAOps.cpp.inc"

void PTOISADialect::initialize() {
  registerTypes();
  addOperations<
#define GET_OP_LIST
#include "pto/Dialect/PTOISA/IR/PTOISAOps.cpp.inc"
      >();
}

void PTOISADialect::registerTypes() {
  addTypes<
#define GET_TYPEDEF_LIST
#include "pto/Dialect/PTOISA/IR/PTOISAOpsTypes.cpp.inc"
      >();
}

//===----------------------------------------------------------------------===//
// Helpers
//===----------------------------------------------------------------------===//

int64_t mlir::ptoisa::getSpaceCapacity(pto::Arch arch, MemorySpace space) {
  const pto::PlatformInfo &info = pto::getPlatformInfo(arch);
  switch (space) {
  case MemorySpace::ub:
    return info.ubBytes;
  case MemorySpace::l1:
    return info.l1Bytes;
  case MemorySpace::l0a:
    return info.l0aBytes;
  case MemorySpace::l0b:
    return info.l0bBytes;
  case MemorySpace::l0c:
    return info.l0cBytes;
  }
  llvm_unreachable("unknown memory space");
}

std::pair<int64_t, int64_t> mlir::ptoisa::getRowReduceScratchShape(
    pto::Arch arch, Type elem, int64_t srcRows, int64_t srcCols, bool isSum) {
  int64_t bytes = std::max<int64_t>(1, elem.getIntOrFloatBitWidth() / 8);
  int64_t blockElems = 32 / bytes;
  // DAV_3510 reduces in registers and never touches the scratch; the A2/A3
  // integer form accumulates one 32-byte block; a float source of at most one
  // 256-byte repeat per row is reduced in place (OneRepeatProc).
  int64_t perRepeat = 256 / bytes;
  if (arch == pto::Arch::DAV_3510 || !isa<FloatType>(elem) ||
      srcCols <= perRepeat)
    return {1, blockElems};
  // A2/A3 floats: TROWMAX folds every repeat of a row into the first one;
  // TROWSUM first adds the row's repeats in pairs, writing half of them.
  int64_t repeats = isSum ? std::max<int64_t>(1, srcCols / perRepeat / 2) : 1;
  return {srcRows, repeats * perRepeat};
}

StringRef mlir::ptoisa::getTileTypeName(MemorySpace space) {
  switch (space) {
  case MemorySpace::ub:
    return "Vec";
  case MemorySpace::l1:
    return "Mat";
  case MemorySpace::l0a:
    return "Left";
  case MemorySpace::l0b:
    return "Right";
  case MemorySpace::l0c:
    return "Acc";
  }
  llvm_unreachable("unknown memory space");
}

AllocTileOp mlir::ptoisa::getAlloc(Value tile) {
  return tile.getDefiningOp<AllocTileOp>();
}

std::optional<int64_t> mlir::ptoisa::getSubblock(Value tile) {
  AllocTileOp alloc = getAlloc(tile);
  auto mark =
      alloc ? alloc->getAttrOfType<IntegerAttr>(kSubblockAttrName) : nullptr;
  if (!mark)
    return std::nullopt;
  return mark.getInt();
}

using mlir::ptoisa::detail::tileOf;

/// "a ub", "an l1".
static StringRef article(MemorySpace space) {
  return space == MemorySpace::ub ? "a" : "an";
}

namespace mlir::ptoisa::detail {

/// "operand #i (%name)" is not available in a verifier; the role names the
/// value and the message states the rule and the fix.
LogicalResult expectSpace(Operation *op, StringRef role, Value tile,
                          ArrayRef<MemorySpace> allowed) {
  MemorySpace space = tileOf(tile).getSpace();
  if (llvm::is_contained(allowed, space))
    return success();
  std::string names;
  for (MemorySpace s : allowed)
    names += (names.empty() ? "" : " or ") + stringifyMemorySpace(s).str();
  return op->emitOpError()
         << role << " is " << article(space) << " "
         << stringifyMemorySpace(space) << " tile, but this instruction takes "
         << names << " here; move the data with a supported path first";
}

LogicalResult expectSameElement(Operation *op, StringRef a, Value x,
                                StringRef b, Value y) {
  Type ex = tileOf(x).getElementType(), ey = tileOf(y).getElementType();
  if (ex == ey)
    return success();
  return op->emitOpError() << a << " (" << ex << ") and " << b << " (" << ey
                           << ") must have the same element type; insert a "
                              "pto_isa.tcvt";
}

LogicalResult expectRowMajorUB(Operation *op, StringRef role, Value tile) {
  if (failed(expectSpace(op, role, tile, {MemorySpace::ub})))
    return failure();
  if (tileOf(tile).getLayout() != TileLayout::nd)
    return op->emitOpError()
           << role << " must be a row-major (nd) ub tile, not " << tileOf(tile)
           << "; produce it as an nd tile (load or compute "
              "into one)";
  return success();
}

} // namespace mlir::ptoisa::detail

//===----------------------------------------------------------------------===//
// TileType
//===----------------------------------------------------------------------===//

TileLayout TileType::getDefaultLayout(MemorySpace space) {
  switch (space) {
  case MemorySpace::ub:
    return TileLayout::nd;
  case MemorySpace::l1:
  case MemorySpace::l0a:
  case MemorySpace::l0c:
    return TileLayout::nz;
  case MemorySpace::l0b:
    return TileLayout::zn;
  }
  llvm_unreachable("unknown memory space");
}

int64_t TileType::getElementByteSize() const {
  return std::max<int64_t>(1, getElementType().getIntOrFloatBitWidth() / 8);
}

Type TileType::parse(AsmParser &parser) {
  StringRef spaceName;
  SmallVector<int64_t> shape;
  Type elementType;
  SMLoc loc = parser.getCurrentLocation();
  if (parser.parseLess() || parser.parseKeyword(&spaceName) ||
      parser.parseComma() ||
      parser.parseDimensionList(shape, /*allowDynamic=*/false) ||
      parser.parseType(elementType))
    return {};
  std::optional<MemorySpace> space = symbolizeMemorySpace(spaceName);
  if (!space) {
    parser.emitError(loc) << "unknown memory space '" << spaceName
                          << "'; expected ub, l1, l0a, l0b or l0c";
    return {};
  }
  TileLayout layout = getDefaultLayout(*space);
  if (succeeded(parser.parseOptionalComma())) {
    StringRef layoutName;
    SMLoc layoutLoc = parser.getCurrentLocation();
    if (parser.parseKeyword(&layoutName))
      return {};
    std::optional<TileLayout> parsed = symbolizeTileLayout(layoutName);
    if (!parsed) {
      parser.emitError(layoutLoc) << "unknown tile layout '" << layoutName
                                  << "'; expected nd, dn, nz or zn";
      return {};
    }
    layout = *parsed;
  }
  if (parser.parseGreater())
    return {};
  if (shape.size() != 2) {
    parser.emitError(loc) << "a pto_isa tile is 2-D (rows x cols), got rank "
                          << shape.size();
    return {};
  }
  return parser.getChecked<TileType>(parser.getContext(), *space, shape[0],
                                     shape[1], elementType, layout);
}

void TileType::print(AsmPrinter &printer) const {
  printer << "<" << stringifyMemorySpace(getSpace()) << ", " << getRows() << "x"
          << getCols() << "x" << getElementType();
  if (getLayout() != getDefaultLayout(getSpace()))
    printer << ", " << stringifyTileLayout(getLayout());
  printer << ">";
}

LogicalResult TileType::verify(function_ref<InFlightDiagnostic()> emitError,
                               MemorySpace space, int64_t rows, int64_t cols,
                               Type elementType, TileLayout layout) {
  if (rows <= 0 || cols <= 0)
    return emitError() << "tile capacity " << rows << "x" << cols
                       << " must be positive in both dimensions";
  if (!elementType.isBF16() && !elementType.isF16() && !elementType.isF32() &&
      !elementType.isSignlessInteger(8) && !elementType.isSignlessInteger(16) &&
      !elementType.isSignlessInteger(32) &&
      !elementType.isUnsignedInteger(32) && // TSORT32's uint32 index rows
      !elementType.isUnsignedInteger(8))    // packed masks
    return emitError() << "element type " << elementType
                       << " is not a pto-isa tile element type (bf16, f16, "
                          "f32, i8, i16, i32, ui32; ui8 for packed masks)";
  int64_t bytes =
      std::max<unsigned>(1, elementType.getIntOrFloatBitWidth() / 8);
  int64_t blockElems = 32 / bytes; // elements per 32-byte block
  auto need = [&](bool ok, StringRef rule) -> LogicalResult {
    if (ok)
      return success();
    return emitError() << "!pto_isa.tile<" << stringifyMemorySpace(space)
                       << ", " << rows << "x" << cols << "x" << elementType
                       << ", " << stringifyTileLayout(layout) << ">: " << rule
                       << "; round the capacity up (valid extents carry the "
                          "real size)";
  };
  switch (space) {
  case MemorySpace::ub:
    if (layout == TileLayout::nd)
      return need(cols % blockElems == 0,
                  "a row-major ub tile needs Cols * sizeof(T) % 32 == 0");
    if (layout == TileLayout::dn)
      return need(rows % blockElems == 0,
                  "a column-major ub tile needs Rows * sizeof(T) % 32 == 0");
    return emitError() << "a ub tile is nd or dn, not "
                       << stringifyTileLayout(layout)
                       << "; fractal layouts live in l1 and l0";
  case MemorySpace::l1:
    if (layout == TileLayout::nz)
      return need(rows % 16 == 0 && cols % blockElems == 0,
                  "an nz L1 tile holds whole 16 x (32/sizeof(T)) fractals");
    if (layout == TileLayout::zn)
      return need(rows % blockElems == 0 && cols % 16 == 0,
                  "a zn L1 tile holds whole (32/sizeof(T)) x 16 fractals");
    return emitError() << "an l1 tile is nz or zn, not "
                       << stringifyTileLayout(layout)
                       << "; plain row/column-major tiles live in ub";
  case MemorySpace::l0a:
  case MemorySpace::l0b:
  case MemorySpace::l0c:
    if (layout != getDefaultLayout(space))
      return emitError() << "an " << stringifyMemorySpace(space)
                         << " tile has the fixed layout of its pto-isa alias; "
                            "drop the layout parameter";
    if (space == MemorySpace::l0a)
      return need(rows % 16 == 0 && cols % blockElems == 0,
                  "a Left tile holds whole 16 x (32/sizeof(T)) fractals");
    if (space == MemorySpace::l0b)
      return need(rows % blockElems == 0 && cols % 16 == 0,
                  "a Right tile holds whole (32/sizeof(T)) x 16 fractals");
    return need(rows % 16 == 0 && cols % 16 == 0,
                "an Acc tile holds whole 16 x 16 fractals");
  }
  return success();
}

//===----------------------------------------------------------------------===//
// alloc_tile
//===----------------------------------------------------------------------===//

LogicalResult AllocTileOp::verify() {
  TileType type = getTileType();
  for (auto [value, capacity, what] :
       {std::tuple(getValidRows(), type.getRows(), "rows"),
        std::tuple(getValidCols(), type.getCols(), "cols")}) {
    // Constant-like ops take no operands (OpDefinition.h's ConstantLike):
    // extents computed by arith ops skip the trait query and the fold.
    Operation *producer = value.getDefiningOp();
    APInt constant;
    if (producer && producer->getNumOperands() == 0 &&
        matchPattern(value, m_ConstantInt(&constant)) &&
        (constant.getSExtValue() < 0 || constant.getSExtValue() > capacity))
      return emitOpError()
             << "valid " << what << " " << constant.getSExtValue()
             << " outside [0, " << capacity
             << "] of the tile capacity; enlarge the tile or clamp "
                "the extent";
  }
  if (!getOffset())
    return success();
  int64_t offset = *getOffset();
  int64_t bytes = type.getByteSize();
  // An offset every architecture accepts (most of them) needs no walk up to
  // the kernel for its architecture: this runs after every pass.
  auto fitsOn = [&](pto::Arch arch) {
    return offset >= 0 &&
           offset % pto::getPlatformInfo(arch).bufferAlignBytes == 0 &&
           offset + bytes <= getSpaceCapacity(arch, type.getSpace());
  };
  if (pto::holdsOnEveryArch(fitsOn))
    return success();
  pto::Arch arch = pto::getArchFor(*this);
  const pto::PlatformInfo &info = pto::getPlatformInfo(arch);
  int64_t capacity = getSpaceCapacity(arch, type.getSpace());
  if (offset < 0 || offset % info.bufferAlignBytes != 0)
    return emitOpError() << "offset " << offset << " in "
                         << stringifyMemorySpace(type.getSpace())
                         << " must be a non-negative multiple of "
                         << info.bufferAlignBytes
                         << " bytes (TASSIGN alignment); round it up to the "
                            "alignment";
  if (offset + bytes > capacity)
    return emitOpError() << "tile of " << bytes << " bytes at offset " << offset
                         << " ends past the " << capacity << "-byte "
                         << stringifyMemorySpace(type.getSpace()) << " of "
                         << info.name << "; use a smaller tile or offset";
  return success();
}
