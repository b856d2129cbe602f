//===- StructuralEquivalence.h - compare IR modulo scheduling ---*- C++ -*-===//
//
// Decides whether two operations (typically two modules holding a pto.kernel)
// describe the same program, independently of how a front end happened to
// schedule side-effect-free computations. Used to check that the Python front
// end's SK-16 equals examples/sk16_attention_backward.mlir, and usable for
// differential checks of rewrites.
//
// Ignored:
//   - SSA names and locations;
//   - the order, within a block, of ops that are side-effect free and have no
//     regions (arith on indices, pto.dim, pto.matmul, pto.mul, ...): they are
//     placed by their dataflow;
//   - duplicates of such ops in one block (what CSE would merge);
//   - where constants are materialised: a constant is its value and type;
//   - the operand order of commutative ops.
// Compared:
//   - every op's name, attributes (inherent and discardable), result types
//     and operands (dataflow, including which block argument is used);
//   - block structure and block argument types;
//   - the order, within a block, of every op with regions, side effects
//     (reads included) or a terminator role, e.g. pto.loop, pto.scope,
//     pto.read, pto.view, pto.atomic_add;
//   - in which block a side-effect-free op computes (inside or outside a loop).
//
//===----------------------------------------------------------------------===//
#ifndef PTO_EMBEDDING_STRUCTURALEQUIVALENCE_H
#define PTO_EMBEDDING_STRUCTURALEQUIVALENCE_H

#include "mlir/IR/Operation.h"

#include <string>

namespace mlir::pto {

/// True if `lhs` and `rhs` are structurally equivalent (see above). When they
/// are not and `difference` is given, it receives a description of the first
/// difference found, naming the ops and their locations.
bool areStructurallyEquivalent(Operation *lhs, Operation *rhs,
                               std::string *difference = nullptr);

} // namespace mlir::pto

#endif // PTO_EMBEDDING_STRUCTURALEQUIVALENCE_H
