//===- CppEmitter.cpp - pto + pto_isa to pto-isa C++ ----------------------===//
//
// One pass over the module prints three kinds of functions:
// - leaves (func.func with `pto.leaf`, body in pto_isa): device kernels;
// - roots (func.func with `pto.root`): the execute graph, one
//   `RootInstance::launch` per pto.launch;
// - pto.kernel: the control-flow program, one `Runtime::root_call` per
//   pto.root_call with its stitch depth.
// Values are named after their position (v<N>) and kernel arguments after
// their Python names; a GM tensor travels as a pointer plus one int64_t per
// dynamic dimension.
//
//===----------------------------------------------------------------------===//

#include "pto/Target/Cpp/CppEmitter.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Support/IndentedOstream.h"
#include "mlir/Tools/mlir-translate/Translation.h"
#include "pto/Dialect/PTO/IR/PTODialect.h"
#include "pto/Dialect/PTOISA/IR/PTOISA.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/FormatVariadic.h"
#include "mlir/IR/Matchers.h"

#include <cmath>

using namespace mlir;
using namespace mlir::pto;
using llvm::formatv;

namespace {

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

class CppEmitter {
public:
  explicit CppEmitter(raw_ostream &os) : os(os) {}

  LogicalResult emitModule(ModuleOp module);

private:
  // Functions.
  LogicalResult emitLeaf(func::FuncOp func);
  LogicalResult emitRoot(func::FuncOp func);
  LogicalResult emitControl(KernelOp kernel);
  void emitHostMain(KernelOp kernel);
  std::string parameterList(Block &entry, ArrayRef<std::string> names,
                            bool device);

  // Statements.
  LogicalResult emitBlock(Block &block, FunctionKind kind);
  LogicalResult emitOp(Operation *op, FunctionKind kind);
  LogicalResult emitArith(Operation *op);
  LogicalResult emitScf(Operation *op, FunctionKind kind);
  LogicalResult emitIsa(Operation *op);
  LogicalResult emitGlobalAccess(Operation *op, Value tensor, Value row,
                                 Value col, const TileExpr &tile,
                                 bool transpose, StringRef call);
  LogicalResult emitControlOp(Operation *op);
  LogicalResult emitRootOp(Operation *op);
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
  unsigned rootCallSites = 0;
};

} // namespace

//===----------------------------------------------------------------------===//
// Names and types
//===----------------------------------------------------------------------===//

std::string CppEmitter::cppType(Type type) {
  if (type.isIndex() || type.isSignlessInteger(64))
    return "int64_t";
  if (type.isSignlessInteger(32))
    return "int32_t";
  if (type.isSignlessInteger(16))
    return "int16_t";
  if (type.isSignlessInteger(8))
    return "int8_t";
  if (type.isSignlessInteger(1))
    return "bool";
  if (type.isF32())
    return "float";
  if (type.isF16())
    return "half";
  if (type.isBF16())
    return "bfloat16_t";
  return "";
}

std::string CppEmitter::tileCppType(ptoisa::TileType type) {
  using ptoisa::MemorySpace;
  using ptoisa::TileLayout;
  std::string element = cppType(type.getElementType());
  int64_t rows = type.getRows(), cols = type.getCols();
  switch (type.getSpace()) {
  case MemorySpace::l0a:
    return formatv("TileLeft<{0}, {1}, {2}, DYNAMIC, DYNAMIC>", element, rows, cols);
  case MemorySpace::l0b:
    return formatv("TileRight<{0}, {1}, {2}, DYNAMIC, DYNAMIC>", element, rows, cols);
  case MemorySpace::l0c:
    return formatv("TileAcc<{0}, {1}, {2}, DYNAMIC, DYNAMIC>", element, rows, cols);
  case MemorySpace::l1:
    // nz: outer column-major, inner row-major fractals; zn: the reverse.
    return type.getLayout() == TileLayout::zn
               ? formatv("Tile<TileType::Mat, {0}, {1}, {2}, BLayout::RowMajor, "
                         "DYNAMIC, DYNAMIC, SLayout::ColMajor, 512>",
                         element, rows, cols)
                     .str()
               : formatv("Tile<TileType::Mat, {0}, {1}, {2}, BLayout::ColMajor, "
                         "DYNAMIC, DYNAMIC, SLayout::RowMajor, 512>",
                         element, rows, cols)
                     .str();
  case MemorySpace::ub:
    // PadValue::Zero: a GM->UB copy whose valid columns do not fill whole
    // 32-byte blocks pads the block (docs/AscendTarget.md#globaltensor).
    return formatv("Tile<TileType::Vec, {0}, {1}, {2}, BLayout::{3}, DYNAMIC, "
                   "DYNAMIC, SLayout::NoneBox, 512, PadValue::Zero>",
                   element, rows, cols,
                   type.getLayout() == TileLayout::dn ? "ColMajor" : "RowMajor");
  }
  llvm_unreachable("unknown memory space");
}

std::string CppEmitter::floatLiteral(APFloat value, Type type) {
  if (value.isNaN())
    return "__builtin_nanf(\"\")";
  if (value.isInfinity())
    return value.isNegative() ? "(-__builtin_inff())" : "__builtin_inff()";
  bool lost;
  value.convert(APFloat::IEEEsingle(), APFloat::rmNearestTiesToEven, &lost);
  // Nine significant digits round-trip any float exactly.
  return formatv("{0:e9}f", value.convertToFloat()).str();
}

std::string CppEmitter::pipeName(ptoisa::Pipe pipe) {
  return ("PIPE_" + ptoisa::stringifyPipe(pipe)).str();
}

std::string CppEmitter::name(Value v) {
  auto it = names.find(v);
  if (it != names.end())
    return it->second;
  return "<<unnamed>>";
}

std::string CppEmitter::callArgs(ValueRange args) {
  SmallVector<std::string> parts;
  for (Value arg : args) {
    auto tensor = tensors.find(arg);
    if (tensor != tensors.end()) {
      parts.push_back(tensor->second.pointer);
      auto type = tensor->second.type;
      for (auto [i, size] : llvm::enumerate(type.getShape()))
        if (ShapedType::isDynamic(size))
          parts.push_back(tensor->second.dims[i]);
      continue;
    }
    parts.push_back(name(arg));
  }
  return llvm::join(parts, ", ");
}

void CppEmitter::bindTensor(Value v, std::string pointer,
                            SmallVector<std::string> dims) {
  tensors[v] = TensorExpr{std::move(pointer), std::move(dims),
                          cast<GMTensorType>(v.getType())};
}

/// The op's source location as a C++ string literal ("file:line:col"), the
/// place pto-run's diagnostic names; run-time faults start with it.
static std::string whereLiteral(Operation *op) {
  std::string text = "unknown location";
  op->getLoc()->walk([&](Location loc) {
    if (auto file = dyn_cast<FileLineColLoc>(loc)) {
      text = formatv("{0}:{1}:{2}", file.getFilename().getValue(),
                     file.getLine(), file.getColumn())
                 .str();
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  std::string literal = "\"";
  for (char c : text) {
    if (c == '"' || c == '\\')
      literal += '\\';
    if (c == '\n')
      c = ' ';
    literal += c;
  }
  return literal + "\"";
}

/// The kernel argument a tensor aliases (through reshapes), for messages.
static std::string tensorName(Value tensor) {
  auto arg = dyn_cast<BlockArgument>(getAliasedTensor(tensor));
  if (arg)
    if (auto kernel = dyn_cast<KernelOp>(arg.getOwner()->getParentOp()))
      return cast<StringAttr>(kernel.getArgNames()[arg.getArgNumber()]).str();
  return "workspace";
}

/// A kernel argument name as a C++ identifier: keywords (SK-16's `do`) and
/// characters C++ does not allow get a trailing or replacing underscore.
static std::string cppIdentifier(StringRef pythonName) {
  static const llvm::StringSet<> keywords = {
      "alignas", "alignof", "and", "asm", "auto", "bool", "break", "case",
      "catch", "char", "class", "const", "continue", "default", "delete", "do",
      "double", "else", "enum", "explicit", "export", "extern", "false",
      "float", "for", "friend", "goto", "if", "inline", "int", "long",
      "mutable", "namespace", "new", "not", "operator", "or", "private",
      "protected", "public", "register", "return", "short", "signed",
      "sizeof", "static", "struct", "switch", "template", "this", "throw",
      "true", "try", "typedef", "typename", "union", "unsigned", "using",
      "virtual", "void", "volatile", "while", "xor", "rt", "m", "ri"};
  std::string id;
  for (char c : pythonName)
    id += llvm::isAlnum(c) || c == '_' ? c : '_';
  if (id.empty() || llvm::isDigit(id[0]))
    id = "arg_" + id;
  if (keywords.contains(id))
    id += "_";
  return id;
}

std::string CppEmitter::parameterList(Block &entry, ArrayRef<std::string> argNames,
                                      bool device) {
  SmallVector<std::string> params;
  for (auto [i, arg] : llvm::enumerate(entry.getArguments())) {
    std::string base =
        argNames.empty() ? formatv("a{0}", i).str() : cppIdentifier(argNames[i]);
    if (auto tensor = dyn_cast<GMTensorType>(arg.getType())) {
      std::string element = cppType(tensor.getElementType());
      params.push_back(formatv("{0}{1} *{2}", device ? "__gm__ " : "", element, base));
      SmallVector<std::string> dims;
      for (auto [d, size] : llvm::enumerate(tensor.getShape())) {
        if (ShapedType::isDynamic(size)) {
          std::string dim = formatv("{0}_d{1}", base, d);
          params.push_back("int64_t " + dim);
          dims.push_back(dim);
        } else {
          dims.push_back(std::to_string(size));
        }
      }
      bindTensor(arg, base, dims);
      continue;
    }
    params.push_back(cppType(arg.getType()) + " " + base);
    names[arg] = base;
  }
  return llvm::join(params, ", ");
}

//===----------------------------------------------------------------------===//
// Module
//===----------------------------------------------------------------------===//

LogicalResult CppEmitter::emitModule(ModuleOp module) {
  os << "// Generated by pto-translate --pto-to-cpp. Kernels use the pto-isa "
        "C++ API;\n"
        "// host builds (-D__CPU_SIM) also get the control program on the "
        "pto-mlir runtime.\n"
        "// -DPTO_KERNELS_ONLY: only the kernels (against the real pto-isa "
        "headers);\n"
        "// -DPTO_CONTROL_ONLY: only the control program, the kernels "
        "declared.\n"
        "#include <cmath>\n#include <cstdint>\n"
        "#include <pto/pto-inst.hpp>\n"
        "#if defined(__CPU_SIM) && !defined(PTO_KERNELS_ONLY)\n"
        "#include <memory>\n"
        "#include <vector>\n"
        "#include <pto/runtime/pto_runtime.hpp>\n"
        "#endif\n"
        "using namespace pto;\n\n"
        "namespace ptogen {\n"
        "inline int64_t ceildiv(int64_t a, int64_t b) { return a / b + ((a % b "
        "!= 0) && ((a < 0) == (b < 0))); }\n"
        "inline int64_t floordiv(int64_t a, int64_t b) { return a / b - ((a % "
        "b != 0) && ((a < 0) != (b < 0))); }\n"
        "// arith.addi/subi/muli wrap around at the result width (as in "
        "pto-run), never signed overflow.\n"
        "template <class T> inline T wadd(T a, T b) { return T(uint64_t(a) + "
        "uint64_t(b)); }\n"
        "template <class T> inline T wsub(T a, T b) { return T(uint64_t(a) - "
        "uint64_t(b)); }\n"
        "template <class T> inline T wmul(T a, T b) { return T(uint64_t(a) * "
        "uint64_t(b)); }\n"
        "} // namespace ptogen\n"
        "// Run-time checks of the host emulation (pto_runtime.hpp); none on "
        "the device or in a kernels-only build against the real pto-isa.\n"
        "#if defined(__CPU_SIM) && !defined(PTO_KERNELS_ONLY)\n"
        "#define PTOGEN_CHECK_DIVISION(where, a, b) "
        "pto_rt::check_division(where, a, b)\n"
        "#else\n"
        "#define PTOGEN_CHECK_DIVISION(where, a, b) ((void)0)\n"
        "#endif\n\n";

  SmallVector<func::FuncOp> leaves, roots;
  SmallVector<KernelOp> kernels;
  for (Operation &op : module.getBody()->getOperations()) {
    if (auto func = dyn_cast<func::FuncOp>(op)) {
      if (func->hasAttr("pto.leaf"))
        leaves.push_back(func);
      else if (func->hasAttr("pto.root"))
        roots.push_back(func);
      else
        return func.emitError()
               << "pto-to-cpp prints leaf (pto.leaf) and root (pto.root) "
                  "functions only; compile the module with `pto-opt "
                  "--pto-ascend-pipeline` first";
    } else if (auto kernel = dyn_cast<KernelOp>(op)) {
      kernels.push_back(kernel);
    } else {
      return op.emitError() << "pto-to-cpp cannot print a top-level '"
                            << op.getName() << "'";
    }
  }

  // The kernels and the control program can be built as separate
  // translation units (kernels against the real pto-isa CPU simulator, the
  // control program against pto-mlir's runtime) and linked.
  os << "#if !defined(PTO_CONTROL_ONLY)\n";
  for (func::FuncOp leaf : leaves)
    if (failed(emitLeaf(leaf)))
      return failure();
  os << "#endif // !PTO_CONTROL_ONLY\n\n"
        "#if defined(__CPU_SIM) && !defined(PTO_KERNELS_ONLY)\n"
        "#if defined(PTO_CONTROL_ONLY)\n";
  for (func::FuncOp leaf : leaves)
    os << "void " << leaf.getSymName() << "("
       << parameterList(leaf.getBody().front(), {}, /*device=*/true) << ");\n";
  os << "#endif // PTO_CONTROL_ONLY\n\n";
  for (func::FuncOp root : roots)
    if (failed(emitRoot(root)))
      return failure();
  for (KernelOp kernel : kernels)
    if (failed(emitControl(kernel)))
      return failure();
  if (kernels.size() == 1)
    emitHostMain(kernels.front());
  os << "#endif // __CPU_SIM\n";
  return success();
}

//===----------------------------------------------------------------------===//
// Leaves
//===----------------------------------------------------------------------===//

LogicalResult CppEmitter::emitLeaf(func::FuncOp func) {
  auto core = func->getAttrOfType<CoreKindAttr>("pto.leaf");
  if (!core || core.getValue() == CoreKind::mix)
    return func.emitError() << "pto-to-cpp prints cube and vector leaves; '"
                            << func.getSymName() << "' is "
                            << (core ? "a MIX leaf" : "not a core kind");
  bool cube = core.getValue() == CoreKind::cube;
  counter = 0;
  os << (cube ? "#if defined(__DAV_CUBE__)\n" : "#if defined(__DAV_VEC__)\n");
  os << "__global__ AICORE void " << func.getSymName() << "("
     << parameterList(func.getBody().front(), {}, /*device=*/true) << ") {\n";
  os.indent();
  if (failed(emitBlock(func.getBody().front(), FunctionKind::Leaf)))
    return failure();
  os.unindent();
  os << "}\n#endif\n\n";
  return success();
}

LogicalResult CppEmitter::emitGlobalAccess(Operation *op, Value tensor,
                                           Value row, Value col,
                                           const TileExpr &tile, bool transpose,
                                           StringRef call) {
  auto it = tensors.find(tensor);
  if (it == tensors.end())
    return op->emitError() << "pto-to-cpp: GM operand is not a tensor it can name";
  const TensorExpr &gm = it->second;
  std::string element = cppType(gm.type.getElementType());
  std::string ld = gm.dims[1];
  // The GlobalTensor describes exactly the transferred window: the tile's
  // valid region (docs/AscendTarget.md#globaltensor). A DN window holds the transpose.
  std::string shape = "Shape<1, 1, 1, DYNAMIC, DYNAMIC>";
  std::string stride = transpose ? "Stride<1, 1, 1, 1, DYNAMIC>"
                                 : "Stride<1, 1, 1, DYNAMIC, 1>";
  std::string g = fresh();
  os << formatv("if ({0} > 0 && {1} > 0) {{\n", tile.validRows, tile.validCols);
  os.indent();
  os << formatv("using G{0} = GlobalTensor<{1}, {2}, {3}, Layout::{4}>;\n", g,
                element, shape, stride, transpose ? "DN" : "ND");
  os << formatv("G{0} {0}({1} + ({2} * {3} + {4}), {5}((int){6}, (int){7}), "
                "{8}((int){3}));\n",
                g, gm.pointer, name(row), ld, name(col), shape, tile.validRows,
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
  auto unary = [&](StringRef instr, Value src, Value dst) {
    guarded(tile(dst), formatv("{0}({1}, {2})", instr, tile(dst).name,
                               tile(src).name));
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
        os << formatv("using T{0} = {1};\n", t, tileCppType(alloc.getTileType()));
        os << formatv("T{0} {0}((unsigned){1}, (unsigned){2});\n", t,
                      expr.validRows, expr.validCols);
        os << formatv("TASSIGN({0}, {1});\n", t, *alloc.getOffset());
        tiles[alloc.getResult()] = expr;
        return success();
      })
      .Case([&](TLoadOp load) {
        return emitGlobalAccess(load, load.getSrc(), load.getRow(), load.getCol(),
                                tile(load.getDst()), load.getTranspose(),
                                "TLOAD({1}, {0});");
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
      .Case([&](TExtractOp extract) {
        guarded(tile(extract.getDst()),
                formatv("TEXTRACT({0}, {1}, {2}, {3})", tile(extract.getDst()).name,
                        tile(extract.getSrc()).name, extract.getIndexRow(),
                        extract.getIndexCol()));
        return success();
      })
      .Case([&](TMovOp mov) {
        unary("TMOV", mov.getSrc(), mov.getDst());
        return success();
      })
      .Case<TMatmulOp, TMatmulAccOp>([&](auto matmul) {
        const TileExpr &a = tile(matmul.getLhs()), &b = tile(matmul.getRhs()),
                       &c = tile(matmul.getAcc());
        // m, k, n >= 1 (docs/AscendTarget.md#instructions); an empty product is skipped.
        // pto-isa's accumulating form names the accumulator twice (out, in):
        // its CPU back end has no three-operand TMATMUL_ACC.
        std::string operands =
            isa<TMatmulOp>(op) ? formatv("{0}, {1}, {2}", c.name, a.name, b.name).str()
                               : formatv("{0}, {0}, {1}, {2}", c.name, a.name, b.name).str();
        os << formatv("if ({0} > 0 && {1} > 0 && {2} > 0) {3}({4});\n",
                      a.validRows, a.validCols, b.validCols,
                      isa<TMatmulOp>(op) ? "TMATMUL" : "TMATMUL_ACC", operands);
        return success();
      })
      .Case([&](TAddOp o) { binary("TADD", o.getLhs(), o.getRhs(), o.getDst()); return success(); })
      .Case([&](TSubOp o) { binary("TSUB", o.getLhs(), o.getRhs(), o.getDst()); return success(); })
      .Case([&](TMulOp o) { binary("TMUL", o.getLhs(), o.getRhs(), o.getDst()); return success(); })
      .Case([&](TDivOp o) { binary("TDIV", o.getLhs(), o.getRhs(), o.getDst()); return success(); })
      .Case([&](TMaxOp o) { binary("TMAX", o.getLhs(), o.getRhs(), o.getDst()); return success(); })
      .Case([&](TMinOp o) { binary("TMIN", o.getLhs(), o.getRhs(), o.getDst()); return success(); })
      .Case([&](TAddSOp o) { scalar("TADDS", o.getSrc(), o.getScalar(), o.getDst()); return success(); })
      .Case([&](TSubSOp o) { scalar("TSUBS", o.getSrc(), o.getScalar(), o.getDst()); return success(); })
      .Case([&](TMulSOp o) { scalar("TMULS", o.getSrc(), o.getScalar(), o.getDst()); return success(); })
      .Case([&](TDivSOp o) { scalar("TDIVS", o.getSrc(), o.getScalar(), o.getDst()); return success(); })
      .Case([&](TMaxSOp o) { scalar("TMAXS", o.getSrc(), o.getScalar(), o.getDst()); return success(); })
      .Case([&](TMinSOp o) { scalar("TMINS", o.getSrc(), o.getScalar(), o.getDst()); return success(); })
      .Case([&](TExpOp o) { unary("TEXP", o.getSrc(), o.getDst()); return success(); })
      .Case([&](TAbsOp o) { unary("TABS", o.getSrc(), o.getDst()); return success(); })
      .Case([&](TNegOp o) { unary("TNEG", o.getSrc(), o.getDst()); return success(); })
      .Case([&](TSqrtOp o) { unary("TSQRT", o.getSrc(), o.getDst()); return success(); })
      .Case([&](TRsqrtOp o) { unary("TRSQRT", o.getSrc(), o.getDst()); return success(); })
      .Case([&](TRecipOp o) { unary("TRECIP", o.getSrc(), o.getDst()); return success(); })
      .Case([&](TRowExpandOp o) { unary("TROWEXPAND", o.getSrc(), o.getDst()); return success(); })
      .Case([&](TCvtOp o) {
        guarded(tile(o.getDst()),
                formatv("TCVT({0}, {1}, RoundMode::CAST_{2})", tile(o.getDst()).name,
                        tile(o.getSrc()).name,
                        o.getMode() == CastMode::NONE ? "RINT"
                                                      : stringifyCastMode(o.getMode())));
        return success();
      })
      .Case([&](TExpandSOp o) {
        guarded(tile(o.getDst()),
                formatv("TEXPANDS({0}, {1})", tile(o.getDst()).name, name(o.getScalar())));
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
      .Case([&](TRowExpandSubOp o) { binary("TROWEXPANDSUB", o.getFull(), o.getRowval(), o.getDst()); return success(); })
      .Case([&](TRowExpandMulOp o) { binary("TROWEXPANDMUL", o.getFull(), o.getRowval(), o.getDst()); return success(); })
      .Case([&](TRowExpandDivOp o) { binary("TROWEXPANDDIV", o.getFull(), o.getRowval(), o.getDst()); return success(); })
      .Case([&](SetFlagOp o) {
        os << formatv("set_flag({0}, {1}, EVENT_ID{2});\n", pipeName(o.getSrc()),
                      pipeName(o.getDst()), o.getEvent());
        return success();
      })
      .Case([&](WaitFlagOp o) {
        os << formatv("wait_flag({0}, {1}, EVENT_ID{2});\n", pipeName(o.getSrc()),
                      pipeName(o.getDst()), o.getEvent());
        return success();
      })
      .Case([&](PipeBarrierOp o) {
        os << formatv("pipe_barrier({0});\n", pipeName(o.getPipe()));
        return success();
      })
      .Default([&](Operation *other) {
        return other->emitError() << "pto-to-cpp cannot print '" << other->getName()
                                  << "'";
      });
}

//===----------------------------------------------------------------------===//
// Shared statements
//===----------------------------------------------------------------------===//

LogicalResult CppEmitter::emitBlock(Block &block, FunctionKind kind) {
  for (Operation &op : block)
    if (failed(emitOp(&op, kind)))
      return failure();
  return success();
}

LogicalResult CppEmitter::emitOp(Operation *op, FunctionKind kind) {
  if (op->getDialect() && isa<arith::ArithDialect>(op->getDialect()))
    return emitArith(op);
  if (isa<scf::IfOp, scf::ForOp, scf::YieldOp>(op))
    return emitScf(op, kind);
  if (isa<func::ReturnOp, ReturnOp>(op))
    return success();
  if (auto dim = dyn_cast<DimOp>(op)) {
    auto it = tensors.find(dim.getSource());
    if (it == tensors.end())
      return op->emitError() << "pto-to-cpp: unknown tensor";
    os << formatv("const int64_t {0} = {1};\n", bind(dim.getResult()),
                  it->second.dims[dim.getDim()]);
    return success();
  }
  if (auto reshape = dyn_cast<ReshapeOp>(op)) {
    auto it = tensors.find(reshape.getSource());
    if (it == tensors.end())
      return op->emitError() << "pto-to-cpp: unknown tensor";
    SmallVector<std::string> dims;
    unsigned dynamicIndex = 0;
    for (int64_t size : reshape.getStaticShape())
      dims.push_back(ShapedType::isDynamic(size)
                         ? name(reshape.getShape()[dynamicIndex++])
                         : std::to_string(size));
    // The control program checks that the sizes match the tensor (exit 3,
    // as in pto-run); roots and leaves get tensors it already checked.
    if (kind == FunctionKind::Control)
      os << formatv("pto_rt::check_reshape({0}, \"{1}\", {{{2}}, {{{3}});\n",
                    whereLiteral(op), tensorName(reshape.getSource()),
                    llvm::join(it->second.dims, ", "), llvm::join(dims, ", "));
    bindTensor(reshape.getResult(), it->second.pointer, dims);
    return success();
  }
  switch (kind) {
  case FunctionKind::Leaf:
    if (op->getDialect() && isa<ptoisa::PTOISADialect>(op->getDialect()))
      return emitIsa(op);
    return op->emitError() << "pto-to-cpp: '" << op->getName()
                           << "' in a leaf not lowered to pto_isa; compile "
                              "the module with `pto-opt "
                              "--pto-ascend-pipeline` first";
  case FunctionKind::Root:
    return emitRootOp(op);
  case FunctionKind::Control:
    return emitControlOp(op);
  }
  return failure();
}

LogicalResult CppEmitter::emitArith(Operation *op) {
  if (auto constant = dyn_cast<arith::ConstantOp>(op)) {
    Type type = constant.getType();
    std::string value;
    if (auto f = dyn_cast<FloatAttr>(constant.getValue()))
      value = floatLiteral(f.getValue(), type);
    else if (auto i = dyn_cast<IntegerAttr>(constant.getValue()))
      value = type.isSignlessInteger(1) ? (i.getValue().isZero() ? "false" : "true")
                                        : std::to_string(i.getValue().getSExtValue());
    else
      return op->emitError() << "pto-to-cpp cannot print this constant";
    os << formatv("const {0} {1} = {2};\n", cppType(type), bind(constant), value);
    return success();
  }
  if (op->getNumResults() != 1)
    return op->emitError() << "pto-to-cpp cannot print '" << op->getName() << "'";
  Value result = op->getResult(0);
  std::string type = cppType(result.getType());
  if (type.empty())
    return op->emitError() << "pto-to-cpp: no C++ type for " << result.getType();
  auto operand = [&](unsigned i) { return name(op->getOperand(i)); };
  std::string expr;
  auto infix = [&](StringRef sign) {
    expr = formatv("{0} {1} {2}", operand(0), sign, operand(1));
  };
  // Integer arithmetic wraps (no host UB); i1 is a C++ bool.
  bool wraps = type != "bool";
  auto wrapping = [&](StringRef helper, StringRef sign) {
    if (!wraps)
      return infix(sign);
    expr = formatv("ptogen::{0}<{1}>({2}, {3})", helper, type, operand(0),
                   operand(1));
  };
  // A divisor that is not a constant other than 0 and -1 is checked first.
  if (isa<arith::DivSIOp, arith::RemSIOp, arith::CeilDivSIOp,
          arith::FloorDivSIOp>(op)) {
    APInt divisor;
    if (!matchPattern(op->getOperand(1), m_ConstantInt(&divisor)) ||
        divisor.isZero() || divisor.isAllOnes())
      os << formatv("PTOGEN_CHECK_DIVISION({0}, {1}, {2});\n",
                    whereLiteral(op), operand(0), operand(1));
  }
  llvm::TypeSwitch<Operation *>(op)
      .Case<arith::AddIOp>([&](auto) { wrapping("wadd", "+"); })
      .Case<arith::SubIOp>([&](auto) { wrapping("wsub", "-"); })
      .Case<arith::MulIOp>([&](auto) { wrapping("wmul", "*"); })
      .Case<arith::AddFOp>([&](auto) { infix("+"); })
      .Case<arith::SubFOp>([&](auto) { infix("-"); })
      .Case<arith::MulFOp>([&](auto) { infix("*"); })
      .Case<arith::DivSIOp, arith::DivFOp>([&](auto) { infix("/"); })
      .Case<arith::RemSIOp>([&](auto) { infix("%"); })
      .Case<arith::AndIOp>([&](auto) { infix("&"); })
      .Case<arith::OrIOp>([&](auto) { infix("|"); })
      .Case<arith::XOrIOp>([&](auto) { infix("^"); })
      .Case<arith::CeilDivSIOp>([&](auto) {
        expr = formatv("ptogen::ceildiv({0}, {1})", operand(0), operand(1));
      })
      .Case<arith::FloorDivSIOp>([&](auto) {
        expr = formatv("ptogen::floordiv({0}, {1})", operand(0), operand(1));
      })
      .Case<arith::MaxSIOp, arith::MaximumFOp, arith::MaxNumFOp>([&](auto) {
        expr = formatv("({0} > {1} ? {0} : {1})", operand(0), operand(1));
      })
      .Case<arith::MinSIOp, arith::MinimumFOp, arith::MinNumFOp>([&](auto) {
        expr = formatv("({0} < {1} ? {0} : {1})", operand(0), operand(1));
      })
      .Case<arith::IndexCastOp, arith::ExtSIOp, arith::TruncIOp, arith::SIToFPOp,
            arith::FPToSIOp, arith::ExtFOp, arith::TruncFOp>([&](auto) {
        expr = formatv("({0}){1}", type, operand(0));
      })
      .Case<arith::SelectOp>([&](auto) {
        expr = formatv("{0} ? {1} : {2}", operand(0), operand(1), operand(2));
      })
      .Case<arith::CmpIOp>([&](arith::CmpIOp cmp) {
        StringRef sign;
        switch (cmp.getPredicate()) {
        case arith::CmpIPredicate::eq: sign = "=="; break;
        case arith::CmpIPredicate::ne: sign = "!="; break;
        case arith::CmpIPredicate::slt: sign = "<"; break;
        case arith::CmpIPredicate::sle: sign = "<="; break;
        case arith::CmpIPredicate::sgt: sign = ">"; break;
        case arith::CmpIPredicate::sge: sign = ">="; break;
        default: return;
        }
        infix(sign);
      });
  if (expr.empty())
    return op->emitError() << "pto-to-cpp cannot print '" << op->getName() << "'";
  os << formatv("const {0} {1} = {2};\n", type, bind(result), expr);
  return success();
}

LogicalResult CppEmitter::emitScf(Operation *op, FunctionKind kind) {
  if (isa<scf::YieldOp>(op)) {
    if (op->getNumOperands())
      return op->emitError() << "pto-to-cpp prints scf regions without results";
    return success();
  }
  if (op->getNumResults())
    return op->emitError() << "pto-to-cpp prints scf regions without results";
  if (auto ifOp = dyn_cast<scf::IfOp>(op)) {
    os << "if (" << name(ifOp.getCondition()) << ") {\n";
    os.indent();
    if (failed(emitBlock(ifOp.getThenRegion().front(), kind)))
      return failure();
    os.unindent();
    if (!ifOp.getElseRegion().empty()) {
      os << "} else {\n";
      os.indent();
      if (failed(emitBlock(ifOp.getElseRegion().front(), kind)))
        return failure();
      os.unindent();
    }
    os << "}\n";
    return success();
  }
  auto forOp = cast<scf::ForOp>(op);
  std::string iv = bind(forOp.getInductionVar());
  os << formatv("for (int64_t {0} = {1}; {0} < {2}; {0} += {3}) {{\n", iv,
                name(forOp.getLowerBound()), name(forOp.getUpperBound()),
                name(forOp.getStep()));
  os.indent();
  if (failed(emitBlock(*forOp.getBody(), kind)))
    return failure();
  os.unindent();
  os << "}\n";
  return success();
}

//===----------------------------------------------------------------------===//
// Roots
//===----------------------------------------------------------------------===//

/// Roots take their scalars (indices and dynamic dims, thousands of them for
/// SK-16's A3 tiles) through one array: a closure or parameter list that size
/// makes the host compiler's SROA quadratic (minutes per file).
LogicalResult CppEmitter::emitRoot(func::FuncOp func) {
  counter = 0;
  os << "static void " << func.getSymName()
     << "(pto_rt::RootInstance &ri, const int64_t *s";
  SmallVector<std::string> unpack;
  unsigned slot = 0;
  for (auto [i, arg] : llvm::enumerate(func.getBody().front().getArguments())) {
    std::string base = formatv("a{0}", i);
    if (auto tensor = dyn_cast<GMTensorType>(arg.getType())) {
      os << ", " << cppType(tensor.getElementType()) << " *" << base;
      SmallVector<std::string> dims;
      for (auto [d, size] : llvm::enumerate(tensor.getShape())) {
        if (!ShapedType::isDynamic(size)) {
          dims.push_back(std::to_string(size));
          continue;
        }
        std::string dim = formatv("{0}_d{1}", base, d);
        unpack.push_back(formatv("const int64_t {0} = s[{1}];", dim, slot++));
        dims.push_back(dim);
      }
      bindTensor(arg, base, dims);
    } else if (arg.getType().isIntOrIndex()) {
      unpack.push_back(formatv("const {0} {1} = ({0})s[{2}];",
                               cppType(arg.getType()), base, slot++));
      names[arg] = base;
    } else {
      os << ", " << cppType(arg.getType()) << " " << base;
      names[arg] = base;
    }
  }
  os << ") {\n";
  os.indent();
  for (const std::string &line : unpack)
    os << line << "\n";
  if (failed(emitBlock(func.getBody().front(), FunctionKind::Root)))
    return failure();
  os.unindent();
  os << "}\n\n";
  return success();
}

/// A workspace from `owner` (`ri`: one per root instance, `rt`: one for the
/// whole run), named like any tensor.
LogicalResult CppEmitter::emitWorkspace(WorkspaceOp workspace, StringRef owner) {
  auto type = cast<GMTensorType>(workspace.getType());
  std::string v = fresh();
  os << formatv("{0} *{1} = {2}.workspace<{0}>({3});\n",
                cppType(type.getElementType()), v, owner, type.getNumElements());
  SmallVector<std::string> dims;
  for (int64_t size : type.getShape())
    dims.push_back(std::to_string(size));
  bindTensor(workspace.getResult(), v, dims);
  return success();
}

LogicalResult CppEmitter::emitRootOp(Operation *op) {
  if (auto workspace = dyn_cast<WorkspaceOp>(op))
    return emitWorkspace(workspace, "ri");
  if (auto launch = dyn_cast<LaunchOp>(op)) {
    auto leaf = SymbolTable::lookupNearestSymbolFrom<func::FuncOp>(
        launch, launch.getCalleeAttr());
    auto core = leaf ? leaf->getAttrOfType<CoreKindAttr>("pto.leaf") : nullptr;
    if (!core)
      return launch.emitError() << "pto-to-cpp: launched function is not a leaf";
    SmallVector<std::string> deps;
    for (Value dep : launch.getDeps())
      deps.push_back(name(dep));
    os << formatv("const pto_rt::Token {0} = ri.launch(pto_rt::Core::{1}, \"{2}\", "
                  "{{{3}}, [=] {{ {2}({4}); });\n",
                  bind(launch.getToken()),
                  core.getValue() == CoreKind::cube ? "Cube" : "Vector",
                  launch.getCallee(), llvm::join(deps, ", "),
                  callArgs(launch.getArgs()));
    return success();
  }
  return op->emitError() << "pto-to-cpp: '" << op->getName()
                         << "' cannot appear in a root function";
}

//===----------------------------------------------------------------------===//
// Control program
//===----------------------------------------------------------------------===//

LogicalResult CppEmitter::emitControl(KernelOp kernel) {
  counter = 0;
  SmallVector<std::string> argNames;
  for (Attribute a : kernel.getArgNames())
    argNames.push_back(cast<StringAttr>(a).str());
  os << "void " << kernel.getSymName() << "(pto_rt::Runtime &rt";
  std::string params = parameterList(kernel.getBody().front(), argNames, false);
  if (!params.empty())
    os << ", " << params;
  os << ") {\n";
  os.indent();
  if (failed(emitBlock(kernel.getBody().front(), FunctionKind::Control)))
    return failure();
  os << "rt.flush();\n";
  os.unindent();
  os << "}\n\n";
  return success();
}

LogicalResult CppEmitter::emitControlOp(Operation *op) {
  if (auto loop = dyn_cast<LoopOp>(op)) {
    if (!loop.getInitArgs().empty() || loop.getNumResults())
      return loop.emitError()
             << "pto-to-cpp: loop '" << loop.getName()
             << "' carries values; the control program carries none after the "
                "tile-graph pipeline";
    Block &body = loop.getBody().front();
    std::string iv = bind(body.getArgument(0));
    std::string lb = name(loop.getLowerBound()), ub = name(loop.getUpperBound()),
                step = name(loop.getStep());
    APInt constantStep;
    if (!matchPattern(loop.getStep(), m_ConstantInt(&constantStep)) ||
        !constantStep.isStrictlyPositive())
      os << formatv("pto_rt::check_loop_step({0}, \"{1}\", {2});\n",
                    whereLiteral(loop), loop.getName(), step);
    // As in pto-run: the step past the last iteration is never computed, so
    // a loop may run up to INT64_MAX.
    os << formatv("for (int64_t {0} = {1}; {0} < {2}; {0} = uint64_t({2}) - "
                  "uint64_t({0}) <= uint64_t({3}) ? {2} : {0} + {3}) {{  // {4}\n",
                  iv, lb, ub, step, loop.getName());
    os.indent();
    if (failed(emitBlock(body, FunctionKind::Control)))
      return failure();
    os.unindent();
    os << "}\n";
    return success();
  }
  if (isa<YieldOp>(op))
    return success();
  if (isa<IsLoopBeginOp, IsLoopEndOp>(op)) {
    Value index = op->getOperand(0);
    auto arg = dyn_cast<BlockArgument>(index);
    auto loop = arg ? dyn_cast<LoopOp>(arg.getOwner()->getParentOp()) : nullptr;
    if (!loop)
      return op->emitError() << "pto-to-cpp: operand is not a pto.loop index";
    std::string expr =
        isa<IsLoopBeginOp>(op)
            ? formatv("{0} == {1}", name(index), name(loop.getLowerBound())).str()
            : formatv("uint64_t({2}) - uint64_t({0}) <= uint64_t({1})",
                      name(index), name(loop.getStep()),
                      name(loop.getUpperBound()))
                  .str();
    os << formatv("const bool {0} = {1};\n", bind(op->getResult(0)), expr);
    return success();
  }
  if (auto read = dyn_cast<ReadOp>(op)) {
    auto it = tensors.find(read.getTensor());
    if (it == tensors.end())
      return op->emitError() << "pto-to-cpp: unknown tensor";
    // Device-written GM must be complete before the control program reads it.
    if (!read->hasAttr("pto.host_ready"))
      os << "rt.flush();\n";
    // Bounds-checked against the tensor (exit 3, as in pto-run).
    SmallVector<std::string> indices;
    for (Value index : read.getIndices())
      indices.push_back(name(index));
    os << formatv("const int64_t {0} = pto_rt::read_scalar({1}, \"{2}\", {3}, "
                  "{{{4}}, {{{5}});\n",
                  bind(read.getResult()), whereLiteral(op),
                  tensorName(read.getTensor()), it->second.pointer,
                  llvm::join(indices, ", "),
                  llvm::join(it->second.dims, ", "));
    return success();
  }
  if (auto workspace = dyn_cast<WorkspaceOp>(op))
    return emitWorkspace(workspace, "rt");
  if (auto check = dyn_cast<CheckViewOp>(op)) {
    auto it = tensors.find(check.getTensor());
    if (it == tensors.end())
      return op->emitError() << "pto-to-cpp: unknown tensor";
    SmallVector<std::string> offsets, valid;
    for (Value v : check.getOffsets())
      offsets.push_back(name(v));
    for (Value v : check.getValidShape())
      valid.push_back(name(v));
    os << formatv("pto_rt::check_view({0}, \"{1}\", {{{2}}, {{{3}}, {{{4}});\n",
                  whereLiteral(op), tensorName(check.getTensor()),
                  llvm::join(it->second.dims, ", "), llvm::join(offsets, ", "),
                  llvm::join(valid, ", "));
    return success();
  }
  if (auto call = dyn_cast<RootCallOp>(op)) {
    int64_t depth = call.getStitch() ? call.getStitch()->getDepth() : 1;
    // The scalars travel in one shared array (see emitRoot), the pointers
    // as arguments; the runtime may run the root after this block ends.
    SmallVector<std::string> scalars, others;
    for (Value arg : call.getArgs()) {
      auto tensor = tensors.find(arg);
      if (tensor != tensors.end()) {
        others.push_back(tensor->second.pointer);
        for (auto [i, size] : llvm::enumerate(tensor->second.type.getShape()))
          if (ShapedType::isDynamic(size))
            scalars.push_back(tensor->second.dims[i]);
      } else if (arg.getType().isIntOrIndex()) {
        scalars.push_back("(int64_t)" + name(arg));
      } else {
        others.push_back(name(arg));
      }
    }
    std::string array = fresh();
    os << formatv("auto {0} = std::make_shared<const std::vector<int64_t>>("
                  "std::vector<int64_t>{{{1}});\n",
                  array, llvm::join(scalars, ", "));
    os << formatv("rt.root_call(\"{0}\", {1}, {2}, [=](pto_rt::RootInstance &ri) "
                  "{{ {0}(ri, {3}->data(){4}{5}); });\n",
                  call.getCallee(), rootCallSites++, depth, array,
                  others.empty() ? "" : ", ", llvm::join(others, ", "));
    return success();
  }
  return op->emitError() << "pto-to-cpp: '" << op->getName()
                         << "' in the control program; compile the module "
                            "with `pto-opt --pto-ascend-pipeline` first";
}

/// Kernel arguments some leaf writes (through roots, launches and reshapes).
static llvm::SmallBitVector writtenKernelArgs(KernelOp kernel) {
  ModuleOp module = kernel->getParentOfType<ModuleOp>();
  DenseMap<Operation *, llvm::SmallBitVector> memo;
  std::function<llvm::SmallBitVector(FunctionOpInterface)> written =
      [&](FunctionOpInterface func) -> llvm::SmallBitVector {
    auto it = memo.find(func);
    if (it != memo.end())
      return it->second;
    llvm::SmallBitVector bits(func.getNumArguments());
    auto mark = [&](Value tensor) {
      if (auto arg = dyn_cast<BlockArgument>(getAliasedTensor(tensor)))
        if (arg.getOwner()->getParentOp() == func.getOperation())
          bits.set(arg.getArgNumber());
    };
    func->walk([&](Operation *op) {
      if (auto store = dyn_cast<ptoisa::TStoreOp>(op))
        mark(store.getDst());
      else if (auto atomic = dyn_cast<AtomicAddOp>(op))
        mark(atomic->getOperand(1));
      else if (auto assemble = dyn_cast<AssembleOp>(op))
        mark(assemble->getOperand(1));
      OperandRange args = op->getOperands();
      FlatSymbolRefAttr callee = getCalleeAndArgs(op, args);
      if (!callee)
        return;
      auto target = module.lookupSymbol<FunctionOpInterface>(callee.getValue());
      if (!target)
        return;
      llvm::SmallBitVector inner = written(target);
      for (unsigned i : inner.set_bits())
        if (i < args.size())
          mark(args[i]);
    });
    memo[func] = bits;
    return bits;
  };
  return written(kernel);
}

void CppEmitter::emitHostMain(KernelOp kernel) {
  llvm::SmallBitVector outputs = writtenKernelArgs(kernel);
  os << "#if defined(PTO_HOST_MAIN)\n"
        "// Runs the kernel on DIR/<argument>.npy files (every argument is an "
        "input;\n// the arguments it writes are saved to OUTDIR).\n"
        "int main(int argc, char **argv) {\n";
  os.indent();
  os << "pto_rt::HostMain m(argc, argv);\n";
  SmallVector<std::string> args;
  for (auto [i, arg] : llvm::enumerate(kernel.getBody().front().getArguments())) {
    auto type = cast<GMTensorType>(arg.getType());
    std::string argName = cast<StringAttr>(kernel.getArgNames()[i]).str();
    std::string element = cppType(type.getElementType());
    SmallVector<std::string> dims;
    for (int64_t size : type.getShape())
      dims.push_back(std::to_string(ShapedType::isDynamic(size) ? -1 : size));
    os << formatv("auto &t{0} = m.input<{1}>(\"{2}\", {{{3}});\n", i, element,
                  argName, llvm::join(dims, ", "));
    if (kernel.getArgAttrOfType<UnitAttr>(i, "pto.cumulative"))
      os << formatv("m.check_cumulative(\"{0}\", t{1});\n", argName, i);
    args.push_back(formatv("t{0}.data()", i));
    for (auto [d, size] : llvm::enumerate(type.getShape()))
      if (ShapedType::isDynamic(size))
        args.push_back(formatv("t{0}.dim({1})", i, d));
  }
  os << kernel.getSymName() << "(m.runtime()" << (args.empty() ? "" : ", ")
     << llvm::join(args, ", ") << ");\n";
  os << "m.runtime().finish();\n";
  for (unsigned i : outputs.set_bits())
    os << formatv("m.output(\"{0}\", t{1});\n",
                  cast<StringAttr>(kernel.getArgNames()[i]).str(), i);
  os << "return m.finish();\n";
  os.unindent();
  os << "}\n#endif // PTO_HOST_MAIN\n";
}

//===----------------------------------------------------------------------===//
// Entry points
//===----------------------------------------------------------------------===//

LogicalResult mlir::pto::translateToCpp(ModuleOp module, raw_ostream &os) {
  CppEmitter emitter(os);
  return emitter.emitModule(module);
}

void mlir::pto::registerToCppTranslation() {
  TranslateFromMLIRRegistration registration(
      "pto-to-cpp", "print a compiled pto module as pto-isa C++",
      [](Operation *op, raw_ostream &os) -> LogicalResult {
        auto module = dyn_cast<ModuleOp>(op);
        if (!module)
          return op->emitError() << "pto-to-cpp translates a builtin.module";
        return translateToCpp(module, os);
      },
      [](DialectRegistry &registry) {
        registry.insert<PTODialect, ptoisa::PTOISADialect, arith::ArithDialect,
                        func::FuncDialect, scf::SCFDialect>();
      });
}
