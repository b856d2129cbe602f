//===- ShapeOnly.h - runs without numerics (pto-run --no-numerics) -*- C++
//-*-===//
//
// A run with RunOptions::numerics false executes what the schedule depends
// on -- control flow, scalar reads of integer tensors, valid extents,
// launches and stitches -- and none of the tile arithmetic, so a cost-model
// estimate costs interpretation only and no float tensor is materialised.
// The tensors it needs no data for are given as shapes.
//
//===----------------------------------------------------------------------===//
#ifndef PTO_INTERPRETER_SHAPEONLY_H
#define PTO_INTERPRETER_SHAPEONLY_H

#include "pto/Interpreter/HostTensor.h"

namespace mlir {
class Operation;
} // namespace mlir

namespace mlir::pto::interp {

/// Whether `value` (of `--input NAME=VALUE`) gives a shape, `shape:...`,
/// rather than a file.
bool isShapeSpec(StringRef value);

/// A shape-only tensor of element kind `kind` from `shape:AxBx...[:DTYPE]`
/// (sizes >= 0; DTYPE, when given, must name `kind`: bf16, f16, f32, i8, i16,
/// i32, i64). The error names the text and the rule.
llvm::Expected<HostTensor> parseShapeSpec(StringRef value, ElementKind kind);

/// Whether a run without numerics knows what `op` does to the schedule
/// (valid extents, GM traffic, work) without its operands' data: every op the
/// interpreter executes today. An op added later without a shape-only rule is
/// refused with a diagnostic instead of being run on absent data.
bool hasShapeOnlySemantics(Operation *op);

} // namespace mlir::pto::interp

#endif // PTO_INTERPRETER_SHAPEONLY_H
