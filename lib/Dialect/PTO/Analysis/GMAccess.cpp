//===- GMAccess.cpp - which GM regions ops touch, and conflicts -----------===//
//
// The GM access analysis of GMAccess.h: views of GM tensors and pto.read are
// reads, pto.assemble a write, pto.atomic_add an atomic update, any other op
// naming a GM tensor reads and writes all of it; offsets are compared by
// their polynomial normal form.
//
//===----------------------------------------------------------------------===//

#include "pto/Dialect/PTO/Analysis/GMAccess.h"
#include "pto/Dialect/PTO/Analysis/KernelStructure.h"
#include "pto/Dialect/PTO/IR/PTODialect.h"

#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/Support/Regex.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace mlir::pto;

/// getStorage of a tensor already seen through its reshapes.
static Value getStorageOfBase(Value base) {
  if (auto arg = dyn_cast<BlockArgument>(base))
    return isa_and_nonnull<KernelOp>(arg.getOwner()->getParentOp()) ? base
                                                                    : Value();
  if (base.getDefiningOp<WorkspaceOp>())
    return base;
  return Value();
}

Value GMAccessAnalysis::getStorage(Value tensor) {
  return getStorageOfBase(getAliasedTensor(tensor));
}

GMAccess::Range GMAccessAnalysis::rangeOf(Value dynamicOffset,
                                          int64_t staticOffset, int64_t size,
                                          Region *iterated) {
  GMAccess::Range range;
  range.size = size;
  if (ShapedType::isDynamic(size)) {
    range.unknown = true;
    return range;
  }
  if (!dynamicOffset) {
    range.lo = staticOffset;
    return range;
  }
  // An offset computed in the iterated region differs between iterations.
  if (iterated && iterated->isAncestor(dynamicOffset.getParentRegion())) {
    range.unknown = true;
    return range;
  }
  auto [it, inserted] = offsetRanges.try_emplace(dynamicOffset);
  GMAccess::Range &offset = it->second;
  if (inserted) {
    const IndexPoly &form = forms.get(dynamicOffset);
    if (form.overflow) {
      offset.unknown = true;
    } else {
      offset.lo = form.getConstantTerm();
      if (form.hasNonConstantTerms())
        offset.symbolic = StringAttr::get(dynamicOffset.getContext(),
                                          form.strWithoutConstant());
    }
  }
  range.unknown = offset.unknown;
  if (!range.unknown) {
    range.lo = offset.lo;
    range.symbolic = offset.symbolic;
  }
  return range;
}

void GMAccessAnalysis::addRegion(GMAccessSummary &summary, Operation *op,
                                 Value tensor, Value base, uint8_t kind,
                                 ArrayRef<int64_t> staticOffsets,
                                 ValueRange offsets, ArrayRef<int64_t> sizes,
                                 Region *iterated) {
  // Built in place: summaries are made per view and per task, many times.
  GMAccess &access = summary.accesses.emplace_back();
  access.op = op;
  access.tensor = tensor;
  access.base = base;
  access.storage = getStorageOfBase(base);
  access.kind = kind;
  if (!staticOffsets.empty() && staticOffsets.size() == sizes.size()) {
    access.dims.reserve(sizes.size());
    unsigned next = 0;
    for (auto [offset, size] : llvm::zip(staticOffsets, sizes)) {
      Value dynamic = ShapedType::isDynamic(offset) && next < offsets.size()
                          ? offsets[next++]
                          : Value();
      access.dims.push_back(rangeOf(dynamic, offset, size, iterated));
    }
  }
}

const GMAccessAnalysis::EffectTraits &
GMAccessAnalysis::effectTraitsOf(Operation *op) {
  // Asked of the first op of the name: both answers depend on the name only
  // (the interface possibly through its dialect's fallback).
  auto [it, inserted] = effectTraits.try_emplace(op->getName());
  if (inserted) {
    it->second.recursive = op->hasTrait<OpTrait::HasRecursiveMemoryEffects>();
    it->second.hasInterface = isa<MemoryEffectOpInterface>(op);
  }
  return it->second;
}

GMAccessSummary GMAccessAnalysis::summarize(Operation *op, Region *iterated) {
  GMAccessSummary summary;
  auto add = [&](Operation *user, Value tensor, uint8_t kind,
                 ArrayRef<int64_t> staticOffsets, ValueRange offsets,
                 ArrayRef<int64_t> sizes) {
    // GM allocated inside `op` (a task's own workspace) is not shared.
    Value base = getAliasedTensor(tensor);
    Operation *def = base.getDefiningOp();
    if (!def || !op->isAncestor(def))
      addRegion(summary, user, tensor, base, kind, staticOffsets, offsets,
                sizes, iterated);
  };
  op->walk([&](Operation *nested) {
    if (auto view = dyn_cast<ViewOp>(nested)) {
      if (isa<GMTensorType>(view.getSource().getType()))
        add(view, view.getSource(), GMAccess::kRead, view.getStaticOffsets(),
            view.getOffsets(), view.getResult().getType().getShape());
      return;
    }
    if (auto store = dyn_cast<AssembleOp>(nested)) {
      add(store, store.getDst(), GMAccess::kWrite, store.getStaticOffsets(),
          store.getOffsets(), store.getSrc().getType().getShape());
      return;
    }
    if (auto store = dyn_cast<AtomicAddOp>(nested)) {
      add(store, store.getDst(), GMAccess::kAtomic, store.getStaticOffsets(),
          store.getOffsets(), store.getSrc().getType().getShape());
      return;
    }
    if (auto read = dyn_cast<ReadOp>(nested)) {
      // One element at the indices.
      SmallVector<int64_t> statics(read.getIndices().size(),
                                   ShapedType::kDynamic);
      SmallVector<int64_t> ones(read.getIndices().size(), 1);
      add(read, read.getTensor(), GMAccess::kRead, statics, read.getIndices(),
          ones);
      return;
    }
    // Shapes, aliases and allocations touch no data; nested ops of ops with
    // recursive effects are visited by the walk themselves.
    if (isa<DimOp, ReshapeOp, WorkspaceOp>(nested))
      return;
    const EffectTraits &traits = effectTraitsOf(nested);
    if (traits.recursive)
      return;
    bool namesGM = false;
    for (Value operand : nested->getOperands())
      if (isa<GMTensorType>(operand.getType())) {
        namesGM = true;
        add(nested, operand, GMAccess::kRead | GMAccess::kWrite, {}, {}, {});
      }
    if (namesGM)
      return;
    // Without recursive effects (returned above), isMemoryEffectFree is
    // "has the interface and no effects": ask for the effects once.
    if (!traits.hasInterface) {
      summary.unknown = true;
      return;
    }
    SmallVector<MemoryEffects::EffectInstance> effects;
    cast<MemoryEffectOpInterface>(nested).getEffects(effects);
    for (const MemoryEffects::EffectInstance &effect : effects)
      if (isa<MemoryEffects::Write>(effect.getEffect()))
        summary.unknown = true;
  });
  return summary;
}

bool GMAccessAnalysis::mayOverlap(const GMAccess &a, const GMAccess &b) {
  if (a.base != b.base)
    return !a.storage || !b.storage;
  // Offsets in two aliases of one storage use different coordinates.
  if (a.tensor != b.tensor || a.dims.empty() || b.dims.empty() ||
      a.dims.size() != b.dims.size())
    return true;
  for (auto [x, y] : llvm::zip(a.dims, b.dims))
    if (!x.unknown && !y.unknown && x.symbolic == y.symbolic &&
        (x.lo + x.size <= y.lo || y.lo + y.size <= x.lo))
      return false;
  return true;
}

bool GMAccessAnalysis::mustOrder(uint8_t earlier, uint8_t later) {
  uint8_t both = earlier | later;
  if (both & GMAccess::kWrite)
    return true;
  return (earlier & GMAccess::kAtomic && later & GMAccess::kRead) ||
         (earlier & GMAccess::kRead && later & GMAccess::kAtomic);
}

bool GMAccessAnalysis::dependsOn(const GMAccessSummary &earlier,
                                 const GMAccessSummary &later) {
  if ((earlier.unknown && (later.unknown || !later.accesses.empty())) ||
      (later.unknown && !earlier.accesses.empty()))
    return true;
  for (const GMAccess &a : earlier.accesses)
    for (const GMAccess &b : later.accesses)
      if (mustOrder(a.kind, b.kind) && mayOverlap(a, b))
        return true;
  return false;
}

bool GMAccessAnalysis::clobbers(const GMAccessSummary &writes,
                                const GMAccess &access) {
  if (writes.unknown)
    return true;
  return llvm::any_of(writes.accesses, [&](const GMAccess &write) {
    return write.writes() && mayOverlap(write, access);
  });
}

void GMAccessAnalysis::print(const GMAccess &access, llvm::raw_ostream &os) {
  if (access.kind == GMAccess::kRead)
    os << "read ";
  else if (access.kind == GMAccess::kWrite)
    os << "write ";
  else if (access.kind == GMAccess::kAtomic)
    os << "atomic ";
  else
    os << "read-write ";
  auto arg = dyn_cast<BlockArgument>(access.base);
  if (arg && access.storage)
    os << '\'' << getArgumentName(arg) << '\'';
  else if (access.storage)
    os << "workspace";
  else
    os << "unknown storage";
  if (access.tensor != access.base)
    os << " (reshaped)";
  if (access.dims.empty())
    return;
  // Atom keys carry addresses (loops, opaque values): print names only.
  static const llvm::Regex address("@?(0x)?[0-9A-Fa-f]{8,}");
  os << '[';
  llvm::interleaveComma(access.dims, os, [&](const GMAccess::Range &range) {
    if (range.unknown) {
      os << '?';
      return;
    }
    std::string symbolic =
        range.symbolic ? range.symbolic.getValue().str() : std::string();
    while (address.match(symbolic))
      symbolic = address.sub("", symbolic);
    if (!symbolic.empty())
      os << symbolic << " + ";
    os << range.lo << ':' << range.size;
  });
  os << ']';
}

void GMAccessAnalysis::forget(Operation *op) {
  auto forgetValue = [&](Value value) {
    offsetRanges.erase(value);
    forms.forget(value);
  };
  op->walk([&](Operation *nested) {
    for (Value result : nested->getResults())
      forgetValue(result);
    for (Region &region : nested->getRegions())
      for (Block &block : region)
        for (BlockArgument arg : block.getArguments())
          forgetValue(arg);
  });
}

//===----------------------------------------------------------------------===//
// GMAccessIndex
//===----------------------------------------------------------------------===//

/// The key of an unknown dim: no attribute has this address.
static const void *const kUnknownDim = reinterpret_cast<const void *>(1);

GMAccessIndex::Key GMAccessIndex::keyOf(const GMAccess &access) {
  Key key;
  for (const GMAccess::Range &range : access.dims)
    key.push_back(range.unknown ? kUnknownDim
                                : range.symbolic.getAsOpaquePointer());
  return key;
}

pto::detail::Box GMAccessIndex::boxOf(const GMAccess &access) {
  pto::detail::Box box;
  for (const GMAccess::Range &range : access.dims) {
    // Under one key an unknown dim is unknown in every access: one common
    // unit range keeps them overlapping there.
    box.first.push_back(range.unknown ? 0 : range.lo);
    box.second.push_back(range.unknown ? 1 : range.size);
  }
  return box;
}

template <typename Fn>
void GMAccessIndex::forEachOrderedKind(uint8_t later, Fn visit) {
  // mustOrder of a union of kinds is the OR over its bits.
  for (unsigned k = 0; k < 3; ++k)
    if (GMAccessAnalysis::mustOrder(uint8_t(1u << k), later))
      visit(k);
}

void GMAccessIndex::insert(unsigned item, const GMAccess &access) {
  unsigned id = entries.size();
  entries.push_back({item, access});
  TensorGroup &group = bases[access.base][access.tensor];
  Bucket *bucket = nullptr;
  if (!access.dims.empty()) {
    Key key = keyOf(access);
    auto [it, inserted] = group.buckets.try_emplace(key);
    bucket = &it->second;
    if (inserted)
      bucket->key = std::move(key);
  }
  pto::detail::Box box = boxOf(access);
  for (unsigned k = 0; k < 3; ++k) {
    if (!(access.kind & (1u << k)))
      continue;
    everything[k].push_back(id);
    if (!access.storage)
      unknownStorage[k].push_back(id);
    group.all[k].push_back(id);
    if (!bucket) {
      group.whole[k].push_back(id);
      continue;
    }
    if (bucket->entries[k].empty())
      group.bucketsByKind[k].push_back(bucket);
    bucket->entries[k].push_back(id);
    bucket->boxes[k].insert(item, box);
  }
}

void GMAccessIndex::insert(unsigned item, const GMAccessSummary &summary) {
  if (summary.unknown)
    unknownItems.push_back(item);
  if (!summary.accesses.empty())
    itemsWithAccesses.push_back(item);
  for (const GMAccess &access : summary.accesses)
    insert(item, access);
}

void GMAccessIndex::forEachConflict(const GMAccess &access,
                                    function_ref<void(unsigned)> fn) const {
  // Other bases: distinct known storages never alias.
  const ByKind &others = access.storage ? unknownStorage : everything;
  forEachOrderedKind(access.kind, [&](unsigned k) {
    for (unsigned id : others[k])
      if (entries[id].access.base != access.base)
        fn(entries[id].item);
  });
  auto base = bases.find(access.base);
  if (base == bases.end())
    return;
  Key key = keyOf(access);
  pto::detail::Box box = boxOf(access);
  for (const auto &tensorAndGroup : base->second) {
    const TensorGroup &group = tensorAndGroup.second;
    // Another alias of the base, or a whole tensor: other coordinates.
    if (tensorAndGroup.first != access.tensor || access.dims.empty()) {
      forEachOrderedKind(access.kind, [&](unsigned k) {
        for (unsigned id : group.all[k])
          fn(entries[id].item);
      });
      continue;
    }
    forEachOrderedKind(access.kind, [&](unsigned k) {
      for (unsigned id : group.whole[k])
        fn(entries[id].item);
    });
    forEachOrderedKind(access.kind, [&](unsigned k) {
      for (const Bucket *bucket : group.bucketsByKind[k]) {
        if (bucket->key == key) {
          bucket->boxes[k].forEachOverlap(box, fn);
          continue;
        }
        for (unsigned id : bucket->entries[k])
          if (GMAccessAnalysis::mayOverlap(entries[id].access, access))
            fn(entries[id].item);
      }
    });
  }
}

void GMAccessIndex::forEachDependence(const GMAccessSummary &summary,
                                      function_ref<void(unsigned)> fn) const {
  // Unknown effects on either side order against any GM access or unknown
  // effect on the other (dependsOn).
  if (summary.unknown) {
    for (unsigned item : itemsWithAccesses)
      fn(item);
    for (unsigned item : unknownItems)
      fn(item);
    return;
  }
  if (!summary.accesses.empty())
    for (unsigned item : unknownItems)
      fn(item);
  for (const GMAccess &access : summary.accesses)
    forEachConflict(access, fn);
}

bool GMAccessIndex::dependsOnAny(const GMAccessSummary &summary) const {
  bool found = false;
  forEachDependence(summary, [&](unsigned) { found = true; });
  return found;
}
