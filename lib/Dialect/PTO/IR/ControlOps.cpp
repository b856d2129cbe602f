//===- ControlOps.cpp - the kernel, its loops, scopes, tasks and calls ----===//
//
// The verifiers and custom syntax of the ops that structure a pto program:
// pto.kernel, pto.loop and its predicates, pto.scope, pto.task, and the
// calls of leaf and root functions. Verifiers name the offending value, the
// rule and the fix.
//
//===----------------------------------------------------------------------===//

#include "VerifierUtils.h"
#include "pto/Dialect/PTO/IR/NZLayout.h"

#include "mlir/IR/Matchers.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/FunctionImplementation.h"
#include "llvm/ADT/StringMap.h"

using namespace mlir;
using namespace mlir::pto;
using mlir::pto::detail::archName;
using mlir::pto::detail::shapeStr;

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
