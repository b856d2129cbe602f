//===- LowerToISA.cpp - tile-graph leaves to pto_isa ----------------------===//
//
// Rewrites the body of every leaf function (`pto.leaf = #pto.core<...>`) into
// pto_isa instructions over explicitly allocated on-chip tiles. The rules are
// in the pass description (include/pto/Conversion/Passes.td) and docs/ISA.md
// ("Lowering").
//
// Valid extents: every destination tile gets the valid extents of the pto
// value it holds, reified with ValidShapeReifier (shared arith, in program
// order), so instructions compute exactly over the region pto-run computes.
//
// This file: the shared helpers, stores, the driver and the pass; the op
// families are in LowerVector.cpp, LowerCube.cpp and CollapseND.cpp.
//
//===----------------------------------------------------------------------===//

#include "LeafLowering.h"
#include "pto/Conversion/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/Matchers.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/TypeSwitch.h"

namespace mlir::pto {
#define GEN_PASS_DEF_LOWERTOISAPASS
#include "pto/Conversion/Passes.h.inc"
} // namespace mlir::pto

using namespace mlir;
using namespace mlir::pto;
using namespace mlir::pto::lower_to_isa;

namespace mlir::pto::lower_to_isa {

//===----------------------------------------------------------------------===//
// Helpers
//===----------------------------------------------------------------------===//

FailureOr<pisa::TileType>
LeafLowering::makeTileType(Operation *op, pisa::MemorySpace space, int64_t rows,
                           int64_t cols, Type elem, pisa::TileLayout layout) {
  auto type = pisa::TileType::getChecked(
      [&] { return op->emitOpError() << "cannot be lowered: "; },
      builder.getContext(), space, rows, cols, elem, layout);
  if (!type)
    return failure();
  return type;
}

FailureOr<pisa::TileType> LeafLowering::ubTypeFor(Operation *op,
                                                  Value ptoTile) {
  auto type = cast<pto::TileType>(ptoTile.getType());
  Type elem = type.getElementType();
  int64_t align = colAlign.lookup(ptoTile);
  if (!align)
    align = blockElems(elem);
  auto [rows, cols] = heldShape(ptoTile);
  return makeTileType(op, pisa::MemorySpace::ub, rows, roundUp(cols, align),
                      elem, pisa::TileLayout::nd);
}

Value LeafLowering::constIndex(int64_t c) {
  Value &v = constants[c];
  if (!v) {
    OpBuilder::InsertionGuard guard(builder);
    builder.setInsertionPointToStart(&func.getBody().front());
    v = arith::ConstantIndexOp::create(builder, func.getLoc(), c);
  }
  return v;
}

Value LeafLowering::materialize(OpFoldResult ofr) {
  if (auto attr = dyn_cast<Attribute>(ofr))
    return constIndex(cast<IntegerAttr>(attr).getInt());
  return cast<Value>(ofr);
}

OpFoldResult LeafLowering::mul(Location loc, OpFoldResult a, OpFoldResult b) {
  std::optional<int64_t> ca = getConstantIntValue(a),
                         cb = getConstantIntValue(b);
  if (ca && cb)
    return builder.getIndexAttr(*ca * *cb);
  if (ca == 1)
    return b;
  if (cb == 1)
    return a;
  return arith::MulIOp::create(builder, loc, materialize(a), materialize(b))
      .getResult();
}

std::pair<Value, Value> LeafLowering::validOf(Location loc, Value ptoTile) {
  SmallVector<OpFoldResult> valid = reifier.reify(loc, ptoTile);
  ArrayRef<int64_t> shape = cast<pto::TileType>(ptoTile.getType()).getShape();
  if (shape.size() == 2)
    return {materialize(valid[0]), materialize(valid[1])};
  // Collapsed extents; a unit dim's valid extent (0 or 1) scales its group.
  // Past the first non-unit row dim the rows count whole dims: a dim valid
  // in part leaves gaps, which only row-local ops see (isRowLocal; the
  // others need whole dims, expectCollapsible), and which loads and stores
  // skip.
  unsigned c = heldColumnDim(ptoTile);
  OpFoldResult rows = builder.getIndexAttr(1),
               cols = valid.empty() ? builder.getIndexAttr(1) : valid[c];
  bool leading = false;
  for (unsigned d = 0; d < valid.size(); ++d) {
    if (d < c) {
      bool gapped = leading && shape[d] != 1;
      rows =
          mul(loc, rows,
              gapped ? OpFoldResult(builder.getIndexAttr(shape[d])) : valid[d]);
      leading |= shape[d] != 1;
    } else if (d > c) {
      cols = mul(loc, cols, valid[d]);
    }
  }
  return {materialize(rows), materialize(cols)};
}

Value LeafLowering::alloc(Location loc, pisa::TileType type, Value rows,
                          Value cols) {
  auto tile = pisa::AllocTileOp::create(builder, loc, type, rows, cols,
                                        /*offset=*/IntegerAttr());
  // A MIX leaf's UB tiles belong to the AIV running the op they lower.
  if (kind == CoreKind::mix && type.getSpace() == pisa::MemorySpace::ub)
    tile->setAttr(pisa::kSubblockAttrName,
                  builder.getI64IntegerAttr(currentSubblock));
  return tile;
}

SmallVector<OpFoldResult>
LeafLowering::normalize(ArrayRef<OpFoldResult> values) {
  SmallVector<OpFoldResult> result;
  for (OpFoldResult ofr : values) {
    if (auto v = dyn_cast<Value>(ofr)) {
      APInt c;
      if (matchPattern(v, m_ConstantInt(&c))) {
        result.push_back(builder.getIndexAttr(c.getSExtValue()));
        continue;
      }
    }
    if (auto attr = dyn_cast<Attribute>(ofr)) {
      result.push_back(builder.getIndexAttr(cast<IntegerAttr>(attr).getInt()));
      continue;
    }
    result.push_back(ofr);
  }
  return result;
}

FailureOr<Value> LeafLowering::lookup(Operation *user, Value ptoTile) {
  if (Value t = tiles.lookup(ptoTile))
    return t;
  if (isa<BlockArgument>(ptoTile))
    return user->emitOpError()
           << "reads a tile argument of the leaf; pto-lower-to-isa lowers "
              "leaves whose tiles are all views of GM tensors or results of "
              "ops in the leaf";
  if (kind == CoreKind::cube && ptoTile.getDefiningOp<ViewOp>())
    return user->emitOpError()
           << "uses a view directly; in a cube leaf views feed only matmul "
              "operands (GM -> L1 -> L0), and only matmul results (L0C) are "
              "stored";
  return user->emitOpError() << "reads a tile that pto-lower-to-isa could not "
                                "lower (produced by '"
                             << ptoTile.getDefiningOp()->getName() << "')";
}

//===----------------------------------------------------------------------===//
// Stores
//===----------------------------------------------------------------------===//

LogicalResult LeafLowering::lowerStore(Operation *op, Value src, Value dst,
                                       ArrayRef<int64_t> staticOffsets,
                                       ValueRange dynamicOffsets, bool atomic) {
  FailureOr<Value> tile = lookup(op, src);
  if (failed(tile))
    return failure();
  if (cast<pto::TileType>(src.getType()).getElementType().isSignlessInteger(1))
    tile = bytesFromMask(op, src, *tile); // DT_BOOL: a byte per element
  if (failed(tile))
    return failure();
  SmallVector<OpFoldResult> offsets = normalize(
      getMixedValues(staticOffsets, dynamicOffsets, builder.getContext()));
  if (unsigned split = gmRunSplit(op, dst, src)) {
    if (failed(lowerGMAccessPerRun(op, dst, offsets, src, *tile, split,
                                   /*store=*/true, atomic)))
      return failure();
  } else {
    FailureOr<Window2D> window = window2D(op, dst, offsets, src);
    if (failed(window))
      return failure();
    pisa::TStoreOp::create(builder, op->getLoc(), *tile, window->tensor,
                           window->row, window->col, atomic);
  }
  // A later view of the written tensor reads the new data: load it again.
  Value written = getAliasedTensor(dst);
  llvm::erase_if(windows, [&](const std::pair<WindowKey, Value> &w) {
    return getAliasedTensor(w.first.source) == written;
  });
  replaced.push_back(op);
  return success();
}

//===----------------------------------------------------------------------===//
// Driver
//===----------------------------------------------------------------------===//

LogicalResult LeafLowering::run() {
  bool mix = kind == CoreKind::mix;
  if (mix && !platform.hasL0CToUB)
    return func.emitOpError()
           << "is a MIX leaf on " << platform.name
           << ", which has no L0C -> UB path; MIX leaves are lowered on "
              "DAV_3510 only";
  if (!func.getBody().hasOneBlock())
    return func.emitOpError()
           << "has more than one block; pto-lower-to-isa lowers straight-line "
              "leaves";
  for (auto type : func.getArgumentTypes())
    if (isa<pto::TileType>(type))
      return func.emitOpError()
             << "takes a tile argument (" << type
             << "); pto-lower-to-isa lowers leaves whose tiles are views of "
                "GM tensors or results of ops in the leaf. A tile the control "
                "program passes in (e.g. a loop-carried iter_arg or an scf.if "
                "result) has no GM home: keep such state in a GM tensor "
                "(pto.workspace), assemble into it and view it where it is "
                "read (docs/SK01.md, \"GM accumulators\")";
  computeColumnAlignment();
  if (failed(assignColumnForms()))
    return failure();
  bool cube = kind == CoreKind::cube;
  Block &body = func.getBody().front();
  if (mix)
    sinkExchangeStores();
  for (Operation &opRef : llvm::make_early_inc_range(body)) {
    Operation *op = &opRef;
    if (op->getNumRegions() != 0) {
      // A piece loop of a leaf lowered before (pto-isa-roll-pieces) holds
      // pto_isa instructions and no pto tile: nothing left to lower.
      bool holdsTiles = false, holdsInstructions = false;
      op->walk([&](Operation *inner) {
        auto isTile = llvm::IsaPred<pto::TileType>;
        holdsTiles |= llvm::any_of(inner->getOperandTypes(), isTile) ||
                      llvm::any_of(inner->getResultTypes(), isTile);
        holdsInstructions |=
            isa_and_nonnull<ptoisa::PTOISADialect>(inner->getDialect());
      });
      if (holdsInstructions && !holdsTiles)
        continue;
      return op->emitOpError()
             << "has regions; pto-lower-to-isa lowers straight-line leaves";
    }
    // Launches are read from the roots and kernels only (LaunchSites).
    if (isa<LaunchOp, RootCallOp>(op))
      return op->emitOpError()
             << "in leaf @" << func.getSymName()
             << ": a leaf is the body of one task, and tasks are issued by "
                "roots and kernels (pto-outline); move it there";
    bool touchesTiles =
        llvm::any_of(op->getOperandTypes(), llvm::IsaPred<pto::TileType>) ||
        llvm::any_of(op->getResultTypes(), llvm::IsaPred<pto::TileType>);
    if (!touchesTiles)
      continue; // index arithmetic, pto.dim, constants, return
    if (failed(expectLowerableRank(op)))
      return failure();
    if (isa<AtomicAddOp>(op) && failed(expectNoMaskInGM(op)))
      return failure();
    builder.setInsertionPoint(op);
    currentSubblock = subblockOf.lookup(op);
    bool isCompute =
        isa<MatmulOp, MatmulAccOp>(op) ||
        (isVectorOp(op) && !isa<AssembleOp, AtomicAddOp, IndexPutOp>(op));
    if (mix) {
      // Per op: cube operand views are loaded at their matmul; the cube
      // results stored into on-chip exchanges move L0C -> UB.
      if (auto view = dyn_cast<ViewOp>(op)) {
        if (feedsOnlyMatmuls(view))
          continue;
        if (isOnChip(view.getSource())) {
          if (failed(lowerExchangeView(view)))
            return failure();
          continue;
        }
      }
      if (auto assemble = dyn_cast<AssembleOp>(op);
          assemble && isOnChip(assemble.getDst())) {
        if (failed(lowerExchangeStore(assemble)))
          return failure();
        continue;
      }
    } else if (isCompute && cube != isCubeOp(op))
      return op->emitOpError()
             << "is a " << (cube ? "vector" : "cube") << " op in a "
             << (cube ? "cube" : "vector")
             << " leaf; DAV_2201 leaves are pure cube or pure vector";
    LogicalResult result =
        TypeSwitch<Operation *, LogicalResult>(op)
            .Case([&](ViewOp v) {
              // Cube operands are loaded at their matmul, where the
              // orientation is known.
              return cube ? success() : lowerVectorView(v);
            })
            .Case([&](AddOp o) {
              return lowerBinary(o, BinKind::Add, o.getLhs(), o.getRhs());
            })
            .Case([&](SubOp o) {
              return lowerBinary(o, BinKind::Sub, o.getLhs(), o.getRhs());
            })
            .Case([&](MulOp o) {
              return lowerBinary(o, BinKind::Mul, o.getLhs(), o.getRhs());
            })
            .Case([&](DivOp o) {
              return lowerBinary(o, BinKind::Div, o.getLhs(), o.getRhs());
            })
            .Case([&](MaxOp o) {
              return lowerBinary(o, BinKind::Max, o.getLhs(), o.getRhs());
            })
            .Case([&](MinOp o) {
              return lowerBinary(o, BinKind::Min, o.getLhs(), o.getRhs());
            })
            .Case([&](ElementwiseUnaryOpInterface o) {
              return lowerUnary(o, o.getInput());
            })
            .Case([&](CastOp o) { return lowerCast(o); })
            .Case([&](SumOp o) {
              return lowerReduce(o, o.getInput(), o.getDim(), o.getKeepdim(),
                                 /*isMax=*/false);
            })
            .Case([&](AmaxOp o) {
              return lowerReduce(o, o.getInput(), o.getDim(), o.getKeepdim(),
                                 /*isMax=*/true);
            })
            .Case([&](FullOp o) { return lowerFull(o); })
            .Case([&](ArangeOp o) { return lowerArange(o); })
            .Case([&](TransposeOp o) { return lowerTranspose(o); })
            .Case([&](GatherMaskOp o) { return lowerGatherMask(o); })
            .Case([&](BitcastOp o) { return lowerBitcast(o); })
            .Case([&](TopKOp o) { return lowerTopK(o); })
            .Case([&](CompareOp o) { return lowerCompare(o); })
            .Case([&](WhereOp o) { return lowerWhere(o); })
            .Case([&](MatmulOp o) {
              return lowerMatmul(o, Value(), o.getLhs(), o.getRhs(),
                                 o.getATrans(), o.getBTrans());
            })
            .Case([&](MatmulAccOp o) {
              return lowerMatmul(o, o.getAcc(), o.getLhs(), o.getRhs(),
                                 o.getATrans(), o.getBTrans());
            })
            .Case([&](AssembleOp o) {
              return lowerStore(o, o.getSrc(), o.getDst(), o.getStaticOffsets(),
                                o.getOffsets(), /*atomic=*/false);
            })
            .Case([&](AtomicAddOp o) {
              return lowerStore(o, o.getSrc(), o.getDst(), o.getStaticOffsets(),
                                o.getOffsets(), /*atomic=*/true);
            })
            .Case([&](IndexPutOp o) { return lowerIndexPut(o); })
            .Default([&](Operation *o) {
              return o->emitOpError()
                     << "has no pto_isa lowering (pto-lower-to-isa lowers "
                        "views, elementwise, unary, cast, row and column "
                        "reductions, full, transpose, gathermask, compare, "
                        "where, matmul chains, "
                        "assemble, atomic_add and index_put)";
            });
    if (failed(result))
      return failure();
  }
  // Cube views that fed no matmul are dead reads.
  if (cube || mix)
    for (Operation &op : body)
      if (auto view = dyn_cast<ViewOp>(&op))
        if ((cube || feedsOnlyMatmuls(view)) &&
            !llvm::is_contained(replaced, view.getOperation()))
          replaced.push_back(view);
  // Erase the replaced pto ops, users first.
  llvm::SmallPtrSetImpl<Operation *> &erased = inserted.erased;
  for (Operation *op : llvm::reverse(replaced)) {
    if (erased.count(op))
      continue;
    for (Operation *user : op->getUsers())
      if (!erased.count(user))
        return user->emitOpError()
               << "uses a tile that pto-lower-to-isa replaced; it cannot be "
                  "lowered";
    op->erase();
    erased.insert(op);
  }
  if (cube)
    splitAccumulatorRows(erased);
  splitLongTransfers(erased);
  // One copy of each constant the lowering created, at the function entry.
  DenseMap<Attribute, Operation *> uniqueConstants;
  Block &entry = func.getBody().front();
  for (Operation *op : inserted.ops) {
    if (erased.count(op))
      continue;
    auto constant = dyn_cast<arith::ConstantOp>(op);
    if (!constant)
      continue;
    Attribute value = constant.getValue();
    if (Operation *first = uniqueConstants.lookup(value)) {
      op->replaceAllUsesWith(first);
      op->erase();
      erased.insert(op);
      continue;
    }
    op->moveBefore(&entry, entry.begin());
    uniqueConstants[value] = op;
  }
  // Drop index arithmetic the reifier built but no instruction reads.
  bool changed = true;
  while (changed) {
    changed = false;
    for (Operation *op : llvm::reverse(inserted.ops)) {
      if (erased.count(op) ||
          (!isa<arith::ArithDialect>(op->getDialect()) && !isa<DimOp>(op)))
        continue;
      if (op->use_empty()) {
        op->erase();
        erased.insert(op);
        changed = true;
      }
    }
  }
  return mix ? assignRingSlots() : success();
}

} // namespace mlir::pto::lower_to_isa

namespace mlir::pto::lower_to_isa {

bool holdsTiles(func::FuncOp leaf) {
  return leaf
      .walk([](Operation *op) {
        auto isTile = llvm::IsaPred<pto::TileType>;
        return llvm::any_of(op->getOperandTypes(), isTile) ||
                       llvm::any_of(op->getResultTypes(), isTile)
                   ? WalkResult::interrupt()
                   : WalkResult::advance();
      })
      .wasInterrupted();
}

llvm::StringMap<LaunchConstants>
launchConstants(const llvm::StringMap<SmallVector<LaunchOp>> &launches) {
  llvm::StringMap<LaunchConstants> result;
  for (const auto &entry : launches) {
    LaunchConstants &slots = result[entry.getKey()];
    for (LaunchOp launch : entry.getValue()) {
      Attribute notConstant = UnitAttr::get(launch.getContext());
      if (slots.empty())
        slots.resize(launch.getArgs().size());
      for (auto [i, arg] : llvm::enumerate(launch.getArgs())) {
        if (i >= slots.size())
          break;
        Attribute value;
        if (!matchPattern(arg, m_Constant(&value)))
          value = notConstant;
        if (!slots[i])
          slots[i] = value;
        else if (slots[i] != value)
          slots[i] = notConstant;
      }
    }
  }
  return result;
}

void useConstantArguments(func::FuncOp leaf, ArrayRef<Attribute> constants) {
  Block &entry = leaf.getBody().front();
  OpBuilder builder = OpBuilder::atBlockBegin(&entry);
  for (auto [i, slot] : llvm::enumerate(constants)) {
    auto value = dyn_cast_or_null<IntegerAttr>(slot);
    if (!value || i >= entry.getNumArguments() ||
        !entry.getArgument(i).getType().isIndex() ||
        entry.getArgument(i).use_empty())
      continue;
    Value constant =
        arith::ConstantIndexOp::create(builder, leaf.getLoc(), value.getInt());
    entry.getArgument(i).replaceAllUsesWith(constant);
  }
}

} // namespace mlir::pto::lower_to_isa

namespace {
/// The leaves of a module and the launches and root calls of the rest (the
/// roots and kernels that issue them), in program order. One walk that does
/// not enter the leaves, the bulk of the module: each leaf's body is read
/// when it is lowered, while it is in cache.
struct LaunchSites {
  SmallVector<std::pair<func::FuncOp, CoreKind>> leaves;
  llvm::StringMap<SmallVector<LaunchOp>> launches;
  llvm::StringMap<SmallVector<RootCallOp>> rootCalls;
};

LaunchSites collectLaunchSites(ModuleOp module) {
  LaunchSites sites;
  module.walk<WalkOrder::PreOrder>([&](Operation *op) {
    if (auto func = dyn_cast<func::FuncOp>(op))
      if (auto kind = func->getAttrOfType<CoreKindAttr>("pto.leaf")) {
        sites.leaves.push_back({func, kind.getValue()});
        return WalkResult::skip();
      }
    if (auto launch = dyn_cast<LaunchOp>(op))
      sites.launches[launch.getCallee()].push_back(launch);
    else if (auto call = dyn_cast<RootCallOp>(op))
      sites.rootCalls[call.getCallee()].push_back(call);
    return WalkResult::advance();
  });
  return sites;
}

/// The workspace a launch argument is: defined in the root, or passed to it
/// by every call of the root (one level: pto-outline's roots take the
/// control-level workspaces as arguments).
WorkspaceOp workspaceOf(Value value,
                        const llvm::StringMap<SmallVector<RootCallOp>> &calls) {
  if (auto workspace = value.getDefiningOp<WorkspaceOp>())
    return workspace;
  auto arg = dyn_cast<BlockArgument>(value);
  auto root = arg ? dyn_cast<func::FuncOp>(arg.getOwner()->getParentOp())
                  : func::FuncOp();
  if (!root)
    return WorkspaceOp();
  auto it = calls.find(root.getSymName());
  if (it == calls.end())
    return WorkspaceOp();
  WorkspaceOp common;
  for (RootCallOp call : it->second) {
    if (arg.getArgNumber() >= call.getArgs().size())
      return WorkspaceOp();
    auto workspace =
        call.getArgs()[arg.getArgNumber()].getDefiningOp<WorkspaceOp>();
    if (!workspace || (common && common != workspace))
      return WorkspaceOp();
    common = workspace;
  }
  return common;
}

/// Per MIX leaf, the arguments every launch passes a `pto.on_chip`
/// workspace for.
llvm::DenseMap<Operation *, llvm::SmallDenseSet<unsigned>>
onChipArguments(const LaunchSites &sites) {
  llvm::DenseMap<Operation *, llvm::SmallDenseSet<unsigned>> result;
  for (auto [leaf, kind] : sites.leaves) {
    if (kind != CoreKind::mix)
      continue;
    auto launches = sites.launches.find(leaf.getSymName());
    if (launches == sites.launches.end())
      continue;
    // Per leaf argument: on chip at every launch so far.
    SmallVector<std::optional<bool>> slots;
    for (LaunchOp launch : launches->second) {
      slots.resize(std::max<size_t>(slots.size(), launch.getArgs().size()));
      for (auto [i, arg] : llvm::enumerate(launch.getArgs())) {
        WorkspaceOp workspace = workspaceOf(arg, sites.rootCalls);
        bool onChip = workspace && workspace->hasAttr(kOnChipAttrName);
        slots[i] = slots[i].value_or(true) && onChip;
      }
    }
    for (auto [i, slot] : llvm::enumerate(slots))
      if (slot.value_or(false))
        result[leaf].insert(i);
  }
  return result;
}

struct LowerToISAPass : public pto::impl::LowerToISAPassBase<LowerToISAPass> {
  using LowerToISAPassBase::LowerToISAPassBase;

  void runOnOperation() override {
    LaunchSites sites = collectLaunchSites(getOperation());
    llvm::StringMap<LaunchConstants> constants =
        launchConstants(sites.launches);
    llvm::DenseMap<Operation *, llvm::SmallDenseSet<unsigned>> onChip =
        onChipArguments(sites);
    MLIRContext *context = &getContext();
    bool loweredAny = false;
    for (auto [func, kind] : sites.leaves) {
      const LaunchConstants &leafConstants =
          constants.lookup(func.getSymName());
      if (deferLeaves && kind != CoreKind::mix) {
        SmallVector<Attribute> slots(leafConstants);
        for (Attribute &slot : slots)
          if (!slot)
            slot = UnitAttr::get(context);
        func->setAttr(kLaunchConstantsAttrName, ArrayAttr::get(context, slots));
        continue;
      }
      // Each leaf in one go, constants, lowering and cleanup, while its IR
      // is in cache.
      if (holdsTiles(func))
        useConstantArguments(func, leafConstants);
      LeafLowering lowering(func, kind);
      if (kind == CoreKind::mix) {
        // A MIX leaf sees its launches when some MIX leaf of the module has
        // an on-chip exchange.
        ArrayRef<LaunchOp> launches;
        if (!onChip.empty())
          if (auto it = sites.launches.find(func.getSymName());
              it != sites.launches.end())
            launches = it->second;
        llvm::SmallDenseSet<unsigned> args = onChip.lookup(func);
        FailureOr<DenseMap<Operation *, Operation *>> pairing =
            pairExchangeViews(func, args, launches);
        if (failed(pairing))
          return signalPassFailure();
        lowering.setSubblocks(assignSubblocks(func, args, launches));
        lowering.setOnChipArguments(std::move(args));
        lowering.setExchangePairing(std::move(*pairing));
      }
      if (failed(lowering.run()))
        return signalPassFailure();
      loweredAny = true;
    }
    // Deferred, only discardable attributes changed: the leaves are verified
    // after pto-lower-leaf-to-isa, one at a time, not the module here.
    if (deferLeaves && !loweredAny)
      markAllAnalysesPreserved();
  }
};
} // namespace
