//===- PTOISA.cpp - the pto_isa dialect -----------------------------------===//
//
// Types, attributes and verifiers of the ISA level. The verifiers enforce
// what pto-isa enforces with static_asserts and run-time asserts
// (docs/AscendTarget.md#tile, docs/AscendTarget.md#instructions) plus the data
// paths of each architecture (docs/AscendTarget.md#data-paths), so that IR
// which verifies prints as C++ that compiles and runs.
//
//===----------------------------------------------------------------------===//

#include "pto/Dialect/PTOISA/IR/PTOISA.h"

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

static TileType tileOf(Value v) { return cast<TileType>(v.getType()); }

/// "a ub", "an l1".
static StringRef article(MemorySpace space) {
  return space == MemorySpace::ub ? "a" : "an";
}

/// "operand #i (%name)" is not available in a verifier; the role names the
/// value and the message states the rule and the fix.
static LogicalResult expectSpace(Operation *op, StringRef role, Value tile,
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

static LogicalResult expectSameElement(Operation *op, StringRef a, Value x,
                                       StringRef b, Value y) {
  Type ex = tileOf(x).getElementType(), ey = tileOf(y).getElementType();
  if (ex == ey)
    return success();
  return op->emitOpError() << a << " (" << ex << ") and " << b << " (" << ey
                           << ") must have the same element type; insert a "
                              "pto_isa.tcvt";
}

static bool isOneOf(Type t, ArrayRef<Type> types) {
  return llvm::is_contained(types, t);
}

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
  if (offset + type.getByteSize() > capacity)
    return emitOpError() << "tile of " << type.getByteSize()
                         << " bytes at offset " << offset << " ends past the "
                         << capacity << "-byte "
                         << stringifyMemorySpace(type.getSpace()) << " of "
                         << info.name << "; use a smaller tile or offset";
  return success();
}

//===----------------------------------------------------------------------===//
// Data movement
//===----------------------------------------------------------------------===//

/// Whether GM elements of `gm` move to or from tile elements of `tile`
/// unchanged: equal types, or DT_BOOL (i1, one byte of 0 or 1 per element in
/// GM, as PyPTO and NumPy hold it) as its bytes (ui8).
static bool sameBytes(Type gm, Type tile) {
  return gm == tile || (gm.isSignlessInteger(1) && tile.isUnsignedInteger(8));
}

LogicalResult TLoadOp::verify() {
  auto src = cast<pto::GMTensorType>(getSrc().getType());
  TileType dst = tileOf(getDst());
  if (src.getRank() != 2)
    return emitOpError() << "source " << src
                         << " must be 2-D; reshape the GM tensor first";
  if (!sameBytes(src.getElementType(), dst.getElementType()))
    return emitOpError() << "source element type " << src.getElementType()
                         << " differs from the tile's " << dst.getElementType()
                         << "; TLOAD does not convert (load, then tcvt)";
  if (failed(expectSpace(*this, "destination", getDst(),
                         {MemorySpace::ub, MemorySpace::l1})))
    return failure();
  if (getTranspose()) {
    if (dst.getSpace() != MemorySpace::l1 || dst.getLayout() != TileLayout::zn)
      return emitOpError()
             << "a transposing load (DN -> ZN) writes a zn l1 tile, "
                "not "
             << dst
             << "; declare the destination as "
                "!pto_isa.tile<l1, ..., zn>";
  } else if (dst.getLayout() != TileType::getDefaultLayout(dst.getSpace())) {
    return emitOpError()
           << "a plain load writes an nd ub tile or an nz l1 tile, "
              "not "
           << dst << "; use `transpose` for a zn tile";
  }
  int64_t maxRows = dst.getSpace() == MemorySpace::ub ? 4095 : 16384;
  int64_t rows = getTranspose() ? dst.getCols() : dst.getRows();
  if (rows > maxRows)
    return emitOpError() << "a TLOAD into "
                         << stringifyMemorySpace(dst.getSpace())
                         << " moves at most " << maxRows
                         << " rows, the tile has " << rows
                         << "; split the tile";
  return success();
}

LogicalResult TStoreOp::verify() {
  auto dst = cast<pto::GMTensorType>(getDst().getType());
  TileType src = tileOf(getSrc());
  if (dst.getRank() != 2)
    return emitOpError() << "destination " << dst
                         << " must be 2-D; reshape the GM tensor first";
  if (failed(expectSpace(*this, "source", getSrc(),
                         {MemorySpace::ub, MemorySpace::l1, MemorySpace::l0c})))
    return failure();
  Type from = src.getElementType(), to = dst.getElementType();
  Builder b(getContext());
  if (src.getSpace() == MemorySpace::l0c) {
    bool ok = (from.isF32() && isOneOf(to, {b.getF32Type(), b.getF16Type(),
                                            b.getBF16Type()})) ||
              (from.isSignlessInteger(32) && to == from);
    if (!ok)
      return emitOpError()
             << "the fixpipe stores an f32 accumulator as f32, f16 "
                "or bf16 (i32 as i32), not "
             << from << " as " << to
             << "; store into a tensor of a supported type";
    if (src.getCols() > 4095)
      return emitOpError()
             << "an Acc store moves at most 4095 columns, the tile "
                "has "
             << src.getCols() << "; split the store";
  } else if (!sameBytes(to, from)) {
    return emitOpError()
           << "storing a " << stringifyMemorySpace(src.getSpace())
           << " tile of " << from << " into a tensor of " << to
           << " needs equal element types; convert with tcvt first";
  }
  if (src.getSpace() == MemorySpace::l1 &&
      pto::getArchFor(*this) != pto::Arch::DAV_2201)
    return emitOpError() << pto::getPlatformInfo(pto::getArchFor(*this)).name
                         << " has no L1 -> GM path; store from ub or l0c";
  // Atomic add into GM supports f32, f16, bf16, i32, i16 and i8: every
  // element type a store can write (the rules above), so no check here.
  return success();
}

Pipe TStoreOp::getPipe() {
  return tileOf(getSrc()).getSpace() == MemorySpace::l0c ? Pipe::FIX
                                                         : Pipe::MTE3;
}

/// TEXTRACT / TINSERT between ub tiles start on a 32-byte column boundary.
static LogicalResult verifyColumnAligned(Operation *op, TileType tile,
                                         int64_t col, StringRef instruction) {
  int64_t bytes = tile.getElementType().getIntOrFloatBitWidth() / 8;
  if ((col * bytes) % 32 == 0)
    return success();
  return op->emitOpError() << "index_col " << col << " is " << col * bytes
                           << " bytes into the row; pto-isa's ub -> ub "
                           << instruction << " starts on a 32-byte boundary";
}

/// The `inner` tile at [row, col] of the `outer` one lies inside it (the
/// window a TEXTRACT reads, the place a TINSERT writes); `innerOperand` names
/// the operand to shrink when it does not.
static LogicalResult verifySubTileFits(Operation *op, TileType inner,
                                       StringRef innerName,
                                       StringRef innerOperand, TileType outer,
                                       StringRef outerName, int64_t row,
                                       int64_t col) {
  if (row >= 0 && col >= 0 && row + inner.getRows() <= outer.getRows() &&
      col + inner.getCols() <= outer.getCols())
    return success();
  return op->emitOpError() << "the " << inner.getRows() << "x"
                           << inner.getCols() << " " << innerName << " at ["
                           << row << ", " << col << "] does not fit the "
                           << outer.getRows() << "x" << outer.getCols() << " "
                           << outerName
                           << " tile; move the window (index_row, index_col) "
                              "or shrink the "
                           << innerOperand;
}

LogicalResult TExtractOp::verify() {
  // l1 -> l0a/l0b (cube operands), ub -> ub (a sub-tile) or, on DAV_3510,
  // l0c -> ub (an accumulator window through the fixpipe, MIX leaves).
  MemorySpace from = tileOf(getSrc()).getSpace();
  bool vec = from == MemorySpace::ub;
  bool l0cToUb = from == MemorySpace::l0c;
  SmallVector<MemorySpace, 2> dstSpaces;
  if (vec || l0cToUb)
    dstSpaces = {MemorySpace::ub};
  else
    dstSpaces = {MemorySpace::l0a, MemorySpace::l0b};
  if (failed(
          expectSpace(*this, "source", getSrc(),
                      {MemorySpace::l1, MemorySpace::ub, MemorySpace::l0c})) ||
      failed(expectSpace(*this, "destination", getDst(), dstSpaces)) ||
      (!l0cToUb && failed(expectSameElement(*this, "source", getSrc(),
                                            "destination", getDst()))))
    return failure();
  if (l0cToUb) {
    const pto::PlatformInfo &info =
        pto::getPlatformInfo(pto::getArchFor(*this));
    if (!info.hasL0CToUB)
      return emitOpError() << "there is no l0c -> ub path on " << info.name
                           << "; go through GM (tstore, then tload)";
  }
  TileType src = tileOf(getSrc()), dst = tileOf(getDst());
  if ((getRowOffset() || getColOffset()) && !vec && !l0cToUb)
    return emitOpError() << "a run-time row or column offset is for ub -> ub "
                            "copies; an L1 -> L0 extraction starts at static "
                            "indices";
  if (vec && failed(verifyColumnAligned(*this, src, getIndexCol(), "TEXTRACT")))
    return failure();
  return verifySubTileFits(*this, dst, "window", "destination", src, "source",
                           getIndexRow(), getIndexCol());
}

LogicalResult TMovOp::verify() {
  TileType src = tileOf(getSrc()), dst = tileOf(getDst());
  MemorySpace from = src.getSpace(), to = dst.getSpace();
  bool l0cToUb = from == MemorySpace::l0c && to == MemorySpace::ub;
  bool path = (from == MemorySpace::l1 &&
               (to == MemorySpace::l0a || to == MemorySpace::l0b)) ||
              (from == MemorySpace::ub && to == MemorySpace::ub) ||
              (from == MemorySpace::l0c && to == MemorySpace::l1) || l0cToUb;
  const pto::PlatformInfo &info = pto::getPlatformInfo(pto::getArchFor(*this));
  if (!path || (l0cToUb && !info.hasL0CToUB))
    return emitOpError() << "there is no " << stringifyMemorySpace(from)
                         << " -> " << stringifyMemorySpace(to) << " path on "
                         << info.name << "; go through GM (tstore, then tload)";
  if (src.getRows() != dst.getRows() || src.getCols() != dst.getCols())
    return emitOpError() << "TMOV needs equal capacities, got " << src.getRows()
                         << "x" << src.getCols() << " and " << dst.getRows()
                         << "x" << dst.getCols()
                         << "; allocate both with one capacity";
  if (from != MemorySpace::l0c)
    return expectSameElement(*this, "source", getSrc(), "destination",
                             getDst());
  return success();
}

LogicalResult TInsertOp::verify() {
  if (failed(expectSpace(*this, "source", getSrc(), {MemorySpace::ub})) ||
      failed(expectSpace(*this, "destination", getDst(), {MemorySpace::ub})) ||
      failed(expectSameElement(*this, "source", getSrc(), "destination",
                               getDst())))
    return failure();
  TileType src = tileOf(getSrc()), dst = tileOf(getDst());
  if (failed(verifySubTileFits(*this, src, "source", "source", dst,
                               "destination", getIndexRow(), getIndexCol())))
    return failure();
  return verifyColumnAligned(*this, src, getIndexCol(), "TINSERT");
}

Pipe TExtractOp::getPipe() {
  switch (tileOf(getSrc()).getSpace()) {
  case MemorySpace::ub:
    return Pipe::V;
  case MemorySpace::l0c:
    return Pipe::FIX;
  default:
    return Pipe::MTE1;
  }
}

Pipe TMovOp::getPipe() {
  switch (tileOf(getSrc()).getSpace()) {
  case MemorySpace::l1:
    return Pipe::MTE1;
  case MemorySpace::ub:
    return Pipe::V;
  default:
    return Pipe::FIX;
  }
}

//===----------------------------------------------------------------------===//
// Cube
//===----------------------------------------------------------------------===//

template <typename MatmulOp> static LogicalResult verifyMatmul(MatmulOp op) {
  if (failed(
          expectSpace(op, "left operand", op.getLhs(), {MemorySpace::l0a})) ||
      failed(
          expectSpace(op, "right operand", op.getRhs(), {MemorySpace::l0b})) ||
      failed(expectSpace(op, "accumulator", op.getAcc(), {MemorySpace::l0c})))
    return failure();
  TileType a = tileOf(op.getLhs()), b = tileOf(op.getRhs()),
           c = tileOf(op.getAcc());
  if (a.getRows() != c.getRows() || a.getCols() != b.getRows() ||
      b.getCols() != c.getCols())
    return op.emitOpError()
           << "capacities must chain as (m x k) . (k x n) -> (m x n), got "
           << a.getRows() << "x" << a.getCols() << " . " << b.getRows() << "x"
           << b.getCols() << " -> " << c.getRows() << "x" << c.getCols()
           << "; allocate the operands with matching capacities";
  Type ta = a.getElementType(), tb = b.getElementType(),
       tc = c.getElementType();
  bool ok =
      ta == tb && ((tc.isF32() && (ta.isBF16() || ta.isF16() || ta.isF32())) ||
                   (tc.isSignlessInteger(32) && ta.isSignlessInteger(8)));
  if (!ok)
    return op.emitOpError()
           << "(acc, lhs, rhs) = (" << tc << ", " << ta << ", " << tb
           << ") is not a cube dtype triple; supported: (f32, "
              "bf16, bf16), (f32, f16, f16), (f32, f32, f32), "
              "(i32, i8, i8)";
  return success();
}

LogicalResult TMatmulOp::verify() { return verifyMatmul(*this); }
LogicalResult TMatmulAccOp::verify() { return verifyMatmul(*this); }

//===----------------------------------------------------------------------===//
// Vector
//===----------------------------------------------------------------------===//

/// Element types vector arithmetic supports on the op's architecture.
static LogicalResult expectArithmeticType(Operation *op, Value tile,
                                          bool floatOnly = false) {
  Type t = tileOf(tile).getElementType();
  const pto::PlatformInfo &info = pto::getPlatformInfo(pto::getArchFor(op));
  if (t.isF32() || t.isF16() || (t.isBF16() && info.vectorBF16Arithmetic))
    return success();
  if (!floatOnly && (t.isSignlessInteger(32) || t.isSignlessInteger(16)))
    return success();
  return op->emitOpError() << "vector arithmetic on " << info.name
                           << " supports "
                           << (floatOnly ? "f32 and f16"
                                         : "f32, f16, i32 and i16")
                           << ", not " << t
                           << "; convert with pto_isa.tcvt to f32 first";
}

static LogicalResult expectRowMajorUB(Operation *op, StringRef role,
                                      Value tile) {
  if (failed(expectSpace(op, role, tile, {MemorySpace::ub})))
    return failure();
  if (tileOf(tile).getLayout() != TileLayout::nd)
    return op->emitOpError()
           << role << " must be a row-major (nd) ub tile, not " << tileOf(tile)
           << "; produce it as an nd tile (load or compute "
              "into one)";
  return success();
}

template <typename Op>
static LogicalResult
verifyElementwise(Op op, ArrayRef<std::pair<StringRef, Value>> tiles,
                  bool floatOnly) {
  for (auto [role, tile] : tiles)
    if (failed(expectRowMajorUB(op, role, tile)))
      return failure();
  for (auto [role, tile] : tiles.drop_front())
    if (failed(expectSameElement(op, tiles.front().first, tiles.front().second,
                                 role, tile)))
      return failure();
  return expectArithmeticType(op, tiles.front().second, floatOnly);
}

#define PTOISA_BINARY_VERIFIER(OP)                                             \
  LogicalResult OP::verify() {                                                 \
    return verifyElementwise(                                                  \
        *this,                                                                 \
        {{"lhs", getLhs()}, {"rhs", getRhs()}, {"destination", getDst()}},     \
        /*floatOnly=*/false);                                                  \
  }
PTOISA_BINARY_VERIFIER(TAddOp)
PTOISA_BINARY_VERIFIER(TSubOp)
PTOISA_BINARY_VERIFIER(TMulOp)
PTOISA_BINARY_VERIFIER(TMaxOp)
PTOISA_BINARY_VERIFIER(TMinOp)
#undef PTOISA_BINARY_VERIFIER

LogicalResult TDivOp::verify() {
  return verifyElementwise(
      *this, {{"lhs", getLhs()}, {"rhs", getRhs()}, {"destination", getDst()}},
      /*floatOnly=*/true);
}

template <typename Op> static LogicalResult verifyScalarOp(Op op) {
  if (failed(verifyElementwise(
          op, {{"source", op.getSrc()}, {"destination", op.getDst()}},
          /*floatOnly=*/false)))
    return failure();
  Type element = tileOf(op.getSrc()).getElementType();
  if (op.getScalar().getType() != element)
    return op.emitOpError() << "scalar of type " << op.getScalar().getType()
                            << " must have the tile element type " << element
                            << "; build the scalar as " << element;
  return success();
}

LogicalResult TAddSOp::verify() { return verifyScalarOp(*this); }
LogicalResult TSubSOp::verify() { return verifyScalarOp(*this); }
LogicalResult TMulSOp::verify() { return verifyScalarOp(*this); }
LogicalResult TDivSOp::verify() { return verifyScalarOp(*this); }
LogicalResult TMaxSOp::verify() { return verifyScalarOp(*this); }
LogicalResult TMinSOp::verify() { return verifyScalarOp(*this); }

#define PTOISA_UNARY_VERIFIER(OP, FLOAT_ONLY)                                  \
  LogicalResult OP::verify() {                                                 \
    return verifyElementwise(                                                  \
        *this, {{"source", getSrc()}, {"destination", getDst()}}, FLOAT_ONLY); \
  }
PTOISA_UNARY_VERIFIER(TExpOp, true)
PTOISA_UNARY_VERIFIER(TSqrtOp, true)
PTOISA_UNARY_VERIFIER(TRsqrtOp, true)
PTOISA_UNARY_VERIFIER(TRecipOp, true)
PTOISA_UNARY_VERIFIER(TLogOp, true)
PTOISA_UNARY_VERIFIER(TAbsOp, false)
PTOISA_UNARY_VERIFIER(TNegOp, false)
#undef PTOISA_UNARY_VERIFIER

LogicalResult TRowExpandOp::verify() {
  if (failed(expectSpace(*this, "source", getSrc(), {MemorySpace::ub})) ||
      failed(expectRowMajorUB(*this, "destination", getDst())))
    return failure();
  return expectSameElement(*this, "source", getSrc(), "destination", getDst());
}

LogicalResult TCvtOp::verify() {
  if (failed(expectRowMajorUB(*this, "source", getSrc())) ||
      failed(expectRowMajorUB(*this, "destination", getDst())))
    return failure();
  TileType src = tileOf(getSrc()), dst = tileOf(getDst());
  if (src.getRows() != dst.getRows() || src.getCols() != dst.getCols())
    return emitOpError()
           << "TCVT converts elementwise between equal capacities, got "
           << src.getRows() << "x" << src.getCols() << " and " << dst.getRows()
           << "x" << dst.getCols() << "; allocate both with one capacity";
  return success();
}

LogicalResult TExpandSOp::verify() {
  if (failed(expectRowMajorUB(*this, "destination", getDst())))
    return failure();
  Type element = tileOf(getDst()).getElementType();
  if (getScalar().getType() != element)
    return emitOpError() << "scalar of type " << getScalar().getType()
                         << " must have the tile element type " << element
                         << "; build the scalar as " << element;
  return success();
}

/// A per-row operand: a dn tile with one column, or an nd tile of one
/// 32-byte block per row.
static LogicalResult expectRowValueTile(Operation *op, StringRef role,
                                        Value tile) {
  if (failed(expectSpace(op, role, tile, {MemorySpace::ub})))
    return failure();
  TileType t = tileOf(tile);
  int64_t blockElems = 32 / t.getElementByteSize();
  if ((t.getLayout() == TileLayout::dn && t.getCols() == 1) ||
      (t.getLayout() == TileLayout::nd && t.getCols() == blockElems))
    return success();
  return op->emitOpError() << role << " " << t
                           << " is not a per-row tile: use a dn tile with one "
                              "column or an nd tile with "
                           << blockElems
                           << " columns (one 32-byte block per row)";
}

template <typename Op> static LogicalResult verifyRowReduce(Op op) {
  if (failed(expectRowMajorUB(op, "source", op.getSrc())) ||
      failed(expectRowMajorUB(op, "scratch", op.getTmp())) ||
      failed(expectRowValueTile(op, "destination", op.getDst())) ||
      failed(expectSameElement(op, "source", op.getSrc(), "destination",
                               op.getDst())) ||
      failed(expectSameElement(op, "source", op.getSrc(), "scratch",
                               op.getTmp())) ||
      failed(expectArithmeticType(op, op.getSrc())))
    return failure();
  TileType src = tileOf(op.getSrc()), tmp = tileOf(op.getTmp());
  constexpr bool isSum = std::is_same_v<Op, TRowSumOp>;
  pto::Arch arch = pto::getArchFor(op);
  auto [needRows, needCols] = getRowReduceScratchShape(
      arch, src.getElementType(), src.getRows(), src.getCols(), isSum);
  if (tmp.getRows() < needRows || tmp.getCols() < needCols)
    return op.emitOpError()
           << "scratch " << tmp.getRows() << "x" << tmp.getCols()
           << " is smaller than the " << needRows << "x" << needCols
           << " that pto-isa's " << (isSum ? "TROWSUM" : "TROWMAX")
           << " writes for a " << src.getRows() << "x" << src.getCols()
           << " source on " << pto::stringifyArch(arch)
           << "; allocate at least " << needRows << "x" << needCols;
  if (tileOf(op.getDst()).getRows() < src.getRows())
    return op.emitOpError()
           << "destination has " << tileOf(op.getDst()).getRows()
           << " rows, fewer than the source's " << src.getRows()
           << "; give it at least the source's rows";
  return success();
}

LogicalResult TRowSumOp::verify() { return verifyRowReduce(*this); }
LogicalResult TRowMaxOp::verify() { return verifyRowReduce(*this); }

LogicalResult TTransOp::verify() {
  if (failed(expectRowMajorUB(*this, "source", getSrc())) ||
      failed(expectRowMajorUB(*this, "scratch", getTmp())) ||
      failed(expectRowMajorUB(*this, "destination", getDst())) ||
      failed(expectSameElement(*this, "source", getSrc(), "destination",
                               getDst())) ||
      failed(expectSameElement(*this, "source", getSrc(), "scratch", getTmp())))
    return failure();
  TileType src = tileOf(getSrc()), tmp = tileOf(getTmp()),
           dst = tileOf(getDst());
  if (src.getElementByteSize() > 4)
    return emitOpError() << "transposes " << src.getElementType()
                         << "; TTRANS moves 1-, 2- and 4-byte elements";
  // dst holds src's rows as columns (the valid columns of src, as dst's
  // rows, are checked against the capacity at run time).
  if (dst.getCols() < src.getRows())
    return emitOpError() << "destination " << dst.getRows() << "x"
                         << dst.getCols() << " cannot hold the transpose of a "
                         << src.getRows() << "x" << src.getCols()
                         << " source: it needs at least " << src.getRows()
                         << " columns";
  if (tmp.getRows() != dst.getRows() || tmp.getCols() != dst.getCols())
    return emitOpError()
           << "scratch must be shaped like the destination (" << dst.getRows()
           << "x" << dst.getCols() << "), got " << tmp.getRows() << "x"
           << tmp.getCols()
           << "; allocate the scratch with the destination's type";
  return success();
}

LogicalResult TReshapeOp::verify() {
  if (failed(expectRowMajorUB(*this, "source", getSrc())) ||
      failed(expectRowMajorUB(*this, "destination", getDst())))
    return failure();
  TileType src = tileOf(getSrc()), dst = tileOf(getDst());
  int64_t srcRow = src.getCols() * src.getElementByteSize();
  int64_t dstRow = dst.getCols() * dst.getElementByteSize();
  if (src.getRows() != dst.getRows() || srcRow != dstRow)
    return emitOpError() << "renames the bytes of " << src << " as " << dst
                         << ": TRESHAPE needs the same rows (" << src.getRows()
                         << " vs " << dst.getRows() << ") and bytes per row ("
                         << srcRow << " vs " << dstRow
                         << ") so that every element keeps its place";
  if (src.getElementType().isInteger(1) || dst.getElementType().isInteger(1))
    return emitOpError() << "renames an i1 mask tile; masks are packed bits, "
                            "TRESHAPE renames bytes";
  return success();
}

LogicalResult TGatherMaskOp::verify() {
  if (failed(expectRowMajorUB(*this, "source", getSrc())) ||
      failed(expectRowMajorUB(*this, "destination", getDst())))
    return failure();
  // pto-isa moves the bits: a destination of another type of the same width
  // reinterprets them (include/pto/cpu/TGather.hpp, BitCastOrCast), which
  // is how the int32 indices of sorted (value, index) structures come out.
  if (tileOf(getSrc()).getElementByteSize() !=
      tileOf(getDst()).getElementByteSize())
    return emitOpError() << "source (" << tileOf(getSrc()).getElementType()
                         << ") and destination ("
                         << tileOf(getDst()).getElementType()
                         << ") must have the same element width; the mask "
                            "TGATHER moves bits";
  int64_t pattern = getPattern();
  if (pattern < 1 || pattern > 7)
    return emitOpError() << "pattern " << pattern
                         << " is not a MaskPattern; use 1 (P0101) to 7 (P1111)";
  TileType src = tileOf(getSrc()), dst = tileOf(getDst());
  int64_t bytes = src.getElementByteSize();
  if (bytes != 2 && bytes != 4)
    return emitOpError() << "gathers " << src.getElementType()
                         << "; the mask-pattern TGATHER moves 2- and 4-byte "
                            "elements";
  // Every source row's selection lands in one destination row.
  if (dst.getRows() < src.getRows())
    return emitOpError() << "destination has " << dst.getRows()
                         << " rows for the " << src.getRows()
                         << " rows of the source; give it at least as many";
  return success();
}

template <typename Op> static LogicalResult verifyRowExpandBinary(Op op) {
  if (failed(expectRowMajorUB(op, "full operand", op.getFull())) ||
      failed(expectRowValueTile(op, "row operand", op.getRowval())) ||
      failed(expectRowMajorUB(op, "destination", op.getDst())) ||
      failed(expectSameElement(op, "full operand", op.getFull(), "row operand",
                               op.getRowval())) ||
      failed(expectSameElement(op, "full operand", op.getFull(), "destination",
                               op.getDst())) ||
      failed(expectArithmeticType(op, op.getFull(), /*floatOnly=*/true)))
    return failure();
  return success();
}

LogicalResult TRowExpandSubOp::verify() { return verifyRowExpandBinary(*this); }
LogicalResult TRowExpandMulOp::verify() { return verifyRowExpandBinary(*this); }
LogicalResult TRowExpandDivOp::verify() { return verifyRowExpandBinary(*this); }

LogicalResult TColExpandOp::verify() {
  if (failed(expectRowMajorUB(*this, "source", getSrc())) ||
      failed(expectRowMajorUB(*this, "destination", getDst())))
    return failure();
  return expectSameElement(*this, "source", getSrc(), "destination", getDst());
}

template <typename Op>
static LogicalResult verifyColExpandBinary(Op op, bool floatOnly) {
  if (failed(expectRowMajorUB(op, "full operand", op.getFull())) ||
      failed(expectRowMajorUB(op, "column operand", op.getColval())) ||
      failed(expectRowMajorUB(op, "destination", op.getDst())) ||
      failed(expectSameElement(op, "full operand", op.getFull(),
                               "column operand", op.getColval())) ||
      failed(expectSameElement(op, "full operand", op.getFull(), "destination",
                               op.getDst())) ||
      failed(expectArithmeticType(op, op.getFull(), floatOnly)))
    return failure();
  return success();
}

LogicalResult TColExpandAddOp::verify() {
  return verifyColExpandBinary(*this, false);
}
LogicalResult TColExpandSubOp::verify() {
  return verifyColExpandBinary(*this, false);
}
LogicalResult TColExpandMulOp::verify() {
  return verifyColExpandBinary(*this, false);
}
LogicalResult TColExpandDivOp::verify() {
  return verifyColExpandBinary(*this, true);
}
LogicalResult TColExpandMaxOp::verify() {
  return verifyColExpandBinary(*this, false);
}
LogicalResult TColExpandMinOp::verify() {
  return verifyColExpandBinary(*this, false);
}

template <typename Op> static LogicalResult verifyColReduce(Op op) {
  if (failed(expectRowMajorUB(op, "source", op.getSrc())) ||
      failed(expectRowMajorUB(op, "destination", op.getDst())) ||
      failed(expectSameElement(op, "source", op.getSrc(), "destination",
                               op.getDst())) ||
      failed(expectArithmeticType(op, op.getSrc())))
    return failure();
  // pto-isa's CPU TCOLSUM static_asserts equal column capacities; the A2/A3
  // versions index both rows with their own strides, so equal is safe.
  TileType src = tileOf(op.getSrc()), dst = tileOf(op.getDst());
  if (src.getCols() != dst.getCols())
    return op.emitOpError() << "destination has " << dst.getCols()
                            << " columns, the source " << src.getCols()
                            << "; a column reduction needs equal column "
                               "capacities";
  return success();
}

LogicalResult TColSumOp::verify() { return verifyColReduce(*this); }
LogicalResult TColMaxOp::verify() { return verifyColReduce(*this); }

//===----------------------------------------------------------------------===//
// Synchronisation
//===----------------------------------------------------------------------===//

template <typename Op> static LogicalResult verifyFlag(Op op) {
  if (op.getSrc() == Pipe::ALL || op.getDst() == Pipe::ALL)
    return op.emitOpError() << "flags connect two real pipes; use "
                               "pto_isa.pipe_barrier ALL for a full barrier";
  if (op.getSrc() == op.getDst())
    return op.emitOpError() << "a flag from " << stringifyPipe(op.getSrc())
                            << " to itself orders nothing; use "
                               "pto_isa.pipe_barrier "
                            << stringifyPipe(op.getSrc());
  return success();
}

LogicalResult SetFlagOp::verify() { return verifyFlag(*this); }
LogicalResult WaitFlagOp::verify() { return verifyFlag(*this); }

/// The core kind of the leaf holding `op` (`pto.leaf`), if any.
static std::optional<pto::CoreKind> leafKindOf(Operation *op) {
  auto func = op->getParentOfType<func::FuncOp>();
  auto kind =
      func ? func->getAttrOfType<pto::CoreKindAttr>("pto.leaf") : nullptr;
  if (!kind)
    return std::nullopt;
  return kind.getValue();
}

/// The AIV part of a split MIX leaf: a vector leaf linked to its AIC.
static bool isMixAiv(Operation *op) {
  auto func = op->getParentOfType<func::FuncOp>();
  return leafKindOf(op) == pto::CoreKind::vector &&
         func->hasAttr(kMixAicAttrName);
}

/// An AIV addresses its own flags 0..15 only (the AIC's 16..31 are AIV 1's).
static LogicalResult expectAivFlag(Operation *op, int64_t id) {
  if (id < 16)
    return success();
  return op->emitOpError() << "uses flag " << id
                           << " on an AIV, which has flags 0..15 (the AIC "
                              "addresses AIV 1's as 16..31)";
}

LogicalResult SetIntraBlockOp::verify() {
  // The AIV signals a freed ring slot to its AIC.
  if (isMixAiv(*this))
    return expectAivFlag(*this, getId());
  if (leafKindOf(*this) != pto::CoreKind::mix)
    return emitOpError() << "signals between the cores of a MIX block; it "
                            "belongs in the AIC part of a MIX leaf (pto.leaf "
                            "= #pto.core<mix>) or its AIV part, which "
                            "pto-isa-split-mix forms";
  if (getPipe() == Pipe::V)
    return emitOpError() << "is issued by the AIC, which has no V pipe; set "
                            "it on the pipe of the instruction it follows "
                            "(FIX after an L0C -> UB tmov)";
  return success();
}

LogicalResult WaitIntraBlockOp::verify() {
  // The AIC waits for a ring slot its AIV freed; the AIV for a move.
  if (isMixAiv(*this))
    return expectAivFlag(*this, getId());
  if (leafKindOf(*this) == pto::CoreKind::mix)
    return success();
  return emitOpError() << "waits for another core of a MIX block; it belongs "
                          "in the vector part of a MIX leaf (a vector leaf "
                          "with '"
                       << kMixAicAttrName
                       << "') or its AIC part, which pto-isa-split-mix forms";
}

LogicalResult MScatterOp::verify() {
  if (failed(expectRowMajorUB(*this, "source", getSrc())) ||
      failed(expectRowMajorUB(*this, "indices", getIndices())))
    return failure();
  auto dst = cast<pto::GMTensorType>(getDst().getType());
  TileType src = tileOf(getSrc()), indices = tileOf(getIndices());
  if (dst.getRank() != 2)
    return emitOpError() << "destination " << dst
                         << " must be 2-D; reshape the GM tensor first";
  if (src.getElementType() != dst.getElementType())
    return emitOpError() << "scatters " << src.getElementType()
                         << " rows into a tensor of " << dst.getElementType()
                         << "; MSCATTER needs equal element types (tcvt first)";
  if (!indices.getElementType().isSignlessInteger(32))
    return emitOpError() << "indices are " << indices.getElementType()
                         << "; the A2/A3 MSCATTER takes i32 indices";
  // Row mode: one index per source row, in a [1, N] row (pto-isa A2/A3).
  if (indices.getRows() != 1 || indices.getCols() < src.getRows())
    return emitOpError() << "index tile " << indices
                         << " must be one row of at least " << src.getRows()
                         << " indices (one per source row)";
  return success();
}
