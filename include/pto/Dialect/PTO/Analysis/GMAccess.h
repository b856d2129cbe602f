//===- GMAccess.h - which GM regions ops touch, and conflicts ---*- C++ -*-===//
//
// One answer, shared by the passes, to "which GM region does this op touch,
// and can two such accesses conflict". An access names the storage behind a
// tensor (a kernel argument or a pto.workspace, through in-place reshapes)
// and, per dim, the touched range as `symbolic + [lo, lo + size)`, where the
// offset's polynomial normal form (IndexForm.h) is split into its non-constant
// part and its constant term. Two accesses of one tensor are disjoint when
// some dim has equal symbolic parts and disjoint constant ranges; distinct
// known storages never alias; unknown storage may alias anything.
//
// Construct it on the op whose nested ops are queried, so that
// `getAnalysis<GMAccessAnalysis>()` caches it for a pass. Passes that relate
// many accesses file them in a GMAccessIndex, which gives the same answers
// without comparing every pair.
//
//===----------------------------------------------------------------------===//
#ifndef PTO_DIALECT_PTO_ANALYSIS_GMACCESS_H
#define PTO_DIALECT_PTO_ANALYSIS_GMACCESS_H

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Operation.h"
#include "pto/Dialect/PTO/Analysis/IndexForm.h"
#include "pto/Support/BoxIndex.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/SmallVector.h"

#include <map>
#include <vector>

namespace mlir::pto {

/// One GM region an op reads or writes.
struct GMAccess {
  enum Kind : uint8_t { kRead = 1, kWrite = 2, kAtomic = 4 };

  /// The range of one dim: `symbolic + [lo, lo + size)`. A null `symbolic`
  /// is a static range; `unknown` covers the whole dim. The symbolic part is
  /// the printed normal form, uniqued in the context: equal parts are one
  /// attribute, so ranges compare and copy without touching the text.
  struct Range {
    StringAttr symbolic;
    int64_t lo = 0, size = 0;
    bool unknown = false;
  };

  Operation *op = nullptr;
  /// The tensor as the op names it; its offsets are in its coordinates.
  Value tensor;
  /// getAliasedTensor(tensor): the tensor seen through in-place reshapes.
  Value base;
  /// `base` when it is a kernel argument or a pto.workspace, else null.
  Value storage;
  uint8_t kind = kRead;
  /// Empty: the whole tensor.
  SmallVector<Range, 2> dims;

  bool writes() const { return kind & (kWrite | kAtomic); }
};

/// The GM accesses of an op and the ops nested in it.
struct GMAccessSummary {
  SmallVector<GMAccess, 1> accesses;
  /// An op with memory effects that are not GM accesses this analysis
  /// understands (no MemoryEffectOpInterface, or a write to something that
  /// is not a GM tensor): it may touch anything.
  bool unknown = false;
};

class GMAccessAnalysis {
public:
  explicit GMAccessAnalysis(Operation *root) : root(root) {}

  /// The storage a GM tensor value refers to: a `pto.kernel` argument or a
  /// `pto.workspace`, found through in-place reshapes; null when it cannot
  /// be traced (a loop-carried tensor, an argument of a function whose
  /// arguments may alias, the result of an unknown op).
  static Value getStorage(Value tensor);

  /// The accesses of `op` and its nested ops. GM allocated inside `op` is
  /// private to it and left out. With `iterated`, the accesses are those of
  /// every iteration of that region at once: a dim whose offset is computed
  /// inside `iterated` is unknown.
  GMAccessSummary summarize(Operation *op, Region *iterated = nullptr);

  /// Whether two accesses may touch a common element.
  static bool mayOverlap(const GMAccess &a, const GMAccess &b);
  /// Whether an access of kind `later` must wait for one of kind `earlier`
  /// to the same region: not read/read, not atomic/atomic (atomics commute).
  static bool mustOrder(uint8_t earlier, uint8_t later);
  /// Whether `later` must run after `earlier` (some pair must be ordered and
  /// may overlap, or either touches unknown memory).
  static bool dependsOn(const GMAccessSummary &earlier,
                        const GMAccessSummary &later);
  /// Whether any write in `writes` may overlap `access`.
  static bool clobbers(const GMAccessSummary &writes, const GMAccess &access);

  /// Prints an access as `read 'q'[a*64 + 0:64, 0:128]` (for tests).
  void print(const GMAccess &access, llvm::raw_ostream &os);

  /// Drops what the analysis remembers about the values `op` and its nested
  /// ops define, before `op` is erased: a value created later at the same
  /// address must not find them.
  void forget(Operation *op);

  Operation *getRoot() const { return root; }

private:
  GMAccess::Range rangeOf(Value dynamicOffset, int64_t staticOffset,
                          int64_t size, Region *iterated);
  /// Appends the access of `op` to `tensor` (seen through its reshapes:
  /// `base`).
  void addRegion(GMAccessSummary &summary, Operation *op, Value tensor,
                 Value base, uint8_t kind, ArrayRef<int64_t> staticOffsets,
                 ValueRange offsets, ArrayRef<int64_t> sizes, Region *iterated);

  Operation *root;
  // Pto.read values are their own atoms here: two reads of one location
  // may see different data when a write comes between them.
  IndexForms forms{/*loopsByRange=*/false, /*readsByValue=*/true};
  /// Per dynamic offset, its range at size 0 (normal form split into the
  /// constant and the symbolic part): many accesses share an offset, and
  /// printing the symbolic part is most of what a range costs.
  DenseMap<Value, GMAccess::Range> offsetRanges;
  /// Per op name, what summarize asks of every nested op: both are
  /// properties of the name, and asking the op costs a trait and interface
  /// search each time.
  struct EffectTraits {
    bool recursive = false;    // HasRecursiveMemoryEffects
    bool hasInterface = false; // MemoryEffectOpInterface
  };
  const EffectTraits &effectTraitsOf(Operation *op);
  DenseMap<OperationName, EffectTraits> effectTraits;
};

/// The GM accesses of a growing sequence of items (tasks, graph nodes, ops),
/// indexed so that the earlier items a new access must wait for are found
/// without a scan of every earlier access: by base, then by tensor as used;
/// accesses of one tensor whose dims have equal symbolic parts (one key)
/// compare through a BoxIndex of their constant ranges, those under other
/// keys of that tensor one by one (mayOverlap), other aliases of the base and
/// other bases wholesale. The answers are exactly those of `mustOrder` and
/// `mayOverlap` pair by pair (`dependsOn` for summaries), possibly repeated.
class GMAccessIndex {
public:
  /// Files `access` as one of `item`'s.
  void insert(unsigned item, const GMAccess &access);
  /// Files every access of `summary` as `item`'s, and its unknown effects.
  void insert(unsigned item, const GMAccessSummary &summary);

  /// Calls `fn(item)` for every filed access that `access` must be ordered
  /// after (mustOrder of their kinds, mayOverlap), possibly more than once.
  void forEachConflict(const GMAccess &access,
                       function_ref<void(unsigned)> fn) const;
  /// Calls `fn(item)` for every filed item that an op with `summary` depends
  /// on (GMAccessAnalysis::dependsOn), possibly more than once.
  void forEachDependence(const GMAccessSummary &summary,
                         function_ref<void(unsigned)> fn) const;
  /// Whether an op with `summary` depends on any filed item.
  bool dependsOnAny(const GMAccessSummary &summary) const;

private:
  struct Entry {
    unsigned item;
    GMAccess access;
  };
  /// Filed access ids (into `entries`) per kind bit (read, write, atomic).
  using ByKind = SmallVector<unsigned, 1>[3];
  /// Per dim, the symbolic part of the range (null: static; `kUnknownDim`).
  using Key = SmallVector<const void *, 4>;
  struct Bucket {
    Key key;
    ByKind entries;
    detail::BoxIndex boxes[3];
  };
  struct TensorGroup {
    /// Every access of the tensor, and those of all of it (no dims).
    ByKind all, whole;
    std::map<Key, Bucket> buckets;
    /// The buckets holding accesses of each kind bit, in order of their
    /// first such access: a query visits only those (thousands of buckets
    /// of atomics at distinct run-time rows never order against one
    /// another).
    SmallVector<const Bucket *> bucketsByKind[3];
  };

  /// Accesses of one tensor with equal keys compare dim by dim.
  static Key keyOf(const GMAccess &access);
  static detail::Box boxOf(const GMAccess &access);
  /// Calls `visit(k)` for the kind bits whose accesses `later` must follow.
  template <typename Fn>
  static void forEachOrderedKind(uint8_t later, Fn visit);

  std::vector<Entry> entries;
  DenseMap<Value, llvm::MapVector<Value, TensorGroup>> bases;
  /// Every access, and those whose storage is unknown (they may alias any
  /// other base).
  ByKind everything, unknownStorage;
  /// Items with some access, and items with unknown effects.
  SmallVector<unsigned> itemsWithAccesses, unknownItems;
};

} // namespace mlir::pto

#endif // PTO_DIALECT_PTO_ANALYSIS_GMACCESS_H
