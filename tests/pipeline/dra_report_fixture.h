// The DRA report tests' cluster and money: one node's API view, its pods, and what the real
// inventory builder and engine make of them (tests/pipeline/dra_report_test.cc and
// accelerator_dra_report_test.cc). Expected values are worked out by hand in the tests; every run
// checks conservation: allocated + idle = the node's GPU cost.
#pragma once

#include <gtest/gtest.h>

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "inventory/inventory_builder.h"
#include "pipeline/report_pipeline.h"

namespace gpucost::dra_report_fixture {

constexpr int64_t kBase = 1790812800;  // 2026-10-01T00:00:00Z
inline Instant T(int64_t s) { return InstantFromUnixMs((kBase + s) * 1000); }
constexpr double kPrice = 4.0;  // USD per GPU-hour

inline KubeNode DraNode(const std::string& name) {
  KubeNode n;
  n.name = name;
  n.present = {Interval{T(0), T(3600)}};  // no GPU capacity: DRA drivers advertise none
  return n;
}

// The API's view at the end of the hour of one node, n1, whose GPUs only DRA describes.
inline KubeState OneDraNode() {
  KubeState k;
  k.observed_at = T(3600);
  k.nodes.push_back(DraNode("n1"));
  return k;
}

// An A100 NVIDIA's driver publishes on `node`, a MIG device of one, and a claim's allocation of
// a device of the driver's pool on `node` reserved for `pods` (namespace ml).
inline KubeDraDevice Gpu(const std::string& node, const std::string& name,
                         const std::string& uuid) {
  KubeDraDevice d;
  d.node = node;
  d.driver = "gpu.nvidia.com";
  d.pool = node;
  d.name = name;
  d.type = "gpu";
  d.uuid = uuid;
  d.product = "NVIDIA A100-SXM4-40GB";
  d.capacity = {{"memory", 40.0 * (1LL << 30)}};
  return d;
}

inline KubeDraDevice Mig(const std::string& node, const std::string& name,
                         const std::string& parent, const std::string& profile) {
  KubeDraDevice d = Gpu(node, name, "MIG-" + name);
  d.type = "mig";
  d.parent_uuid = parent;
  d.profile = profile;
  return d;
}

inline KubeDraAllocation Allocation(const std::string& claim, const std::string& node,
                                    const std::string& device, std::vector<std::string> pods) {
  KubeDraAllocation x;
  x.namespace_name = "ml";
  x.claim = claim;
  x.driver = "gpu.nvidia.com";
  x.pool = node;
  x.device = device;
  x.reserved_for = std::move(pods);
  return x;
}

// A pod whose containers use claims (container -> claim), active [from, to).
inline KubePod Pod(const std::string& name, const std::string& node,
                   std::vector<std::pair<std::string, std::string>> uses, int64_t from,
                   int64_t to) {
  KubePod p;
  p.namespace_name = "ml";
  p.name = name;
  p.uid = "uid-" + name;
  p.node = node;
  p.phase = "Running";
  for (const auto& [container, claim] : uses) {
    p.resources.push_back({container, DraClaimResource(claim), 1, false, {}});
  }
  p.active = {Interval{T(from), T(to)}};
  return p;
}

struct Money {
  std::map<std::string, double> allocated;  // by "pod/container"
  std::map<std::string, double> effective;
  std::map<std::string, bool> estimated;
  std::map<std::string, double> gpu_hours;
  double idle = 0;
  double cost = 0;
  std::vector<std::string> warnings;
  std::map<std::string, std::string> sharing{};  // each node's sharing mode, by node name
};

// `series`: node agent or exporter series (exposition text) read beside the API.
inline Money Attribute(const KubeState& k, const std::string& series = "") {
  TimelineOptions o;
  o.window = Window{T(0), T(3600)};
  o.kube_states.push_back(k);
  InventoryBuilder b(o);
  if (!series.empty()) {
    const Status added = b.AddText(series, "series.prom");
    EXPECT_TRUE(added.ok()) << added.ToString();
  }
  Result<LoadedTimeline> t = b.Build();
  EXPECT_TRUE(t.ok()) << t.status().ToString();
  Money m;
  if (!t.ok()) return m;
  for (const InputWarning& w : t->warnings) m.warnings.push_back(w.ToString());
  for (const Node& n : t->inventory.nodes) m.sharing[n.name] = SharingModeName(n.sharing);
  ReportSettings s;
  s.window = o.window.value();
  s.accumulate = true;
  s.by = *ParseDimensions("pod,container");
  const PriceFn price = [](const Node&, Window w) {
    return std::vector<PricePeriod>{
        {{w.start, w.end}, kPrice, PriceSource::kOverride, w.start, "t"}};
  };
  Result<ReportRun> run = RunReport(*t, price, s);
  EXPECT_TRUE(run.ok()) << run.status().ToString();
  if (!run.ok()) return m;
  for (const std::string& w : run->summary.warnings) m.warnings.push_back(w);
  for (const ReportRow& r : run->report.rows) {
    if (r.is_idle) {
      m.idle += r.idle_usd;
      continue;
    }
    m.allocated[r.values[0] + "/" + r.values[1]] += r.allocated_usd;
    m.effective[r.values[0] + "/" + r.values[1]] += r.effective_usd;
    m.estimated[r.values[0] + "/" + r.values[1]] = r.estimated;
    m.gpu_hours[r.values[0] + "/" + r.values[1]] += r.gpu_hours;
  }
  m.cost = run->report.totals.cost_usd;
  double sum = m.idle;
  for (const auto& [k2, v] : m.allocated) sum += v;
  EXPECT_NEAR(sum, m.cost, 1e-9 * m.cost) << "conservation";
  return m;
}

// Whether a warning says `text`.
inline bool Told(const Money& m, const std::string& text) {
  for (const std::string& w : m.warnings) {
    if (w.find(text) != std::string::npos) return true;
  }
  return false;
}

}  // namespace gpucost::dra_report_fixture
