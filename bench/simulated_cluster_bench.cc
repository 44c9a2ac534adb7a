// Timeline building and attribution fed straight from the cluster simulator (no text, no
// parsing): `gpucost simulate`'s default mix of whole, MIG, time-sliced, MPS and HAMi nodes for
// one day at 60 s scrapes, its samples handed to the InventoryBuilder as SampleViews, then the
// engine over the window. Reports samples/s through the builder and unit-steps/s through the
// engine. One untimed run first checks the answer: no input warnings, cost = GPUs x price x
// hours, allocated + idle = cost.
#include <benchmark/benchmark.h>

#include <cmath>
#include <span>

#include "attribution/attributor.h"
#include "inventory/inventory_builder.h"
#include "simulate/cluster_simulator.h"

namespace gpucost {
namespace {

constexpr int64_t kStartMs = 1'790'812'800'000;  // 2026-10-01T00:00:00Z
constexpr double kPrice = 2.5;

struct SumSink : CostSink {
  double allocated = 0, idle = 0;
  void Consume(std::span<const CostRecord> records) override {
    for (const CostRecord& r : records) (r.is_idle() ? idle : allocated) += r.allocated_usd;
  }
};

PriceFn Constant() {
  return [](const Node&, Window w) {
    PricePeriod p;
    p.interval = Interval{w.start, w.end};
    p.usd_per_gpu_hour = kPrice;
    p.source = PriceSource::kDefault;
    return std::vector<PricePeriod>{p};
  };
}

Result<LoadedTimeline> Simulate(int nodes, Window w, int& gpus) {
  simulate::SimOptions o;
  o.nodes = nodes;
  GPUCOST_ASSIGN_OR_RETURN(auto sim, simulate::ClusterSimulator::Create(o, w.start));
  gpus = sim->shape().gpus;
  InventoryBuilder builder;
  simulate::SimulateWindow(*sim, w, builder);
  return builder.Build();
}

void BM_SimulatedDay(benchmark::State& state) {
  const int nodes = static_cast<int>(state.range(0));
  const Window w{InstantFromUnixMs(kStartMs), InstantFromUnixMs(kStartMs + 86'400'000)};
  {
    int gpus = 0;
    auto t = Simulate(nodes, w, gpus);
    if (!t.ok() || !t->warnings.empty()) {
      state.SkipWithError(t.ok() ? t->warnings.front().ToString().c_str() : t.status().ToString().c_str());
      return;
    }
    AttributionOptions opts;
    opts.window = w;
    SumSink sink;
    auto s = Attribute(t->inventory, t->usage, Constant(), opts, sink);
    const double want = gpus * kPrice * 24;
    if (!s.ok() || std::fabs(s->node_cost_usd - want) > 1e-9 * want ||
        std::fabs(sink.allocated + sink.idle - want) > 1e-9 * want) {
      state.SkipWithError("cost is not GPUs x price x hours, or allocated + idle != cost");
      return;
    }
  }
  uint64_t samples = 0;
  int64_t unit_steps = 0;
  for (auto _ : state) {
    int gpus = 0;
    auto t = Simulate(nodes, w, gpus);
    AttributionOptions opts;
    opts.window = w;
    SumSink sink;
    auto s = Attribute(t->inventory, t->usage, Constant(), opts, sink);
    samples += t->samples;
    unit_steps += static_cast<int64_t>(t->inventory.units.size()) * 1440;
    benchmark::DoNotOptimize(sink.allocated);
  }
  state.counters["samples_per_s"] = benchmark::Counter(static_cast<double>(samples), benchmark::Counter::kIsRate);
  state.counters["unit_steps_per_s"] =
      benchmark::Counter(static_cast<double>(unit_steps), benchmark::Counter::kIsRate);
}
BENCHMARK(BM_SimulatedDay)->Arg(10)->Unit(benchmark::kMillisecond)->MinTime(2.0);

}  // namespace
}  // namespace gpucost

BENCHMARK_MAIN();
