//===- TaskMergeSupport.h - task merging: groups, planner -------*- C++ -*-===//
//
// What pto-l1-reuse (L1Reuse.cpp) and pto-nbuffer-merge (NBufferMerge.cpp)
// share (docs/TileGraph.md): value numbering of index expressions, GM
// access conflicts (GMAccessAnalysis, atomics ordered), the loads of cube
// tasks, isomorphism groups and the greedy planner that merges the tasks of
// one group. The definitions are in TaskMergeSupport.cpp and, for the
// planner, TaskMergePlanner.cpp.
//
// Definitions used throughout:
//  - a *load* (GM->L1 copy-in) is a `pto.view` of a `!pto.tensor` inside a
//    cube task; its *feature* is (source, offsets, explicit valid extents,
//    tile type), index values compared by value numbering (equal constants,
//    equal pure expressions of equal values); identical loads have equal
//    features;
//  - a load's *side* is A when it feeds the lhs of matmul / matmul_acc, B
//    when it feeds the rhs (through tile views), "other" otherwise;
//  - a load's *K steps* are the positions of the matmuls it feeds in their
//    accumulation chains (matmul = 0, each matmul_acc one more);
//  - *isomorphism groups*: tasks of one block and kind whose bodies are
//    equal up to offsets and valid extents, numbered by first appearance.
//
//===----------------------------------------------------------------------===//

#ifndef PTO_LIB_DIALECT_PTO_TRANSFORMS_TASKMERGESUPPORT_H
#define PTO_LIB_DIALECT_PTO_TRANSFORMS_TASKMERGESUPPORT_H

#include "pto/Dialect/PTO/Analysis/GMAccess.h"
#include "pto/Dialect/PTO/IR/Platform.h"
#include "pto/Dialect/PTO/Transforms/Passes.h"

#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/Hashing.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/SetVector.h"

#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <queue>
#include <set>
#include <tuple>
#include <unordered_map>
#include <vector>

namespace mlir::pto::taskmerge {

/// Hashes an interning key (value numbering, load features, signatures).
struct KeyHash {
  size_t operator()(const std::vector<uintptr_t> &key) const {
    return llvm::hash_combine_range(key.begin(), key.end());
  }
};
/// Numbers keys by first insertion: hashed, since the numbers come from
/// insertion order and the table is never iterated.
template <typename T>
using KeyTable = std::unordered_map<std::vector<uintptr_t>, T, KeyHash>;

// Side codes stored in MergeSettingAttr::getSides() (PTOAttrs.cpp).
constexpr int64_t kSettingNoSide = 0, kSettingLeft = 1, kSettingRight = 2,
                  kSettingAuto = 3;

// Side bits of a load.
constexpr unsigned kSideA = 1, kSideB = 2, kSideOther = 4;

constexpr unsigned kAllSides = kSideA | kSideB | kSideOther;

// The K step of loads that feed no matmul: held during every step.
constexpr int64_t kEveryStep = -1;

//===----------------------------------------------------------------------===//
// Value numbering of index expressions
//===----------------------------------------------------------------------===//

/// Numbers values so that equal numbers mean equal run-time values: equal
/// integer constants, and equal pure, region-free ops (name, attributes,
/// result) of equally numbered operands. Anything else (block arguments,
/// `pto.read`, workspaces) is numbered by identity. Ids start at 1.
class ValueNumbering {
public:
  unsigned get(Value v);
  unsigned constant(int64_t c);

private:
  unsigned intern(std::vector<uintptr_t> key);

  DenseMap<Value, unsigned> memo;
  KeyTable<unsigned> table;
};

/// `statics` with kDynamic entries taken from `dynamic`, numbered.
void appendMixed(ValueNumbering &vn, ArrayRef<int64_t> statics,
                 ValueRange dynamic, std::vector<uintptr_t> &key);

//===----------------------------------------------------------------------===//
// GM accesses and dependencies
//===----------------------------------------------------------------------===//

/// The GM accesses of `root` for moving tasks past each other:
/// GMAccessAnalysis's, with atomic updates ordered like plain writes
/// (reordering two of them would change the rounding of the sum they build).
GMAccessSummary summarize(GMAccessAnalysis &gm, Operation *root);

/// Whether two ops with these summaries may not trade places.
inline bool conflict(const GMAccessSummary &a, const GMAccessSummary &b) {
  return GMAccessAnalysis::dependsOn(a, b);
}

/// The GM accesses of one block's ops, shared by the planners of all its
/// groups: one analysis, so that each offset is normalised once per block
/// rather than once per group, and each op summarized (`summarize`) once
/// until its body changes. Whoever changes a body calls `invalidate` (or,
/// before rewriting ops in it, `forgetBody`), whoever erases an op erases it
/// through `erase`; new ops are summarized when first asked. Other rewrites of
/// the block (ops erased elsewhere) need a fresh BlockAccesses.
class BlockAccesses {
public:
  explicit BlockAccesses(Block &block) : gm(block.getParentOp()) {}

  /// The summary of `op`: valid until `op` is invalidated or erased.
  const GMAccessSummary &summary(Operation *op);
  /// `op`'s body changed: its summary is computed again when next asked.
  void invalidate(Operation *op) { summaries.erase(op); }
  /// Forgets what is known about `op` and its nested ops, before they are
  /// rewritten in place or erased (a later op or value at the same address
  /// must not find them).
  void forgetBody(Operation *op);
  /// Erases `op`, forgetting what is known about it and its nested ops.
  void erase(Operation *op);

private:
  GMAccessAnalysis gm;
  DenseMap<Operation *, std::unique_ptr<GMAccessSummary>> summaries;
};

/// The GM accesses of a growing set of ops (a merge target), indexed so
/// that whether an op conflicts with any of them costs no scan of them all
/// (GMAccessIndex).
class AccessIndex {
public:
  void add(const GMAccessSummary &summary) { index.insert(size++, summary); }
  /// Whether an op with `summary` conflicts with an op added.
  bool conflicts(const GMAccessSummary &summary) const {
    return index.dependsOnAny(summary);
  }

private:
  GMAccessIndex index;
  unsigned size = 0;
};

//===----------------------------------------------------------------------===//
// Tasks, loads, isomorphism
//===----------------------------------------------------------------------===//

struct Load {
  ViewOp view;
  unsigned feature;
  int64_t bytes;
  unsigned sides = 0;
  SmallVector<int64_t, 2> steps; // K steps it feeds (kEveryStep: none)
};

bool isLoad(Operation *op);

/// The loads of a task, in program order.
SmallVector<ViewOp> loadsOf(TaskOp task);

int64_t kStep(Operation *op, DenseMap<Operation *, int64_t> &memo);

void classifyUses(Value value, Load &load,
                  DenseMap<Operation *, int64_t> &stepMemo);

/// Features of loads: (source, offsets, explicit valid extents, tile type).
class FeatureTable {
public:
  explicit FeatureTable(ValueNumbering &vn) : vn(vn) {}
  unsigned get(ViewOp view);

private:
  ValueNumbering &vn;
  KeyTable<unsigned> table;
};

/// A structural signature of a task: equal signatures mean isomorphic bodies
/// (op names, attributes other than static offsets and valid extents, types,
/// use-def structure inside the task; captured values by type only; index
/// constants by type only).
std::vector<uintptr_t> signature(TaskOp task);

//===----------------------------------------------------------------------===//
// The greedy merge of one group
//===----------------------------------------------------------------------===//

struct TaskInfo {
  TaskOp task;
  unsigned node; // position among the block's ops, from the group's first
  SmallVector<Load, 4> loads;
  int64_t lastCapture = -1; // latest block op defining a value it uses
};

/// Per-K-step distinct loads of a (merged) task: step -> key -> bytes.
using Footprint = std::map<int64_t, std::map<uint64_t, int64_t>>;

int64_t footprintBytes(const Footprint &fp);
/// footprintBytes of `base` with `added`'s entries laid over it, without
/// building the merged footprint (the planner asks this of every target it
/// considers for a task).
int64_t mergedFootprintBytes(const Footprint &base, const Footprint &added);

struct Plan {
  /// Member indices into the group, in program order, and which member's
  /// position the merged task takes.
  SmallVector<SmallVector<unsigned, 4>> targets;
  SmallVector<unsigned> hosts;
  int64_t savedBytes = 0;
  unsigned tasksAfter = 0;
  unsigned largest = 0; // largest target
};

class GroupPlanner {
public:
  /// Plans `group` (of `accesses`' block, which must not change while the
  /// planner is in use).
  GroupPlanner(BlockAccesses &accesses, ArrayRef<TaskInfo> group,
               int64_t l1Bytes);

  /// Greedy merge with count `n`, sharing on `sideMask` loads, keeping at
  /// least `minTasks` tasks. With `requireSharing` a task joins the target
  /// it shares the most load bytes with (at least one load); without, the
  /// earliest target it may join (n-buffering: bigger tasks, no sharing).
  /// With `slots` (one per group member: operand-stationary rectangles), a
  /// task joins the open target of its slot if it may, sharing or not.
  Plan plan(int64_t n, unsigned sideMask, unsigned minTasks,
            bool requireSharing = true, ArrayRef<unsigned> slots = {});

private:
  /// A node's GM accesses sorted by base, unless it has unknown effects or
  /// an access of untraced storage (`anything`: compared the plain way).
  struct AccessesByBase {
    struct Entry {
      const void *base;
      bool read; // a plain read: never ordered against another
      unsigned index;
    };
    // By base, then the accesses that are not plain reads first.
    SmallVector<Entry, 8> entries;
    bool anything = false;
  };

  const GMAccessSummary &summary(unsigned node);
  bool conflicts(unsigned a, unsigned b);
  const AccessesByBase &accessesByBase(unsigned node);
  /// GMAccessAnalysis::dependsOn(a, b) for summaries of known storages
  /// only: accesses of distinct storages never overlap, so only those of a
  /// common base are compared, pair by pair, but for pairs of plain reads
  /// (never ordered: GMAccessAnalysis::mustOrder).
  static bool sameBaseConflict(const GMAccessSummary &a,
                               const AccessesByBase &ba,
                               const GMAccessSummary &b,
                               const AccessesByBase &bb);

  /// A number equal for units whose GM accesses (and barrier) are the same
  /// sets, which therefore conflict with the same units; a fresh number for
  /// units with many accesses (not worth comparing).
  unsigned conflictClassOf(ArrayRef<unsigned> unit);

  /// Per GM access of `node`'s summary, a number equal for accesses with
  /// equal compared values (base, tensor, kind, per dim unknown / symbolic /
  /// lo / size): a target's class is then a set of numbers, not of tuples
  /// rebuilt each time the target grows.
  ArrayRef<unsigned> accessIdsOf(unsigned node);

  /// Whether two units (original node indices) touch a common GM region,
  /// one of them writing.
  bool conflictsWith(ArrayRef<unsigned> a, ArrayRef<unsigned> b);

  /// Whether `members` conflict with a unit strictly between positions
  /// `from` and `to`: moving them across it could change what is read.
  bool conflictsBetween(ArrayRef<unsigned> members, unsigned from, unsigned to,
                        const std::vector<SmallVector<unsigned, 4>> &units);

  BlockAccesses &accesses;
  ArrayRef<TaskInfo> group;
  int64_t l1Bytes;
  std::vector<Operation *> nodes;
  // Only the units compared are summarized (by the block's BlockAccesses):
  // per node, once looked up.
  std::vector<const GMAccessSummary *> summaries;
  std::vector<std::optional<AccessesByBase>> byBase;
  DenseMap<std::pair<unsigned, unsigned>, bool> conflictMemo;
  // A GM access as compared values (base, tensor, kind, per dim unknown /
  // symbolic / lo / size), numbered; per node, its accesses' numbers.
  using AccessKey =
      std::tuple<const void *, const void *, unsigned,
                 std::vector<std::tuple<bool, const void *, int64_t, int64_t>>>;
  std::map<AccessKey, unsigned> accessKeys;
  std::vector<std::optional<SmallVector<unsigned, 4>>> accessIds;
  // A unit's access numbers, sorted and unique, and whether it has unknown
  // effects.
  using ClassKey = std::pair<bool, SmallVector<unsigned, 8>>;
  std::map<ClassKey, unsigned> classes;
  unsigned uniqueClasses = 0;
};

//===----------------------------------------------------------------------===//
// The pass
//===----------------------------------------------------------------------===//

int64_t loadBytes(ViewOp view);

int64_t cubeLoadBytes(Operation *root);

struct GroupSetting {
  std::optional<int64_t> count; // nullopt: automatic
  int64_t side = kSettingNoSide;
};

/// One merge setting of the kernel's pass_options (null without one), e.g.
/// `mergeSetting(kernel, &PassOptionsAttr::getVecNbufferSetting)`.
MergeSettingAttr mergeSetting(KernelOp kernel,
                              MergeSettingAttr (PassOptionsAttr::*get)() const);

/// The setting's value for group `group`: its key, else key -1; none (the
/// automatic choice) without a setting or either key.
GroupSetting lookupSetting(MergeSettingAttr setting, int64_t group);

unsigned sideMaskOf(int64_t side);

StringRef sideName(int64_t side);

/// The blocks holding tasks of `kind`, in walk order.
llvm::SetVector<Block *> blocksWithTasks(KernelOp kernel, CoreKind kind);

/// The block's tasks of `kind` that `filter` accepts, by isomorphism group
/// in order of first appearance.
SmallVector<SmallVector<TaskOp>> groupsOf(Block &block, CoreKind kind,
                                          function_ref<bool(TaskOp)> filter);

/// Positions and latest captured block value of `tasks` (loads not filled).
SmallVector<TaskInfo, 8> taskInfos(Block &block, ArrayRef<TaskOp> tasks);

/// `taskInfos` with each cube task's loads (feature, bytes, sides, K steps).
SmallVector<TaskInfo, 8> cubeTaskInfos(ValueNumbering &vn, Block &block,
                                       ArrayRef<TaskOp> tasks);

/// Moves the bodies of a plan target's members into its host task, in
/// program order, and erases the other members (through `accesses`, which
/// forgets the host's summary too); returns the merged body.
Block &mergeMembers(BlockAccesses &accesses, ArrayRef<TaskInfo> infos,
                    ArrayRef<unsigned> members, unsigned hostIndex);

/// N-buffering: merges the group `n` at a time, sharing nothing, while the
/// loads `infos` carry fit `capacity` per K step. Returns the tasks left and
/// the tasks merged into another.
std::pair<unsigned, unsigned> mergeUnshared(BlockAccesses &accesses,
                                            ArrayRef<TaskInfo> infos, int64_t n,
                                            int64_t capacity);

} // namespace mlir::pto::taskmerge

#endif // PTO_LIB_DIALECT_PTO_TRANSFORMS_TASKMERGESUPPORT_H
