// Label-set representations for dcgm-exporter-shaped series: build from parsed (name, value)
// views, hash, and look up "pod" and "UUID". Compares core LabelSet (sorted vector of strings,
// cached hash) with std::map<std::string, std::string> and with interned ids (core Interner).
#include <benchmark/benchmark.h>

#include <algorithm>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/labels.h"
#include "core/strings.h"

namespace gpucost {
namespace {

using Views = std::vector<std::pair<std::string, std::string>>;

// 256 series as dcgm-exporter writes them (Go-map order after the fixed prefix).
const std::vector<Views>& Series() {
  static const std::vector<Views> series = [] {
    std::vector<Views> out;
    for (int i = 0; i < 256; ++i) {
      const int node = i / 8;
      const int gpu = i % 8;
      out.push_back({{"gpu", std::to_string(gpu)},
                     {"UUID", "GPU-58e8f5ea-13cc-013a-d88f-" + std::to_string(100000000000 + i)},
                     {"pci_bus_id", "00000000:1A:00.0"},
                     {"device", "nvidia" + std::to_string(gpu)},
                     {"modelName", "NVIDIA H100 80GB HBM3"},
                     {"Hostname", "gpu-node-" + std::to_string(node)},
                     {"DCGM_FI_DRIVER_VERSION", "535.129.03"},
                     {"pod", "train-job-" + std::to_string(i) + "-worker-0"},
                     {"namespace", "team-" + std::to_string(node % 5)},
                     {"container", "main"}});
    }
    return out;
  }();
  return series;
}

void BM_LabelSet(benchmark::State& state) {
  uint64_t sink = 0;
  for (auto _ : state) {
    for (const Views& v : Series()) {
      std::vector<Label> labels;
      labels.reserve(v.size());
      for (const auto& [n, val] : v) labels.push_back(Label{n, val});
      auto set = LabelSet::Make(std::move(labels));
      sink += set->hash() + set->Get("pod").size() + set->Get("UUID").size();
    }
  }
  benchmark::DoNotOptimize(sink);
  state.SetItemsProcessed(state.iterations() * static_cast<int64_t>(Series().size()));
}
BENCHMARK(BM_LabelSet);

void BM_StdMap(benchmark::State& state) {
  uint64_t sink = 0;
  for (auto _ : state) {
    for (const Views& v : Series()) {
      std::map<std::string, std::string, std::less<>> m;
      for (const auto& [n, val] : v) m.emplace(n, val);
      uint64_t h = 0x6770756365737421ULL;
      for (const auto& [n, val] : m) h = HashCombine(HashCombine(h, Hash64(n)), Hash64(val));
      sink += h + m.find("pod")->second.size() + m.find("UUID")->second.size();
    }
  }
  benchmark::DoNotOptimize(sink);
  state.SetItemsProcessed(state.iterations() * static_cast<int64_t>(Series().size()));
}
BENCHMARK(BM_StdMap);

void BM_Interned(benchmark::State& state) {
  Interner interner;  // shared across series, as a store holding many series would
  const Interner::Id pod = interner.Intern("pod");
  const Interner::Id uuid = interner.Intern("UUID");
  uint64_t sink = 0;
  for (auto _ : state) {
    for (const Views& v : Series()) {
      std::vector<std::pair<Interner::Id, Interner::Id>> ids;
      ids.reserve(v.size());
      for (const auto& [n, val] : v) ids.emplace_back(interner.Intern(n), interner.Intern(val));
      std::sort(ids.begin(), ids.end());
      uint64_t h = 0x6770756365737421ULL;
      for (const auto& [n, val] : ids) h = HashCombine(h, (uint64_t{n} << 32) | val);
      for (const auto& [n, val] : ids) {
        if (n == pod || n == uuid) sink += interner.Get(val).size();
      }
      sink += h;
    }
  }
  benchmark::DoNotOptimize(sink);
  state.SetItemsProcessed(state.iterations() * static_cast<int64_t>(Series().size()));
}
BENCHMARK(BM_Interned);

// Lookups only, on sets built once: what the attribution hot path does per step.
void BM_LookupLabelSet(benchmark::State& state) {
  std::vector<LabelSet> sets;
  for (const Views& v : Series()) {
    std::vector<Label> labels;
    for (const auto& [n, val] : v) labels.push_back(Label{n, val});
    sets.push_back(*LabelSet::Make(std::move(labels)));
  }
  uint64_t sink = 0;
  for (auto _ : state) {
    for (const LabelSet& s : sets) sink += s.Get("pod").size() + s.Get("namespace").size();
  }
  benchmark::DoNotOptimize(sink);
  state.SetItemsProcessed(state.iterations() * static_cast<int64_t>(sets.size()));
}
BENCHMARK(BM_LookupLabelSet);

void BM_LookupStdMap(benchmark::State& state) {
  std::vector<std::map<std::string, std::string, std::less<>>> maps;
  for (const Views& v : Series()) maps.emplace_back(v.begin(), v.end());
  uint64_t sink = 0;
  for (auto _ : state) {
    for (const auto& m : maps) sink += m.find("pod")->second.size() + m.find("namespace")->second.size();
  }
  benchmark::DoNotOptimize(sink);
  state.SetItemsProcessed(state.iterations() * static_cast<int64_t>(maps.size()));
}
BENCHMARK(BM_LookupStdMap);

}  // namespace
}  // namespace gpucost

BENCHMARK_MAIN();
