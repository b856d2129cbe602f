//===- PTOOps.cpp - pto operations ----------------------------------------===//
//
// Verifiers name the offending value, the rule and the fix. Architecture
// limits come from Platform.h.
//
//===----------------------------------------------------------------------===//

#include "VerifierUtils.h"
#include "pto/Dialect/PTO/IR/NZLayout.h"
#include "pto/Dialect/PTO/IR/PTODialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/FunctionImplementation.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallSet.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/FormatVariadic.h"

#include <numeric>

using namespace mlir;
using namespace mlir::pto;
using mlir::pto::detail::shapeStr;
using mlir::pto::detail::verifyVecTile;

//===----------------------------------------------------------------------===//
// Helpers
//===----------------------------------------------------------------------===//

std::string mlir::pto::detail::shapeStr(ArrayRef<int64_t> shape) {
  std::string s;
  llvm::raw_string_ostream os(s);
  os << '[';
  llvm::interleaveComma(shape, os, [&](int64_t d) {
    if (ShapedType::isDynamic(d))
      os << '?';
    else
      os << d;
  });
  os << ']';
  return s;
}

static std::string typeStr(Type type) {
  std::string s;
  llvm::raw_string_ostream os(s);
  os << type;
  return s;
}

static StringRef archName(Arch arch) { return stringifyArch(arch); }

static int64_t byteSize(Type elementType) {
  return std::max<int64_t>(1, elementType.getIntOrFloatBitWidth() / 8);
}

static bool isFP8(Type t) { return isa<Float8E4M3FNType, Float8E5M2Type>(t); }

static bool isSignlessInt(Type t, unsigned width) {
  return t.isSignlessInteger(width);
}

/// Verifies a mixed static/dynamic index list: as many dynamic operands as
/// kDynamic entries, and non-negative static entries.
static LogicalResult verifyMixedList(Operation *op, StringRef what,
                                     ArrayRef<int64_t> statics,
                                     ValueRange dynamics) {
  int64_t numDynamic = llvm::count_if(statics, ShapedType::isDynamic);
  if (numDynamic != static_cast<int64_t>(dynamics.size()))
    return op->emitOpError()
           << what << " has " << numDynamic << " dynamic entries but "
           << dynamics.size() << " index operands";
  for (auto [i, v] : llvm::enumerate(statics))
    if (!ShapedType::isDynamic(v) && v < 0)
      return op->emitOpError()
             << what << " entry " << i << " is " << v << "; it must be >= 0";
  return success();
}

/// The vector tile rules shared by vector ops
/// (docs/PyPTOModel.md#vector-tile-shapes).
LogicalResult mlir::pto::detail::verifyVecTile(Operation *op, VecTileAttr tile,
                                               TileType governed) {
  if (!tile)
    return success();
  ArrayRef<int64_t> dims = tile.getDims();
  if (static_cast<int64_t>(dims.size()) < governed.getRank())
    return op->emitOpError()
           << "vector tile " << shapeStr(dims) << " has rank " << dims.size()
           << " but the op works on rank-" << governed.getRank()
           << " tiles; give the vector tile at least " << governed.getRank()
           << " dims";
  // A last dim covering the tile's whole last dim (an f32 [N, 1] column) is
  // padded to a 32-byte block by pto-legalize, as the ub row is; only an
  // unaligned split of the dim is an error, in PyPTO too
  // (docs/Legalization.md). The architecture (a walk up to the kernel) only
  // for a split: this runs on every vector op after every pass.
  if (dims.back() >= governed.getShape().back())
    return success();
  int64_t elemBytes = governed.getElementByteSize();
  const PlatformInfo &platform = getPlatformInfo(getArchFor(op));
  if ((dims.back() * elemBytes) % platform.bufferAlignBytes != 0)
    return op->emitOpError()
           << "vector tile " << shapeStr(dims) << ": last dim " << dims.back()
           << " x " << elemBytes << " B (" << governed.getElementType()
           << ") = " << dims.back() * elemBytes << " B is not "
           << platform.bufferAlignBytes << "-byte aligned and splits the "
           << governed.getShape().back()
           << " columns of the tile; PyPTO rejects this too "
              "(set_vec_tile_shapes: last dim x dtype size must be a multiple "
              "of 32 B): use a multiple of "
           << platform.bufferAlignBytes / elemBytes
           << " elements, or the whole last dim";
  return success();
}

//===----------------------------------------------------------------------===//
// KernelOp
//===----------------------------------------------------------------------===//

ParseResult KernelOp::parse(OpAsmParser &parser, OperationState &result) {
  Builder &builder = parser.getBuilder();
  StringAttr symName;
  if (parser.parseSymbolName(symName, SymbolTable::getSymbolAttrName(),
                             result.attributes))
    return failure();
  SmallVector<OpAsmParser::Argument> args;
  if (parser.parseArgumentList(args, OpAsmParser::Delimiter::Paren,
                               /*allowType=*/true, /*allowAttrs=*/true))
    return failure();
  if (parser.parseOptionalAttrDictWithKeyword(result.attributes))
    return failure();

  // The Python parameter names are the SSA names of the arguments.
  SmallVector<Type> argTypes;
  SmallVector<Attribute> argNames;
  for (OpAsmParser::Argument &arg : args) {
    argTypes.push_back(arg.type);
    argNames.push_back(builder.getStringAttr(arg.ssaName.name.drop_front()));
  }
  result.attributes.set(getFunctionTypeAttrName(result.name),
                        TypeAttr::get(builder.getFunctionType(argTypes, {})));
  result.attributes.set(getArgNamesAttrName(result.name),
                        builder.getArrayAttr(argNames));
  call_interface_impl::addArgAndResultAttrs(
      builder, result, args, /*resultAttrs=*/{},
      getArgAttrsAttrName(result.name), getResAttrsAttrName(result.name));

  Region *body = result.addRegion();
  if (parser.parseRegion(*body, args))
    return failure();
  KernelOp::ensureTerminator(*body, builder, result.location);
  return success();
}

void KernelOp::print(OpAsmPrinter &p) {
  p << ' ';
  p.printSymbolName(getSymName());
  p << '(';
  ArrayAttr argAttrs = getArgAttrsAttr();
  for (BlockArgument arg : getBody().getArguments()) {
    if (arg.getArgNumber())
      p << ", ";
    ArrayRef<NamedAttribute> attrs;
    if (argAttrs)
      attrs = cast<DictionaryAttr>(argAttrs[arg.getArgNumber()]).getValue();
    p.printRegionArgument(arg, attrs);
  }
  p << ')';
  p.printOptionalAttrDictWithKeyword(
      (*this)->getAttrs(),
      {getSymNameAttrName(), getFunctionTypeAttrName(), getArgNamesAttrName(),
       getArgAttrsAttrName(), getResAttrsAttrName()});
  p << ' ';
  // The implicit pto.return is elided unless it carries attributes.
  Block &body = getBody().front();
  p.printRegion(getBody(), /*printEntryBlockArgs=*/false,
                /*printBlockTerminators=*/body.mightHaveTerminator() &&
                    !body.getTerminator()->getAttrDictionary().empty());
}

void KernelOp::getAsmBlockArgumentNames(Region &region,
                                        OpAsmSetValueNameFn setNameFn) {
  ArrayAttr names = getArgNames();
  for (BlockArgument arg : region.getArguments())
    if (arg.getArgNumber() < names.size())
      setNameFn(arg, cast<StringAttr>(names[arg.getArgNumber()]).getValue());
}

BlockArgument KernelOp::getArgumentByName(StringRef name) {
  for (auto [i, attr] : llvm::enumerate(getArgNames()))
    if (cast<StringAttr>(attr).getValue() == name)
      return getBody().getArgument(i);
  return {};
}

/// `pto.layout` on kernel argument `i`: "nd" (row-major, the default) or
/// "nz" (NZLayout.h) on a matrix whose static rows and columns fill whole
/// fractals. Dynamic sizes are checked by pto-run against the data.
static LogicalResult verifyLayoutArgAttr(KernelOp kernel, unsigned i) {
  Attribute attr = kernel.getArgAttr(i, kLayoutAttrName);
  if (!attr)
    return success();
  StringRef name = cast<StringAttr>(kernel.getArgNames()[i]).getValue();
  auto layout = dyn_cast<StringAttr>(attr);
  if (!layout || (layout.getValue() != "nd" && layout.getValue() != kLayoutNZ))
    return kernel.emitOpError()
           << "argument '" << name << "' has " << kLayoutAttrName << " = "
           << attr << "; the layout is the string \"nd\" (row-major) or \""
           << kLayoutNZ << "\" (16-row fractals, PyPTO's TILEOP_NZ)";
  if (layout.getValue() != kLayoutNZ)
    return success();
  auto tensor = cast<GMTensorType>(kernel.getArgumentTypes()[i]);
  Type element = tensor.getElementType();
  int64_t c0 = element.isInteger(1) || element.isInteger(64)
                   ? 0
                   : getNZFractalCols(tensor.getElementByteSize());
  if (c0 == 0)
    return kernel.emitOpError()
           << "argument '" << name << "' is NZ (" << kLayoutAttrName
           << " = \"nz\") with element type " << element
           << "; an NZ fractal row is 32 bytes of a 1-, 2- or 4-byte number "
              "(i8, f16, bf16, f32, i32, ...): declare it ND";
  if (tensor.getRank() < 2)
    return kernel.emitOpError()
           << "argument '" << name << "' is NZ (" << kLayoutAttrName
           << " = \"nz\") but has type " << tensor
           << "; NZ stores a matrix (the last two dims): declare a 1-D tensor "
              "ND";
  int64_t rank = tensor.getRank();
  int64_t rows = tensor.getDimSize(rank - 2),
          cols = tensor.getDimSize(rank - 1);
  auto misfit = [&](StringRef what, int64_t size, int64_t multiple) {
    int64_t padded = (size + multiple - 1) / multiple * multiple;
    return kernel.emitOpError()
           << "argument '" << name << "' is NZ (" << kLayoutAttrName
           << " = \"nz\") with " << size << " " << what << " (type " << tensor
           << "); NZ stores whole 16 x " << c0 << " fractals of " << element
           << ", so its " << what << " must be a multiple of " << multiple
           << ": pad the " << what << " with zeros to " << padded
           << " or declare the tensor ND";
  };
  if (!ShapedType::isDynamic(rows) && rows % kNZFractalRows != 0)
    return misfit("rows", rows, kNZFractalRows);
  if (!ShapedType::isDynamic(cols) && cols % c0 != 0)
    return misfit("columns", cols, c0);
  return success();
}

LogicalResult KernelOp::verify() {
  FunctionType type = getFunctionType();
  if (type.getNumResults() != 0)
    return emitOpError() << "has " << type.getNumResults()
                         << " results; a PyPTO kernel returns nothing and "
                            "writes its outputs into argument tensors";
  if (getArgNames().size() != type.getNumInputs())
    return emitOpError() << "has " << getArgNames().size()
                         << " argument names for " << type.getNumInputs()
                         << " arguments";
  llvm::StringMap<unsigned> seen;
  for (auto [i, attr] : llvm::enumerate(getArgNames())) {
    StringRef name = cast<StringAttr>(attr).getValue();
    if (name.empty())
      return emitOpError() << "argument #" << i << " has an empty name";
    if (!seen.try_emplace(name, i).second)
      return emitOpError() << "argument name '" << name
                           << "' is used twice; kernel arguments are named "
                              "after distinct Python parameters";
    if (!isa<GMTensorType>(type.getInput(i)))
      return emitOpError() << "argument '" << name << "' has type "
                           << type.getInput(i)
                           << "; kernel arguments must be GM tensors "
                              "(!pto.tensor). Fold compile-time parameters "
                              "(tile configs, scale) into attributes and "
                              "constants";
  }
  // `pto.cumulative` marks varlen offsets (actual_q): 1-D integer tensors
  // whose run-time contract (start at 0, never decrease) pto-run checks.
  for (unsigned i = 0; i < type.getNumInputs(); ++i) {
    Attribute cumulative = getArgAttr(i, "pto.cumulative");
    if (!cumulative)
      continue;
    auto tensor = cast<GMTensorType>(type.getInput(i));
    if (!isa<UnitAttr>(cumulative) || tensor.getRank() != 1 ||
        !isa<IntegerType>(tensor.getElementType()))
      return emitOpError() << "argument '"
                           << cast<StringAttr>(getArgNames()[i]).getValue()
                           << "' is marked pto.cumulative but has type "
                           << tensor
                           << "; cumulative offsets are a unit attribute on a "
                              "1-D integer tensor";
  }
  for (unsigned i = 0; i < type.getNumInputs(); ++i)
    if (failed(verifyLayoutArgAttr(*this, i)))
      return failure();
  if (RuntimeOptionsAttr options = getRuntimeOptionsAttr()) {
    if (ArrayAttr ready = options.getReadyOnHostTensors()) {
      for (Attribute attr : ready) {
        StringRef name = cast<StringAttr>(attr).getValue();
        if (!seen.count(name))
          return emitOpError()
                 << "runtime option 'ready_on_host_tensors' names '" << name
                 << "', which is not an argument of @" << getSymName()
                 << "; list only kernel argument names";
      }
    }
  }
  return success();
}

/// Calls `fn` on the pto.scope ops in `region` in post-order, as
/// Operation::walk, until it fails; without a call per op and without entering
/// tasks: they cannot hold a scope (TaskOp::verifyRegions) and hold most ops
/// of a partitioned kernel, and KernelOp's verifier runs after every pass.
static LogicalResult
forEachScopeOutsideTasks(Region &region,
                         function_ref<LogicalResult(ScopeOp)> fn) {
  for (Block &block : region)
    for (Operation &op : block) {
      // Scopes hold a region: the many ops without one are passed over.
      if (op.getNumRegions() == 0)
        continue;
      if (!isa<TaskOp>(op))
        for (Region &nested : op.getRegions())
          if (failed(forEachScopeOutsideTasks(nested, fn)))
            return failure();
      if (auto scope = dyn_cast<ScopeOp>(op))
        if (failed(fn(scope)))
          return failure();
    }
  return success();
}

LogicalResult KernelOp::verifyRegions() {
  // (Entry block arity and types are checked by FunctionOpInterface.)
  // All scopes of one id carry the same flags (PyPTO consistency check).
  llvm::DenseMap<int64_t, ScopeOp> firstOfId;
  auto check = [&](ScopeOp scope) {
    ScopeAttr attr = scope.getScope();
    auto [it, inserted] = firstOfId.try_emplace(attr.getId(), scope);
    if (inserted || it->second.getScope() == attr)
      return success();
    InFlightDiagnostic diag =
        scope.emitOpError()
        << "scope " << attr.getId()
        << " has flags (allow_parallel_merge = " << attr.getAllowParallelMerge()
        << ", allow_cross_scope_merge = " << attr.getAllowCrossScopeMerge()
        << ") that differ from an earlier scope with the same id; all scopes "
           "of one id must carry identical flags";
    diag.attachNote(it->second.getLoc())
        << "earlier scope " << attr.getId() << " is here";
    return failure();
  };
  return forEachScopeOutsideTasks(getBody(), check);
}

//===----------------------------------------------------------------------===//
// LoopOp
//===----------------------------------------------------------------------===//

ParseResult LoopOp::parse(OpAsmParser &parser, OperationState &result) {
  Builder &builder = parser.getBuilder();
  std::string name;
  OpAsmParser::Argument iv;
  OpAsmParser::UnresolvedOperand lb, ub, step;
  if (parser.parseString(&name) || parser.parseArgument(iv) ||
      parser.parseEqual() || parser.parseOperand(lb) ||
      parser.parseKeyword("to") || parser.parseOperand(ub) ||
      parser.parseKeyword("step") || parser.parseOperand(step))
    return failure();
  Type indexType = builder.getIndexType();
  iv.type = indexType;

  SmallVector<OpAsmParser::Argument> regionArgs{iv};
  SmallVector<OpAsmParser::UnresolvedOperand> inits;
  SmallVector<Type> resultTypes;
  if (succeeded(parser.parseOptionalKeyword("iter_args"))) {
    SmallVector<OpAsmParser::Argument> iterArgs;
    if (parser.parseAssignmentList(iterArgs, inits) ||
        parser.parseArrowTypeList(resultTypes))
      return failure();
    if (iterArgs.size() != resultTypes.size())
      return parser.emitError(parser.getNameLoc())
             << "has " << iterArgs.size() << " iter_args but "
             << resultTypes.size() << " result types";
    for (auto [arg, type] : llvm::zip(iterArgs, resultTypes)) {
      arg.type = type;
      regionArgs.push_back(arg);
    }
  }
  if (parser.resolveOperand(lb, indexType, result.operands) ||
      parser.resolveOperand(ub, indexType, result.operands) ||
      parser.resolveOperand(step, indexType, result.operands) ||
      parser.resolveOperands(inits, resultTypes, parser.getNameLoc(),
                             result.operands))
    return failure();
  result.addTypes(resultTypes);
  if (parser.parseOptionalAttrDictWithKeyword(result.attributes))
    return failure();
  result.attributes.set(getNameAttrName(result.name),
                        builder.getStringAttr(name));
  // idx_name is the SSA name of the index unless the printer had to spell it
  // out (see LoopOp::print).
  if (!result.attributes.get(getIdxNameAttrName(result.name)))
    result.attributes.set(getIdxNameAttrName(result.name),
                          builder.getStringAttr(iv.ssaName.name.drop_front()));
  Region *body = result.addRegion();
  if (parser.parseRegion(*body, regionArgs))
    return failure();
  LoopOp::ensureTerminator(*body, builder, result.location);
  return success();
}

void LoopOp::print(OpAsmPrinter &p) {
  p << ' ';
  p.printString(getName());
  p << ' ' << getInductionVar() << " = " << getLowerBound() << " to "
    << getUpperBound() << " step " << getStep();
  if (!getInitArgs().empty()) {
    p << " iter_args(";
    llvm::interleaveComma(
        llvm::zip(getRegionIterArgs(), getInitArgs()), p, [&](auto pair) {
          p << std::get<0>(pair) << " = " << std::get<1>(pair);
        });
    p << ") -> (" << getResultTypes() << ')';
  }
  // The index prints under its idx_name unless that name is taken in the
  // enclosing scope (e.g. by a kernel argument) and the printer renamed it;
  // then idx_name is printed explicitly so that it survives a round trip.
  std::string ivName;
  llvm::raw_string_ostream ivOs(ivName);
  p.printOperand(getInductionVar(), ivOs);
  SmallVector<StringRef, 2> elided = {getNameAttrName()};
  if (StringRef(ivName).drop_front() == getIdxName())
    elided.push_back(getIdxNameAttrName());
  p.printOptionalAttrDictWithKeyword((*this)->getAttrs(), elided);
  p << ' ';
  // The implicit pto.yield is elided when it yields nothing and carries no
  // attributes.
  Block &body = getBody().front();
  p.printRegion(getBody(), /*printEntryBlockArgs=*/false,
                /*printBlockTerminators=*/!getInitArgs().empty() ||
                    (body.mightHaveTerminator() &&
                     !body.getTerminator()->getAttrDictionary().empty()));
}

void LoopOp::getAsmBlockArgumentNames(Region &region,
                                      OpAsmSetValueNameFn setNameFn) {
  if (!region.empty() && region.getNumArguments() > 0)
    setNameFn(region.getArgument(0), getIdxName());
}

LogicalResult LoopOp::verify() {
  if (getName().empty())
    return emitOpError() << "needs a non-empty loop name (PyPTO's name=...)";
  if (getIdxName().empty())
    return emitOpError() << "needs a non-empty index name (idx_name=...)";
  if (getInitArgs().size() != getNumResults())
    return emitOpError() << "has " << getInitArgs().size() << " iter_args but "
                         << getNumResults() << " results";
  for (auto [i, pair] : llvm::enumerate(llvm::zip(getInitArgs(), getResults())))
    if (std::get<0>(pair).getType() != std::get<1>(pair).getType())
      return emitOpError() << "iter_arg #" << i << " has type "
                           << std::get<0>(pair).getType() << " but result #"
                           << i << " has type " << std::get<1>(pair).getType();
  // The body's arguments and the yield are checked here, before the nested
  // ops, so that these messages come before LoopLikeOpInterface's region
  // verifier reports the same faults in its generic wording. (ODS has already
  // checked that the body is one block ending in a pto.yield.)
  Block &body = getBody().front();
  if (body.getNumArguments() != 1 + getInitArgs().size())
    return emitOpError() << "body must take the index and one argument per "
                            "iter_arg";
  for (auto [arg, init] : llvm::zip(getRegionIterArgs(), getInitArgs()))
    if (arg.getType() != init.getType())
      return emitOpError() << "body argument type " << arg.getType()
                           << " differs from its iter_arg type "
                           << init.getType();
  YieldOp yield = getYield();
  if (yield.getValues().size() != getNumResults() ||
      !llvm::equal(yield.getValues().getTypes(), getResultTypes()))
    return yield.emitOpError() << "yields (" << yield.getValues().getTypes()
                               << ") but the enclosing pto.loop carries ("
                               << getResultTypes() << ")";
  APInt stepValue;
  if (matchPattern(getStep(), m_ConstantInt(&stepValue)) &&
      stepValue.getSExtValue() <= 0)
    return emitOpError() << "step is " << stepValue.getSExtValue()
                         << "; a pto.loop step must be positive";
  if (std::optional<ArrayRef<int64_t>> unroll = getUnrollList()) {
    for (int64_t factor : *unroll)
      if (factor <= 0)
        return emitOpError()
               << "unroll_list factor " << factor << " must be positive";
  }
  // unroll_list on a loop that is not innermost is accepted, as PyPTO
  // compiles it; here it is a hint (nothing unrolls).
  // Index names are unique along a loop nest (PyPTO front-end rule).
  for (Operation *parent = (*this)->getParentOp(); parent;
       parent = parent->getParentOp())
    if (auto outer = dyn_cast<LoopOp>(parent))
      if (outer.getIdxName() == getIdxName()) {
        InFlightDiagnostic diag =
            emitOpError() << "reuses index name '" << getIdxName()
                          << "' of an enclosing loop; give each loop of a nest "
                             "its own idx_name";
        diag.attachNote(outer.getLoc())
            << "enclosing loop '" << outer.getName() << "' is here";
        return diag;
      }
  return success();
}

LogicalResult LoopOp::verifyRegions() {
  if (!getInductionVar().getType().isIndex())
    return emitOpError() << "induction variable must be an index";
  return success();
}

//===----------------------------------------------------------------------===//
// ScopeOp
//===----------------------------------------------------------------------===//

LogicalResult ScopeOp::verifyRegions() {
  auto yield = cast<YieldOp>(getBody().front().getTerminator());
  if (!llvm::equal(yield.getValues().getTypes(), getResultTypes()))
    return yield.emitOpError()
           << "yields (" << yield.getValues().getTypes()
           << ") but the pto.scope returns (" << getResultTypes() << ")";
  int64_t id = getScope().getId();
  Operation *cubeOp = nullptr, *vectorOp = nullptr;
  WalkResult walk = getBody().walk([&](Operation *op) {
    if (isa<LoopOp>(op)) {
      InFlightDiagnostic diag =
          emitOpError() << "scope " << id
                        << " contains a pto.loop; scopes do not cross loop "
                           "boundaries (each loop body is compiled on its "
                           "own): open the scope inside the loop body";
      diag.attachNote(op->getLoc()) << "loop is here";
      return WalkResult::interrupt();
    }
    if (isa<ScopeOp>(op)) {
      InFlightDiagnostic diag =
          emitOpError() << "scope " << id
                        << " contains another pto.scope; sg_set_scope is one "
                           "ambient setting, so scopes do not nest: close "
                           "this scope first";
      diag.attachNote(op->getLoc()) << "nested scope is here";
      return WalkResult::interrupt();
    }
    if (isCubeOp(op) && !cubeOp)
      cubeOp = op;
    if (isVectorOp(op) && !vectorOp)
      vectorOp = op;
    return WalkResult::advance();
  });
  if (walk.wasInterrupted())
    return failure();
  Arch arch = getArchFor(*this);
  if (cubeOp && vectorOp && !getPlatformInfo(arch).mixedScopes) {
    InFlightDiagnostic diag =
        emitOpError() << "scope " << id << " mixes the cube op '"
                      << cubeOp->getName() << "' and the vector op '"
                      << vectorOp->getName() << "', which " << archName(arch)
                      << " cannot run in one subgraph (no on-chip cube-vector "
                         "path): move the cube ops out of the scope";
    diag.attachNote(cubeOp->getLoc()) << "cube op is here";
    diag.attachNote(vectorOp->getLoc()) << "vector op is here";
    return diag;
  }
  return success();
}

//===----------------------------------------------------------------------===//
// is_loop_begin / is_loop_end
//===----------------------------------------------------------------------===//

static LogicalResult verifyLoopPredicate(Operation *op, Value index) {
  auto arg = dyn_cast<BlockArgument>(index);
  if (!arg || arg.getArgNumber() != 0 ||
      !isa<LoopOp>(arg.getOwner()->getParentOp()))
    return op->emitOpError()
           << "operand must be the index of an enclosing pto.loop";
  return success();
}

LogicalResult IsLoopBeginOp::verify() {
  return verifyLoopPredicate(*this, getIndex());
}
LogicalResult IsLoopEndOp::verify() {
  return verifyLoopPredicate(*this, getIndex());
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
  if (failed(verifyMixedList(*this, "shape", shape, getShape())))
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
  if (auto tile = dyn_cast<TileType>(getSource().getType())) {
    sourceElement = tile.getElementType();
    sourceShape = tile.getShape();
  } else {
    auto tensor = cast<GMTensorType>(getSource().getType());
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
  ArrayRef<int64_t> offsets = getStaticOffsets();
  if (static_cast<int64_t>(offsets.size()) != rank)
    return emitOpError() << "has " << offsets.size() << " offsets for a rank-"
                         << rank << " source; give one offset per dim";
  if (failed(verifyMixedList(*this, "offsets", offsets, getOffsets())))
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
    if (failed(verifyMixedList(*this, "valid shape", *valid, getValidShape())))
      return failure();
    for (auto [d, extent] : llvm::enumerate(*valid))
      if (!ShapedType::isDynamic(extent) && extent > resultShape[d])
        return emitOpError()
               << "valid extent " << extent << " of dim " << d
               << " exceeds the view's static size " << resultShape[d]
               << "; a valid shape is at most the tile shape";
  } else if (!getValidShape().empty()) {
    return emitOpError()
           << "has valid-shape operands but no static_valid_shape";
  }
  return success();
}

//===----------------------------------------------------------------------===//
// MatmulOp
//===----------------------------------------------------------------------===//

/// Whether `lhs x rhs -> out` is a supported matmul dtype triple on `arch`
/// (docs/PyPTOModel.md#matmul): the cube accumulates floats in f32 and the
/// fixpipe rounds to any of f16, bf16, f32 on the way out.
static bool isSupportedMatmulTriple(Type in, Type out, Arch arch) {
  if (in.isF16() || in.isBF16() || in.isF32())
    return out.isF16() || out.isBF16() || out.isF32();
  if (isSignlessInt(in, 8))
    return isSignlessInt(out, 32);
  if (isFP8(in))
    return getPlatformInfo(arch).supportsFP8 &&
           (out.isF16() || out.isBF16() || out.isF32());
  return false;
}

/// Shapes, dtypes and cube tile of a matmul or one K step of it.
static LogicalResult verifyMatmulLike(Operation *op, TileType lhs, TileType rhs,
                                      TileType result, bool aTrans, bool bTrans,
                                      CubeTileAttr tile) {
  auto emitOpError = [&]() { return op->emitOpError(); };
  auto getATrans = [&]() { return aTrans; };
  auto getBTrans = [&]() { return bTrans; };
  auto getCubeTile = [&]() { return tile; };
  if (lhs.getRank() != 2 || rhs.getRank() != 2 || result.getRank() != 2)
    return emitOpError() << "supports 2-D tiles only, got ranks "
                         << lhs.getRank() << ", " << rhs.getRank() << " -> "
                         << result.getRank();
  int64_t m = getATrans() ? lhs.getDimSize(1) : lhs.getDimSize(0);
  int64_t kA = getATrans() ? lhs.getDimSize(0) : lhs.getDimSize(1);
  int64_t kB = getBTrans() ? rhs.getDimSize(1) : rhs.getDimSize(0);
  int64_t n = getBTrans() ? rhs.getDimSize(0) : rhs.getDimSize(1);
  if (kA != kB)
    return emitOpError() << "contracts K = " << kA << " of the left operand "
                         << shapeStr(lhs.getShape())
                         << (getATrans() ? " (a_trans)" : "")
                         << " with K = " << kB << " of the right operand "
                         << shapeStr(rhs.getShape())
                         << (getBTrans() ? " (b_trans)" : "")
                         << "; the contracted dims must be equal (check "
                            "a_trans/b_trans)";
  if (result.getDimSize(0) != m || result.getDimSize(1) != n)
    return emitOpError() << "result " << shapeStr(result.getShape())
                         << " must be [M, N] = " << shapeStr({m, n});

  Type inType = lhs.getElementType(), outType = result.getElementType();
  Arch arch = getArchFor(op);
  bool fp8Pair = isFP8(inType) && isFP8(rhs.getElementType());
  if (inType != rhs.getElementType() && !fp8Pair)
    return emitOpError() << "multiplies " << inType << " by "
                         << rhs.getElementType()
                         << "; both operands must have the same dtype (cast "
                            "one of them)";
  if (!isSupportedMatmulTriple(inType, outType, arch))
    return emitOpError() << "dtype triple " << inType << " x "
                         << rhs.getElementType() << " -> " << outType
                         << " is not supported on " << archName(arch)
                         << "; supported: f16|bf16|f32->f16|bf16|f32, "
                            "i8->i32"
                         << (getPlatformInfo(arch).supportsFP8
                                 ? ", fp8->f16|bf16|f32"
                                 : "");

  // Cube tile alignment and capacity (docs/PyPTOModel.md#cube-tile-shapes).
  (void)getCubeTile;
  if (tile.getSplitK() && !outType.isF32() && !isSignlessInt(outType, 32))
    return emitOpError() << "uses split_k with out dtype " << outType
                         << "; split-K accumulates in GM and needs f32 or "
                            "i32 output";
  const PlatformInfo &platform = getPlatformInfo(arch);
  int64_t aBytes = byteSize(inType), bBytes = byteSize(rhs.getElementType());
  int64_t align = aBytes == 1 ? 32 : 16; // elements; 32 B for 8-bit types
  // L1 is a multiple of L0 (CubeTileAttr), so aligning L0 aligns L1 too.
  auto checkAligned = [&](StringRef axis,
                          ArrayRef<int64_t> values) -> LogicalResult {
    if (values[0] % align != 0)
      return emitOpError() << "cube tile " << axis << " = [" << values[0]
                           << ", " << values[1] << "]: " << axis
                           << "L0 = " << values[0] << " is not a multiple of "
                           << align << " elements (32-byte alignment for "
                           << inType << "); round it to a multiple of "
                           << align;
    return success();
  };
  // mL0 is free unless A is transposed (PyPTO's CheckCubeTiling): the L1
  // and L0A images round M up to whole fractals (16 rows) either way.
  if ((aTrans && failed(checkAligned("m", tile.getM()))) ||
      failed(checkAligned("k", tile.getK())) ||
      failed(checkAligned("n", tile.getN())))
    return failure();
  auto ca = [&](int64_t x) { return (x + align - 1) / align * align; };
  auto overflow = [&](StringRef buffer, const std::string &formula,
                      int64_t bytes, int64_t limit,
                      StringRef fix) -> LogicalResult {
    return emitOpError() << "cube tile does not fit " << buffer << " on "
                         << archName(arch) << ": " << formula << " = " << bytes
                         << " B > " << limit << " B (" << limit / 1024
                         << " KiB); " << fix;
  };
  int64_t l0a = ca(tile.getML0()) * ca(tile.getKL0()) * aBytes;
  if (l0a > platform.l0aBytes)
    return overflow("L0A",
                    llvm::formatv("mL0 x kL0 x {0} B = {1} x {2} x {0}", aBytes,
                                  tile.getML0(), tile.getKL0())
                        .str(),
                    l0a, platform.l0aBytes, "lower mL0 or kL0");
  int64_t l0b = ca(tile.getNL0()) * ca(tile.getKL0()) * bBytes;
  if (l0b > platform.l0bBytes)
    return overflow("L0B",
                    llvm::formatv("nL0 x kL0 x {0} B = {1} x {2} x {0}", bBytes,
                                  tile.getNL0(), tile.getKL0())
                        .str(),
                    l0b, platform.l0bBytes, "lower nL0 or kL0");
  int64_t l0c = ca(tile.getML0()) * ca(tile.getNL0()) * 4;
  if (l0c > platform.l0cBytes)
    return overflow("L0C",
                    llvm::formatv("mL0 x nL0 x 4 B = {0} x {1} x 4",
                                  tile.getML0(), tile.getNL0())
                        .str(),
                    l0c, platform.l0cBytes, "lower mL0 or nL0");
  // L1 holds what PyPTO's matmul expansion stages there: per output tile an
  // A block [mL0, kL1] and a B block [kL1, nL0], each clamped to the operand
  // (docs/PyPTOModel.md#cube-tile-shapes); mL1 and nL1 size no matmul block.
  int64_t mBlock = std::min(tile.getML0(), m),
          nBlock = std::min(tile.getNL0(), n);
  int64_t kBlock = std::min(tile.getKL1(), kA);
  int64_t l1 =
      ca(mBlock) * ca(kBlock) * aBytes + ca(nBlock) * ca(kBlock) * bBytes;
  if (l1 > platform.l1Bytes)
    return overflow("L1",
                    llvm::formatv("A block [mL0, kL1] + B block [kL1, nL0] "
                                  "(clamped to M, K, N) = ({2} x {3} x {0} + "
                                  "{4} x {3} x {1}) B",
                                  aBytes, bBytes, mBlock, kBlock, nBlock)
                        .str(),
                    l1, platform.l1Bytes, "lower kL1 (or mL0, nL0)");
  return success();
}

//===----------------------------------------------------------------------===//
// Elementwise ops
//===----------------------------------------------------------------------===//

/// Elementwise arithmetic dtypes (docs/PyPTOModel.md#elementwise-ops: the A2/A3
/// vector ALU has no bf16 arithmetic; SK-16 casts to f32 explicitly).
static LogicalResult verifyArithmeticDType(Operation *op, Type elementType,
                                           bool floatOnly) {
  // bf16 without bf16 vector arithmetic is computed in f32 by pto-legalize
  // (PyPTO's AutoCast does the same): the same types on every architecture,
  // named in the message only.
  bool ok =
      elementType.isF16() || elementType.isF32() || elementType.isBF16() ||
      (!floatOnly &&
       (isSignlessInt(elementType, 16) || isSignlessInt(elementType, 32)));
  if (ok)
    return success();
  return op->emitOpError() << "computes on " << elementType << ", which the "
                           << archName(getArchFor(op))
                           << " vector unit does not support; use "
                           << (floatOnly ? "f16, bf16 or f32"
                                         : "f16, bf16, f32, i16 or i32");
}

/// HIGH_PRECISION where the architecture has none (DAV_2201) is legal
/// input: pto-legalize makes it INTRINSIC, PyPTO's A2/A3 div having a single
/// precision (docs/Legalization.md).
static LogicalResult verifyPrecision(Operation *, PrecisionType) {
  return success();
}

static LogicalResult verifyBinary(Operation *op, Value lhsValue, Value rhsValue,
                                  Value resultValue, VecTileAttr vecTile,
                                  bool isDiv) {
  auto lhs = cast<TileType>(lhsValue.getType());
  auto result = cast<TileType>(resultValue.getType());
  Type elementType = lhs.getElementType();
  SmallVector<int64_t> expected(lhs.getShape());
  if (auto rhs = dyn_cast<TileType>(rhsValue.getType())) {
    if (rhs.getElementType() != elementType)
      return op->emitOpError()
             << "mixes " << elementType << " and " << rhs.getElementType()
             << " operands; cast one so both match";
    if (rhs.getRank() != lhs.getRank())
      return op->emitOpError() << "operands have ranks " << lhs.getRank()
                               << " and " << rhs.getRank()
                               << "; broadcast operands keep the rank with "
                                  "size-1 dims (e.g. [M, 1])";
    for (int64_t d = 0; d < lhs.getRank(); ++d) {
      int64_t a = lhs.getDimSize(d), b = rhs.getDimSize(d);
      if (a != b && a != 1 && b != 1)
        return op->emitOpError()
               << "cannot broadcast " << shapeStr(lhs.getShape()) << " with "
               << shapeStr(rhs.getShape()) << ": dim " << d << " is " << a
               << " vs " << b << "; sizes must match or one must be 1";
      expected[d] = std::max(a, b);
    }
  } else if (rhsValue.getType() != elementType) {
    return op->emitOpError() << "scalar operand has type " << rhsValue.getType()
                             << " but the tile holds " << elementType
                             << "; the scalar must have the element type";
  }
  bool intDiv = isDiv && isa<IntegerType>(elementType);
  Type expectedElement =
      intDiv ? Float32Type::get(op->getContext()) : elementType;
  if (result.getShape() != ArrayRef<int64_t>(expected) ||
      result.getElementType() != expectedElement)
    return op->emitOpError()
           << "result type " << result << " must be !pto.tile<"
           << llvm::join(
                  llvm::map_range(expected,
                                  [](int64_t d) { return std::to_string(d); }),
                  "x")
           << 'x' << typeStr(expectedElement) << '>';
  if (failed(verifyArithmeticDType(op, elementType, /*floatOnly=*/false)))
    return failure();
  return verifyVecTile(op, vecTile, result);
}

#define PTO_DEFINE_BINARY_VERIFIER(OP, IS_DIV)                                 \
  LogicalResult OP::verify() {                                                 \
    return verifyBinary(*this, getLhs(), getRhs(), getResult(),                \
                        getVecTileAttr(), IS_DIV);                             \
  }
PTO_DEFINE_BINARY_VERIFIER(AddOp, false)
PTO_DEFINE_BINARY_VERIFIER(SubOp, false)
PTO_DEFINE_BINARY_VERIFIER(MulOp, false)
PTO_DEFINE_BINARY_VERIFIER(MaxOp, false)
PTO_DEFINE_BINARY_VERIFIER(MinOp, false)
#undef PTO_DEFINE_BINARY_VERIFIER

LogicalResult DivOp::verify() {
  if (failed(verifyBinary(*this, getLhs(), getRhs(), getResult(),
                          getVecTileAttr(), /*isDiv=*/true)))
    return failure();
  return verifyPrecision(*this, getPrecision());
}

static LogicalResult verifyUnary(Operation *op, TileType input, TileType result,
                                 VecTileAttr vecTile, bool floatOnly) {
  if (input != result)
    return op->emitOpError() << "result type " << result
                             << " must equal the operand type " << input;
  if (failed(verifyArithmeticDType(op, input.getElementType(), floatOnly)))
    return failure();
  return verifyVecTile(op, vecTile, result);
}

LogicalResult ExpOp::verify() {
  if (failed(verifyUnary(*this, getInput().getType(), getResult().getType(),
                         getVecTileAttr(), /*floatOnly=*/true)))
    return failure();
  return verifyPrecision(*this, getPrecision());
}

LogicalResult LogOp::verify() {
  if (failed(verifyUnary(*this, getInput().getType(), getResult().getType(),
                         getVecTileAttr(), /*floatOnly=*/true)))
    return failure();
  return verifyPrecision(*this, getPrecision());
}

#define PTO_DEFINE_UNARY_VERIFIER(OP, FLOAT_ONLY)                              \
  LogicalResult OP::verify() {                                                 \
    return verifyUnary(*this, getInput().getType(), getResult().getType(),     \
                       getVecTileAttr(), FLOAT_ONLY);                          \
  }
PTO_DEFINE_UNARY_VERIFIER(NegOp, false)
PTO_DEFINE_UNARY_VERIFIER(AbsOp, false)
PTO_DEFINE_UNARY_VERIFIER(SqrtOp, true)
PTO_DEFINE_UNARY_VERIFIER(RsqrtOp, true)
PTO_DEFINE_UNARY_VERIFIER(ReciprocalOp, true)
PTO_DEFINE_UNARY_VERIFIER(TanhOp, true)
#undef PTO_DEFINE_UNARY_VERIFIER

//===----------------------------------------------------------------------===//
// Reductions
//===----------------------------------------------------------------------===//

static LogicalResult verifyReduce(Operation *op, TileType input,
                                  TileType result, int64_t dim, bool keepdim,
                                  VecTileAttr vecTile, bool isAmax) {
  if (dim < 0 || dim >= input.getRank())
    return op->emitOpError()
           << "reduces dim " << dim << " of a rank-" << input.getRank()
           << " tile; use a dim in [0, " << input.getRank() << ")";
  SmallVector<int64_t> expected(input.getShape());
  if (keepdim) {
    expected[dim] = 1;
  } else {
    if (input.getRank() == 1)
      return op->emitOpError() << "would produce a rank-0 tile; add 'keepdim'";
    expected.erase(expected.begin() + dim);
  }
  if (result.getShape() != ArrayRef<int64_t>(expected) ||
      result.getElementType() != input.getElementType())
    return op->emitOpError() << "result type " << result << " must have shape "
                             << shapeStr(expected) << " and element type "
                             << input.getElementType();
  Type t = input.getElementType();
  Arch arch = getArchFor(op);
  bool ok = t.isF32() || t.isBF16() || isSignlessInt(t, 32) ||
            isSignlessInt(t, 16) ||
            (isAmax &&
             (t.isF16() || (arch == Arch::DAV_3510 && isSignlessInt(t, 8))));
  if (!ok)
    return op->emitOpError()
           << "does not support " << t << " on " << archName(arch)
           << (isAmax ? "; amax takes f16, bf16, f32, i16 "
                        "or i32"
                      : "; sum takes f32, bf16, i16 or i32");
  if (failed(verifyVecTile(op, vecTile, input)))
    return failure();
  if (vecTile) {
    // A tile larger than the tensor is clamped per dim
    // (docs/PyPTOModel.md#vector-tile-shapes).
    const PlatformInfo &platform = getPlatformInfo(arch);
    ArrayRef<int64_t> dims = vecTile.getDims();
    SmallVector<int64_t> clamped;
    int64_t elements = 1;
    for (int64_t d = 0; d < input.getRank(); ++d) {
      clamped.push_back(std::min(dims[dims.size() - input.getRank() + d],
                                 input.getDimSize(d)));
      elements *= clamped.back();
    }
    int64_t bytes = elements * input.getElementByteSize();
    std::string clampNote;
    if (ArrayRef<int64_t>(clamped) != dims.take_back(input.getRank()))
      clampNote = " (clamped to " + shapeStr(clamped) + ")";
    // Over the limit with outer dims to halve: pto-legalize re-tiles. Over
    // it with the last dim alone: PyPTO rejects it too (pypto.amax / sum
    // docs: TileShape <= 64 KB, the last dim whole and 32-byte aligned).
    int64_t rowBytes = clamped.back() * input.getElementByteSize();
    if (bytes > platform.reduceTileMaxBytes &&
        rowBytes > platform.reduceTileMaxBytes)
      return op->emitOpError()
             << "vector tile " << shapeStr(vecTile.getDims()) << clampNote
             << " of " << t << " has a last dim of " << rowBytes
             << " B alone, over the " << platform.reduceTileMaxBytes << " B ("
             << platform.reduceTileMaxBytes / 1024
             << " KiB) reduction tile limit of " << archName(arch)
             << "; PyPTO rejects this too (TileShape <= 64 KB): reduce a "
                "narrower tile";
  }
  return success();
}

LogicalResult SumOp::verify() {
  return verifyReduce(*this, getInput().getType(), getResult().getType(),
                      getDim(), getKeepdim(), getVecTileAttr(), false);
}
LogicalResult AmaxOp::verify() {
  return verifyReduce(*this, getInput().getType(), getResult().getType(),
                      getDim(), getKeepdim(), getVecTileAttr(), true);
}

//===----------------------------------------------------------------------===//
// TransposeOp
//===----------------------------------------------------------------------===//

LogicalResult TransposeOp::verify() {
  TileType input = getInput().getType(), result = getResult().getType();
  int64_t rank = input.getRank();
  int64_t dim0 = static_cast<int64_t>(getDim0());
  int64_t dim1 = static_cast<int64_t>(getDim1());
  if (rank < 2)
    return emitOpError() << "transposes a rank-" << rank
                         << " tile; a transpose needs at least 2 dims "
                            "(reshape to [1, N] first)";
  for (int64_t dim : {dim0, dim1})
    if (dim < 0 || dim >= rank)
      return emitOpError() << "dim " << dim << " is out of range for a rank-"
                           << rank << " tile; use dims in [0, " << rank
                           << ") (negative Python dims are normalised by the "
                              "front end)";
  if (dim0 == dim1)
    return emitOpError() << "swaps dim " << dim0
                         << " with itself; give two different dims (an "
                            "identity transpose is not an op)";
  SmallVector<int64_t> expected(input.getShape());
  std::swap(expected[dim0], expected[dim1]);
  if (result.getShape() != ArrayRef<int64_t>(expected) ||
      result.getElementType() != input.getElementType())
    return emitOpError() << "result type " << result << " must have shape "
                         << shapeStr(expected) << " (dims " << dim0 << " and "
                         << dim1 << " of " << shapeStr(input.getShape())
                         << " swapped) and element type "
                         << input.getElementType();
  // TTRANS moves 1-, 2- and 4-byte elements (pto-isa
  // include/pto/npu/a2a3/TTrans.hpp).
  if (input.getElementByteSize() > 4)
    return emitOpError() << "transposes " << input.getElementType()
                         << " elements; the vector unit transposes 1-, 2- and "
                            "4-byte types only: cast to i32 or f32 first";
  return verifyVecTile(*this, getVecTileAttr(), input);
}

//===----------------------------------------------------------------------===//
// CastOp
//===----------------------------------------------------------------------===//

namespace {
/// One row of the cast table: the supported explicit modes and the default.
struct CastRule {
  bool supported = false;
  SmallVector<CastMode, 6> modes; // empty: exact widening, mode must be NONE
  CastMode defaultMode = CastMode::NONE;
};
} // namespace

/// docs/PyPTOModel.md#casts (A2/A3 table; the 950 adds bf16<->f16 and fp8).
static CastRule getCastRule(Type from, Type to, Arch arch) {
  using M = CastMode;
  SmallVector<CastMode, 6> rintToTrunc = {M::RINT, M::ROUND, M::FLOOR, M::CEIL,
                                          M::TRUNC};
  auto isInt = [](Type t, std::initializer_list<unsigned> widths) {
    return llvm::any_of(widths,
                        [&](unsigned w) { return t.isSignlessInteger(w); });
  };
  bool is950 = arch == Arch::DAV_3510;
  if ((from.isBF16() || from.isF16()) && to.isF32())
    return {true, {}, M::NONE};
  if (from.isF32() && to.isBF16())
    return {true, rintToTrunc, M::RINT};
  if (from.isF32() && to.isF16()) {
    auto modes = rintToTrunc;
    modes.push_back(M::ODD);
    return {true, modes, M::RINT};
  }
  if (from.isF32() && to.isF32())
    return {true, rintToTrunc, M::RINT};
  if (from.isF32() && isInt(to, {16, 32, 64}))
    return {true, rintToTrunc, M::TRUNC};
  if (from.isF16() && isInt(to, {8, 16, 32}))
    return {true, rintToTrunc, M::TRUNC};
  if (from.isBF16() && isInt(to, {32}))
    return {true, rintToTrunc, M::TRUNC};
  if (isInt(from, {16, 32, 64}) && to.isF32())
    return {true, rintToTrunc, M::RINT};
  // pto-isa a2a3 TCvt.hpp converts int32 to half (PyPTO: DT_INT32 -> DT_FP16).
  if (isInt(from, {32}) && to.isF16())
    return {true, rintToTrunc, M::RINT};
  if (is950 && from.isBF16() && to.isF16())
    return {true, rintToTrunc, M::RINT};
  if (is950 && from.isF32() && isFP8(to))
    return {true, {M::RINT, M::ROUND}, M::RINT};
  if (is950 && isFP8(from) && (to.isF32() || to.isF16() || to.isBF16()))
    return {true, {}, M::NONE};
  return {};
}

LogicalResult BitcastOp::verify() {
  TileType input = getInput().getType(), result = getResult().getType();
  Type from = input.getElementType(), to = result.getElementType();
  if (from.isInteger(1) || to.isInteger(1))
    return emitOpError() << "reinterprets " << from << " as " << to
                         << ": an i1 mask is packed bits on chip, not bytes; "
                            "cast it (pto.cast, pypto.cast) instead";
  int64_t fromBytes = input.getElementByteSize();
  int64_t toBytes = result.getElementByteSize();
  int64_t last = input.getShape().back();
  if ((last * fromBytes) % toBytes != 0)
    return emitOpError() << "reads the " << last << " x " << fromBytes
                         << " B of the input's last dim (" << from << ") as "
                         << to << " elements of " << toBytes
                         << " B, which is not a whole number; PyPTO requires "
                            "last dim x bytes("
                         << from << ") to be a multiple of bytes(" << to
                         << "): view a last dim that is a multiple of "
                         << toBytes / std::gcd(fromBytes, toBytes);
  SmallVector<int64_t> expected(input.getShape());
  expected.back() = last * fromBytes / toBytes;
  if (result.getShape() != ArrayRef<int64_t>(expected))
    return emitOpError() << "result type " << result << " must have shape "
                         << shapeStr(expected) << " (the last dim of "
                         << shapeStr(input.getShape()) << " scaled by "
                         << fromBytes << " / " << toBytes
                         << ", the element sizes)";
  // The vector tile governs the input; its 32-byte-aligned splits of the
  // last dim hold whole result elements (at most 8 bytes each).
  return verifyVecTile(*this, getVecTileAttr(), input);
}

LogicalResult CastOp::verify() {
  TileType input = getInput().getType(), result = getResult().getType();
  if (input.getShape() != result.getShape())
    return emitOpError() << "changes the shape from "
                         << shapeStr(input.getShape()) << " to "
                         << shapeStr(result.getShape())
                         << "; a cast keeps the shape";
  if (failed(verifyVecTile(*this, getVecTileAttr(), input)))
    return failure();
  Arch arch = getArchFor(*this);
  Type from = input.getElementType(), to = result.getElementType();
  CastRule rule = getCastRule(from, to, arch);
  if (!rule.supported)
    return emitOpError() << "casts " << from << " to " << to << ", which "
                         << archName(arch)
                         << " does not support; go through f32";
  CastMode mode = getMode();
  if (mode == CastMode::NONE)
    return success();
  if (rule.modes.empty())
    return emitOpError() << "gives rounding mode " << stringifyCastMode(mode)
                         << " to the exact widening " << from << " -> " << to
                         << "; drop the mode";
  if (!llvm::is_contained(rule.modes, mode)) {
    InFlightDiagnostic diag =
        emitOpError() << "rounding mode " << stringifyCastMode(mode)
                      << " is not supported for " << from << " -> " << to
                      << " on " << archName(arch) << "; use one of ";
    llvm::interleaveComma(rule.modes, diag,
                          [&](CastMode m) { diag << stringifyCastMode(m); });
    return diag;
  }
  return success();
}

CastMode CastOp::getEffectiveMode() {
  if (getMode() != CastMode::NONE)
    return getMode();
  return getCastRule(getInput().getType().getElementType(),
                     getResult().getType().getElementType(), getArchFor(*this))
      .defaultMode;
}

bool CastOp::wrapsWithoutSaturation(Type from, Type to) {
  // hicann/pypto/docs/api/operation/pypto-cast.md, "saturation mode
  // defaults": these pairs wrap (PyTorch's behaviour) unless ON is asked for.
  if (from.isF16())
    return to.isSignlessInteger(8) || to.isSignlessInteger(16);
  if (from.isF32() || from.isSignlessInteger(32))
    return to.isSignlessInteger(16);
  if (from.isSignlessInteger(64))
    return to.isSignlessInteger(32);
  return false;
}

bool CastOp::saturates() {
  return getSatmode() == SaturationMode::ON ||
         !wrapsWithoutSaturation(getInput().getType().getElementType(),
                                 getResult().getType().getElementType());
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
  if (failed(verifyMixedList(op, "offsets", offsets, dynamicOffsets)))
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

LogicalResult MatmulOp::verify() {
  return verifyMatmulLike(*this, getLhs().getType(), getRhs().getType(),
                          getResult().getType(), getATrans(), getBTrans(),
                          getCubeTile());
}

LogicalResult MatmulAccOp::verify() {
  TileType acc = getAcc().getType(), result = getResult().getType();
  if (failed(verifyMatmulLike(*this, getLhs().getType(), getRhs().getType(),
                              result, getATrans(), getBTrans(), getCubeTile())))
    return failure();
  Type accElement = acc.getElementType();
  bool intInputs = isa<IntegerType>(getLhs().getType().getElementType());
  if (acc.getShape() != result.getShape() ||
      !(intInputs ? isSignlessInt(accElement, 32) : accElement.isF32()))
    return emitOpError() << "accumulator " << acc
                         << " must be [M, N] = " << shapeStr(result.getShape())
                         << " of " << (intInputs ? "i32" : "f32")
                         << " (partial results stay in L0C precision)";
  return success();
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

LogicalResult TaskOp::verifyRegions() {
  auto yield = cast<YieldOp>(getBody().front().getTerminator());
  if (!llvm::equal(yield.getValues().getTypes(), getResultTypes()))
    return yield.emitOpError()
           << "yields (" << yield.getValues().getTypes()
           << ") but the pto.task returns (" << getResultTypes() << ")";
  CoreKind kind = getKind();
  if (kind == CoreKind::mix) {
    Arch arch = getArchFor(*this);
    if (!getPlatformInfo(arch).mixedScopes)
      return emitOpError() << "is a MIX task, which " << archName(arch)
                           << " cannot run; split it into cube and vector "
                              "tasks";
  }
  auto check = [&](Operation *op) {
    if (isa<LoopOp, TaskOp, ScopeOp>(op)) {
      InFlightDiagnostic diag = emitOpError()
                                << "contains '" << op->getName()
                                << "'; a task is straight-line tile code";
      diag.attachNote(op->getLoc()) << "here";
      return WalkResult::interrupt();
    }
    bool wrongKind = (kind == CoreKind::cube && isVectorOp(op) &&
                      !isa<AssembleOp, AtomicAddOp>(op)) ||
                     (kind == CoreKind::vector && isCubeOp(op));
    if (wrongKind) {
      InFlightDiagnostic diag = emitOpError()
                                << "is a " << stringifyCoreKind(kind)
                                << " task but contains '" << op->getName()
                                << "', which runs on the other core kind";
      diag.attachNote(op->getLoc()) << "here";
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  };
  // The body's ops in post-order, as Region::walk, without its per-op
  // callback: a task's body is straight-line, so only an op with a region
  // (an error, or an op of another dialect) is walked into.
  for (Operation &op : getBody().front()) {
    WalkResult result = op.getNumRegions() ? op.walk(check) : check(&op);
    if (result.wasInterrupted())
      return failure();
  }
  return success();
}

/// The callee of a launch or root call must be a function whose signature
/// takes exactly `args`.
/// (`args` is an OperandRange, not a ValueRange: launches pass ~50 arguments
/// and the symbol verifier checks every launch of the module after each
/// module pass.)
static LogicalResult verifyCallee(Operation *op, FlatSymbolRefAttr callee,
                                  OperandRange args,
                                  SymbolTableCollection &symbolTable) {
  auto fn = symbolTable.lookupNearestSymbolFrom<FunctionOpInterface>(
      op, callee.getAttr());
  if (!fn)
    return op->emitOpError()
           << "calls " << callee << ", which is not a function in scope";
  ArrayRef<Type> params = fn.getArgumentTypes();
  if (params.size() != args.size() || !llvm::equal(params, args.getTypes()))
    return op->emitOpError() << "passes (" << args.getTypes() << ") to "
                             << callee << ", which takes (" << params << ")";
  if (!fn.getResultTypes().empty())
    return op->emitOpError() << callee
                             << " returns values; leaf and root "
                                "functions communicate through GM";
  return success();
}

LogicalResult LaunchOp::verifySymbolUses(SymbolTableCollection &symbolTable) {
  return verifyCallee(*this, getCalleeAttr(), getArgs(), symbolTable);
}

LogicalResult RootCallOp::verifySymbolUses(SymbolTableCollection &symbolTable) {
  return verifyCallee(*this, getCalleeAttr(), getArgs(), symbolTable);
}

#define GET_OP_CLASSES
#include "pto/Dialect/PTO/IR/PTOOps.cpp.inc"

YieldOp LoopOp::getYield() {
  return cast<YieldOp>(getBody().front().getTerminator());
}

SmallVector<Region *> LoopOp::getLoopRegions() { return {&getBody()}; }

std::optional<SmallVector<Value>> LoopOp::getLoopInductionVars() {
  return SmallVector<Value>{getInductionVar()};
}

std::optional<SmallVector<OpFoldResult>> LoopOp::getLoopLowerBounds() {
  return SmallVector<OpFoldResult>{OpFoldResult(getLowerBound())};
}

std::optional<SmallVector<OpFoldResult>> LoopOp::getLoopUpperBounds() {
  return SmallVector<OpFoldResult>{OpFoldResult(getUpperBound())};
}

std::optional<SmallVector<OpFoldResult>> LoopOp::getLoopSteps() {
  return SmallVector<OpFoldResult>{OpFoldResult(getStep())};
}

MutableArrayRef<OpOperand> LoopOp::getInitsMutable() {
  return getInitArgsMutable();
}

Block::BlockArgListType LoopOp::getRegionIterArgs() {
  return getBody().getArguments().drop_front();
}

std::optional<MutableArrayRef<OpOperand>> LoopOp::getYieldedValuesMutable() {
  return getYield()->getOpOperands();
}

std::optional<ResultRange> LoopOp::getLoopResults() { return getResults(); }

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
