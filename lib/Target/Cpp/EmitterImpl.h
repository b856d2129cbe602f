//===- EmitterImpl.h - the pto-to-cpp emitter, shared by its parts -*- C++
//-*-===//
//
// The C++ emitter's state and methods. Its parts: CppEmitter.cpp (names,
// the module, shared statements, entry points), EmitLeaf.cpp (leaf bodies:
// pto_isa instructions) and EmitControl.cpp (roots and the control program).
//
//===----------------------------------------------------------------------===//

#ifndef PTO_LIB_TARGET_CPP_EMITTERIMPL_H
#define PTO_LIB_TARGET_CPP_EMITTERIMPL_H

#include "pto/Dialect/PTO/IR/PTODialect.h"
#include "pto/Dialect/PTOISA/IR/PTOISA.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Support/IndentedOstream.h"
#include "llvm/ADT/SmallBitVector.h"
#include "llvm/ADT/StringMap.h"

#include <array>
#include <map>
#include <optional>
#include <vector>

namespace mlir::pto::cpp_emitter {

/// A GM tensor in C++: a pointer expression and one expression per dim.
struct TensorExpr {
  std::string pointer;
  SmallVector<std::string> dims;
  GMTensorType type;
};

/// A tile object: its C++ name and valid-extent expressions.
struct TileExpr {
  std::string name;
  std::string validRows, validCols;
  ptoisa::TileType type;
};

enum class FunctionKind { Leaf, Root, Control };

/// A bound of an index value in a leaf (LeafGMRegions.cpp): the least (a
/// lower bound) or the greatest (an upper one) of `symbol + constant` over
/// its alternatives. A symbol is C++ text over the leaf's arguments, `@i@`
/// for argument i and `@i.d@` for dim d of tensor argument i; empty for a
/// constant.
struct LeafBound {
  std::map<std::string, int64_t> alternatives;
  std::string str(bool lower) const;
  void merge(const LeafBound &other, bool lower);
};

/// An inclusive range of an index value in a leaf.
struct LeafInterval {
  LeafBound lo, hi;
};

/// Interval arithmetic on a leaf's index computations, memoised.
class LeafBounds {
public:
  explicit LeafBounds(func::FuncOp leaf) : leaf(leaf) {}
  /// Bounds of `v`, or none when it is not computed from what the analysis
  /// follows.
  std::optional<LeafInterval> get(Value v);

private:
  std::optional<LeafInterval> compute(Value v);
  func::FuncOp leaf;
  DenseMap<Value, std::optional<LeafInterval>> memo;
};

/// The box of a 2-D GM argument that a leaf's accesses of one kind touch:
/// per dim [lo, end), none where the bound is unknown (the whole dim);
/// `whole`: the whole buffer.
struct LeafRegion {
  bool known = false, whole = false;
  std::optional<LeafBound> lo[2], end[2];
  void add(const std::optional<LeafBound> lo[2],
           const std::optional<LeafBound> end[2]);
};

/// Per leaf argument, its regions by GMAccess kind bit (read, write,
/// atomic).
using LeafGMRegions = std::vector<std::array<LeafRegion, 3>>;

class CppEmitter {
public:
  explicit CppEmitter(raw_ostream &os) : os(os) {}

  LogicalResult emitModule(ModuleOp module);

private:
  // Functions.
  LogicalResult emitLeaf(func::FuncOp func);
  /// The vector part of a split MIX leaf (pto.mix_aic): the MIX leaf whose
  /// AIC part it pairs with; null for any other function.
  func::FuncOp mixAicOf(func::FuncOp part);
  /// Whether `part` is AIV 1's part of a split MIX leaf: a device function
  /// AIV 0's kernel calls, not a kernel of its own.
  bool isMixAiv1Part(func::FuncOp part);
  LogicalResult emitRoot(func::FuncOp func);
  LogicalResult emitControl(KernelOp kernel);
  void emitHostMain(KernelOp kernel);
  /// The C++ parameters of `entry`'s arguments (a GM tensor: its pointer
  /// and one int64_t per dynamic dim), binding their names; with
  /// `parameterNames`, also the names alone, in order (a call's arguments).
  std::string
  parameterList(Block &entry, ArrayRef<std::string> names, bool device,
                SmallVectorImpl<std::string> *parameterNames = nullptr);

  // Statements.
  LogicalResult emitBlock(Block &block, FunctionKind kind);
  LogicalResult emitOp(Operation *op, FunctionKind kind);
  LogicalResult emitArith(Operation *op);
  LogicalResult emitScf(Operation *op, FunctionKind kind);
  LogicalResult emitScalarTable(Operation *op);
  LogicalResult emitIsa(Operation *op);
  LogicalResult emitGlobalAccess(Operation *op, Value tensor, Value row,
                                 Value col, const TileExpr &tile,
                                 bool transpose, StringRef call);
  LogicalResult emitControlOp(Operation *op);
  /// Declares a variable per result of the region op `op` (scalars only),
  /// initialised from `initial` (a loop's inits) or zero.
  LogicalResult declareScalarResults(Operation *op, ValueRange initial);
  /// Assigns a terminator's operands to its parent op's result variables.
  void assignYielded(Operation *yield);
  LogicalResult emitRootOp(Operation *op);
  /// Per argument of `root`, its slots in the root's scalar array: one per
  /// dynamic dim of a tensor, one per integer (shared by integer arguments
  /// that every call passes the same value), none otherwise.
  const SmallVector<SmallVector<unsigned>> &scalarSlots(func::FuncOp root,
                                                        unsigned &count);
  LogicalResult emitWorkspace(WorkspaceOp workspace, StringRef owner);

  // Names and types.
  std::string fresh() { return "v" + std::to_string(counter++); }
  std::string name(Value v);
  std::string bind(Value v) { return names[v] = fresh(); }
  std::string callArgs(ValueRange args);
  static std::string cppType(Type type);
  static std::string tileCppType(ptoisa::TileType type);
  static std::string floatLiteral(APFloat value, Type type);
  static std::string pipeName(ptoisa::Pipe pipe);
  void bindTensor(Value v, std::string pointer, SmallVector<std::string> dims);

  raw_indented_ostream os;
  DenseMap<Value, std::string> names;
  DenseMap<Value, TensorExpr> tensors;
  DenseMap<Value, TileExpr> tiles;
  unsigned counter = 0;
  /// The launches and root_calls of `callee`, in module order. One walk of
  /// the module finds those of every function: a walk per function would
  /// make translation quadratic in the number of kernels.
  ArrayRef<Operation *> callSitesOf(FunctionOpInterface callee);
  llvm::StringMap<SmallVector<Operation *>> callSites;
  bool callSitesKnown = false;
  /// The name a GM tensor of a leaf or root has at all its call sites.
  std::string calledTensorName(Value tensor, unsigned depth = 0);
  /// C0 of the NZ kernel argument (`pto.layout = "nz"`) `tensor` is at
  /// every launch / root call, 0 when it is ND; failure, diagnosed at `op`,
  /// when call sites disagree or the NZ argument is reshaped.
  FailureOr<int64_t> nzFractalColsOf(Operation *op, Value tensor,
                                     unsigned depth = 0);
  /// A TLOAD of an NZ GM window into an Nz L1 tile (pto-isa's NZ -> NZ
  /// path): a GlobalTensor of whole fractals.
  LogicalResult emitNZLoad(Operation *op, const TensorExpr &gm, Value row,
                           Value col, const TileExpr &tile, bool transpose,
                           int64_t c0);
  /// Symbol lookups: one table per module instead of a scan per lookup.
  SymbolTableCollection symbolTables;
  /// Per kernel, the arguments some leaf writes: computed once, read by the
  /// host main and by every host_ready `pto.read`.
  const llvm::SmallBitVector &writtenArgsOf(KernelOp kernel);
  DenseMap<Operation *, llvm::SmallBitVector> writtenArgs;
  /// The roots' scalar slots (scalarSlots).
  DenseMap<Operation *, std::pair<SmallVector<SmallVector<unsigned>>, unsigned>>
      rootSlots;
  unsigned rootCallSites = 0;
  /// Per leaf, how it touches each GM argument (GMAccess kind bits).
  DenseMap<Operation *, SmallVector<uint8_t>> leafGMKinds;
  const SmallVector<uint8_t> &gmKindsOf(func::FuncOp leaf);
  /// Per leaf, the regions of its GM arguments it touches.
  DenseMap<Operation *, LeafGMRegions> leafGMRegions;
  const LeafGMRegions &gmRegionsOf(func::FuncOp leaf);
  /// `{pointer, kind[, element bytes, row elements, rows, columns]}` for
  /// each GM buffer a launch names that other root instances may share
  /// (pto_rt::GmUse): the region its leaf touches, per group of access kinds
  /// with one region; an error at the launch for a GM argument the leaf
  /// touches that names no tensor this emitter bound.
  FailureOr<std::string> launchGMUses(LaunchOp launch, func::FuncOp leaf);
};

/// The op's source location as a C++ string literal ("file:line:col").
std::string whereLiteral(Operation *op);
/// The name a GM tensor has in diagnostics (its kernel argument's).
std::string tensorName(Value tensor);

} // namespace mlir::pto::cpp_emitter

#endif // PTO_LIB_TARGET_CPP_EMITTERIMPL_H
