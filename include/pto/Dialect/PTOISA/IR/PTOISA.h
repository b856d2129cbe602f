//===- PTOISA.h - the pto_isa dialect ---------------------------*- C++ -*-===//
#ifndef PTO_DIALECT_PTOISA_IR_PTOISA_H
#define PTO_DIALECT_PTOISA_IR_PTOISA_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include <optional>

#include "pto/Dialect/PTO/IR/PTODialect.h"

#include "pto/Dialect/PTOISA/IR/PTOISAEnums.h.inc"
#include "pto/Dialect/PTOISA/IR/PTOISAInterfaces.h.inc"
#include "pto/Dialect/PTOISA/IR/PTOISAOpsDialect.h.inc"

#define GET_TYPEDEF_CLASSES
#include "pto/Dialect/PTOISA/IR/PTOISAOpsTypes.h.inc"

#define GET_OP_CLASSES
#include "pto/Dialect/PTOISA/IR/PTOISAOps.h.inc"

namespace mlir::ptoisa {
/// Bytes of `space` per core on `arch` (platform description).
int64_t getSpaceCapacity(pto::Arch arch, MemorySpace space);
/// The [rows, cols] scratch tile pto-isa's TROWSUM (`isSum`) or TROWMAX on
/// `arch` needs for a row-major source of capacity `srcRows` x `srcCols`
/// `elem` elements: what its implementation writes into the scratch, not the
/// source's size (docs/ISA.md#row-reduction-scratch).
std::pair<int64_t, int64_t> getRowReduceScratchShape(pto::Arch arch, Type elem,
                                                     int64_t srcRows,
                                                     int64_t srcCols,
                                                     bool isSum);
/// The pto-isa TileType spelling of a space (`Vec`, `Mat`, `Left`, ...).
llvm::StringRef getTileTypeName(MemorySpace space);
/// The alloc_tile that created `tile`, or null when it is a block argument.
AllocTileOp getAlloc(Value tile);
/// On the vector part of a MIX leaf (pto-isa-split-mix): the symbol of the
/// MIX leaf whose AIC part it pairs with.
constexpr llvm::StringLiteral kMixAicAttrName = "pto.mix_aic";
/// On a MIX leaf after pto-isa-split-mix: the symbol of its vector part.
constexpr llvm::StringLiteral kMixAivAttrName = "pto.mix_aiv";
/// On the alloc_tile of a UB tile the AIC of a MIX leaf fills (L0C -> UB):
/// the ring slot it occupies. Tiles of one slot share their bytes
/// (pto-isa-plan-memory); pto-isa-split-mix orders each refill after the
/// AIV's last read of the slot's previous tile.
constexpr llvm::StringLiteral kRingSlotAttrName = "pto_isa.ring_slot";
/// On the alloc_tile of a UB tile of a MIX leaf's vector part: the AIV (0 or
/// 1) whose UB holds it and whose program reads it. The AIC moves an
/// accumulator window into AIV 1's UB with SingleModeVec1; each AIV has its
/// own ring slots and flags (docs/ISA.md, "MIX leaves").
constexpr llvm::StringLiteral kSubblockAttrName = "pto_isa.subblock";
/// On a MIX leaf after pto-isa-split-mix whose vector part is divided
/// between both AIVs: the symbol of AIV 1's part (`pto.mix_aiv` is AIV 0's).
constexpr llvm::StringLiteral kMixAiv1AttrName = "pto.mix_aiv1";
/// The AIV marked (kSubblockAttrName) on the alloc_tile of `tile`; none when
/// `tile` is a block argument or its alloc carries no mark.
std::optional<int64_t> getSubblock(Value tile);
} // namespace mlir::ptoisa

#endif // PTO_DIALECT_PTOISA_IR_PTOISA_H
