// The cluster simulator: deterministic from its seed, read back by the inventory builder with no
// warnings for every sharing mode, conserving cost, the same whether fed as OpenMetrics,
// Prometheus text or straight into the builder; and its live /metrics endpoint scraped over HTTP
// by our own client.
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <thread>

#include "attribution/attributor.h"
#include "inventory/inventory_builder.h"
#include "inventory/timeline_loader.h"
#include "promsource/http_transport.h"
#include "simulate/cluster_simulator.h"
#include "simulate/exposition_writer.h"
#include "simulate/metrics_server.h"
#include "simulate/sim_options.h"

namespace gpucost::simulate {
namespace {

constexpr int64_t kStartMs = 1790812800000;  // 2026-10-01T00:00:00Z, a Thursday
constexpr double kPrice = 2.5;

Window HoursFrom(int64_t start_ms, int hours) {
  return Window{InstantFromUnixMs(start_ms), InstantFromUnixMs(start_ms + hours * 3'600'000LL)};
}

SimOptions Small(std::vector<Weighted> sharing, int nodes = 3) {
  SimOptions o;
  o.nodes = nodes;
  o.sharing = std::move(sharing);
  return o;
}

std::string Generate(const SimOptions& o, Window w, TextFormat format = TextFormat::kOpenMetrics) {
  auto sim = ClusterSimulator::Create(o, w.start);
  EXPECT_TRUE(sim.ok()) << sim.status().ToString();
  if (!sim.ok()) return "";
  ExpositionWriter writer(format);
  SimulateWindow(**sim, w, writer);
  EXPECT_TRUE(writer.Finish().ok());
  return std::move(writer.text());
}

PriceFn ConstantPrice(double usd) {
  return [usd](const Node&, Window w) {
    PricePeriod p;
    p.interval = Interval{w.start, w.end};
    p.usd_per_gpu_hour = usd;
    p.source = PriceSource::kDefault;
    return std::vector<PricePeriod>{p};
  };
}

struct Totals : CostSink {
  double allocated = 0, idle = 0, effective = 0, gpu_hours = 0, unmeasured = 0;
  int64_t records = 0;
  std::map<std::string, std::pair<double, double>> by_kind;  // workload kind -> gpu_h, activity_h
  const Inventory* inv = nullptr;
  void Consume(std::span<const CostRecord> rs) override {
    for (const CostRecord& r : rs) {
      ++records;
      if (r.is_idle()) {
        idle += r.allocated_usd;
        continue;
      }
      allocated += r.allocated_usd;
      gpu_hours += r.gpu_hours;
      unmeasured += r.unmeasured_gpu_hours;
      if (!std::isnan(r.effective_usd)) effective += r.effective_usd;
      auto& k = by_kind[inv->holders[static_cast<size_t>(r.holder)].workload_kind];
      k.first += r.gpu_hours;
      if (!std::isnan(r.activity_gpu_hours)) k.second += r.activity_gpu_hours;
    }
  }
};

struct Attributed {
  LoadedTimeline timeline;
  AttributionSummary summary;
  Totals totals;
};

Attributed Attribute(LoadedTimeline timeline) {
  Attributed a{std::move(timeline), {}, {}};
  a.totals.inv = &a.timeline.inventory;
  AttributionOptions opts;
  opts.window = a.timeline.window;
  auto s = gpucost::Attribute(a.timeline.inventory, a.timeline.usage, ConstantPrice(kPrice), opts,
                              a.totals);
  EXPECT_TRUE(s.ok()) << s.status().ToString();
  if (s.ok()) a.summary = *s;
  return a;
}

std::string Warnings(const LoadedTimeline& t) {
  std::string out;
  for (const InputWarning& w : t.warnings) out += w.ToString() + "\n";
  return out;
}

TEST(SimOptions, ParsesMixesAndRejectsBadOnes) {
  auto mix = ParseMix("a100-80gb:3, t4", "--gpu-models");
  ASSERT_TRUE(mix.ok());
  ASSERT_EQ(mix->size(), 2u);
  EXPECT_EQ((*mix)[0].key, "a100-80gb");
  EXPECT_DOUBLE_EQ((*mix)[0].weight, 3);
  EXPECT_DOUBLE_EQ((*mix)[1].weight, 1);
  EXPECT_FALSE(ParseMix("a100-80gb:x", "--gpu-models").ok());
  EXPECT_FALSE(ParseMix("a100-80gb:-1", "--gpu-models").ok());
  EXPECT_FALSE(ParseMix("", "--gpu-models").ok());

  SimOptions o;
  o.gpu_models = {{"v100", 1}};
  EXPECT_NE(Validate(o).message().find("unknown model \"v100\""), std::string::npos);
  o.gpu_models = {{"t4", 1}};
  o.sharing = {{"mig", 1}};
  EXPECT_NE(Validate(o).message().find("MIG-capable"), std::string::npos);
  o.sharing = {{"fractional", 1}};
  EXPECT_FALSE(Validate(o).ok());
  o = SimOptions{};
  o.scrape_interval = std::chrono::milliseconds(1500);
  EXPECT_FALSE(Validate(o).ok());
  EXPECT_TRUE(Validate(SimOptions{}).ok());
}

TEST(ClusterSimulator, SameSeedSameBytesOtherSeedOtherCluster) {
  SimOptions o = Small({{"whole", 1}, {"mig", 1}, {"time-slicing", 1}}, 3);
  const Window w = HoursFrom(kStartMs, 3);
  const std::string a = Generate(o, w);
  EXPECT_TRUE(a == Generate(o, w));
  o.seed = 2;
  const std::string b = Generate(o, w);
  EXPECT_FALSE(a == b);
  EXPECT_GT(a.size(), 100000u);
}

TEST(ClusterSimulator, NodesFollowTheMixesInProportion) {
  SimOptions o;
  o.nodes = 20;
  o.gpu_models = {{"a100-80gb", 1}, {"t4", 1}};
  o.sharing = {{"whole", 3}, {"mig", 1}};
  o.spot_fraction = 0.5;
  auto sim = ClusterSimulator::Create(o, InstantFromUnixMs(kStartMs));
  ASSERT_TRUE(sim.ok());
  std::map<std::string, int> mode_count;
  int t4_mig = 0, t4 = 0;
  for (const std::string& n : (*sim)->shape().node_summaries) {
    const bool is_t4 = n.find(" t4 ") != std::string::npos;
    const bool mig = n.find(" mig ") != std::string::npos;
    ++mode_count[mig ? "mig" : "whole"];
    t4 += is_t4 ? 1 : 0;
    t4_mig += is_t4 && mig ? 1 : 0;
  }
  EXPECT_EQ(mode_count["whole"], 15);
  EXPECT_EQ(mode_count["mig"], 5);
  EXPECT_EQ(t4_mig, 0) << "T4 has no MIG";
  EXPECT_GE(t4, 7);
  EXPECT_GT((*sim)->shape().spot_nodes, 3);
  EXPECT_LT((*sim)->shape().spot_nodes, 17);
}

// Each sharing mode alone, and the default mix: the builder reads the output with no warnings
// and no parse errors, finds every node and GPU, and the engine conserves cost.
class EveryMode : public ::testing::TestWithParam<std::string> {};

TEST_P(EveryMode, ReadsBackWithoutWarningsAndConservesCost) {
  SimOptions o;
  if (GetParam() != "default") o.sharing = {{GetParam(), 1}};
  o.nodes = GetParam() == "default" ? 10 : 2;
  o.gpu_models = GetParam() == "mig" ? std::vector<Weighted>{{"a100-80gb", 1}, {"h100-80gb", 1}}
                                     : o.gpu_models;
  const Window w = HoursFrom(kStartMs, 6);
  const std::string text = Generate(o, w);
  auto sim = ClusterSimulator::Create(o, w.start);
  ASSERT_TRUE(sim.ok());
  const ClusterShape& shape = (*sim)->shape();

  auto loaded = LoadTimelineFromText(text, TimelineOptions{}, "sim.om");
  ASSERT_TRUE(loaded.ok()) << loaded.status().ToString();
  EXPECT_EQ(loaded->parse_errors, 0u);
  EXPECT_EQ(Warnings(*loaded), "");
  EXPECT_EQ(loaded->window, w);
  const Inventory& inv = loaded->inventory;
  ASSERT_EQ(static_cast<int>(inv.nodes.size()), shape.nodes);
  int gpus = 0, spot = 0;
  for (const Node& n : inv.nodes) {
    gpus += n.physical_gpus;
    spot += n.capacity_type == "spot" ? 1 : 0;
    EXPECT_TRUE(n.capacity_type == "spot" || n.capacity_type == "on_demand") << n.name;
  }
  EXPECT_EQ(gpus, shape.gpus);
  EXPECT_EQ(spot, shape.spot_nodes);
  int holdable = 0;
  for (const GpuUnit& u : inv.units) holdable += u.holdable ? 1 : 0;
  EXPECT_EQ(holdable, shape.units);

  Attributed a = Attribute(std::move(loaded).value());
  EXPECT_EQ(a.summary.warnings, std::vector<std::string>{});
  EXPECT_EQ(a.summary.oversubscribed_unit_steps, 0);
  const double want = shape.gpus * kPrice * 6;
  EXPECT_NEAR(a.summary.node_cost_usd, want, 1e-9 * want);
  EXPECT_NEAR(a.totals.allocated + a.totals.idle, want, 1e-9 * want);
  EXPECT_GT(a.totals.allocated, 0.3 * want) << "most capacity is held";
  EXPECT_GT(a.totals.idle, 0) << "some capacity is idle";
  EXPECT_GT(a.totals.effective, 0);
  EXPECT_LT(a.totals.effective, a.totals.allocated);
  // dcgm-exporter reports every device every scrape: nothing held is unmeasured.
  EXPECT_LT(a.totals.unmeasured, 1e-9 * a.totals.gpu_hours + 1e-9);
}

INSTANTIATE_TEST_SUITE_P(Sharing, EveryMode,
                         ::testing::Values("whole", "mig", "time-slicing", "mps", "hami",
                                           "default"),
                         [](const auto& param_info) {
                           std::string n = param_info.param;
                           for (char& c : n) c = c == '-' ? '_' : c;
                           return n;
                         });

// AMD and AWS Neuron nodes: capacity is physical devices (never devices + cores), Neuron units
// are NeuronCores of half a device, the Neuron monitor's per-core series and AMD's exporter
// measure every held unit, and cost is conserved.
TEST(ClusterSimulator, AmdAndNeuronNodes) {
  SimOptions o = Small({{"whole", 1}}, 3);
  o.gpu_models = {{"trn1", 1}, {"inf2", 1}, {"mi300x", 1}};
  const Window w = HoursFrom(kStartMs, 6);
  auto sim = ClusterSimulator::Create(o, w.start);
  ASSERT_TRUE(sim.ok()) << sim.status().ToString();
  EXPECT_EQ((*sim)->shape().gpus, 16 + 12 + 8);
  EXPECT_EQ((*sim)->shape().units, 32 + 24 + 8);
  auto loaded = LoadTimelineFromText(Generate(o, w), TimelineOptions{}, "sim.om");
  ASSERT_TRUE(loaded.ok()) << loaded.status().ToString();
  EXPECT_EQ(Warnings(*loaded), "");
  std::map<std::string, int> devices;
  for (const Node& n : loaded->inventory.nodes) devices[n.gpu_model] = n.physical_gpus;
  EXPECT_EQ(devices["AWS Trainium"], 16);
  EXPECT_EQ(devices["AWS Inferentia2"], 12);
  EXPECT_EQ(devices["AMD Instinct MI300X OAM"], 8);
  int cores = 0;
  for (const GpuUnit& u : loaded->inventory.units) {
    if (u.partition.kind != PartitionKind::kCore) continue;
    ++cores;
    EXPECT_DOUBLE_EQ(u.fraction, 0.5);
  }
  EXPECT_EQ(cores, 32 + 24);
  const Inventory& inv = loaded->inventory;
  std::set<NodeIndex> neuron_nodes;
  for (const GpuUnit& u : inv.units) {
    if (u.kind() == UnitKind::kNeuronDevice) neuron_nodes.insert(u.node);
  }
  Attributed a = Attribute(std::move(loaded).value());
  const double want = 36 * kPrice * 6;
  EXPECT_NEAR(a.totals.allocated + a.totals.idle, want, 1e-9 * want);
  EXPECT_GT(a.totals.effective, 0);
  EXPECT_LT(a.totals.effective, a.totals.allocated);
  EXPECT_LT(a.totals.unmeasured, 1e-9 * a.totals.gpu_hours + 1e-9) << "every held unit measured";
  EXPECT_GT(a.totals.by_kind["Job"].second, 0) << "training measured";
  EXPECT_EQ(neuron_nodes.size(), 2u);
}

// AMD GPUs in CPX: capacity is physical GPUs, each partition a unit of 1/8 measured by its own
// gpu_gfx_busy_instantaneous series, and cost is conserved.
TEST(ClusterSimulator, AmdPartitionedNodes) {
  SimOptions o = Small({{"whole", 1}}, 2);
  o.gpu_models = {{"mi300x-cpx", 1}};
  const Window w = HoursFrom(kStartMs, 6);
  auto sim = ClusterSimulator::Create(o, w.start);
  ASSERT_TRUE(sim.ok()) << sim.status().ToString();
  EXPECT_EQ((*sim)->shape().gpus, 16);
  EXPECT_EQ((*sim)->shape().units, 128);
  const std::string text = Generate(o, w);
  EXPECT_NE(text.find("label_amd_com_compute_memory_partition=\"cpx_nps4\""), std::string::npos);
  auto loaded = LoadTimelineFromText(text, TimelineOptions{}, "sim.om");
  ASSERT_TRUE(loaded.ok()) << loaded.status().ToString();
  EXPECT_EQ(Warnings(*loaded), "");
  int gpus = 0;
  for (const Node& n : loaded->inventory.nodes) gpus += n.physical_gpus;
  EXPECT_EQ(gpus, 16);
  int partitions = 0;
  for (const GpuUnit& u : loaded->inventory.units) {
    if (u.partition.kind != PartitionKind::kXcp) continue;
    ++partitions;
    EXPECT_DOUBLE_EQ(u.fraction, 1.0 / 8);
  }
  EXPECT_EQ(partitions, 128);
  Attributed a = Attribute(std::move(loaded).value());
  const double want = 16 * kPrice * 6;
  EXPECT_NEAR(a.totals.allocated + a.totals.idle, want, 1e-9 * want);
  EXPECT_GT(a.totals.idle, 0) << "unheld partitions are idle";
  EXPECT_GT(a.totals.effective, 0);
  EXPECT_LT(a.totals.effective, a.totals.allocated);
  EXPECT_LT(a.totals.unmeasured, 1e-9 * a.totals.gpu_hours + 1e-9)
      << "every held partition measured";
}

TEST(SimOptions, AcceleratorsOnlyWithWholeDevices) {
  SimOptions o = Small({{"whole", 1}, {"time-slicing", 1}});
  o.gpu_models = {{"trn1", 1}, {"mi300x", 1}};
  EXPECT_FALSE(ClusterSimulator::Create(o, InstantFromUnixMs(kStartMs)).ok());
  o.gpu_models = {{"trn1", 1}, {"t4", 1}};  // the time-sliced node takes the T4
  auto sim = ClusterSimulator::Create(o, InstantFromUnixMs(kStartMs));
  ASSERT_TRUE(sim.ok()) << sim.status().ToString();
}

// A DRA model fits every sharing mode (its claims decide its sharing); with two GPUs a node has
// the exclusive claim and the two-pod claim; the objects are the same for the same seed.
TEST(ClusterSimulator, DraNodesFitEveryModeAndWriteTheirObjects) {
  SimOptions o;
  o.nodes = 3;
  o.gpu_models = {{"h100-dra", 1}};
  o.gpus_per_node = 2;
  const Window w = HoursFrom(kStartMs, 1);
  auto objects = [&] {
    auto sim = ClusterSimulator::Create(o, w.start);
    EXPECT_TRUE(sim.ok()) << sim.status().ToString();
    if (!sim.ok()) return std::string();
    ExpositionWriter writer(TextFormat::kOpenMetrics);
    SimulateWindow(**sim, w, writer);
    EXPECT_EQ(writer.text().find("resource=\"nvidia_com_gpu\""), std::string::npos);
    return (*sim)->KubeObjectsJson();
  };
  const std::string text = objects();
  EXPECT_EQ(text, objects());
  const nlohmann::json list = nlohmann::json::parse(text);
  std::map<std::string, int> kinds;
  for (const nlohmann::json& item : list["items"]) ++kinds[item["kind"].get<std::string>()];
  EXPECT_EQ(kinds["Node"], 3);
  EXPECT_EQ(kinds["ResourceSlice"], 3);
  EXPECT_EQ(kinds["ResourceClaim"], 3 * 2);
  EXPECT_EQ(kinds["Pod"], 3 * 3);
  EXPECT_EQ(kinds["Namespace"], o.namespaces);
}

TEST(ClusterSimulator, DirectFeedPromTextAndOpenMetricsAgree) {
  SimOptions o;
  o.nodes = 5;
  const Window w = HoursFrom(kStartMs, 4);
  auto sim = ClusterSimulator::Create(o, w.start);
  ASSERT_TRUE(sim.ok());
  InventoryBuilder builder;
  SimulateWindow(**sim, w, builder);
  auto direct = builder.Build();
  ASSERT_TRUE(direct.ok());
  EXPECT_EQ(Warnings(*direct), "");
  auto om = LoadTimelineFromText(Generate(o, w, TextFormat::kOpenMetrics), TimelineOptions{});
  auto prom = LoadTimelineFromText(Generate(o, w, TextFormat::kPromText), TimelineOptions{});
  ASSERT_TRUE(om.ok() && prom.ok());
  EXPECT_EQ(direct->samples, om->samples);
  EXPECT_EQ(direct->samples, prom->samples);
  const Attributed a = Attribute(std::move(direct).value());
  const Attributed b = Attribute(std::move(om).value());
  const Attributed c = Attribute(std::move(prom).value());
  EXPECT_EQ(a.totals.records, b.totals.records);
  EXPECT_EQ(a.totals.records, c.totals.records);
  for (const Attributed* x : {&b, &c}) {
    EXPECT_NEAR(x->totals.allocated, a.totals.allocated, 1e-9 * a.totals.allocated);
    EXPECT_NEAR(x->totals.effective, a.totals.effective, 1e-9 * a.totals.effective);
  }
}

TEST(ClusterSimulator, HonoursTheWindowAndScrapeInterval) {
  SimOptions o = Small({{"whole", 1}}, 1);
  o.scrape_interval = std::chrono::seconds(15);
  const Window w{InstantFromUnixMs(kStartMs + 7'000),
                 InstantFromUnixMs(kStartMs + 7'000 + 3'600'000)};
  const std::string text = Generate(o, w);
  std::set<std::string> stamps;
  size_t pos = 0;
  const std::string needle = "kube_node_labels{";
  while ((pos = text.find(needle, pos)) != std::string::npos) {
    const size_t eol = text.find('\n', pos);
    const std::string line = text.substr(pos, eol - pos);
    stamps.insert(line.substr(line.rfind(' ') + 1));
    pos = eol;
  }
  EXPECT_EQ(stamps.size(), 240u);
  EXPECT_TRUE(stamps.contains("1790812807"));
  EXPECT_TRUE(stamps.contains("1790816392"));
  EXPECT_TRUE(text.ends_with("# EOF\n"));
}

TEST(ClusterSimulator, WorkloadsBehaveAsTheirKind) {
  // Two days from a Saturday: churn, training busy, notebooks mostly idle.
  SimOptions o = Small({{"whole", 1}}, 4);
  const int64_t saturday = kStartMs + 2 * 86'400'000LL;
  const Window w = HoursFrom(saturday, 48);
  auto loaded = LoadTimelineFromText(Generate(o, w), TimelineOptions{});
  ASSERT_TRUE(loaded.ok());
  const size_t holders = loaded->inventory.holders.size();
  auto sim = ClusterSimulator::Create(o, w.start);
  ASSERT_TRUE(sim.ok());
  EXPECT_GT(holders, static_cast<size_t>((*sim)->shape().units) / 2 + 4) << "pods churn";
  const Attributed a = Attribute(std::move(loaded).value());
  auto util = [&](const std::string& kind) {
    auto it = a.totals.by_kind.find(kind);
    return it == a.totals.by_kind.end() || it->second.first == 0
               ? -1.0
               : it->second.second / it->second.first;
  };
  const double jobs = std::max(util("Job"), util("CronJob"));
  EXPECT_GT(jobs, 0.6);
  EXPECT_GE(util("StatefulSet"), 0);
  EXPECT_LT(util("StatefulSet"), 0.1) << "notebooks idle at the weekend";
  EXPECT_GT(util("Deployment"), 0.1);
  EXPECT_LT(util("Deployment"), jobs);
}

TEST(MetricsServer, ServesScrapesAtTheClocksTime) {
  SimOptions o = Small({{"whole", 1}, {"mig", 1}}, 2);
  FakeClock clock(InstantFromUnixMs(kStartMs));
  auto sim = ClusterSimulator::Create(o, clock.Now());
  ASSERT_TRUE(sim.ok());
  MetricsServer server(**sim, clock);
  auto port = server.Bind("127.0.0.1", 0);
  ASSERT_TRUE(port.ok()) << port.status().ToString();
  std::thread runner([&] { EXPECT_TRUE(server.Run().ok()); });
  while (!server.running()) std::this_thread::yield();

  auto transport = promsource::MakeCurlTransport(promsource::HttpOptions{});
  auto get = [&](const std::string& path) {
    promsource::HttpRequest r;
    r.url = "http://127.0.0.1:" + std::to_string(*port) + path;
    return transport->Send(r);
  };
  TimelineOptions topts;
  topts.untimestamped_at = clock.Now();
  InventoryBuilder builder(topts);
  const auto all = get("/metrics");
  ASSERT_TRUE(all.response.has_value());
  EXPECT_EQ(all.response->status, 200);
  const std::string& body = all.response->body;
  EXPECT_NE(body.find("# TYPE kube_pod_info gauge"), std::string::npos);
  EXPECT_NE(body.find("DCGM_FI_PROF_GR_ENGINE_ACTIVE{"), std::string::npos);
  EXPECT_EQ(body.find(" 1790812800"), std::string::npos) << "a live scrape has no timestamps";
  ASSERT_TRUE(builder.AddText(body, "scrape").ok());
  clock.Advance(std::chrono::seconds(60));
  const auto dcgm = get("/metrics/dcgm-exporter");
  ASSERT_TRUE(dcgm.response.has_value());
  EXPECT_EQ(dcgm.response->body.find("kube_"), std::string::npos);
  EXPECT_NE(dcgm.response->body.find("DCGM_FI_PROF_GR_ENGINE_ACTIVE{"), std::string::npos);
  const auto ksm = get("/metrics/kube-state-metrics");
  ASSERT_TRUE(ksm.response.has_value());
  EXPECT_EQ(ksm.response->body.find("DCGM_"), std::string::npos);
  EXPECT_NE(ksm.response->body.find("kube_node_labels{"), std::string::npos);
  const auto missing = get("/nothing");
  ASSERT_TRUE(missing.response.has_value());
  EXPECT_EQ(missing.response->status, 404);
  EXPECT_EQ(server.scrapes(), 3u);
  server.Stop();
  runner.join();

  auto loaded = builder.Build();
  ASSERT_TRUE(loaded.ok());
  EXPECT_EQ(loaded->parse_errors, 0u);
  EXPECT_EQ(Warnings(*loaded), "");
  EXPECT_EQ(loaded->inventory.nodes.size(), 2u);
  EXPECT_GT(loaded->inventory.holders.size(), 2u);
}

}  // namespace
}  // namespace gpucost::simulate
