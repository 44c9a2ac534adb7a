// Attribution engine throughput: unit-steps per second over 10,000 GPU units (whole GPUs, MIG
// slices and time-sliced replicas, with pods coming and going and usage samples), for one day and
// for thirty days at 60 s steps. The sink sums allocated cost; one untimed call first checks the
// answer (node cost in closed form, records adding up to it, usage found everywhere, a plausible
// efficiency), so a fast wrong answer fails. docs/engine.md "Performance" records the numbers and
// the command.
#include <benchmark/benchmark.h>
#include <sys/resource.h>

#include <bit>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>

#include "attribution/attributor.h"

namespace gpucost {
namespace {

constexpr int64_t kStart = 1'790'812'800'000;  // ms, minute-aligned
constexpr int64_t kHourMs = 3'600'000;

struct BenchCluster {
  Inventory inventory;
  Usage usage;
  Window window;
  double expected_node_cost_usd = 0;
};

double NodePrice(NodeIndex n) { return 1.5 + static_cast<double>(n % 7); }

// Nodes of 8 GPUs, in turn whole GPUs, MIG (7 x 1g per GPU) and time-slicing (4 replicas per
// GPU), until `target_units` units exist. Each node has "lanes" of back-to-back pods, each pod
// holding one unit for 2-24 h; usage is sampled every `sample_s` seconds per device.
BenchCluster MakeCluster(int target_units, int days, int sample_s) {
  BenchCluster c;
  std::mt19937 rng(42);
  auto uniform = [&](int64_t lo, int64_t hi) {
    return std::uniform_int_distribution<int64_t>(lo, hi)(rng);
  };
  const int64_t end = kStart + days * 24 * kHourMs;
  c.window = {InstantFromUnixMs(kStart), InstantFromUnixMs(end)};
  Inventory& inv = c.inventory;
  int kind = 0;
  while (inv.units.size() < static_cast<size_t>(target_units)) {
    const auto n = static_cast<NodeIndex>(inv.nodes.size());
    Node node;
    node.cluster = "bench";
    node.name = "node-" + std::to_string(n);
    node.physical_gpus = 8;
    node.sharing = std::array{SharingMode::kNone, SharingMode::kMig,
                              SharingMode::kTimeSlicing}[static_cast<size_t>(kind)];
    inv.nodes.push_back(node);
    std::string resource = kind == 1 ? "nvidia.com/mig-1g.10gb" : "nvidia.com/gpu";
    int lanes = 0;
    for (int g = 0; g < 8; ++g) {
      const std::string uuid = "GPU-" + std::to_string(n) + "-" + std::to_string(g);
      const int parts = kind == 0 ? 1 : kind == 1 ? 7 : 4;
      for (int p = 0; p < parts; ++p) {
        GpuUnit u;
        u.node = n;
        u.gpu_uuid = uuid;
        u.fraction = 1.0 / parts;
        u.resource = resource;
        u.partition = {kind == 0   ? PartitionKind::kWhole
                       : kind == 1 ? PartitionKind::kMig
                                   : PartitionKind::kReplica,
                       kind == 1 ? 7 + p : p};
        u.gpu_instance_id = kind == 1 ? 7 + p : -1;
        inv.units.push_back(u);
        c.expected_node_cost_usd += u.fraction * NodePrice(n) * static_cast<double>(days) * 24;
        // MIG instances have their own series; replicas share the GPU's.
        if (kind == 1 || p == 0) {
          DeviceSeries d{n, uuid, u.gpu_instance_id, {}};
          d.samples.reserve(static_cast<size_t>((end - kStart) / (sample_s * 1000)));
          for (int64_t t = kStart; t < end; t += sample_s * 1000) {
            d.samples.push_back({InstantFromUnixMs(t), static_cast<double>(uniform(0, 100)) / 100});
          }
          c.usage.devices.push_back(std::move(d));
        }
      }
      lanes += parts * 3 / 4 + (parts == 1 && g % 4 == 0 ? 1 : 0);
    }
    for (int lane = 0; lane < lanes; ++lane) {
      for (int64_t t = kStart + uniform(0, 2 * kHourMs); t < end;) {
        const int64_t stop = t + uniform(2 * kHourMs, 24 * kHourMs);
        Holder h;
        h.cluster = "bench";
        h.namespace_name = "team-" + std::to_string(lane % 13);
        h.pod = "pod-" + std::to_string(inv.holders.size());
        h.container = "main";
        inv.holders.push_back(std::move(h));
        Holding holding;
        holding.holder = static_cast<HolderIndex>(inv.holders.size() - 1);
        holding.node = n;
        holding.interval = {InstantFromUnixMs(t), InstantFromUnixMs(stop)};
        holding.request.resource = resource;
        holding.request.count = 1;
        inv.holdings.push_back(std::move(holding));
        t = stop + uniform(0, kHourMs / 2);
      }
    }
    kind = (kind + 1) % 3;
  }
  return c;
}

// Sums allocated cost. With `check`, it also gathers what the first run's answer is checked on.
class SummingSink final : public CostSink {
 public:
  explicit SummingSink(bool check) : check_(check) {}

  void Consume(std::span<const CostRecord> records) override {
    for (const CostRecord& r : records) total_usd += r.allocated_usd;
    count += static_cast<int64_t>(records.size());
    if (!check_) return;
    for (const CostRecord& r : records) {
      if (r.is_idle()) continue;
      holder_allocated_usd += r.allocated_usd;
      if (std::isnan(r.effective_usd)) {
        ++unmeasured_records;
      } else {
        effective_usd += r.effective_usd;
      }
      unmeasured_gpu_hours += r.unmeasured_gpu_hours;
    }
  }
  double total_usd = 0;
  int64_t count = 0;
  double holder_allocated_usd = 0;
  double effective_usd = 0;
  double unmeasured_gpu_hours = 0;
  int64_t unmeasured_records = 0;

 private:
  bool check_;
};

// The first run's answer: node cost in closed form (every unit is present all the time at one
// price), the records adding up to it, and usage found for every held unit-step (every device
// is sampled more often than the staleness limit), with an efficiency near what the uniform
// 0-1 samples give (0.5 on MIG and whole GPUs, more on replicas split three ways).
const char* CheckAnswer(const BenchCluster& c, const AttributionSummary& summary,
                        const SummingSink& sink) {
  const double want = c.expected_node_cost_usd;
  if (std::fabs(summary.node_cost_usd - want) > 1e-9 * want ||
      std::fabs(sink.total_usd - want) > 1e-6 * want || sink.count != summary.records) {
    return "engine totals do not match the closed-form node cost";
  }
  if (sink.unmeasured_records != 0 || sink.unmeasured_gpu_hours != 0) {
    return "held unit-steps without usage although every device is sampled";
  }
  const double efficiency = sink.effective_usd / sink.holder_allocated_usd;
  if (!(efficiency > 0.45 && efficiency < 0.7)) return "efficiency outside the expected band";
  return nullptr;
}

// Exact fingerprint of every record (order-independent: a sum of per-record hashes), for
// comparing two builds of the engine bit for bit. Used only with GPUCOST_ENGINE_BENCH_DUMP=1.
class FingerprintSink final : public CostSink {
 public:
  void Consume(std::span<const CostRecord> records) override {
    for (const CostRecord& r : records) {
      uint64_t h = 1469598103934665603ULL;
      auto mix = [&h](uint64_t x) {
        h ^= x;
        h *= 1099511628211ULL;
        h ^= h >> 29;
      };
      mix(static_cast<uint64_t>(r.step));
      mix(r.unit);
      mix(r.holder);
      for (double d : {r.gpu_hours, r.allocated_usd, r.effective_usd, r.unmeasured_gpu_hours,
                       r.activity_gpu_hours}) {
        mix(std::bit_cast<uint64_t>(d));
      }
      mix(static_cast<uint64_t>(r.estimated) | static_cast<uint64_t>(r.oversubscribed) << 1 |
          static_cast<uint64_t>(r.price_known) << 2 |
          static_cast<uint64_t>(r.price_source) << 3);
      fingerprint += h;
      ++count;
    }
  }
  uint64_t fingerprint = 0;
  int64_t count = 0;
};

void DumpTotals(const char* name, const BenchCluster& c, const PriceFn& price,
                const AttributionOptions& options) {
  FingerprintSink sink;
  auto summary = Attribute(c.inventory, c.usage, price, options, sink);
  if (!summary.ok()) return;
  std::fprintf(stderr,
               "%s: records=%lld fingerprint=%016llx node_cost=%.17g allocated=%.17g idle=%.17g "
               "unpriced_gpu_hours=%.17g oversubscribed=%lld\n",
               name, static_cast<long long>(sink.count),
               static_cast<unsigned long long>(sink.fingerprint), summary->node_cost_usd,
               summary->allocated_usd, summary->idle_usd, summary->unpriced_gpu_hours,
               static_cast<long long>(summary->oversubscribed_unit_steps));
}

double PeakRssMib() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return static_cast<double>(usage.ru_maxrss) / 1024.0;
}

void RunEngine(benchmark::State& state, int days, int sample_s) {
  // GPUCOST_ENGINE_BENCH_UNITS shrinks the cluster for profiling under callgrind.
  const char* units_env = std::getenv("GPUCOST_ENGINE_BENCH_UNITS");
  const BenchCluster c = MakeCluster(units_env ? std::atoi(units_env) : 10'000, days, sample_s);
  const double rss_input = PeakRssMib();
  const PriceFn price = [](const Node& node, Window w) {
    const auto n = static_cast<NodeIndex>(std::stoul(node.name.substr(5)));
    return std::vector<PricePeriod>{
        {{w.start, w.end}, NodePrice(n), PriceSource::kCatalog, w.start, "bench"}};
  };
  AttributionOptions options;
  options.window = c.window;
  options.step = std::chrono::seconds(60);
  const int64_t unit_steps =
      static_cast<int64_t>(c.inventory.units.size()) * StepCount(c.window, options.step);
  // GPUCOST_ENGINE_BENCH_DUMP=1 prints exact totals once per configuration, to compare builds.
  static bool dumped[2] = {false, false};
  if (const char* dump = std::getenv("GPUCOST_ENGINE_BENCH_DUMP");
      dump != nullptr && *dump == '1' && !dumped[days == 1 ? 0 : 1]) {
    dumped[days == 1 ? 0 : 1] = true;
    DumpTotals(days == 1 ? "1 day" : "30 days", c, price, options);
  }
  // The answer is checked once, in an untimed call, so the timed calls all do the same work.
  {
    SummingSink sink(true);
    auto summary = Attribute(c.inventory, c.usage, price, options, sink);
    if (!summary.ok()) {
      state.SkipWithError(summary.status().ToString().c_str());
      return;
    }
    if (const char* wrong = CheckAnswer(c, *summary, sink)) {
      state.SkipWithError(wrong);
      return;
    }
    state.counters["efficiency"] = sink.effective_usd / sink.holder_allocated_usd;
  }
  for (auto _ : state) {
    SummingSink sink(false);
    auto summary = Attribute(c.inventory, c.usage, price, options, sink);
    if (!summary.ok() || sink.count != summary->records) {
      state.SkipWithError("engine failed on a repeated call");
      return;
    }
    benchmark::DoNotOptimize(sink.total_usd);
  }
  state.counters["unit_steps_per_s"] =
      benchmark::Counter(static_cast<double>(unit_steps) * static_cast<double>(state.iterations()),
                         benchmark::Counter::kIsRate);
  state.counters["units"] = static_cast<double>(c.inventory.units.size());
  state.counters["holders"] = static_cast<double>(c.inventory.holders.size());
  state.counters["input_rss_mib"] = rss_input;
  state.counters["peak_rss_mib"] = PeakRssMib();
}

void BM_Attribute1Day(benchmark::State& state) { RunEngine(state, 1, 30); }
// Thirty days: samples every 5 minutes keep the input itself near 1 GiB; peak_rss_mib minus
// input_rss_mib is what the engine adds.
void BM_Attribute30Days(benchmark::State& state) { RunEngine(state, 30, 300); }

BENCHMARK(BM_Attribute1Day)->Unit(benchmark::kMillisecond)->MinTime(2.0);
BENCHMARK(BM_Attribute30Days)->Unit(benchmark::kMillisecond)->Iterations(1);

}  // namespace
}  // namespace gpucost

BENCHMARK_MAIN();
