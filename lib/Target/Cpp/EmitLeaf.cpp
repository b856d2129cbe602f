//===- EmitLeaf.cpp - leaf bodies as pto-isa C++
//----------------------------===//
//
// A leaf is a device kernel: its pto_isa tiles become Tile objects bound
// with TASSIGN, its instructions pto-isa calls guarded by a non-empty
// destination, its flags set_flag/wait_flag (docs/Codegen.md).
//
//===----------------------------------------------------------------------===//

#include "EmitterImpl.h"
#include "pto/Target/Cpp/CppEmitter.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Support/IndentedOstream.h"
#include "mlir/Tools/mlir-translate/Translation.h"
#include "pto/Dialect/PTO/IR/NZLayout.h"
#include "pto/Dialect/PTO/IR/PTODialect.h"
#include "pto/Dialect/PTOISA/IR/PTOISA.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/FormatVariadic.h"

#include <cmath>

using namespace mlir;
using namespace mlir::pto;
using namespace mlir::pto::cpp_emitter;
using llvm::formatv;

//===----------------------------------------------------------------------===//
// Leaves
//===----------------------------------------------------------------------===//

func::FuncOp CppEmitter::mixAicOf(func::FuncOp part) {
  auto link = part->getAttrOfType<FlatSymbolRefAttr>(ptoisa::kMixAicAttrName);
  return link ? symbolTables.lookupNearestSymbolFrom<func::FuncOp>(part, link)
              : func::FuncOp();
}

bool CppEmitter::isMixAiv1Part(func::FuncOp part) {
  func::FuncOp aic = mixAicOf(part);
  auto aiv1 =
      aic ? aic->getAttrOfType<FlatSymbolRefAttr>(ptoisa::kMixAiv1AttrName)
          : FlatSymbolRefAttr();
  return aiv1 && aiv1.getValue() == part.getSymName();
}

LogicalResult CppEmitter::emitLeaf(func::FuncOp func) {
  auto core = func->getAttrOfType<CoreKindAttr>("pto.leaf");
  if (!core)
    return func.emitError() << "pto-to-cpp prints cube and vector leaves; '"
                            << func.getSymName() << "' is not a core kind";
  // A MIX leaf after pto-isa-split-mix is its AIC's code; its vector part
  // is a vector leaf of its own.
  bool mix = core.getValue() == CoreKind::mix;
  if (mix && !func->hasAttr(ptoisa::kMixAivAttrName))
    return func.emitError()
           << "pto-to-cpp prints MIX leaves split into their AIC and AIV "
              "parts; run pto-isa-split-mix on '"
           << func.getSymName() << "'";
  bool cube = core.getValue() != CoreKind::vector;
  counter = 0;
  // The vector part of a MIX leaf: AIV 0's kernel, and AIV 1's part (when
  // the vector part is divided) a device function AIV 0's kernel calls on
  // AIV 1 (docs/Codegen.md).
  func::FuncOp aic = mixAicOf(func);
  auto aiv1 =
      aic ? aic->getAttrOfType<FlatSymbolRefAttr>(ptoisa::kMixAiv1AttrName)
          : FlatSymbolRefAttr();
  bool isAiv1 = isMixAiv1Part(func);
  SmallVector<std::string> parameters; // their names, in order
  os << (cube ? "#if defined(__DAV_CUBE__)\n" : "#if defined(__DAV_VEC__)\n");
  os << (isAiv1 ? "AICORE inline void " : "__global__ AICORE void ")
     << func.getSymName() << "("
     << parameterList(func.getBody().front(), {}, /*device=*/true, &parameters)
     << ") {\n";
  os.indent();
  // AIV 0's kernel runs its part on AIV 0 and AIV 1's part on AIV 1; with
  // no AIV 1 part, AIV 1 has nothing to do (the moves fill AIV 0's UB).
  if (aic && !isAiv1) {
    if (aiv1) {
      // AIV 1's part takes the same parameters.
      os << "if (get_subblockid() != 0) {\n";
      os << "  " << aiv1.getValue() << "(" << llvm::join(parameters, ", ")
         << ");\n  return;\n}\n";
    } else {
      os << "if (get_subblockid() != 0)\n  return;\n";
    }
  }
  if (failed(emitBlock(func.getBody().front(), FunctionKind::Leaf)))
    return failure();
  os.unindent();
  os << "}\n#endif\n\n";
  return success();
}

/// The kernel argument name a GM tensor of a leaf or root function is at
/// every launch / root call of it ("workspace" for workspaces), or "" when
/// the call sites disagree: a leaf is shared by isomorphic tasks, so its
/// run-time faults name a tensor only when that name is the same for all.
std::string CppEmitter::calledTensorName(Value tensor, unsigned depth) {
  auto arg = dyn_cast<BlockArgument>(getAliasedTensor(tensor));
  auto func =
      arg ? dyn_cast<func::FuncOp>(arg.getOwner()->getParentOp()) : nullptr;
  if (!func)
    return tensorName(tensor);
  if (!func->getParentOfType<ModuleOp>() || depth > 4)
    return "";
  std::optional<std::string> common;
  for (Operation *call : callSitesOf(func)) {
    OperandRange args = call->getOperands();
    getCalleeAndArgs(call, args);
    std::string name =
        arg.getArgNumber() < args.size()
            ? calledTensorName(args[arg.getArgNumber()], depth + 1)
            : "";
    if (!common)
      common = name;
    else if (*common != name)
      return "";
  }
  return common ? *common : "";
}

FailureOr<int64_t> CppEmitter::nzFractalColsOf(Operation *op, Value tensor,
                                               unsigned depth) {
  Value aliased = getAliasedTensor(tensor);
  auto arg = dyn_cast<BlockArgument>(aliased);
  if (!arg)
    return int64_t(0); // a workspace
  Operation *parent = arg.getOwner()->getParentOp();
  int64_t c0 = 0;
  if (auto kernel = dyn_cast<KernelOp>(parent)) {
    auto layout = kernel.getArgAttrOfType<StringAttr>(arg.getArgNumber(),
                                                      kLayoutAttrName);
    if (layout && layout.getValue() == kLayoutNZ)
      c0 = getNZFractalCols(
          cast<GMTensorType>(aliased.getType()).getElementByteSize());
  } else if (auto func = dyn_cast<func::FuncOp>(parent);
             func && func->getParentOfType<ModuleOp>() && depth <= 4) {
    std::optional<int64_t> common;
    for (Operation *call : callSitesOf(func)) {
      OperandRange args = call->getOperands();
      getCalleeAndArgs(call, args);
      if (arg.getArgNumber() >= args.size())
        continue;
      FailureOr<int64_t> at =
          nzFractalColsOf(op, args[arg.getArgNumber()], depth + 1);
      if (failed(at))
        return failure();
      if (common && *common != *at)
        return op->emitError()
               << "pto-to-cpp: @" << func.getSymName()
               << " is called with an NZ tensor (pto.layout = \"nz\") and an "
                  "ND one for the same argument; one leaf reads one layout: "
                  "declare both tensors with the same format";
      common = *at;
    }
    c0 = common.value_or(0);
  }
  if (c0 && aliased != tensor)
    return op->emitError()
           << "pto-to-cpp: a reshape of the NZ tensor '"
           << calledTensorName(tensor)
           << "' (pto.layout = \"nz\"): its fractals are not rows, so the "
              "emitted C++ reads an NZ tensor only as the matrix it was "
              "declared; index the weight without reshaping it";
  return c0;
}

LogicalResult CppEmitter::emitNZLoad(Operation *op, const TensorExpr &gm,
                                     Value row, Value col, const TileExpr &tile,
                                     bool transpose, int64_t c0) {
  auto load = dyn_cast<ptoisa::TLoadOp>(op);
  std::string tensor =
      calledTensorName(load ? load.getSrc() : op->getOperand(0));
  auto refuse = [&](const Twine &what) {
    return op->emitError() << "pto-to-cpp: the NZ tensor '" << tensor
                           << "' (pto.layout = \"nz\") " << what;
  };
  if (!load)
    return refuse("is written; the emitted C++ writes ND tensors only "
                  "(declare the output ND)");
  if (transpose)
    return refuse("is loaded transposed (b_trans); the emitted C++ loads an NZ "
                  "weight untransposed only (store the weight as [K, N])");
  if (gm.type.getRank() != 2)
    return refuse("has rank " + Twine(gm.type.getRank()) +
                  "; the emitted C++ reads 2-D NZ weights only");
  ptoisa::TileType type = tile.type;
  if (type.getSpace() != ptoisa::MemorySpace::l1 ||
      type.getLayout() != ptoisa::TileLayout::nz ||
      type.getRows() % kNZFractalRows != 0 || type.getCols() % c0 != 0)
    return refuse(
        "is loaded into the tile " + llvm::formatv("{0}", type).str() +
        "; pto-isa loads NZ GM into an L1 tile of whole 16 x " + Twine(c0) +
        " fractals (set the cube tile's K to a multiple of 16 and "
        "N to a multiple of " +
        Twine(c0) + ")");
  std::string element = cppType(gm.type.getElementType());
  // [1, cols / C0, rows / 16, 16, C0] fractals; column blocks are a whole
  // column of fractals (rows * C0 elements) apart. Windows start on a
  // fractal: the tile's K and N offsets are multiples of its static shape.
  std::string shape =
      formatv("Shape<1, DYNAMIC, DYNAMIC, {0}, {1}>", kNZFractalRows, c0);
  std::string stride =
      formatv("Stride<1, DYNAMIC, {0}, {1}, 1>", kNZFractalRows * c0, c0);
  std::string g = fresh();
  os << formatv("if ({0} > 0 && {1} > 0) {{\n", tile.validRows, tile.validCols);
  os.indent();
  os << formatv("using G{0} = GlobalTensor<{1}, {2}, {3}, Layout::NZ>;\n", g,
                element, shape, stride);
  os << formatv("G{0} {0}({1} + ({2} / {3} * ({4} * {3}) + {5} * {3}), "
                "{6}((int)({7} / {3}), (int)({8} / {9})), {10}((int)({4} * "
                "{3})));\n",
                g, gm.pointer, name(col), c0, gm.dims[0], name(row), shape,
                tile.validCols, tile.validRows, kNZFractalRows, stride);
  os << formatv("TLOAD({0}, {1});\n", tile.name, g);
  os.unindent();
  os << "}\n";
  return success();
}

LogicalResult CppEmitter::emitGlobalAccess(Operation *op, Value tensor,
                                           Value row, Value col,
                                           const TileExpr &tile, bool transpose,
                                           StringRef call) {
  auto it = tensors.find(tensor);
  if (it == tensors.end())
    return op->emitError()
           << "pto-to-cpp: GM operand is not a tensor it can name";
  const TensorExpr &gm = it->second;
  FailureOr<int64_t> nz = nzFractalColsOf(op, tensor);
  if (failed(nz))
    return failure();
  if (*nz)
    return emitNZLoad(op, gm, row, col, tile, transpose, *nz);
  std::string element = cppType(gm.type.getElementType());
  std::string pointer = gm.pointer;
  // DT_BOOL moves as its bytes (a ui8 tile; docs/ISA.md, "DT_BOOL masks").
  if (gm.type.getElementType().isSignlessInteger(1)) {
    element = "uint8_t";
    pointer = "reinterpret_cast<__gm__ uint8_t *>(" + gm.pointer + ")";
  }
  std::string ld = gm.dims[1];
  // The GlobalTensor describes exactly the transferred window: the tile's
  // valid region (docs/AscendTarget.md#globaltensor). A DN window holds the
  // transpose.
  std::string shape = "Shape<1, 1, 1, DYNAMIC, DYNAMIC>";
  std::string stride =
      transpose ? "Stride<1, 1, 1, 1, DYNAMIC>" : "Stride<1, 1, 1, DYNAMIC, 1>";
  std::string g = fresh();
  os << formatv("if ({0} > 0 && {1} > 0) {{\n", tile.validRows, tile.validCols);
  os.indent();
  os << formatv("using G{0} = GlobalTensor<{1}, {2}, {3}, Layout::{4}>;\n", g,
                element, shape, stride, transpose ? "DN" : "ND");
  os << formatv("G{0} {0}({1} + ({2} * {3} + {4}), {5}((int){6}, (int){7}), "
                "{8}((int){3}));\n",
                g, pointer, name(row), ld, name(col), shape, tile.validRows,
                tile.validCols, stride);
  os << formatv(call.str().c_str(), g, tile.name) << "\n";
  os.unindent();
  os << "}\n";
  return success();
}

LogicalResult CppEmitter::emitIsa(Operation *op) {
  using namespace ptoisa;
  auto tile = [&](Value v) -> const TileExpr & { return tiles[v]; };
  auto guarded = [&](const TileExpr &dst, const std::string &stmt) {
    os << formatv("if ({0} > 0 && {1} > 0) {2};\n", dst.validRows,
                  dst.validCols, stmt);
  };
  // pto-isa's algorithm template argument; INTRINSIC is its DEFAULT.
  auto withPrecision = [](StringRef instr, StringRef algorithm,
                          PrecisionType precision) -> std::string {
    if (precision == PrecisionType::INTRINSIC)
      return instr.str();
    return formatv("{0}<pto::{1}::HIGH_PRECISION>", instr, algorithm).str();
  };
  auto unary = [&](StringRef instr, Value src, Value dst) {
    guarded(tile(dst),
            formatv("{0}({1}, {2})", instr, tile(dst).name, tile(src).name));
  };
  auto binary = [&](StringRef instr, Value a, Value b, Value dst) {
    guarded(tile(dst), formatv("{0}({1}, {2}, {3})", instr, tile(dst).name,
                               tile(a).name, tile(b).name));
  };
  auto scalar = [&](StringRef instr, Value src, Value s, Value dst) {
    guarded(tile(dst), formatv("{0}({1}, {2}, {3})", instr, tile(dst).name,
                               tile(src).name, name(s)));
  };
  return llvm::TypeSwitch<Operation *, LogicalResult>(op)
      .Case([&](AllocTileOp alloc) -> LogicalResult {
        if (!alloc.getOffset())
          return alloc.emitError()
                 << "pto-to-cpp needs placed tiles (pto-isa-plan-memory); "
                    "compile the module with `pto-opt --pto-ascend-pipeline` "
                    "first";
        std::string t = fresh();
        TileExpr expr{t, name(alloc.getValidRows()), name(alloc.getValidCols()),
                      alloc.getTileType()};
        os << formatv("using T{0} = {1};\n", t,
                      tileCppType(alloc.getTileType()));
        os << formatv("T{0} {0}((unsigned){1}, (unsigned){2});\n", t,
                      expr.validRows, expr.validCols);
        os << formatv("TASSIGN({0}, {1});\n", t, *alloc.getOffset());
        tiles[alloc.getResult()] = expr;
        return success();
      })
      .Case([&](TLoadOp load) {
        return emitGlobalAccess(load, load.getSrc(), load.getRow(),
                                load.getCol(), tile(load.getDst()),
                                load.getTranspose(), "TLOAD({1}, {0});");
      })
      .Case([&](TStoreOp store) {
        const TileExpr &src = tile(store.getSrc());
        std::string call = store.getAtomicAdd()
                               ? "TSTORE<T" + src.name +
                                     ", G{0}, AtomicType::AtomicAdd>({0}, {1});"
                               : std::string("TSTORE({0}, {1});");
        return emitGlobalAccess(store, store.getDst(), store.getRow(),
                                store.getCol(), src, /*transpose=*/false, call);
      })
      .Case([&](MScatterOp scatter) -> LogicalResult {
        auto it = tensors.find(scatter.getDst());
        if (it == tensors.end())
          return scatter.emitError()
                 << "pto-to-cpp: GM operand is not a tensor it can name";
        const TensorExpr &gm = it->second;
        const TileExpr &src = tile(scatter.getSrc());
        const TileExpr &idx = tile(scatter.getIndices());
        std::string g = fresh();
        std::string tensor = calledTensorName(scatter.getDst());
        // The table is the tensor from the window's first row on: an index
        // counts rows from there, and the emulation checks it against them.
        os << formatv("if ({0} > 0 && {1} > 0) {{\n", src.validRows,
                      src.validCols);
        os.indent();
        os << formatv("PTOGEN_SCATTER_SITE({0}, \"{1}\");\n",
                      whereLiteral(scatter),
                      tensor.empty() ? "tensor" : tensor);
        os << formatv("using G{0} = GlobalTensor<{1}, Shape<1, 1, 1, DYNAMIC, "
                      "DYNAMIC>, Stride<1, 1, 1, DYNAMIC, 1>, Layout::ND>;\n",
                      g, cppType(gm.type.getElementType()));
        os << formatv(
            "G{0} {0}({1} + ({2} * {3} + {4}), Shape<1, 1, 1, DYNAMIC, "
            "DYNAMIC>((int)({5} - {2}), (int){6}), Stride<1, 1, 1, "
            "DYNAMIC, 1>((int){3}));\n",
            g, gm.pointer, name(scatter.getRow()), gm.dims[1],
            name(scatter.getCol()), gm.dims[0], src.validCols);
        os << formatv("MSCATTER<Coalesce::Row, ScatterAtomicOp::{0}>({1}, {2}, "
                      "{3});\n",
                      scatter.getAtomicAdd() ? "Add" : "None", g, src.name,
                      idx.name);
        os.unindent();
        os << "}\n";
        return success();
      })
      .Case([&](TExtractOp extract) {
        std::string row = std::to_string(extract.getIndexRow());
        if (Value offset = extract.getRowOffset())
          row = formatv("(uint16_t)({0} + {1})", row, name(offset)).str();
        std::string col = std::to_string(extract.getIndexCol());
        if (Value offset = extract.getColOffset())
          col = formatv("(uint16_t)({0} + {1})", col, name(offset)).str();
        // Into AIV 1's UB (a MIX leaf's AIC): pto-isa A5's SingleModeVec1.
        std::string instr = "TEXTRACT";
        if (getSubblock(extract.getDst()) == 1 &&
            extract.getSrc().getType().getSpace() == MemorySpace::l0c)
          instr =
              formatv("TEXTRACT<decltype({0}), decltype({1}), "
                      "AccToVecMode::SingleModeVec1>",
                      tile(extract.getDst()).name, tile(extract.getSrc()).name)
                  .str();
        guarded(tile(extract.getDst()),
                formatv("{0}({1}, {2}, {3}, {4})", instr,
                        tile(extract.getDst()).name,
                        tile(extract.getSrc()).name, row, col));
        return success();
      })
      .Case([&](TInsertOp insert) {
        // Guarded by the source: it is the region written.
        guarded(tile(insert.getSrc()),
                formatv("TINSERT({0}, {1}, {2}, {3})",
                        tile(insert.getDst()).name, tile(insert.getSrc()).name,
                        insert.getIndexRow(), insert.getIndexCol()));
        return success();
      })
      .Case([&](TMovOp mov) {
        unary("TMOV", mov.getSrc(), mov.getDst());
        return success();
      })
      .Case<TMatmulOp, TMatmulAccOp>([&](auto matmul) {
        const TileExpr &a = tile(matmul.getLhs()), &b = tile(matmul.getRhs()),
                       &c = tile(matmul.getAcc());
        // m, k, n >= 1 (docs/AscendTarget.md#instructions); an empty product is
        // skipped. pto-isa's accumulating form names the accumulator twice
        // (out, in): its CPU back end has no three-operand TMATMUL_ACC.
        std::string operands =
            isa<TMatmulOp>(op)
                ? formatv("{0}, {1}, {2}", c.name, a.name, b.name).str()
                : formatv("{0}, {0}, {1}, {2}", c.name, a.name, b.name).str();
        os << formatv("if ({0} > 0 && {1} > 0 && {2} > 0) {3}({4});\n",
                      a.validRows, a.validCols, b.validCols,
                      isa<TMatmulOp>(op) ? "TMATMUL" : "TMATMUL_ACC", operands);
        return success();
      })
      // Packed masks (docs/ISA.md, "DT_BOOL masks"): guarded by the data
      // tile the instruction walks.
      .Case([&](TCmpOp o) {
        guarded(tile(o.getLhs()),
                formatv("TCMP({0}, {1}, {2}, CmpMode::{3})",
                        tile(o.getDst()).name, tile(o.getLhs()).name,
                        tile(o.getRhs()).name,
                        StringRef(stringifyCmpMode(o.getMode())).upper()));
        return success();
      })
      .Case([&](TCmpSOp o) {
        guarded(tile(o.getSrc()),
                formatv("TCMPS({0}, {1}, {2}, CmpMode::{3})",
                        tile(o.getDst()).name, tile(o.getSrc()).name,
                        name(o.getScalar()),
                        StringRef(stringifyCmpMode(o.getMode())).upper()));
        return success();
      })
      .Case([&](TSelOp o) {
        guarded(tile(o.getDst()),
                formatv("TSEL({0}, {1}, {2}, {3}, {4})", tile(o.getDst()).name,
                        tile(o.getMask()).name, tile(o.getOnTrue()).name,
                        tile(o.getOnFalse()).name, tile(o.getTmp()).name));
        return success();
      })
      .Case([&](TSelSOp o) {
        guarded(tile(o.getDst()),
                formatv("TSELS({0}, {1}, {2}, {3}, {4})", tile(o.getDst()).name,
                        tile(o.getMask()).name, tile(o.getSrc()).name,
                        tile(o.getTmp()).name, name(o.getScalar())));
        return success();
      })
      .Case([&](TAddOp o) {
        binary("TADD", o.getLhs(), o.getRhs(), o.getDst());
        return success();
      })
      .Case([&](TSubOp o) {
        binary("TSUB", o.getLhs(), o.getRhs(), o.getDst());
        return success();
      })
      .Case([&](TMulOp o) {
        binary("TMUL", o.getLhs(), o.getRhs(), o.getDst());
        return success();
      })
      .Case([&](TDivOp o) {
        binary(withPrecision("TDIV", "DivAlgorithm", o.getPrecision()),
               o.getLhs(), o.getRhs(), o.getDst());
        return success();
      })
      .Case([&](TMaxOp o) {
        binary("TMAX", o.getLhs(), o.getRhs(), o.getDst());
        return success();
      })
      .Case([&](TMinOp o) {
        binary("TMIN", o.getLhs(), o.getRhs(), o.getDst());
        return success();
      })
      .Case([&](TAddSOp o) {
        scalar("TADDS", o.getSrc(), o.getScalar(), o.getDst());
        return success();
      })
      .Case([&](TSubSOp o) {
        scalar("TSUBS", o.getSrc(), o.getScalar(), o.getDst());
        return success();
      })
      .Case([&](TMulSOp o) {
        scalar("TMULS", o.getSrc(), o.getScalar(), o.getDst());
        return success();
      })
      .Case([&](TDivSOp o) {
        scalar(withPrecision("TDIVS", "DivAlgorithm", o.getPrecision()),
               o.getSrc(), o.getScalar(), o.getDst());
        return success();
      })
      .Case([&](TMaxSOp o) {
        scalar("TMAXS", o.getSrc(), o.getScalar(), o.getDst());
        return success();
      })
      .Case([&](TMinSOp o) {
        scalar("TMINS", o.getSrc(), o.getScalar(), o.getDst());
        return success();
      })
      .Case([&](TExpOp o) {
        unary(withPrecision("TEXP", "ExpAlgorithm", o.getPrecision()),
              o.getSrc(), o.getDst());
        return success();
      })
      .Case([&](TLogOp o) {
        unary(withPrecision("TLOG", "LogAlgorithm", o.getPrecision()),
              o.getSrc(), o.getDst());
        return success();
      })
      .Case([&](TAbsOp o) {
        unary("TABS", o.getSrc(), o.getDst());
        return success();
      })
      .Case([&](TNegOp o) {
        unary("TNEG", o.getSrc(), o.getDst());
        return success();
      })
      .Case([&](TSqrtOp o) {
        unary("TSQRT", o.getSrc(), o.getDst());
        return success();
      })
      .Case([&](TRsqrtOp o) {
        unary("TRSQRT", o.getSrc(), o.getDst());
        return success();
      })
      .Case([&](TRecipOp o) {
        unary("TRECIP", o.getSrc(), o.getDst());
        return success();
      })
      .Case([&](TRowExpandOp o) {
        unary("TROWEXPAND", o.getSrc(), o.getDst());
        return success();
      })
      .Case([&](TCvtOp o) {
        // Always explicit: pto-isa's three-argument TCVT picks OFF for its
        // narrowing pairs on the NPU, and its CPU model picks OFF always.
        StringRef sat = stringifySaturationMode(o.getSatmode());
        guarded(
            tile(o.getDst()),
            formatv("TCVT({0}, {1}, RoundMode::CAST_{2}, SaturationMode::{3})",
                    tile(o.getDst()).name, tile(o.getSrc()).name,
                    o.getMode() == CastMode::NONE
                        ? "RINT"
                        : stringifyCastMode(o.getMode()),
                    sat));
        return success();
      })
      .Case([&](TExpandSOp o) {
        guarded(tile(o.getDst()),
                formatv("TEXPANDS({0}, {1})", tile(o.getDst()).name,
                        name(o.getScalar())));
        return success();
      })
      .Case<TRowSumOp, TRowMaxOp>([&](auto o) {
        // Rows whose valid columns are all cut off (a column piece past the
        // row's end) reduce to the identity, as in pto-run: 0 for the sum,
        // -inf for the max; pto-isa rejects an empty source region.
        bool sum = isa<TRowSumOp>(op);
        const TileExpr &dst = tile(o.getDst()), &src = tile(o.getSrc());
        std::string element = cppType(dst.type.getElementType());
        guarded(dst, formatv("{{ if ({0} > 0) {1}({2}, {3}, {4}); else "
                             "TEXPANDS({2}, static_cast<{5}>({6})); }",
                             src.validCols, sum ? "TROWSUM" : "TROWMAX",
                             dst.name, src.name, tile(o.getTmp()).name, element,
                             sum ? "0.0f" : "-INFINITY"));
        return success();
      })
      .Case([&](TTransOp o) {
        guarded(tile(o.getDst()),
                formatv("TTRANS({0}, {1}, {2})", tile(o.getDst()).name,
                        tile(o.getSrc()).name, tile(o.getTmp()).name));
        return success();
      })
      .Case([&](TCIOp o) {
        const TileExpr &dst = tile(o.getDst());
        std::string element = cppType(dst.type.getElementType());
        guarded(dst, formatv("TCI<T{0}, {1}, 0>({0}, {1}({2}))", dst.name,
                             element, o.getStart()));
        return success();
      })
      .Case([&](TSort32Op o) {
        guarded(tile(o.getDst()),
                formatv("TSORT32({0}, {1}, {2}, {3})", tile(o.getDst()).name,
                        tile(o.getSrc()).name, tile(o.getIdx()).name,
                        tile(o.getTmp()).name));
        return success();
      })
      .Case([&](TMrgSortOp o) {
        // pto-isa's list form: explicit tile types, then `exhausted` =
        // false (merge until dst is full); the consumed counts are unused.
        const TileExpr &dst = tile(o.getDst()), &tmp = tile(o.getTmp());
        std::string types = formatv("T{0}, T{1}", dst.name, tmp.name).str();
        std::string args = formatv("{0}, executed, {1}", dst.name, tmp.name);
        for (Value src : o.getSrcs()) {
          types += formatv(", T{0}", tile(src).name).str();
          args += formatv(", {0}", tile(src).name).str();
        }
        guarded(dst, formatv("{{ MrgSortExecutedNumList executed; "
                             "TMRGSORT<{0}, false>({1}); }",
                             types, args));
        return success();
      })
      .Case([&](TReshapeOp o) {
        // A rename of bytes (no data moves), so not guarded by the valid
        // extents: dst must name src's bytes even when nothing is valid.
        os << formatv("TRESHAPE({0}, {1});\n", tile(o.getDst()).name,
                      tile(o.getSrc()).name);
        return success();
      })
      .Case([&](TGatherMaskOp o) {
        static const char *patterns[] = {"P0101", "P1010", "P0001", "P0010",
                                         "P0100", "P1000", "P1111"};
        const TileExpr &dst = tile(o.getDst()), &src = tile(o.getSrc());
        guarded(dst, formatv("TGATHER<T{0}, T{1}, MaskPattern::{2}>({0}, {1})",
                             dst.name, src.name, patterns[o.getPattern() - 1]));
        return success();
      })
      .Case([&](TRowExpandSubOp o) {
        binary("TROWEXPANDSUB", o.getFull(), o.getRowval(), o.getDst());
        return success();
      })
      .Case([&](TRowExpandMulOp o) {
        binary("TROWEXPANDMUL", o.getFull(), o.getRowval(), o.getDst());
        return success();
      })
      .Case([&](TRowExpandDivOp o) {
        binary("TROWEXPANDDIV", o.getFull(), o.getRowval(), o.getDst());
        return success();
      })
      .Case([&](TColExpandOp o) {
        unary("TCOLEXPAND", o.getSrc(), o.getDst());
        return success();
      })
      .Case([&](TColExpandAddOp o) {
        binary("TCOLEXPANDADD", o.getFull(), o.getColval(), o.getDst());
        return success();
      })
      .Case([&](TColExpandSubOp o) {
        binary("TCOLEXPANDSUB", o.getFull(), o.getColval(), o.getDst());
        return success();
      })
      .Case([&](TColExpandMulOp o) {
        binary("TCOLEXPANDMUL", o.getFull(), o.getColval(), o.getDst());
        return success();
      })
      .Case([&](TColExpandDivOp o) {
        binary("TCOLEXPANDDIV", o.getFull(), o.getColval(), o.getDst());
        return success();
      })
      .Case([&](TColExpandMaxOp o) {
        binary("TCOLEXPANDMAX", o.getFull(), o.getColval(), o.getDst());
        return success();
      })
      .Case([&](TColExpandMinOp o) {
        binary("TCOLEXPANDMIN", o.getFull(), o.getColval(), o.getDst());
        return success();
      })
      .Case<TColSumOp, TColMaxOp>([&](auto o) {
        // As for the row reductions: columns with no valid rows (a row
        // piece past the tensor's end) reduce to the identity.
        bool sum = isa<TColSumOp>(op);
        const TileExpr &dst = tile(o.getDst()), &src = tile(o.getSrc());
        std::string element = cppType(dst.type.getElementType());
        guarded(dst,
                formatv("{{ if ({0} > 0) {1}({2}, {3}); else "
                        "TEXPANDS({2}, static_cast<{4}>({5})); }",
                        src.validRows, sum ? "TCOLSUM" : "TCOLMAX", dst.name,
                        src.name, element, sum ? "0.0f" : "-INFINITY"));
        return success();
      })
      .Case([&](SetFlagOp o) {
        os << formatv("set_flag({0}, {1}, EVENT_ID{2});\n",
                      pipeName(o.getSrc()), pipeName(o.getDst()), o.getEvent());
        return success();
      })
      .Case([&](WaitFlagOp o) {
        os << formatv("wait_flag({0}, {1}, EVENT_ID{2});\n",
                      pipeName(o.getSrc()), pipeName(o.getDst()), o.getEvent());
        return success();
      })
      .Case([&](PipeBarrierOp o) {
        os << formatv("pipe_barrier({0});\n", pipeName(o.getPipe()));
        return success();
      })
      .Case([&](SetIntraBlockOp o) {
        os << formatv("set_intra_block({0}, {1});\n", pipeName(o.getPipe()),
                      o.getId());
        return success();
      })
      .Case([&](WaitIntraBlockOp o) {
        os << formatv("wait_intra_block({0}, {1});\n", pipeName(o.getPipe()),
                      o.getId());
        return success();
      })
      .Default([&](Operation *other) {
        return other->emitError()
               << "pto-to-cpp cannot print '" << other->getName() << "'";
      });
}
