//===- PTODialect.h - the pto dialect ---------------------------*- C++ -*-===//
#ifndef PTO_DIALECT_PTO_IR_PTODIALECT_H
#define PTO_DIALECT_PTO_IR_PTODIALECT_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/CallInterfaces.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/Interfaces/LoopLikeInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"

#include "pto/Dialect/PTO/IR/PTOInterfaces.h"
#include "pto/Dialect/PTO/IR/PTOOpsDialect.h.inc"
#include "pto/Dialect/PTO/IR/Platform.h"

#define GET_ATTRDEF_CLASSES
#include "pto/Dialect/PTO/IR/PTOAttrs.h.inc"

#define GET_TYPEDEF_CLASSES
#include "pto/Dialect/PTO/IR/PTOOpsTypes.h.inc"

#define GET_OP_CLASSES
#include "pto/Dialect/PTO/IR/PTOOps.h.inc"

namespace mlir::pto {
/// The discardable attribute carrying an op's sg_set_scope after
/// pto-flatten-scopes (a ScopeAttr).
inline constexpr llvm::StringLiteral kScopeStampAttrName = "pto.scope";
/// Unit attribute on a `pto.workspace` whose every piece is written and read
/// inside one MIX task (pto-mix-exchange): its data moves L0C -> UB on chip
/// and never reaches GM (docs/TileGraph.md, "On-chip exchanges").
inline constexpr llvm::StringLiteral kOnChipAttrName = "pto.on_chip";

/// The architecture governing `op`: the `arch` of the enclosing pto.kernel,
/// else a `pto.arch` attribute on an enclosing op, else DAV_2201.
Arch getArchFor(Operation *op);

/// The GM tensor `tensor` aliases: looks through pto.reshape (a reshape of a
/// kernel argument or workspace names the same bytes).
Value getAliasedTensor(Value tensor);

/// The callee of a pto.launch or pto.root_call, with its arguments in
/// `args`; null (and `args` untouched) for any other op.
FlatSymbolRefAttr getCalleeAndArgs(Operation *op, OperandRange &args);
} // namespace mlir::pto

#endif // PTO_DIALECT_PTO_IR_PTODIALECT_H
