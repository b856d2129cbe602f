//===- ViewOps.cpp - views, reads, reshapes and stores of GM data ---------===//
//
// The verifiers and custom syntax of the ops that address global memory
// and tiles: pto.view, pto.read, pto.dim, pto.reshape, the run-time view
// checks, pto.atomic_add / pto.assemble, pto.valid_dim and
// pto.workspace. Verifiers name the offending value, the rule and the fix.
//
//===----------------------------------------------------------------------===//

#include "VerifierUtils.h"

#include "mlir/IR/OpImplementation.h"

using namespace mlir;
using namespace mlir::pto;
using mlir::pto::detail::shapeStr;
using mlir::pto::detail::verifyVecTile;

/// Verifies a mixed static/dynamic index list: as many dynamic operands
/// (`numOperands`) as kDynamic entries, and non-negative static entries.
/// (A count, not the operand range: pto.view's verifier reads it from the
/// segment sizes.)
static LogicalResult verifyMixedList(Operation *op, StringRef what,
                                     ArrayRef<int64_t> statics,
                                     size_t numOperands) {
  size_t numDynamic = 0;
  std::optional<size_t> firstNegative;
  for (auto [i, v] : llvm::enumerate(statics)) {
    if (ShapedType::isDynamic(v))
      ++numDynamic;
    else if (v < 0 && !firstNegative)
      firstNegative = i;
  }
  if (numDynamic != numOperands)
    return op->emitOpError()
           << what << " has " << numDynamic << " dynamic entries but "
           << numOperands << " index operands";
  if (firstNegative)
    return op->emitOpError() << what << " entry " << *firstNegative << " is "
                             << statics[*firstNegative] << "; it must be >= 0";
  return success();
}

//===----------------------------------------------------------------------===//
// ReadOp, DimOp, ReshapeOp
//===----------------------------------------------------------------------===//

LogicalResult ReadOp::verify() {
  GMTensorType type = getTensor().getType();
  if (!isa<IntegerType>(type.getElementType()))
    return emitOpError() << "reads a scalar from a tensor of "
                         << type.getElementType()
                         << "; only integer tensors (e.g. actual_q: i32) "
                            "provide symbolic scalars";
  if (static_cast<int64_t>(getIndices().size()) != type.getRank())
    return emitOpError() << "has " << getIndices().size()
                         << " indices for a rank-" << type.getRank()
                         << " tensor; give one index per dim";
  return success();
}

LogicalResult CheckViewOp::verify() {
  int64_t rank = getTensor().getType().getRank();
  int64_t numValid = static_cast<int64_t>(getValidShape().size());
  if (static_cast<int64_t>(getOffsets().size()) != rank ||
      (numValid != 0 && numValid != rank))
    return emitOpError() << "has " << getOffsets().size() << " offsets and "
                         << numValid << " valid extents for a rank-" << rank
                         << " tensor; give one offset per dim and one valid "
                            "extent per dim (or none)";
  return success();
}

LogicalResult CheckTileViewOp::verify() {
  int64_t rank = static_cast<int64_t>(getSourceValid().size());
  int64_t numValid = static_cast<int64_t>(getValidShape().size());
  if (rank == 0 || static_cast<int64_t>(getOffsets().size()) != rank ||
      (numValid != 0 && numValid != rank))
    return emitOpError() << "has " << getOffsets().size() << " offsets, "
                         << numValid << " valid extents and " << rank
                         << " source extents; give one offset and one source "
                            "extent per dim of the tile (at least one), and "
                            "one valid extent per dim (or none)";
  return success();
}

LogicalResult DimOp::verify() {
  int64_t rank = getSource().getType().getRank();
  int64_t dim = static_cast<int64_t>(getDim());
  if (dim < 0 || dim >= rank)
    return emitOpError() << "dim " << dim << " is out of range for a rank-"
                         << rank << " tensor";
  return success();
}

OpFoldResult DimOp::fold(FoldAdaptor) {
  ArrayRef<int64_t> shape = getSource().getType().getShape();
  int64_t dim = static_cast<int64_t>(getDim());
  if (dim < 0 || dim >= static_cast<int64_t>(shape.size()) ||
      ShapedType::isDynamic(shape[dim]))
    return {};
  return IntegerAttr::get(IndexType::get(getContext()), shape[dim]);
}

LogicalResult ReshapeOp::verify() {
  GMTensorType source = getSource().getType();
  GMTensorType result = getResult().getType();
  if (source.getElementType() != result.getElementType())
    return emitOpError() << "changes the element type from "
                         << source.getElementType() << " to "
                         << result.getElementType()
                         << "; reshape keeps the dtype";
  ArrayRef<int64_t> shape = getStaticShape();
  if (static_cast<int64_t>(shape.size()) != result.getRank())
    return emitOpError() << "lists " << shape.size() << " sizes for a rank-"
                         << result.getRank() << " result";
  if (failed(verifyMixedList(*this, "shape", shape, getShape().size())))
    return failure();
  for (auto [i, pair] : llvm::enumerate(llvm::zip(shape, result.getShape()))) {
    auto [given, declared] = pair;
    if (ShapedType::isDynamic(given) != ShapedType::isDynamic(declared) ||
        (!ShapedType::isDynamic(given) && given != declared))
      return emitOpError()
             << "size #" << i << " is "
             << (ShapedType::isDynamic(given) ? std::string("dynamic")
                                              : std::to_string(given))
             << " but the result type says "
             << (ShapedType::isDynamic(declared) ? std::string("?")
                                                 : std::to_string(declared))
             << "; dynamic sizes must match '?' dims of the result type";
  }
  if (source.hasStaticShape() && result.hasStaticShape() &&
      source.getNumElements() != result.getNumElements())
    return emitOpError() << "reshapes " << source.getNumElements()
                         << " elements " << shapeStr(source.getShape())
                         << " into " << result.getNumElements() << " "
                         << shapeStr(result.getShape());
  // Without dynamic dims, the static parts must still agree: the product of
  // static dims of the source must divide evenly into the result's.
  if (!getInplace() && !(source.hasStaticShape() && result.hasStaticShape()))
    return emitOpError() << "reshapes dynamic shapes without 'inplace'; "
                            "PyPTO allows inplace=False on static shapes only: "
                            "add 'inplace'";
  return success();
}

//===----------------------------------------------------------------------===//
// ViewOp
//===----------------------------------------------------------------------===//

ParseResult ViewOp::parse(OpAsmParser &parser, OperationState &result) {
  OpAsmParser::UnresolvedOperand source;
  SmallVector<OpAsmParser::UnresolvedOperand> offsets, valid;
  DenseI64ArrayAttr staticOffsets, staticValid;
  Type sourceType, resultType;
  if (parser.parseOperand(source) ||
      parseDynamicIndexList(parser, offsets, staticOffsets))
    return failure();
  bool hasValid = succeeded(parser.parseOptionalKeyword("valid"));
  if (hasValid && parseDynamicIndexList(parser, valid, staticValid))
    return failure();
  if (parser.parseOptionalAttrDict(result.attributes) || parser.parseColon() ||
      parser.parseType(sourceType) || parser.parseArrow() ||
      parser.parseType(resultType))
    return failure();
  Type indexType = parser.getBuilder().getIndexType();
  if (parser.resolveOperand(source, sourceType, result.operands) ||
      parser.resolveOperands(offsets, indexType, result.operands) ||
      parser.resolveOperands(valid, indexType, result.operands))
    return failure();
  result.addAttribute(getStaticOffsetsAttrName(result.name), staticOffsets);
  if (hasValid)
    result.addAttribute(getStaticValidShapeAttrName(result.name), staticValid);
  result.addAttribute(getOperandSegmentSizesAttrName(result.name),
                      parser.getBuilder().getDenseI32ArrayAttr(
                          {1, static_cast<int32_t>(offsets.size()),
                           static_cast<int32_t>(valid.size())}));
  result.addTypes(resultType);
  return success();
}

void ViewOp::print(OpAsmPrinter &p) {
  p << ' ' << getSource();
  printDynamicIndexList(p, *this, getOffsets(), getStaticOffsets());
  if (std::optional<ArrayRef<int64_t>> valid = getStaticValidShape()) {
    p << " valid ";
    printDynamicIndexList(p, *this, getValidShape(), *valid);
  }
  p.printOptionalAttrDict((*this)->getAttrs(),
                          {getStaticOffsetsAttrName(),
                           getStaticValidShapeAttrName(),
                           getOperandSegmentSizesAttrName()});
  p << " : " << getSource().getType() << " -> " << getResult().getType();
}

void ViewOp::getEffects(
    SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>>
        &effects) {
  // A view of a GM tensor reads it; a view of a tile is a pure value.
  if (isa<GMTensorType>(getSource().getType()))
    effects.emplace_back(MemoryEffects::Read::get(), &getSourceMutable());
}

LogicalResult ViewOp::verify() {
  // Shapes and element types are read from the concrete types once: this
  // runs on every view after every pass, and each ShapedType query is an
  // interface dispatch.
  Type sourceElement;
  ArrayRef<int64_t> sourceShape;
  Type sourceType = getSource().getType();
  if (auto tile = dyn_cast<TileType>(sourceType)) {
    sourceElement = tile.getElementType();
    sourceShape = tile.getShape();
  } else {
    auto tensor = cast<GMTensorType>(sourceType);
    sourceElement = tensor.getElementType();
    sourceShape = tensor.getShape();
  }
  TileType result = getResult().getType();
  ArrayRef<int64_t> resultShape = result.getShape();
  int64_t rank = sourceShape.size();
  if (sourceElement != result.getElementType())
    return emitOpError() << "views " << sourceElement << " data as "
                         << result.getElementType()
                         << "; the view's element type must match its source";
  if (rank != static_cast<int64_t>(resultShape.size()))
    return emitOpError() << "has a rank-" << resultShape.size()
                         << " result for a rank-" << rank
                         << " source; views keep the rank (reshape first)";
  // Operand counts from the segment sizes (source, offsets, valid shape),
  // not through the generated accessors, which sum them again per call.
  ArrayRef<int32_t> segments = getProperties().operandSegmentSizes;
  size_t numOffsetOperands = segments[1], numValidOperands = segments[2];
  ArrayRef<int64_t> offsets = getStaticOffsets();
  if (static_cast<int64_t>(offsets.size()) != rank)
    return emitOpError() << "has " << offsets.size() << " offsets for a rank-"
                         << rank << " source; give one offset per dim";
  if (failed(verifyMixedList(*this, "offsets", offsets, numOffsetOperands)))
    return failure();
  for (int64_t d = 0; d < rank; ++d) {
    int64_t parentDim = sourceShape[d];
    if (ShapedType::isDynamic(parentDim))
      continue;
    if (resultShape[d] > parentDim)
      return emitOpError()
             << "view shape " << shapeStr(resultShape) << " exceeds dim " << d
             << " of its source " << shapeStr(sourceShape) << " ("
             << resultShape[d] << " > " << parentDim
             << "); shrink the view to at most the known parent size";
    if (!ShapedType::isDynamic(offsets[d]) && offsets[d] >= parentDim)
      return emitOpError() << "offset " << offsets[d] << " of dim " << d
                           << " is outside its source "
                           << shapeStr(sourceShape);
  }
  if (std::optional<ArrayRef<int64_t>> valid = getStaticValidShape()) {
    if (valid->size() != resultShape.size())
      return emitOpError() << "valid shape has " << valid->size()
                           << " entries for a rank-" << resultShape.size()
                           << " view; give one valid extent per dim";
    if (failed(verifyMixedList(*this, "valid shape", *valid, numValidOperands)))
      return failure();
    for (auto [d, extent] : llvm::enumerate(*valid))
      if (!ShapedType::isDynamic(extent) && extent > resultShape[d])
        return emitOpError()
               << "valid extent " << extent << " of dim " << d
               << " exceeds the view's static size " << resultShape[d]
               << "; a valid shape is at most the tile shape";
  } else if (numValidOperands != 0) {
    return emitOpError()
           << "has valid-shape operands but no static_valid_shape";
  }
  return success();
}

//===----------------------------------------------------------------------===//
// atomic_add, assemble
//===----------------------------------------------------------------------===//

static LogicalResult verifyStoreLike(Operation *op, StringRef opName,
                                     TileType src, GMTensorType dst,
                                     ArrayRef<int64_t> offsets,
                                     ValueRange dynamicOffsets) {
  if (src.getElementType() != dst.getElementType())
    return op->emitOpError()
           << "writes a " << src.getElementType() << " tile into a "
           << dst.getElementType() << " tensor; " << opName
           << " needs matching dtypes (cast the tile)";
  if (src.getRank() != dst.getRank())
    return op->emitOpError()
           << "writes a rank-" << src.getRank() << " tile into a rank-"
           << dst.getRank() << " tensor; reshape the tensor or the tile";
  if (static_cast<int64_t>(offsets.size()) != dst.getRank())
    return op->emitOpError()
           << "has " << offsets.size() << " offsets for a rank-"
           << dst.getRank() << " tensor; give one offset per dim";
  if (failed(verifyMixedList(op, "offsets", offsets, dynamicOffsets.size())))
    return failure();
  for (int64_t d = 0; d < dst.getRank(); ++d)
    if (!ShapedType::isDynamic(dst.getDimSize(d)) &&
        !ShapedType::isDynamic(offsets[d]) && offsets[d] >= dst.getDimSize(d))
      return op->emitOpError()
             << "offset " << offsets[d] << " of dim " << d
             << " is outside the destination " << shapeStr(dst.getShape());
  return success();
}

LogicalResult AtomicAddOp::verify() {
  return verifyStoreLike(*this, "atomic_add", getSrc().getType(),
                         getDst().getType(), getStaticOffsets(), getOffsets());
}

LogicalResult AssembleOp::verify() {
  return verifyStoreLike(*this, "assemble", getSrc().getType(),
                         getDst().getType(), getStaticOffsets(), getOffsets());
}

LogicalResult ValidDimOp::verify() {
  int64_t rank = getSource().getType().getRank();
  int64_t dim = static_cast<int64_t>(getDim());
  if (dim < 0 || dim >= rank)
    return emitOpError() << "dim " << dim << " is out of range for a rank-"
                         << rank << " tile";
  return success();
}

LogicalResult WorkspaceOp::verify() {
  if (!getResult().getType().hasStaticShape())
    return emitOpError() << "workspace " << getResult().getType()
                         << " must have a static shape";
  return success();
}

// pto-run faults on a view whose offsets or explicit valid extents leave its
// parent, on a read outside its tensor and on a reshape to another size:
// none of them may run where the program would not have run it.
Speculation::Speculatability ViewOp::getSpeculatability() {
  return Speculation::NotSpeculatable;
}
Speculation::Speculatability ReadOp::getSpeculatability() {
  return Speculation::NotSpeculatable;
}
Speculation::Speculatability ReshapeOp::getSpeculatability() {
  return Speculation::NotSpeculatable;
}
