//===- ShapeOnly.cpp - runs without numerics (pto-run --no-numerics) ------===//

#include "pto/Interpreter/ShapeOnly.h"

#include "pto/Dialect/PTO/IR/PTODialect.h"

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallVector.h"

using namespace mlir;
using namespace mlir::pto;
using namespace mlir::pto::interp;

static constexpr StringLiteral kShapePrefix = "shape:";

bool interp::isShapeSpec(StringRef value) {
  return value.starts_with(kShapePrefix);
}

llvm::Expected<HostTensor> interp::parseShapeSpec(StringRef value,
                                                  ElementKind kind) {
  auto error = [&](const Twine &why) {
    return llvm::createStringError(
        "'" + value + "': " + why +
        "; a shape input is shape:AxBx...[:DTYPE] with sizes >= 0, e.g. "
        "shape:1x8x4096x128:bf16");
  };
  StringRef rest = value.drop_front(kShapePrefix.size());
  auto [dims, dtype] = rest.split(':');
  if (!dtype.empty() && dtype != getKindName(kind))
    return error("the element type is " + dtype + " but the argument is " +
                 getKindName(kind));
  if (dims.empty())
    return error("no sizes");
  SmallVector<int64_t> shape;
  SmallVector<StringRef> parts;
  dims.split(parts, 'x');
  for (StringRef part : parts) {
    int64_t size;
    if (part.getAsInteger(10, size) || size < 0)
      return error("'" + part + "' is not a size >= 0");
    shape.push_back(size);
  }
  // The shape must still describe an addressable tensor: offsets into it are
  // int64 (nothing is allocated, so the buffer limit does not apply).
  if (!getStorageBytes(kind, shape))
    return error("the byte size overflows 64 bits");
  return HostTensor::makeShapeOnly(kind, shape);
}

static bool isShapeOnlyOp(Operation *op) {
  if (op->getDialect() && op->getDialect()->getNamespace() == "arith")
    return true;
  // The executors of the elementwise and reduction families (execBinary,
  // execUnary, execCast, execCompare, execWhere, execReduce) skip the data
  // of a shape-only result, so every member of the families has a rule; an
  // op with an executor of its own is listed once its executor does.
  if (isElementwiseOp(op) || isReductionOp(op))
    return true;
  return isa<LoopOp, ScopeOp, TaskOp, scf::IfOp, IsLoopBeginOp, IsLoopEndOp,
             ValidDimOp, DimOp, ReadOp, CheckViewOp, CheckTileViewOp, ReshapeOp,
             ViewOp, MatmulOp, MatmulAccOp, WorkspaceOp, LaunchOp, RootCallOp,
             FullOp, TransposeOp, GatherMaskOp, BitcastOp, TopKOp, AtomicAddOp,
             AssembleOp, IndexPutOp, ArangeOp>(op);
}

bool interp::hasShapeOnlySemantics(Operation *op) {
  // Asked for every executed op (~10^6 per tile graph): answered once per op
  // class, by its TypeID (stable across contexts).
  std::optional<RegisteredOperationName> name = op->getRegisteredInfo();
  if (!name)
    return false;
  static thread_local llvm::DenseMap<TypeID, bool> known;
  auto [it, inserted] = known.try_emplace(name->getTypeID(), false);
  if (inserted)
    it->second = isShapeOnlyOp(op);
  return it->second;
}
