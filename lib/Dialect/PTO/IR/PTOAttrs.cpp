//===- PTOAttrs.cpp - pto attributes --------------------------------------===//

#include "pto/Dialect/PTO/IR/PTODialect.h"

#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/SmallSet.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::pto;

#include "pto/Dialect/PTO/IR/PTOEnums.cpp.inc"
#define GET_ATTRDEF_CLASSES
#include "pto/Dialect/PTO/IR/PTOAttrs.cpp.inc"

void PTODialect::registerAttributes() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "pto/Dialect/PTO/IR/PTOAttrs.cpp.inc"
      >();
}

//===----------------------------------------------------------------------===//
// RuntimeOptionsAttr
//===----------------------------------------------------------------------===//

static LogicalResult checkRange(function_ref<InFlightDiagnostic()> emitError,
                                StringRef field, std::optional<int64_t> value,
                                int64_t lo, int64_t hi) {
  if (value && (*value < lo || *value > hi))
    return emitError() << "runtime option '" << field << "' = " << *value
                       << " is out of range: it must be in [" << lo << ", "
                       << hi << "]";
  return success();
}

LogicalResult
RuntimeOptionsAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                           std::optional<int64_t> stitchFunctionMaxNum,
                           std::optional<int64_t> deviceSchedMode,
                           ArrayAttr readyOnHostTensors,
                           std::optional<int64_t> maxWorkspaceKb,
                           std::optional<int64_t> deviceSchedParallelism) {
  if (failed(checkRange(emitError, "stitch_function_max_num",
                        stitchFunctionMaxNum, 1, 1024)) ||
      failed(
          checkRange(emitError, "device_sched_mode", deviceSchedMode, 0, 3)) ||
      failed(checkRange(emitError, "max_workspace_kb", maxWorkspaceKb, 0,
                        (int64_t(1) << 31) - 1)) ||
      failed(checkRange(emitError, "device_sched_parallelism",
                        deviceSchedParallelism, 1, 8)))
    return failure();
  if (readyOnHostTensors) {
    llvm::SmallSet<StringRef, 4> seen;
    for (Attribute name : readyOnHostTensors) {
      auto str = dyn_cast<StringAttr>(name);
      if (!str)
        return emitError() << "runtime option 'ready_on_host_tensors' must "
                              "list kernel argument names as strings, got "
                           << name;
      if (!seen.insert(str.getValue()).second)
        return emitError() << "runtime option 'ready_on_host_tensors' names '"
                           << str.getValue() << "' twice";
    }
  }
  return success();
}

//===----------------------------------------------------------------------===//
// MergeSettingAttr
//===----------------------------------------------------------------------===//

namespace {
enum ReuseSide : int64_t { kNoSide = 0, kLeft = 1, kRight = 2, kAuto = 3 };
} // namespace

static StringRef sideName(int64_t side) {
  switch (side) {
  case kLeft:
    return "left";
  case kRight:
    return "right";
  case kAuto:
    return "auto";
  default:
    return "";
  }
}

MergeSettingAttr MergeSettingAttr::parseBody(AsmParser &parser) {
  SmallVector<int64_t> keys, counts, sides;
  auto parseEntry = [&]() -> ParseResult {
    int64_t key = 0, count = 0, side = kNoSide;
    if (parser.parseInteger(key) || parser.parseColon())
      return failure();
    if (succeeded(parser.parseOptionalLParen())) {
      std::string sideStr;
      if (parser.parseInteger(count) || parser.parseComma() ||
          parser.parseString(&sideStr) || parser.parseRParen())
        return failure();
      side = llvm::StringSwitch<int64_t>(sideStr)
                 .Case("left", kLeft)
                 .Case("right", kRight)
                 .Case("auto", kAuto)
                 .Default(-1);
      if (side < 0)
        return parser.emitError(parser.getCurrentLocation())
               << "merge setting side must be \"left\", \"right\" or "
                  "\"auto\", got \""
               << sideStr << "\"";
    } else if (parser.parseInteger(count)) {
      return failure();
    }
    keys.push_back(key);
    counts.push_back(count);
    sides.push_back(side);
    return success();
  };
  if (parser.parseCommaSeparatedList(AsmParser::Delimiter::Braces, parseEntry))
    return {};
  return parser.getChecked<MergeSettingAttr>(parser.getContext(), keys, counts,
                                             sides);
}

void MergeSettingAttr::printBody(AsmPrinter &printer) const {
  printer << '{';
  for (size_t i = 0, e = getKeys().size(); i < e; ++i) {
    if (i)
      printer << ", ";
    printer << getKeys()[i] << " : ";
    if (getSides()[i] == kNoSide)
      printer << getCounts()[i];
    else
      printer << '(' << getCounts()[i] << ", \"" << sideName(getSides()[i])
              << "\")";
  }
  printer << '}';
}

Attribute MergeSettingAttr::parse(AsmParser &parser, Type) {
  if (parser.parseLess())
    return {};
  MergeSettingAttr attr = parseBody(parser);
  if (!attr || parser.parseGreater())
    return {};
  return attr;
}

void MergeSettingAttr::print(AsmPrinter &printer) const {
  printer << '<';
  printBody(printer);
  printer << '>';
}

LogicalResult
MergeSettingAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                         ArrayRef<int64_t> keys, ArrayRef<int64_t> counts,
                         ArrayRef<int64_t> sides) {
  if (keys.size() != counts.size() || keys.size() != sides.size())
    return emitError() << "merge setting needs one count and one side per key";
  llvm::SmallSet<int64_t, 8> seen;
  for (size_t i = 0; i < keys.size(); ++i) {
    if (!seen.insert(keys[i]).second)
      return emitError() << "merge setting key " << keys[i]
                         << " appears twice; give each group one value";
    if (keys[i] < -2)
      return emitError()
             << "merge setting key " << keys[i]
             << " is invalid: use -1 (default of every group), k >= 0 (the "
                "group of hash order k) or -2 (vec_nbuffer_setting only)";
    if (keys[i] == -2) {
      if (counts[i] != 0 && counts[i] != 1)
        return emitError() << "merge setting key -2 takes 0 (automatic) or 1 "
                              "(manual) multi-input/output merging, got "
                           << counts[i];
      continue;
    }
    if (counts[i] < 1)
      return emitError() << "merge setting value " << counts[i] << " for key "
                         << keys[i] << " must be >= 1 (1 = no merge)";
    if (sides[i] < kNoSide || sides[i] > kAuto)
      return emitError() << "merge setting side code " << sides[i]
                         << " is invalid";
  }
  return success();
}

std::optional<int64_t> MergeSettingAttr::getCountFor(int64_t group) const {
  std::optional<int64_t> fallback;
  for (size_t i = 0, e = getKeys().size(); i < e; ++i) {
    if (getKeys()[i] == group)
      return getCounts()[i];
    if (getKeys()[i] == -1)
      fallback = getCounts()[i];
  }
  return fallback;
}

//===----------------------------------------------------------------------===//
// PassOptionsAttr
//===----------------------------------------------------------------------===//

Attribute PassOptionsAttr::parse(AsmParser &parser, Type) {
  MergeSettingAttr vecNBuffer, cubeL1Reuse, cubeNBuffer;
  auto parseField = [&]() -> ParseResult {
    SMLoc loc = parser.getCurrentLocation();
    StringRef name;
    if (parser.parseKeyword(&name) || parser.parseEqual())
      return failure();
    MergeSettingAttr *slot = llvm::StringSwitch<MergeSettingAttr *>(name)
                                 .Case("vec_nbuffer_setting", &vecNBuffer)
                                 .Case("cube_l1_reuse_setting", &cubeL1Reuse)
                                 .Case("cube_nbuffer_setting", &cubeNBuffer)
                                 .Default(nullptr);
    if (!slot)
      return parser.emitError(loc)
             << "unknown pass option '" << name
             << "'; expected vec_nbuffer_setting, cube_l1_reuse_setting or "
                "cube_nbuffer_setting (sg_set_scope is the pto.scope op)";
    if (*slot)
      return parser.emitError(loc)
             << "pass option '" << name << "' given twice";
    *slot = MergeSettingAttr::parseBody(parser);
    return success(static_cast<bool>(*slot));
  };
  if (parser.parseCommaSeparatedList(AsmParser::Delimiter::LessGreater,
                                     parseField))
    return {};
  return parser.getChecked<PassOptionsAttr>(parser.getContext(), vecNBuffer,
                                            cubeL1Reuse, cubeNBuffer);
}

void PassOptionsAttr::print(AsmPrinter &printer) const {
  printer << '<';
  bool first = true;
  auto printField = [&](StringRef name, MergeSettingAttr setting) {
    if (!setting)
      return;
    if (!first)
      printer << ", ";
    first = false;
    printer << name << " = ";
    setting.printBody(printer);
  };
  printField("vec_nbuffer_setting", getVecNbufferSetting());
  printField("cube_l1_reuse_setting", getCubeL1ReuseSetting());
  printField("cube_nbuffer_setting", getCubeNbufferSetting());
  printer << '>';
}

LogicalResult PassOptionsAttr::verify(
    function_ref<InFlightDiagnostic()> emitError, MergeSettingAttr vecNBuffer,
    MergeSettingAttr cubeL1Reuse, MergeSettingAttr cubeNBuffer) {
  auto check = [&](StringRef name, MergeSettingAttr setting, bool allowSides,
                   bool allowMinusTwo) -> LogicalResult {
    if (!setting)
      return success();
    for (size_t i = 0, e = setting.getKeys().size(); i < e; ++i) {
      if (!allowSides && setting.getSides()[i] != kNoSide)
        return emitError() << name
                           << ": a (count, side) value is only "
                              "allowed in cube_l1_reuse_setting";
      if (!allowMinusTwo && setting.getKeys()[i] == -2)
        return emitError() << name
                           << ": key -2 is only allowed in "
                              "vec_nbuffer_setting";
    }
    return success();
  };
  return success(
      succeeded(check("vec_nbuffer_setting", vecNBuffer, false, true)) &&
      succeeded(check("cube_l1_reuse_setting", cubeL1Reuse, true, false)) &&
      succeeded(check("cube_nbuffer_setting", cubeNBuffer, false, false)));
}

//===----------------------------------------------------------------------===//
// CubeTileAttr
//===----------------------------------------------------------------------===//

Attribute CubeTileAttr::parse(AsmParser &parser, Type) {
  SmallVector<int64_t> m, k, n;
  bool splitK = false;
  auto parsePair = [&](StringRef name,
                       SmallVectorImpl<int64_t> &values) -> ParseResult {
    if (parser.parseKeyword(name) || parser.parseEqual())
      return failure();
    return parser.parseCommaSeparatedList(AsmParser::Delimiter::Square,
                                          [&]() -> ParseResult {
                                            int64_t v;
                                            if (parser.parseInteger(v))
                                              return failure();
                                            values.push_back(v);
                                            return success();
                                          });
  };
  if (parser.parseLess() || parsePair("m", m) || parser.parseComma() ||
      parsePair("k", k) || parser.parseComma() || parsePair("n", n))
    return {};
  if (succeeded(parser.parseOptionalComma())) {
    if (parser.parseKeyword("split_k"))
      return {};
    splitK = true;
  }
  if (parser.parseGreater())
    return {};
  return parser.getChecked<CubeTileAttr>(parser.getContext(), m, k, n, splitK);
}

void CubeTileAttr::print(AsmPrinter &printer) const {
  printer << "<m = [" << getM() << "], k = [" << getK() << "], n = [" << getN()
          << "]";
  if (getSplitK())
    printer << ", split_k";
  printer << '>';
}

LogicalResult CubeTileAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                                   ArrayRef<int64_t> m, ArrayRef<int64_t> k,
                                   ArrayRef<int64_t> n, bool) {
  for (auto [name, values] :
       {std::pair<StringRef, ArrayRef<int64_t>>{"m", m}, {"k", k}, {"n", n}}) {
    if (values.size() != 2)
      return emitError() << "cube tile '" << name << "' must be [L0, L1], got "
                         << values.size() << " values";
    int64_t l0 = values[0], l1 = values[1];
    if (l0 <= 0 || l0 > l1)
      return emitError() << "cube tile '" << name << "' = [" << l0 << ", " << l1
                         << "] violates 0 < " << name << "L0 <= " << name
                         << "L1";
    if (l1 % l0 != 0)
      return emitError() << "cube tile '" << name << "' = [" << l0 << ", " << l1
                         << "]: " << name << "L1 must be a multiple of " << name
                         << "L0";
  }
  return success();
}

//===----------------------------------------------------------------------===//
// VecTileAttr, ScopeAttr
//===----------------------------------------------------------------------===//

LogicalResult VecTileAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                                  ArrayRef<int64_t> dims) {
  if (dims.empty() || dims.size() > 4)
    return emitError() << "vector tile must have 1 to 4 dims, got "
                       << dims.size();
  for (int64_t dim : dims)
    if (dim <= 0)
      return emitError() << "vector tile dims must be positive, got [" << dims
                         << "]";
  return success();
}

int64_t VecTileAttr::getNumElements() const {
  int64_t n = 1;
  for (int64_t d : getDims())
    n *= d;
  return n;
}

LogicalResult ScopeAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                                int64_t id, bool, bool) {
  if (id < 0 || id > std::numeric_limits<int32_t>::max())
    return emitError() << "scope id " << id
                       << " is invalid: a pto.scope needs an id in [0, 2^31-1] "
                          "(sg_set_scope=-1 means no scope: write no region)";
  return success();
}

LogicalResult
StitchPlanAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                       int64_t depth, int64_t workspaceBytes, int64_t launches,
                       StringRef mode) {
  if (depth < 1 || depth > 1024)
    return emitError() << "stitch depth " << depth
                       << " must be in [1, 1024] (the runtime's hard cap)";
  if (workspaceBytes < 0 || launches < 0)
    return emitError() << "stitch plan sizes must be non-negative";
  if (mode != "memory" && mode != "count")
    return emitError() << "stitch mode '" << mode
                       << "' must be \"memory\" (max_workspace_kb) or "
                          "\"count\" (stitch_function_max_num)";
  return success();
}
