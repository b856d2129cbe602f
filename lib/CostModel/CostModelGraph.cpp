//===- CostModelGraph.cpp - the launch graph as JSON ----------------------===//
//
// Part of the cost model (docs/CostModel.md): a recorded launch graph
// written as JSON (pto-run --sim-dump-graph) and read back, so that
// pto-tune can schedule it again without re-running the interpreter.
//
//===----------------------------------------------------------------------===//

#include "pto/CostModel/CostModel.h"

#include "pto/Dialect/PTO/IR/PTODialect.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/JSON.h"

using namespace mlir;
using namespace mlir::pto;
using namespace mlir::pto::cost;

llvm::Error CostModel::loadGraph(StringRef text, std::string *warning) {
  auto fail = [](const Twine &message) {
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "launch graph: " + message);
  };
  llvm::Expected<llvm::json::Value> parsed = llvm::json::parse(text);
  if (!parsed)
    return parsed.takeError();
  const llvm::json::Object *root = parsed->getAsObject();
  const llvm::json::Object *tensors =
      root ? root->getObject("tensors") : nullptr;
  const llvm::json::Array *list = root ? root->getArray("launches") : nullptr;
  if (!tensors || !list)
    return fail("expected an object with 'tensors' and 'launches'");
  if (std::optional<bool> persistent = root->getBoolean("persistent")) {
    options.persistent = *persistent;
  } else if (root->get("persistent")) {
    return fail("'persistent' is true or false");
  }
  if (options.persistent) {
    options.launchOverheadUs = 0;
    options.submitUs = 0;
    options.fairnessOverheadUs = 0;
  }
  llvm::StringMap<std::pair<const void *, uint64_t>> keys;
  for (auto &[name, size] : *tensors) {
    auto bytes = size.getAsUINT64();
    if (!bytes)
      return fail("tensor '" + name.str() + "' needs a size in bytes");
    graphTensors.push_back(std::make_unique<std::string>(name.str()));
    keys[name.str()] = {graphTensors.back().get(), *bytes};
  }
  for (auto [i, value] : llvm::enumerate(*list)) {
    const llvm::json::Object *l = value.getAsObject();
    if (!l)
      return fail("launch " + Twine(i) + " is not an object");
    LaunchRecord record;
    record.id = i;
    record.instance = l->getInteger("instance").value_or(i);
    record.stitch = l->getInteger("stitch").value_or(-1);
    // A dumped run's merged stitches (device_task: the first stitch of its
    // device task).
    if (auto task = l->getInteger("device_task");
        task && record.stitch >= 0 && options.mergeStitches) {
      auto [it, inserted] = stitchGroup.try_emplace(record.stitch, *task);
      if (inserted && *task != record.stitch)
        ++mergedStitches;
    }
    record.leaf =
        l->getString("name").value_or("launch" + std::to_string(i)).str();
    auto pool = l->getString("pool").value_or("vector");
    if (pool != "cube" && pool != "vector")
      return fail("launch " + Twine(i) + ": pool is cube or vector");
    record.cube = pool == "cube";
    record.mix = record.cube && l->getBoolean("mix").value_or(false);
    record.onChipBytes = l->getInteger("on_chip_bytes").value_or(0);
    if (const llvm::json::Array *deps = l->getArray("deps"))
      for (const llvm::json::Value &d : *deps) {
        auto dep = d.getAsUINT64();
        if (!dep || *dep >= i)
          return fail("launch " + Twine(i) + ": deps name earlier launches");
        record.deps.push_back(*dep);
      }
    beginRecord(std::move(record));
    for (StringRef kind : {"reads", "writes", "atomics"}) {
      const llvm::json::Array *accesses = l->getArray(kind);
      if (!accesses)
        continue;
      for (const llvm::json::Value &a : *accesses) {
        const llvm::json::Object *access = a.getAsObject();
        auto name = access ? access->getString("tensor") : std::nullopt;
        auto key = name ? keys.find(*name) : keys.end();
        if (key == keys.end())
          return fail("launch " + Twine(i) +
                      ": access of an undeclared tensor");
        uint64_t bytes =
            access->getInteger("bytes").value_or(key->second.second);
        bool workspace = access->getBoolean("workspace").value_or(false);
        // The region: the box {"shape", "lo", "hi"} (hi exclusive), or the
        // whole tensor without one.
        SmallVector<int64_t, 4> shape, lo, sizes;
        if (const llvm::json::Object *region = access->getObject("region")) {
          const llvm::json::Array *lists[3] = {region->getArray("shape"),
                                               region->getArray("lo"),
                                               region->getArray("hi")};
          bool ok = lists[0] && lists[1] && lists[2] &&
                    lists[0]->size() == lists[1]->size() &&
                    lists[0]->size() == lists[2]->size() && !lists[0]->empty();
          for (size_t d = 0; ok && d < lists[0]->size(); ++d) {
            auto n = (*lists[0])[d].getAsInteger();
            auto l = (*lists[1])[d].getAsInteger();
            auto h = (*lists[2])[d].getAsInteger();
            ok = n && l && h && *l >= 0 && *l <= *h && *h <= *n;
            if (ok) {
              shape.push_back(*n);
              lo.push_back(*l);
              sizes.push_back(*h - *l);
            }
          }
          if (!ok)
            return fail("launch " + Twine(i) +
                        ": a region is {\"shape\", \"lo\", \"hi\"}, "
                        "lists of one length with 0 <= lo <= hi <= shape");
        }
        interp::GMBox box{shape, lo, sizes};
        if (kind == "reads")
          recordRead(key->second.first, key->second.second, workspace, bytes,
                     box);
        else
          recordWrite(key->second.first, key->second.second, workspace, bytes,
                      kind == "atomics", box);
      }
    }
    if (const llvm::json::Array *mm = l->getArray("matmuls"))
      for (const llvm::json::Value &v : *mm) {
        const llvm::json::Array *mnk = v.getAsArray();
        if (!mnk || mnk->size() != 3)
          return fail("launch " + Twine(i) + ": matmuls are [M, N, K]");
        recordMatmul(*(*mnk)[0].getAsInteger(), *(*mnk)[1].getAsInteger(),
                     *(*mnk)[2].getAsInteger(), 2, 2);
      }
    if (auto elements = l->getInteger("vector_elements"))
      recordVector(*elements, 4); // FP32 elements
    if (const llvm::json::Array *reads = l->getArray("tile_reads"))
      for (const llvm::json::Value &v : *reads) {
        const llvm::json::Object *read = v.getAsObject();
        auto name = read ? read->getString("tensor") : std::nullopt;
        auto key = name ? keys.find(*name) : keys.end();
        auto snapshot = read ? read->getInteger("snapshot") : std::nullopt;
        if (key == keys.end() || !snapshot || *snapshot < 0 ||
            uint64_t(*snapshot) > i)
          return fail("launch " + Twine(i) +
                      ": tile_reads name a declared "
                      "tensor and a snapshot <= the launch's index");
        current->tileReads.push_back({key->second.first, uint64_t(*snapshot)});
      }
    // A dumped run (writeGraph) carries its priced pipes and FLOP.
    if (auto flops = l->getNumber("matmul_flops"))
      current->matmulFlops = uint64_t(*flops);
    if (auto family = l->getString("family"))
      current->family = family->str();
    if (const llvm::json::Array *pipes = l->getArray("pipes_us")) {
      if (pipes->size() != kNumPipes)
        return fail("launch " + Twine(i) + ": pipes_us has 6 entries");
      for (unsigned p = 0; p < kNumPipes; ++p)
        current->pipeSeconds[p] = (*pipes)[p].getAsNumber().value_or(0) * 1e-6;
    }
    launchEnd();
  }
  // A dumped run's pipes_us were priced for the architecture it ran on; the
  // graph does not keep the ops to re-price them.
  std::optional<StringRef> pricedFor = root->getString("arch");
  StringRef arch = stringifyArch(platform.arch);
  bool priced = llvm::any_of(*list, [](const llvm::json::Value &l) {
    return l.getAsObject() && l.getAsObject()->getArray("pipes_us");
  });
  if (warning && pricedFor && priced && *pricedFor != arch)
    *warning =
        ("launch graph: its pipe times (pipes_us) were priced for " +
         *pricedFor + "; they are scheduled here on " + arch +
         "'s cores and bandwidths unchanged. Record the graph on " + arch +
         " (pto-run --simulate with --sim-dump-graph) to price "
         "it for " +
         arch)
            .str();
  return llvm::Error::success();
}

void CostModel::writeGraph(raw_ostream &os) const {
  llvm::DenseMap<const void *, std::string> names;
  llvm::json::Object tensors;
  llvm::DenseMap<uint64_t, size_t> index;
  for (auto [i, launch] : llvm::enumerate(launches))
    index[launch.id] = i;
  llvm::json::Array list;
  for (const LaunchRecord &launch : launches) {
    llvm::json::Array deps, pipes, kinds[3];
    for (uint64_t d : launch.deps)
      if (auto it = index.find(d); it != index.end())
        deps.push_back(uint64_t(it->second));
    for (unsigned p = 0; p < kNumPipes; ++p)
      pipes.push_back(launch.pipeSeconds[p] * 1e6);
    for (auto [k, access] : llvm::enumerate(launch.accesses)) {
      auto [tensor, bits] = access;
      auto inserted = names.try_emplace(tensor, "");
      std::string &name = inserted.first->second;
      auto t = traffic.find(tensor);
      if (inserted.second) {
        name = "t" + std::to_string(names.size() - 1);
        tensors[name] = t != traffic.end() ? t->second.size : 0;
      }
      bool workspace = t != traffic.end() && t->second.workspace;
      auto entry = [&](uint64_t bytes, const GMRegion &region) {
        llvm::json::Object object{
            {"tensor", name}, {"bytes", bytes}, {"workspace", workspace}};
        if (!region.whole && !region.empty())
          object["region"] =
              llvm::json::Object{{"shape", llvm::json::Array(region.shape)},
                                 {"lo", llvm::json::Array(region.lo)},
                                 {"hi", llvm::json::Array(region.hi)}};
        return object;
      };
      std::array<uint64_t, 2> bytes = launch.accessBytes[k];
      const std::array<GMRegion, 3> &regions = launch.accessRegions[k];
      if (bits & 1)
        kinds[0].push_back(entry(bytes[0], regions[0]));
      if (bits & 4)
        kinds[2].push_back(entry(bytes[1], regions[2]));
      else if (bits & 2)
        kinds[1].push_back(entry(bytes[1], regions[1]));
    }
    list.push_back(llvm::json::Object{
        {"name", launch.leaf},
        {"family", launch.family},
        {"pool", launch.cube ? "cube" : "vector"},
        {"instance", launch.instance},
        {"stitch", launch.stitch},
        {"device_task",
         [&]() -> int64_t {
           auto it = stitchGroup.find(launch.stitch);
           return it == stitchGroup.end() ? launch.stitch : it->second;
         }()},
        {"deps", std::move(deps)},
        {"reads", std::move(kinds[0])},
        {"writes", std::move(kinds[1])},
        {"atomics", std::move(kinds[2])},
        {"tile_reads",
         [&]() {
           llvm::json::Array reads;
           for (auto [tensor, snapshot] : launch.tileReads) {
             auto [it, inserted] = names.try_emplace(tensor, "");
             if (inserted) {
               it->second = "t" + std::to_string(names.size() - 1);
               auto t = traffic.find(tensor);
               tensors[it->second] = t != traffic.end() ? t->second.size : 0;
             }
             reads.push_back(llvm::json::Object{{"tensor", it->second},
                                                {"snapshot", snapshot}});
           }
           return reads;
         }()},
        {"matmul_flops", double(launch.matmulFlops)},
        {"pipes_us", std::move(pipes)}});
    if (launch.mix) {
      llvm::json::Object &entry = *list.back().getAsObject();
      entry["mix"] = true;
      entry["on_chip_bytes"] = launch.onChipBytes;
    }
  }
  // Tensors touched with size 0 (never read or written): size 1.
  for (auto &[name, size] : tensors)
    if (size.getAsUINT64().value_or(0) == 0)
      size = uint64_t(1);
  llvm::json::Object root{{"arch", stringifyArch(platform.arch)},
                          {"tensors", std::move(tensors)},
                          {"launches", std::move(list)}};
  if (options.persistent)
    root["persistent"] = true;
  os << llvm::json::Value(std::move(root)) << "\n";
}
