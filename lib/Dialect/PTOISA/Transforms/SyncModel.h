//===- SyncModel.h - what a pto_isa instruction touches ---------*- C++ -*-===//
//
// The buffer model shared by sync insertion (InsertSync.cpp) and its
// independent checker (VerifySync.cpp): which buffers an instruction reads
// and writes, and whether two such accesses may touch the same bytes. The
// ordering reasoning is *not* shared: the two passes simulate it separately.
//
//===----------------------------------------------------------------------===//
#ifndef PTO_LIB_DIALECT_PTOISA_TRANSFORMS_SYNCMODEL_H
#define PTO_LIB_DIALECT_PTOISA_TRANSFORMS_SYNCMODEL_H

#include "pto/Dialect/PTOISA/IR/PTOISA.h"
#include "llvm/ADT/SmallVector.h"
#include <optional>

namespace mlir::ptoisa::sync {

constexpr int kNumPipes = 8;

/// A buffer an instruction reads or writes.
struct Buffer {
  enum class Kind { Tile, GM } kind = Kind::Tile;
  // Tile: the space; the planned byte range [begin, end) when `planned`;
  // otherwise the alloc_tile (one buffer per alloc), or null when the tile
  // is not an alloc_tile result (unknown: the whole space).
  MemorySpace space = MemorySpace::ub;
  bool planned = false;
  int64_t begin = 0, end = 0;
  Operation *alloc = nullptr;
  // GM: the tensor after looking through pto.reshape, the tensor value as
  // accessed and, when the indices are constants, the 2-D window.
  Value root, tensor;
  bool hasWindow = false;
  int64_t row0 = 0, row1 = 0, col0 = 0, col1 = 0;
};

struct Access {
  Buffer buffer;
  bool write = false;
};

/// The instruction's pipe, or nullopt when `op` is not a pto_isa
/// instruction (PipeOpInterface).
std::optional<Pipe> getInstructionPipe(Operation *op);

/// Reads and writes of a pto_isa instruction, from its memory effects
/// (tiles read carry MemRead, the destination MemWrite; GM tensors alike).
void getAccesses(Operation *op, llvm::SmallVectorImpl<Access> &accesses);

/// Whether the two buffers may share a byte.
bool mayOverlap(const Buffer &a, const Buffer &b);

/// Whether two accesses form a hazard (overlap and at least one writes).
inline bool conflicts(const Access &a, const Access &b) {
  return (a.write || b.write) && mayOverlap(a.buffer, b.buffer);
}

inline bool isSyncOp(Operation *op) {
  return isa<SetFlagOp, WaitFlagOp, PipeBarrierOp>(op);
}

} // namespace mlir::ptoisa::sync

#endif // PTO_LIB_DIALECT_PTOISA_TRANSFORMS_SYNCMODEL_H
