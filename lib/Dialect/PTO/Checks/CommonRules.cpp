//===- CommonRules.cpp - kernel-generic rules -----------------------------===//
//
// The rules of CommonRules.h that hold for any PyPTO kernel; the structural
// queries they use are in the Analysis room (KernelStructure.h).
//
//===----------------------------------------------------------------------===//

#include "CommonRules.h"
#include "pto/Dialect/PTO/Analysis/IndexForm.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/LoopLikeInterface.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"
#include <map>

using namespace mlir;
using namespace mlir::pto;
using namespace mlir::pto::check;

//===----------------------------------------------------------------------===//
// Manual masks
//===----------------------------------------------------------------------===//

/// Whether an i1 condition is built only from pto.is_loop_begin/is_loop_end
/// (SK-01's first/last-iteration paths), which are loop paths, not masks.
static bool isLoopBoundaryCondition(Value cond) {
  if (matchPattern(cond, m_Constant()))
    return true;
  Operation *def = cond.getDefiningOp();
  if (!def)
    return false;
  if (isa<IsLoopBeginOp, IsLoopEndOp>(def))
    return true;
  if (isa<arith::AndIOp, arith::OrIOp, arith::XOrIOp>(def))
    return llvm::all_of(def->getOperands(), isLoopBoundaryCondition);
  return false;
}

static constexpr StringLiteral kMaskFix =
    "remove the mask and express the tail through the views' valid shape "
    "(pto.view ... valid [...]); ops compute only on the valid region, so "
    "padding never needs zeroing";

void mlir::pto::check::checkManualMasks(KernelOp kernel, RuleReporter &reporter,
                                        StringRef rule) {
  kernel.walk([&](Operation *op) {
    if (auto select = dyn_cast<arith::SelectOp>(op)) {
      if (!isa<TileType>(select.getType()))
        return;
      RuleDiagnostic &d = reporter.error(
          rule, op->getLoc(),
          "arith.select chooses a " + formatType(select.getType()) +
              " by a run-time condition: a manual (where-style) mask",
          kMaskFix);
      if (Operation *cond = select.getCondition().getDefiningOp())
        d.note(cond->getLoc(), "the mask condition is computed here");
      return;
    }
    if (auto ifOp = dyn_cast<scf::IfOp>(op)) {
      if (!llvm::any_of(ifOp.getResultTypes(), llvm::IsaPred<TileType>) ||
          isLoopBoundaryCondition(ifOp.getCondition()))
        return;
      RuleDiagnostic &d = reporter.error(
          rule, op->getLoc(),
          "scf.if yields a tile chosen by a run-time condition: a manual "
          "mask or tail branch",
          (kMaskFix + Twine("; branches on pto.is_loop_begin/is_loop_end are "
                            "loop paths and stay allowed"))
              .str());
      if (Operation *cond = ifOp.getCondition().getDefiningOp())
        d.note(cond->getLoc(), "the branch condition is computed here");
      return;
    }
    // An elementwise op with a constant-filled tile operand: a 0/1 mask, a
    // -inf fill or a bias tile standing in for a scalar.
    if (isa<ElementwiseBinaryOpInterface>(op)) {
      for (Value operand : op->getOperands()) {
        // Through casts, views and scope results: the constant is the mask
        // however it reaches the op.
        FullOp full = isa<TileType>(operand.getType())
                          ? traceConstantTile(operand)
                          : FullOp();
        if (!full)
          continue;
        reporter
            .error(rule, op->getLoc(),
                   ("'" + op->getName().getStringRef() +
                    "' combines a tile with the constant tile of pto.full " +
                    formatConstant(full.getValueAttr().getValueAsDouble()) +
                    ": a manual mask")
                       .str(),
                   (kMaskFix + Twine("; a constant factor or offset is a "
                                     "scalar operand (pto.mul %x, %c : ..., "
                                     "f32)"))
                       .str())
            .note(full.getLoc(), "the constant tile is built here");
        break;
      }
    }
  });
}

//===----------------------------------------------------------------------===//
// Tail views
//===----------------------------------------------------------------------===//

void mlir::pto::check::checkTailViews(KernelOp kernel, RuleReporter &reporter,
                                      StringRef rule) {
  IndexForms forms;
  // A loop over element offsets stepping by the tile size whose span is a
  // multiple of the step by value (PyPTO's loop_unroll: 0 to
  // floor(n / 64) * 64 step 64, then the rest by 16, ...) visits whole tiles
  // only: it has no tail.
  auto coversWholeTiles = [&](LoopOp loop, int64_t coefficient,
                              int64_t extent) {
    std::optional<int64_t> step = forms.get(loop.getStep()).getConstant();
    if (coefficient != 1 || !step || *step != extent || *step <= 0)
      return false;
    IndexPoly span =
        forms.get(loop.getUpperBound()) - forms.get(loop.getLowerBound());
    return !span.overflow && llvm::all_of(span.terms, [&](const auto &term) {
      return term.second % *step == 0;
    });
  };
  // The size of `tensor`'s dim `dim` as a form: a static size, or the
  // dynamic size an in-place reshape was built with.
  auto sizeForm = [&](Value tensor, unsigned dim) -> std::optional<IndexPoly> {
    auto type = cast<GMTensorType>(tensor.getType());
    if (!ShapedType::isDynamic(type.getDimSize(dim)))
      return IndexPoly::constant(type.getDimSize(dim));
    auto reshape = tensor.getDefiningOp<ReshapeOp>();
    unsigned dynamicIndex =
        llvm::count_if(type.getShape().take_front(dim), ShapedType::isDynamic);
    if (!reshape || dynamicIndex >= reshape.getShape().size())
      return std::nullopt;
    return forms.get(reshape.getShape()[dynamicIndex]);
  };
  auto multipleOf = [](const IndexPoly &form, int64_t t) {
    return !form.overflow && llvm::all_of(form.terms, [&](const auto &term) {
      return term.second % t == 0;
    });
  };
  kernel.walk([&](ViewOp view) {
    if (!isa<GMTensorType>(view.getSource().getType()))
      return;
    TileType tile = view.getResult().getType();
    SmallVector<MixedIndex> offsets =
        getMixed(view.getStaticOffsets(), view.getOffsets());
    std::optional<SmallVector<MixedIndex>> valid = getExplicitValidShape(view);
    for (auto [dim, offset] : llvm::enumerate(offsets)) {
      if (!offset.value)
        continue;
      // A dim with a dynamic valid extent states its tail; a constant extent
      // below the tile size is a deliberate partial tile.
      if (valid && ((*valid)[dim].value ||
                    (*valid)[dim].constant < tile.getDimSize(dim)))
        continue;
      // Tiles at multiples of T in a dim whose size is a multiple of T (a
      // GM sub-tensor x[b, n]: [B * N * D, D] at row (b * N + n) * D) are
      // whole or past the end (a fault), never a tail.
      int64_t extent = tile.getDimSize(dim);
      if (extent > 0 && multipleOf(forms.get(offset.value), extent))
        if (std::optional<IndexPoly> size = sizeForm(view.getSource(), dim);
            size && multipleOf(*size, extent))
          continue;
      IndexDeps deps = collectIndexDeps(offset.value);
      // Only a loop index the offset is affine in moves the tile: one that
      // reaches it through a div or rem (a fused batch·head index split
      // into b and h) selects a block, it does not tile a dim.
      const IndexPoly &form = forms.get(offset.value);
      LoopOp tailLoop;
      for (const std::string &atom : form.getAtoms()) {
        Value iv = forms.getAtomValue(atom);
        auto loop =
            dyn_cast_or_null<LoopOp>(iv ? getInductionVarOwner(iv) : nullptr);
        if (loop && form.getLinearCoefficient(atom) != 0 &&
            findRuntimeSource(loop.getUpperBound()) &&
            !coversWholeTiles(loop, form.getLinearCoefficient(atom),
                              tile.getDimSize(dim))) {
          tailLoop = loop;
          break;
        }
      }
      if (!tailLoop)
        continue;
      std::string what = valid ? "its valid extent of dim " +
                                     std::to_string(dim) +
                                     " is the full tile size " +
                                     std::to_string(tile.getDimSize(dim))
                               : std::string("it has no valid shape");
      std::string viewName = describeOp(view);
      std::string fix =
          "give the view an explicit valid extent for the tail, e.g. valid "
          "[min(s - idx·T, T), ...] (docs/SK16.md#loop-nest-and-views)";
      RuleDiagnostic *d;
      if (!deps.reads.empty()) {
        // Varlen: the default extent clips at the tensor end, not at the
        // end of this sequence, so the tail tile reads the next sequence.
        d = &reporter.error(
            rule, view.getLoc(),
            viewName + " moves along dim " + std::to_string(dim) + " with " +
                describeLoop(tailLoop) +
                " (dynamic trip count) at an offset read from a tensor, but " +
                what +
                ": the derived extent only clips at the end of the tensor, so "
                "the tail tile covers rows of the next sequence",
            fix);
      } else {
        d = &reporter.warning(
            rule, view.getLoc(),
            viewName + " moves along dim " + std::to_string(dim) + " with " +
                describeLoop(tailLoop) + " (dynamic trip count), but " + what +
                ": the tail relies on the derived extent (clipping at the end "
                "of the tensor)",
            "state the tail explicitly with valid [min(s - idx·T, T), ...], "
            "or confirm the derived extent is what you want");
      }
      d->note(tailLoop.getLoc(), describeLoop(tailLoop) + " is here");
      break;
    }
  });
}

//===----------------------------------------------------------------------===//
// Tile configs
//===----------------------------------------------------------------------===//

static constexpr StringLiteral kConstTileFix =
    "tile sizes are compile-time constants (arith.constant); retune by "
    "recompiling, never through a kernel input";

/// The vec_tile of a vector op, or null; `hasSlot` tells whether the op can
/// carry one at all (atomic_add and assemble cannot).
static VecTileAttr getVecTile(Operation *op, bool &hasSlot) {
  hasSlot = false;
  std::optional<RegisteredOperationName> info = op->getRegisteredInfo();
  if (!info)
    return {};
  // Stores move a tile as computed; only compute ops need a vector tile.
  hasSlot = !isa<AtomicAddOp, AssembleOp>(op) &&
            llvm::any_of(info->getAttributeNames(), [](StringAttr name) {
              return name.getValue() == "vec_tile";
            });
  return op->getAttrOfType<VecTileAttr>("vec_tile");
}

static void checkVecTiles(KernelOp kernel, RuleReporter &reporter,
                          StringRef rule) {
  const PlatformInfo &platform = getPlatformInfo(kernel.getArchOrDefault());
  // The first vector tile of each block, looked up once per block: a scan
  // per untiled op would make a long untiled block quadratic.
  DenseMap<Block *, VecTileAttr> firstTileOf;
  auto firstTile = [&](Block *block) {
    auto [it, inserted] = firstTileOf.try_emplace(block);
    if (inserted)
      for (Operation &other : *block) {
        bool otherSlot;
        if (VecTileAttr near = getVecTile(&other, otherSlot)) {
          it->second = near;
          break;
        }
      }
    return it->second;
  };
  kernel.walk([&](Operation *op) {
    if (!isVectorOp(op))
      return;
    bool hasSlot;
    VecTileAttr tile = getVecTile(op, hasSlot);
    if (!hasSlot)
      return;
    // An accumulator initialised for a pto.loop stands for PyPTO's
    // pypto.tensor(...) allocation (SK-01's oi/li/mi), which has no vector
    // tile of its own.
    if (!tile && isa<FullOp>(op) && !op->use_empty() &&
        llvm::all_of(op->getUses(), [](OpOperand &use) {
          // Operands 0-2 of a pto.loop are its bounds and step.
          return isa<LoopOp>(use.getOwner()) && use.getOperandNumber() >= 3;
        }))
      return;
    if (!tile) {
      // Suggest the tile of a neighbour: PyPTO's set_vec_tile_shapes is
      // ambient, so the ops around this one show the intended setting.
      std::string suggestion = "#pto.vec_tile<[...]>";
      if (VecTileAttr near = firstTile(op->getBlock())) {
        suggestion.clear();
        llvm::raw_string_ostream os(suggestion);
        os << near;
      }
      reporter.error(
          rule, op->getLoc(),
          ("'" + op->getName().getStringRef() +
           "' has no vector tile: its tiling would depend on whichever "
           "set_vec_tile_shapes happens to be in force")
              .str(),
          "add {vec_tile = " + suggestion +
              "} (the set_vec_tile_shapes of its stage)");
      return;
    }
    // The tile is clamped to the op's shape per dim; one buffer of it must
    // fit the unified buffer.
    ArrayRef<int64_t> dims = tile.getDims();
    int64_t worst = 0;
    SmallVector<int64_t> worstShape;
    Type worstType;
    for (Type type :
         llvm::concat<Type>(llvm::to_vector(op->getOperandTypes()),
                            llvm::to_vector(op->getResultTypes()))) {
      auto tileType = dyn_cast<TileType>(type);
      if (!tileType || static_cast<int64_t>(dims.size()) < tileType.getRank())
        continue;
      SmallVector<int64_t> clamped;
      int64_t elements = 1;
      for (int64_t d = 0; d < tileType.getRank(); ++d) {
        int64_t t = dims[dims.size() - tileType.getRank() + d];
        clamped.push_back(std::min(t, tileType.getDimSize(d)));
        elements *= clamped.back();
      }
      int64_t bytes = elements * tileType.getElementByteSize();
      if (bytes > worst) {
        worst = bytes;
        worstShape = clamped;
        worstType = tileType.getElementType();
      }
    }
    if (worst > platform.ubBytes)
      reporter.error(
          rule, op->getLoc(),
          llvm::formatv("vector tile {0} of '{1}' clamps to {2} of {3} = {4} "
                        "B, more than the {5} B ({6} KiB) unified buffer of "
                        "{7}",
                        formatShape(dims), op->getName().getStringRef(),
                        formatShape(worstShape), formatType(worstType), worst,
                        platform.ubBytes, platform.ubBytes / 1024,
                        stringifyArch(platform.arch))
              .str(),
          "shrink the vector tile; 16-64 KiB tiles are the usual start "
          "(docs/PyPTOModel.md#vector-tile-shapes)");
  });
}

/// The offsets and tile of an op that places a tile in a GM tensor.
struct TilePlacement {
  Operation *op;
  TileType tile;
  SmallVector<MixedIndex> offsets;
  Value tensor; // the tensor (or tile) the tile is placed in
};

static SmallVector<TilePlacement> collectPlacements(KernelOp kernel) {
  SmallVector<TilePlacement> placements;
  kernel.walk([&](Operation *op) {
    if (auto view = dyn_cast<ViewOp>(op))
      placements.push_back(
          {op, view.getResult().getType(),
           getMixed(view.getStaticOffsets(), view.getOffsets()),
           view.getSource()});
    else if (auto atomic = dyn_cast<AtomicAddOp>(op))
      placements.push_back(
          {op, atomic.getSrc().getType(),
           getMixed(atomic.getStaticOffsets(), atomic.getOffsets()),
           atomic.getDst()});
    else if (auto assemble = dyn_cast<AssembleOp>(op))
      placements.push_back(
          {op, assemble.getSrc().getType(),
           getMixed(assemble.getStaticOffsets(), assemble.getOffsets()),
           assemble.getDst()});
  });
  return placements;
}

/// Tiles of one tensor placed along one dim at offsets that differ only by
/// constants (the FA forward's two heads per head_loop iteration, `(2h + 0) *
/// D` and `(2h + 1) * D`): together they cover a wider window per iteration.
struct SiblingPlacements {
  // (tensor, dim, offset form without its constant) -> [constant, constant +
  // extent) per placement
  std::map<std::tuple<void *, unsigned, std::string>,
           SmallVector<std::pair<int64_t, int64_t>>>
      intervals;

  void add(Value tensor, unsigned dim, const IndexPoly &form, int64_t extent) {
    int64_t start = form.getConstantTerm();
    intervals[{tensor.getAsOpaquePointer(), dim, form.withoutConstant().str()}]
        .push_back({start, start + extent});
  }

  /// Whether the placements sharing `form`'s variable part cover one
  /// contiguous window of `stride` elements starting at the lowest of them
  /// (each group's window is computed once).
  bool coverStride(Value tensor, unsigned dim, const IndexPoly &form,
                   int64_t stride) {
    auto it = intervals.find(
        {tensor.getAsOpaquePointer(), dim, form.withoutConstant().str()});
    if (it == intervals.end())
      return false;
    auto [window, inserted] = windows.try_emplace(&it->second, 0);
    if (inserted) {
      SmallVector<std::pair<int64_t, int64_t>> sorted = it->second;
      llvm::sort(sorted);
      int64_t begin = sorted.front().first, end = begin;
      bool contiguous = true;
      for (auto [lo, hi] : sorted) {
        contiguous &= lo <= end;
        end = std::max(end, hi);
      }
      window->second = contiguous ? end - begin : 0;
    }
    return window->second >= stride;
  }

private:
  // group -> width of its contiguous window (0: the tiles leave a gap)
  llvm::DenseMap<const void *, int64_t> windows;
};

/// Whether another loop index of `form` fills the gaps `atom` leaves: it
/// advances by the tile extent over a constant trip count that spans the
/// stride of `atom` (a GM sub-tensor x[b, n] of [B, N, D, D] is placed at
/// row (b * N + n) * D: b strides N * D, n fills it D rows at a time).
static bool innerLoopCoversStride(IndexForms &forms, const IndexPoly &form,
                                  const std::string &atom, int64_t stride,
                                  int64_t extent) {
  for (const std::string &other : form.getAtoms()) {
    Value iv = forms.getAtomValue(other);
    auto loop =
        dyn_cast_or_null<LoopOp>(iv ? getInductionVarOwner(iv) : nullptr);
    if (other == atom || !loop || form.hasNonLinearUse(other))
      continue;
    std::optional<int64_t> step = forms.get(loop.getStep()).getConstant(),
                           lb = forms.get(loop.getLowerBound()).getConstant(),
                           ub = forms.get(loop.getUpperBound()).getConstant();
    if (!step || !lb || !ub || *step <= 0 || *ub <= *lb)
      continue;
    int64_t trips = (*ub - *lb + *step - 1) / *step;
    if (form.getLinearCoefficient(other) * *step == extent &&
        trips * extent == stride)
      return true;
  }
  return false;
}

static std::string describePlacement(Operation *op) {
  if (isa<ViewOp>(op))
    return describeOp(op);
  Value dst = op->getOperand(1);
  std::string name = ("'" + op->getName().getStringRef() + "'").str();
  if (BlockArgument arg = getRootArgument(dst))
    name += " into " + quoted(arg);
  return name;
}

void mlir::pto::check::checkTileConfigs(KernelOp kernel, RuleReporter &reporter,
                                        StringRef rule) {
  checkVecTiles(kernel, reporter, rule);

  // Trip counts written as ceil(extent / T): T is the tile size.
  llvm::MapVector<Operation *, std::pair<Operation *, int64_t>> loopTile;
  kernel.walk([&](LoopOp loop) {
    Operation *div = loop.getUpperBound().getDefiningOp();
    if (!isa_and_nonnull<arith::CeilDivSIOp, arith::CeilDivUIOp, arith::DivSIOp,
                         arith::DivUIOp, arith::FloorDivSIOp>(div))
      return;
    Value tileSize = div->getOperand(1);
    if (Value source = findRuntimeSource(tileSize)) {
      reporter
          .error(rule, div->getLoc(),
                 "the trip count of " + describeLoop(loop) +
                     " divides by a tile size that is a run-time value (" +
                     describeRuntimeSource(source) + ")",
                 kConstTileFix)
          .note(getSourceLoc(source),
                "the run-time tile size of the trip count comes from here");
      return;
    }
    APInt t;
    if (matchPattern(tileSize, m_ConstantInt(&t)))
      loopTile[loop] = {div, t.getSExtValue()};
  });

  // Offsets advance by idx * T: T must be constant and equal to the tile's
  // extent along that dim, or consecutive tiles overlap or leave gaps.
  llvm::MapVector<Operation *, TilePlacement *> strideUser;
  llvm::DenseMap<Operation *, int64_t> loopStride;
  // One offset computation often places several tiles (q, do and o share
  // s1_off); report a wrong stride once, at the first tile it places.
  DenseSet<std::pair<Value, int64_t>> reportedStrides;
  SmallVector<TilePlacement> placements = collectPlacements(kernel);
  IndexForms forms;
  SiblingPlacements siblings;
  for (TilePlacement &placement : placements)
    for (auto [dim, offset] : llvm::enumerate(placement.offsets))
      if (offset.value)
        siblings.add(placement.tensor, dim, forms.get(offset.value),
                     placement.tile.getDimSize(dim));
  for (TilePlacement &placement : placements) {
    for (auto [dim, offset] : llvm::enumerate(placement.offsets)) {
      if (!offset.value)
        continue;
      // A run-time stride: idx * T with T not a compile-time constant.
      for (StrideTerm term : getStrideTerms(offset.value)) {
        auto loop = dyn_cast<LoopOp>(getInductionVarOwner(term.iv));
        if (!loop || !term.stride)
          continue;
        Value source = findRuntimeSource(term.stride);
        if (!source ||
            !reportedStrides.insert({term.mulOp->getResult(0), -1}).second)
          continue;
        reporter
            .error(rule, term.mulOp->getLoc(),
                   "the offset of " + describePlacement(placement.op) +
                       " advances with " + describeLoop(loop) +
                       " by a run-time stride (" +
                       describeRuntimeSource(source) + ")",
                   kConstTileFix)
            .note(getSourceLoc(source), "the run-time stride comes from here");
      }
      // The advance per iteration, by value: the offset's coefficient of the
      // loop index times the loop's step (`idx * T` with step 1, or an
      // element offset `idx` with step T, written however).
      const IndexPoly &form = forms.get(offset.value);
      for (const std::string &atom : form.getAtoms()) {
        Value iv = forms.getAtomValue(atom);
        auto loop =
            dyn_cast_or_null<LoopOp>(iv ? getInductionVarOwner(iv) : nullptr);
        if (!loop || form.hasNonLinearUse(atom))
          continue;
        std::optional<int64_t> step = forms.get(loop.getStep()).getConstant();
        int64_t coefficient = form.getLinearCoefficient(atom);
        if (!step || !coefficient)
          continue;
        int64_t stride = coefficient * *step;
        int64_t extent = placement.tile.getDimSize(dim);
        if (stride > extent &&
            (siblings.coverStride(placement.tensor, dim, form, stride) ||
             innerLoopCoversStride(forms, form, atom, stride, extent)))
          continue;
        if (stride != extent) {
          if (!reportedStrides.insert({offset.value, extent}).second)
            continue;
          reporter
              .error(rule, placement.op->getLoc(),
                     llvm::formatv(
                         "{0} is {1} wide along dim {2} but its offset "
                         "advances by {3} per iteration of {4}: consecutive "
                         "tiles {5}",
                         describePlacement(placement.op), extent, dim, stride,
                         describeLoop(loop),
                         stride < extent ? "overlap" : "leave gaps")
                         .str(),
                     llvm::formatv("advance the offset by the tile size "
                                   "({0}) or make the tile {1} wide",
                                   extent, stride)
                         .str())
              .note(loop.getLoc(), describeLoop(loop) + " is here");
          continue;
        }
        loopStride.try_emplace(loop, stride);
        strideUser.try_emplace(loop, &placement);
      }
    }
  }

  for (auto &[loopOp, divAndTile] : loopTile) {
    auto [div, tileSize] = divAndTile;
    auto it = loopStride.find(loopOp);
    if (it == loopStride.end() || it->second == tileSize)
      continue;
    auto loop = cast<LoopOp>(loopOp);
    reporter
        .error(
            rule, div->getLoc(),
            llvm::formatv("{0} counts tiles of {1} but the tiles it moves "
                          "are {2} wide",
                          describeLoop(loop), tileSize, it->second)
                .str(),
            llvm::formatv("divide the extent by the tile size {0}", it->second)
                .str())
        .note(strideUser[loopOp]->op->getLoc(),
              describePlacement(strideUser[loopOp]->op) + " is here");
  }
}

//===----------------------------------------------------------------------===//
// Static loops and replicated views
//===----------------------------------------------------------------------===//

void mlir::pto::check::checkStaticLoops(KernelOp kernel, RuleReporter &reporter,
                                        StringRef rule,
                                        ArrayRef<Operation *> alreadyReported) {
  kernel.walk([&](LoopLikeOpInterface loop) {
    if (isa<LoopOp>(loop) ||
        llvm::is_contained(alreadyReported, loop.getOperation()))
      return;
    Operation *firstPto = nullptr;
    loop->walk([&](Operation *op) {
      if (op != loop && isa<PTODialect>(op->getDialect()) && !firstPto)
        firstPto = op;
    });
    if (!firstPto)
      return;
    reporter
        .error(rule, loop->getLoc(),
               ("'" + loop->getName().getStringRef() +
                "' is a static loop around pto ops: a Python loop is unrolled "
                "when PyPTO traces it, replicating the body per iteration")
                   .str(),
               "use pto.loop \"name\" %idx = ... (pypto.loop with name and "
               "idx_name) so the level stays one dynamic loop")
        .note(firstPto->getLoc(), "replicated pto op");
  });
}

void mlir::pto::check::checkReplicatedViews(KernelOp kernel,
                                            RuleReporter &reporter,
                                            StringRef rule, Severity severity) {
  struct Copy {
    ViewOp view;
    SmallVector<int64_t> shifts;
  };
  llvm::MapVector<std::string, SmallVector<Copy>,
                  std::map<std::string, unsigned>>
      groups;
  // Statically replicated copies of a loop have the same range, so their
  // indices compare equal.
  IndexForms forms(/*loopsByRange=*/true);
  kernel.walk([&](ViewOp view) {
    BlockArgument arg = getViewedArgument(view.getResult());
    if (!arg)
      return;
    std::string key =
        (getArgumentName(arg) + "|" + formatType(view.getResult().getType()))
            .str();
    Copy copy{view, {}};
    for (const IndexPoly &offset : getAbsoluteOffsets(view, forms)) {
      copy.shifts.push_back(offset.getConstantTerm());
      key += "|" + offset.withoutConstant().str();
    }
    groups[key].push_back(std::move(copy));
  });
  for (auto &[key, copies] : groups) {
    Copy &first = copies.front();
    for (Copy &copy : llvm::drop_begin(copies)) {
      if (copy.shifts == first.shifts)
        continue; // the same tile twice, not a replicated level
      SmallVector<int64_t> delta;
      for (auto [a, b] : llvm::zip(first.shifts, copy.shifts))
        delta.push_back(b - a);
      reporter
          .report(rule, severity, copy.view.getLoc(),
                  describeOp(copy.view) +
                      " repeats an earlier view of the same tensor shifted "
                      "by " +
                      formatShape(delta) +
                      ": a loop level written out statically",
                  "replace the copies with one pto.loop over the tiles and "
                  "offset the view by idx·tile")
          .note(first.view.getLoc(), "the first copy is here");
    }
  }
}

//===----------------------------------------------------------------------===//
// Recomputed statistics
//===----------------------------------------------------------------------===//

void mlir::pto::check::checkRecomputedStatistics(KernelOp kernel,
                                                 RuleReporter &reporter,
                                                 StringRef rule) {
  // Row statistics carried by the inputs: [M, 1] views of kernel arguments
  // broadcast against a tile computed from a matmul (S - m, E / l).
  struct Statistic {
    ViewOp view;
    Operation *use;
    bool divisor;
  };
  llvm::MapVector<Operation *, SmallVector<Statistic>> statsOf;
  kernel.walk([&](Operation *op) {
    if (!isa<ElementwiseBinaryOpInterface>(op))
      return;
    for (unsigned i = 0; i < 2; ++i) {
      ViewOp view = getViewOf(op->getOperand(i));
      auto other = op->getOperand(1 - i);
      if (!view || !getViewedArgument(view.getResult()) ||
          !isa<TileType>(other.getType()))
        continue;
      // A column of row statistics; a [1, 1] tile is a scalar, not one.
      TileType type = view.getResult().getType();
      if (type.getRank() != 2 || type.getDimSize(1) != 1 ||
          type.getDimSize(0) == 1)
        continue;
      for (Operation *producer : collectTileProducers(other))
        if (isa<MatmulOp>(producer))
          statsOf[producer].push_back({view, op, isa<DivOp>(op) && i == 1});
    }
  });
  if (statsOf.empty())
    return;

  // "'l_input', 'm_input'": the inputs carrying statistics of one matmul.
  auto statNames = [&](ArrayRef<Statistic> stats) {
    SmallVector<std::string> names;
    for (Statistic s : stats) {
      std::string name = quoted(getViewedArgument(s.view.getResult()));
      if (!llvm::is_contained(names, name))
        names.push_back(name);
    }
    return llvm::join(names, ", ");
  };

  kernel.walk([&](Operation *op) {
    // Row statistics reduce the last dim.
    if (!isReductionOp(op) ||
        op->getAttrOfType<IntegerAttr>("dim").getInt() !=
            cast<TileType>(op->getOperand(0).getType()).getRank() - 1)
      return;
    Value input = op->getOperand(0);
    llvm::SetVector<Operation *> producers = collectTileProducers(input);
    for (Operation *producer : producers) {
      auto it = statsOf.find(producer);
      if (it == statsOf.end())
        continue;
      ArrayRef<Statistic> stats = it->second;
      if (isa<AmaxOp>(op)) {
        RuleDiagnostic &d = reporter.error(
            rule, op->getLoc(),
            "pto.amax recomputes the row maximum of the scores of a matmul "
            "although kernel inputs already carry row statistics for them (" +
                statNames(stats) + ")",
            "drop the reduction and use the input statistic (view it as "
            "[rows, 1] and broadcast it); recomputing costs an extra sweep "
            "over the scores");
        d.note(producer->getLoc(), "the scores are computed here");
        d.note(stats.front().use->getLoc(),
               "the input statistic is already used here");
        return;
      }
      // A sum over exp(...) of the scores is the softmax denominator, unless
      // it is taken after dividing by the input's denominator.
      bool throughExp = llvm::any_of(producers, llvm::IsaPred<ExpOp>);
      bool dividedByInput = llvm::any_of(stats, [&](const Statistic &s) {
        return s.divisor && producers.contains(s.use);
      });
      if (!throughExp || dividedByInput)
        continue;
      RuleDiagnostic &d = reporter.error(
          rule, op->getLoc(),
          "pto.sum over exp(...) of the scores recomputes the softmax "
          "denominator although kernel inputs already carry row statistics "
          "for them (" +
              statNames(stats) + ")",
          "drop the reduction and divide by the input denominator (P = "
          "exp(scale·S - m) / l, docs/SK16.md#m-and-l)");
      d.note(producer->getLoc(), "the scores are computed here");
      return;
    }
  });
}

//===----------------------------------------------------------------------===//
// Scope purity
//===----------------------------------------------------------------------===//

void mlir::pto::check::checkScopePurity(KernelOp kernel, RuleReporter &reporter,
                                        StringRef rule) {
  const PlatformInfo &platform = getPlatformInfo(kernel.getArchOrDefault());
  // One group per pto.scope region, or per (block, id) of stamped ops on IR
  // after pto-flatten-scopes.
  struct Group {
    int64_t id;
    Location loc;
    Operation *cube = nullptr, *vector = nullptr;
  };
  llvm::MapVector<std::pair<void *, int64_t>, Group> groups;
  kernel.walk([&](Operation *op) {
    ScopeOp region;
    ScopeAttr scope = getScopeOf(op, &region);
    if (!scope || op == region)
      return;
    int64_t id = scope.getId();
    void *owner =
        region ? region.getOperation() : static_cast<void *>(op->getBlock());
    Location loc = region ? region.getLoc() : op->getLoc();
    Group &group =
        groups.try_emplace({owner, id}, Group{id, loc}).first->second;
    if (isCubeOp(op) && !group.cube)
      group.cube = op;
    if (isVectorOp(op) && !group.vector)
      group.vector = op;
    if (isa<ReshapeOp>(op))
      reporter
          .warning(rule, op->getLoc(),
                   "pto.reshape inside scope " + std::to_string(id) +
                       " forms a subgraph of its own and splits the scope",
                   "move the reshape before the scope (in-place reshapes "
                   "belong at kernel entry)")
          .note(loc, "the scope is here");
  });
  for (auto &[key, group] : groups) {
    if (!group.cube || !group.vector || platform.mixedScopes)
      continue;
    reporter
        .error(rule, group.loc,
               ("scope " + Twine(group.id) + " mixes the cube op '" +
                group.cube->getName().getStringRef() + "' and the vector op '" +
                group.vector->getName().getStringRef() + "', which " +
                stringifyArch(platform.arch) +
                " cannot run as one subgraph (no on-chip cube-vector path)")
                   .str(),
               "keep cube ops out of the scope; scope only the vector stage")
        .note(group.cube->getLoc(), "the cube op is here")
        .note(group.vector->getLoc(), "the vector op is here");
  }
}
