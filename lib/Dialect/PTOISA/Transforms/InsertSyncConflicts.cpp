//===- InsertSyncConflicts.cpp - accesses of pto-isa-insert-sync ----------===//
//
// The accesses of a function (one per instruction, buffer and direction)
// and which of them conflict, for pto-isa-insert-sync (InsertSync.cpp).
//
//===----------------------------------------------------------------------===//

#include "InsertSync.h"

#include "pto/Support/BoxIndex.h"

#include "llvm/ADT/ScopeExit.h"

#include <array>
#include <map>

using namespace mlir;
using namespace mlir::ptoisa;
using namespace mlir::ptoisa::insert_sync;

void Inserter::collect() {
  func->walk([&](Operation *op) {
    std::optional<Pipe> pipe = sync::getInstructionPipe(op);
    if (!pipe)
      return;
    SmallVector<sync::Access> list;
    sync::getAccesses(op, list);
    for (const sync::Access &access : list) {
      opIds[op].push_back(owners.size());
      owners.push_back(op);
      pipes.push_back(static_cast<unsigned>(*pipe));
      accesses.push_back(access);
    }
  });
  unsigned n = numIds();
  for (unsigned q = 0; q < kNumPipes; ++q)
    pipeMask[q].resize(n);
  for (unsigned i = 0; i < n; ++i) {
    pipeMask[pipes[i]].set(i);
    for (Operation *parent = owners[i]->getParentOp();
         parent && parent != func.getOperation();
         parent = parent->getParentOp()) {
      Bits &bits = regionIds[parent];
      if (bits.empty())
        bits.resize(n);
      bits.set(i);
    }
  }
  computeConflicts();
}

/// Accesses of equal buffers and direction conflict with the same accesses:
/// they form one class with one row of the conflict matrix. Classes are
/// related through indexes of their buffers (by GM alias root and window, by
/// on-chip space and byte range or alloc) rather than pairwise, so that a
/// long function of accesses to many disjoint buffers stays near-linear.
void Inserter::computeConflicts() {
  using Key = std::array<int64_t, 9>;
  // Only the fields `sync::mayOverlap` looks at: a planned tile's alloc,
  // say, does not matter (one class per byte range, not per tile).
  auto keyOf = [](const sync::Access &a) -> Key {
    const sync::Buffer &b = a.buffer;
    auto ptr = [](const void *p) {
      return static_cast<int64_t>(reinterpret_cast<uintptr_t>(p));
    };
    Key key = {a.write, static_cast<int64_t>(b.kind)};
    if (b.kind == sync::Buffer::Kind::GM) {
      key[2] = ptr(b.root.getAsOpaquePointer());
      key[3] = ptr(b.tensor.getAsOpaquePointer());
      key[4] = b.hasWindow;
      if (b.hasWindow) {
        key[5] = b.row0;
        key[6] = b.row1;
        key[7] = b.col0;
        key[8] = b.col1;
      }
      return key;
    }
    key[2] = static_cast<int64_t>(b.space);
    key[3] = b.planned;
    if (b.planned) {
      key[4] = b.begin;
      key[5] = b.end;
    } else {
      key[4] = ptr(b.alloc);
    }
    return key;
  };
  std::map<Key, unsigned> classIds;
  SmallVector<unsigned> reps;                    // class -> an access of it
  SmallVector<SmallVector<unsigned, 4>> members; // class -> its accesses
  unsigned n = numIds();
  classOf.resize(n);
  for (unsigned i = 0; i < n; ++i) {
    auto [it, inserted] = classIds.try_emplace(keyOf(accesses[i]), reps.size());
    if (inserted) {
      reps.push_back(i);
      members.emplace_back();
    }
    classOf[i] = it->second;
    members[it->second].push_back(i);
  }

  // The indexes. GM: per alias root, the classes without a window and, per
  // tensor value, the windowed ones. Tiles: per space, planned byte ranges,
  // unplanned allocs and tiles of unknown origin.
  using pto::detail::Box;
  using pto::detail::BoxIndex;
  struct TensorWindows {
    SmallVector<unsigned> classes;
    BoxIndex boxes;
  };
  struct RootIndex {
    SmallVector<unsigned> all, unwindowed;
    std::map<const void *, TensorWindows> windowed;
  };
  struct SpaceIndex {
    SmallVector<unsigned> all, planned, unplanned, unknown;
    BoxIndex ranges;
    DenseMap<Operation *, SmallVector<unsigned>> byAlloc;
  };
  auto windowOf = [](const sync::Buffer &b) {
    return Box{{b.row0, b.col0}, {b.row1 - b.row0, b.col1 - b.col0}};
  };
  std::map<const void *, RootIndex> roots;
  std::map<int64_t, SpaceIndex> spaces;
  for (auto [c, rep] : llvm::enumerate(reps)) {
    const sync::Buffer &b = accesses[rep].buffer;
    if (b.kind == sync::Buffer::Kind::GM) {
      RootIndex &root = roots[b.root.getAsOpaquePointer()];
      root.all.push_back(c);
      if (!b.hasWindow) {
        root.unwindowed.push_back(c);
        continue;
      }
      TensorWindows &windows = root.windowed[b.tensor.getAsOpaquePointer()];
      windows.classes.push_back(c);
      windows.boxes.insert(c, windowOf(b));
      continue;
    }
    SpaceIndex &space = spaces[static_cast<int64_t>(b.space)];
    space.all.push_back(c);
    if (b.planned) {
      space.planned.push_back(c);
      space.ranges.insert(c, Box{{b.begin}, {b.end - b.begin}});
    } else if (b.alloc) {
      space.unplanned.push_back(c);
      space.byAlloc[b.alloc].push_back(c);
    } else {
      space.unknown.push_back(c);
    }
  }

  // Each class's row: the accesses of every class it conflicts with (the
  // candidates from the indexes, checked by `sync::conflicts`).
  classRows.resize(reps.size());
  SmallVector<unsigned> seen(reps.size(), ~0u);
  for (auto [c, rep] : llvm::enumerate(reps)) {
    const sync::Access &access = accesses[rep];
    const sync::Buffer &b = access.buffer;
    Bits row(n);
    // Stored packed when this iteration ends, at any `continue`.
    llvm::scope_exit packRow([&, c = c] { classRows[c] = row.pack(); });
    auto visit = [&, c = c](unsigned other) {
      if (seen[other] == c)
        return;
      seen[other] = c;
      if (!sync::conflicts(access, accesses[reps[other]]))
        return;
      for (unsigned id : members[other])
        row.set(id);
    };
    auto visitAll = [&](ArrayRef<unsigned> classes) {
      for (unsigned other : classes)
        visit(other);
    };
    if (b.kind == sync::Buffer::Kind::GM) {
      RootIndex &root = roots[b.root.getAsOpaquePointer()];
      if (!b.hasWindow) {
        visitAll(root.all);
        continue;
      }
      visitAll(root.unwindowed);
      for (auto &[tensor, windows] : root.windowed) {
        if (tensor != b.tensor.getAsOpaquePointer())
          visitAll(windows.classes);
        else
          windows.boxes.forEachOverlap(windowOf(b), visit);
      }
      continue;
    }
    SpaceIndex &space = spaces[static_cast<int64_t>(b.space)];
    if (b.planned) {
      space.ranges.forEachOverlap(Box{{b.begin}, {b.end - b.begin}}, visit);
      visitAll(space.unplanned);
      visitAll(space.unknown);
    } else if (b.alloc) {
      visitAll(space.planned);
      visitAll(space.byAlloc[b.alloc]);
      visitAll(space.unknown);
    } else {
      visitAll(space.all);
    }
  }
}
