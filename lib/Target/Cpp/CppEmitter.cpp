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
// This file: names and types, the module, the statements every kind of
// function shares, the entry points. Leaf bodies are in EmitLeaf.cpp, roots
// and the control program in EmitControl.cpp.
//
//===----------------------------------------------------------------------===//

#include "pto/Target/Cpp/CppEmitter.h"
#include "EmitterImpl.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
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
// Names and types
//===----------------------------------------------------------------------===//

std::string CppEmitter::cppType(Type type) {
  if (type.isIndex() || type.isSignlessInteger(64))
    return "int64_t";
  if (type.isSignlessInteger(32))
    return "int32_t";
  if (type.isUnsignedInteger(32)) // TSORT32's index rows
    return "uint32_t";
  if (type.isSignlessInteger(16))
    return "int16_t";
  if (type.isSignlessInteger(8))
    return "int8_t";
  if (type.isUnsignedInteger(8))
    return "uint8_t"; // packed bit masks (TCMP / TSEL)
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
    return formatv("TileLeft<{0}, {1}, {2}, DYNAMIC, DYNAMIC>", element, rows,
                   cols);
  case MemorySpace::l0b:
    return formatv("TileRight<{0}, {1}, {2}, DYNAMIC, DYNAMIC>", element, rows,
                   cols);
  case MemorySpace::l0c:
    return formatv("TileAcc<{0}, {1}, {2}, DYNAMIC, DYNAMIC>", element, rows,
                   cols);
  case MemorySpace::l1:
    // nz: outer column-major, inner row-major fractals; zn: the reverse.
    return type.getLayout() == TileLayout::zn
               ? formatv(
                     "Tile<TileType::Mat, {0}, {1}, {2}, BLayout::RowMajor, "
                     "DYNAMIC, DYNAMIC, SLayout::ColMajor, 512>",
                     element, rows, cols)
                     .str()
               : formatv(
                     "Tile<TileType::Mat, {0}, {1}, {2}, BLayout::ColMajor, "
                     "DYNAMIC, DYNAMIC, SLayout::RowMajor, 512>",
                     element, rows, cols)
                     .str();
  case MemorySpace::ub:
    // PadValue::Zero: a GM->UB copy whose valid columns do not fill whole
    // 32-byte blocks pads the block (docs/AscendTarget.md#globaltensor).
    return formatv("Tile<TileType::Vec, {0}, {1}, {2}, BLayout::{3}, DYNAMIC, "
                   "DYNAMIC, SLayout::NoneBox, 512, PadValue::Zero>",
                   element, rows, cols,
                   type.getLayout() == TileLayout::dn ? "ColMajor"
                                                      : "RowMajor");
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
std::string mlir::pto::cpp_emitter::whereLiteral(Operation *op) {
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
std::string mlir::pto::cpp_emitter::tensorName(Value tensor) {
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
      "alignas",  "alignof",  "and",       "asm",    "auto",     "bool",
      "break",    "case",     "catch",     "char",   "class",    "const",
      "continue", "default",  "delete",    "do",     "double",   "else",
      "enum",     "explicit", "export",    "extern", "false",    "float",
      "for",      "friend",   "goto",      "if",     "inline",   "int",
      "long",     "mutable",  "namespace", "new",    "not",      "operator",
      "or",       "private",  "protected", "public", "register", "return",
      "short",    "signed",   "sizeof",    "static", "struct",   "switch",
      "template", "this",     "throw",     "true",   "try",      "typedef",
      "typename", "union",    "unsigned",  "using",  "virtual",  "void",
      "volatile", "while",    "xor",       "rt",     "m",        "ri"};
  std::string id;
  for (char c : pythonName)
    id += llvm::isAlnum(c) || c == '_' ? c : '_';
  if (id.empty() || llvm::isDigit(id[0]))
    id = "arg_" + id;
  if (keywords.contains(id))
    id += "_";
  return id;
}

std::string
CppEmitter::parameterList(Block &entry, ArrayRef<std::string> argNames,
                          bool device,
                          SmallVectorImpl<std::string> *parameterNames) {
  SmallVector<std::string> params;
  auto named = [&](const std::string &name) {
    if (parameterNames)
      parameterNames->push_back(name);
  };
  for (auto [i, arg] : llvm::enumerate(entry.getArguments())) {
    std::string base = argNames.empty() ? formatv("a{0}", i).str()
                                        : cppIdentifier(argNames[i]);
    if (auto tensor = dyn_cast<GMTensorType>(arg.getType())) {
      std::string element = cppType(tensor.getElementType());
      params.push_back(
          formatv("{0}{1} *{2}", device ? "__gm__ " : "", element, base));
      named(base);
      SmallVector<std::string> dims;
      for (auto [d, size] : llvm::enumerate(tensor.getShape())) {
        if (ShapedType::isDynamic(size)) {
          std::string dim = formatv("{0}_d{1}", base, d);
          params.push_back("int64_t " + dim);
          named(dim);
          dims.push_back(dim);
        } else {
          dims.push_back(std::to_string(size));
        }
      }
      bindTensor(arg, base, dims);
      continue;
    }
    params.push_back(cppType(arg.getType()) + " " + base);
    named(base);
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
        "#endif\n"
        "// Where an MSCATTER scatters (its row indices are checked against "
        "the tensor in the host emulation).\n"
        "#if defined(__CPU_SIM) && !defined(PTO_KERNELS_ONLY)\n"
        "#define PTOGEN_SCATTER_SITE(where, name) "
        "(pto::sim::scatter_site = {where, name})\n"
        "#else\n"
        "#define PTOGEN_SCATTER_SITE(where, name) ((void)0)\n"
        "#endif\n\n";
  // pto-isa's CPU back end runs kernels one after another and stubs the
  // flags (include/pto/common/cpu_stub.hpp) but has no intra-block flags:
  // the same no-ops there, so split MIX leaves compile against it too.
  bool mixLeaves = llvm::any_of(module.getOps<func::FuncOp>(), [](auto f) {
    return f->hasAttr(ptoisa::kMixAivAttrName);
  });
  if (mixLeaves)
    os << "#if defined(__CPU_SIM) && !defined(PTO_MLIR_HOST_EMULATION)\n"
          "inline void set_intra_block(pipe_t, int) {}\n"
          "inline void wait_intra_block(pipe_t, int) {}\n"
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
      // The emitted C++ reads NZ weights as 2-D GlobalTensors of fractals.
      for (unsigned i = 0, e = kernel.getNumArguments(); i < e; ++i)
        if (auto layout =
                kernel.getArgAttrOfType<StringAttr>(i, kLayoutAttrName);
            layout && layout.getValue() == kLayoutNZ &&
            cast<GMTensorType>(kernel.getArgumentTypes()[i]).getRank() != 2)
          return kernel.emitError()
                 << "pto-to-cpp: argument '"
                 << cast<StringAttr>(kernel.getArgNames()[i]).getValue()
                 << "' of @" << kernel.getSymName() << " is NZ ("
                 << kLayoutAttrName << " = \"" << kLayoutNZ << "\") of rank "
                 << cast<GMTensorType>(kernel.getArgumentTypes()[i]).getRank()
                 << "; the emitted C++ reads 2-D NZ weights only: pass each "
                    "matrix as its own argument";
      kernels.push_back(kernel);
    } else {
      return op.emitError()
             << "pto-to-cpp cannot print a top-level '" << op.getName() << "'";
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
  for (func::FuncOp leaf : leaves) {
    // AIV 1's part of a MIX leaf is called only by AIV 0's kernel.
    if (isMixAiv1Part(leaf))
      continue;
    os << "void " << leaf.getSymName() << "("
       << parameterList(leaf.getBody().front(), {}, /*device=*/true) << ");\n";
  }
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
  if (isa<tensor::FromElementsOp, tensor::ExtractOp>(op))
    return emitScalarTable(op);
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
      value = type.isSignlessInteger(1)
                  ? (i.getValue().isZero() ? "false" : "true")
                  : std::to_string(i.getValue().getSExtValue());
    else
      return op->emitError() << "pto-to-cpp cannot print this constant";
    os << formatv("const {0} {1} = {2};\n", cppType(type), bind(constant),
                  value);
    return success();
  }
  if (op->getNumResults() != 1)
    return op->emitError() << "pto-to-cpp cannot print '" << op->getName()
                           << "'";
  Value result = op->getResult(0);
  std::string type = cppType(result.getType());
  if (type.empty())
    return op->emitError() << "pto-to-cpp: no C++ type for "
                           << result.getType();
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
      os << formatv("PTOGEN_CHECK_DIVISION({0}, {1}, {2});\n", whereLiteral(op),
                    operand(0), operand(1));
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
      .Case<arith::IndexCastOp, arith::ExtSIOp, arith::TruncIOp,
            arith::SIToFPOp, arith::FPToSIOp, arith::ExtFOp, arith::TruncFOp>(
          [&](auto) { expr = formatv("({0}){1}", type, operand(0)); })
      .Case<arith::SelectOp>([&](auto) {
        expr = formatv("{0} ? {1} : {2}", operand(0), operand(1), operand(2));
      })
      .Case<arith::CmpIOp>([&](arith::CmpIOp cmp) {
        StringRef sign;
        switch (cmp.getPredicate()) {
        case arith::CmpIPredicate::eq:
          sign = "==";
          break;
        case arith::CmpIPredicate::ne:
          sign = "!=";
          break;
        case arith::CmpIPredicate::slt:
          sign = "<";
          break;
        case arith::CmpIPredicate::sle:
          sign = "<=";
          break;
        case arith::CmpIPredicate::sgt:
          sign = ">";
          break;
        case arith::CmpIPredicate::sge:
          sign = ">=";
          break;
        default:
          return;
        }
        infix(sign);
      });
  if (expr.empty())
    return op->emitError() << "pto-to-cpp cannot print '" << op->getName()
                           << "'";
  os << formatv("const {0} {1} = {2};\n", type, bind(result), expr);
  return success();
}

/// The per-iteration scalars of a rolled piece loop (pto-isa-roll-pieces):
/// a local array and one element of it per iteration.
LogicalResult CppEmitter::emitScalarTable(Operation *op) {
  if (auto table = dyn_cast<tensor::FromElementsOp>(op)) {
    auto type = table.getType();
    std::string element = cppType(type.getElementType());
    if (type.getRank() != 1 || element.empty())
      return op->emitError()
             << "pto-to-cpp prints 1-D tables of scalars only (the per-piece "
                "tables of pto-isa-roll-pieces), not "
             << type;
    SmallVector<std::string> elements;
    for (Value v : table.getElements())
      elements.push_back(name(v));
    os << formatv("const {0} {1}[{2}] = {{{3}};\n", element, bind(table),
                  type.getDimSize(0), llvm::join(elements, ", "));
    return success();
  }
  auto extract = cast<tensor::ExtractOp>(op);
  std::string element = cppType(extract.getType());
  if (extract.getIndices().size() != 1 || element.empty())
    return op->emitError()
           << "pto-to-cpp prints 1-D tables of scalars only (the per-piece "
              "tables of pto-isa-roll-pieces), not "
           << extract.getTensor().getType();
  os << formatv("const {0} {1} = {2}[{3}];\n", element, bind(extract),
                name(extract.getTensor()), name(extract.getIndices()[0]));
  return success();
}

LogicalResult CppEmitter::declareScalarResults(Operation *op,
                                               ValueRange initial) {
  for (auto [i, result] : llvm::enumerate(op->getResults())) {
    std::string type = cppType(result.getType());
    if (type.empty())
      return op->emitError()
             << "pto-to-cpp: result #" << i << " of type " << result.getType()
             << " is carried out of a region; the control program carries "
                "scalars only (tiles and tensors live in workspaces after the "
                "tile-graph pipeline)";
    std::string init = initial.empty() ? "{}" : " = " + name(initial[i]);
    os << formatv("{0} {1}{2};\n", type, bind(result), init);
  }
  return success();
}

void CppEmitter::assignYielded(Operation *yield) {
  for (auto [target, value] :
       llvm::zip(yield->getParentOp()->getResults(), yield->getOperands()))
    os << formatv("{0} = {1};\n", name(target), name(value));
}

LogicalResult CppEmitter::emitScf(Operation *op, FunctionKind kind) {
  if (isa<scf::YieldOp>(op)) {
    if (!isa<scf::IfOp>(op->getParentOp()) && op->getNumOperands())
      return op->emitError() << "pto-to-cpp prints scf.for without results";
    assignYielded(op);
    return success();
  }
  if (auto ifOp = dyn_cast<scf::IfOp>(op)) {
    // Results are variables both branches assign (scf.if with results has
    // an else region).
    if (failed(declareScalarResults(op, {})))
      return failure();
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
  if (forOp.getNumResults())
    return op->emitError() << "pto-to-cpp prints scf.for without results";
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
                        func::FuncDialect, scf::SCFDialect,
                        tensor::TensorDialect>();
      });
}
