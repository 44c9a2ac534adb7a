// ClusterSimulator::Impl, internal to src/simulate: the cluster's nodes and pods and the scrape
// being written. cluster_simulator.cc builds the cluster and moves its pods through their lives;
// sim_exposition.cc writes what kube-state-metrics and dcgm-exporter would expose.
#pragma once

#include <algorithm>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "ingest/exposition.h"
#include "simulate/cluster_simulator.h"
#include "simulate/sim_model.h"

namespace gpucost::simulate {

class ClusterSimulator::Impl {
 public:
  Impl(const SimOptions& o, Instant origin)
      : options_(o),
        seed_(o.seed),
        interval_ms_(o.scrape_interval.count()),
        origin_ms_(UnixMs(origin)),
        last_ms_(UnixMs(origin)) {}

  void Build();

  void Scrape(Instant at, ExpositionHandler& out, unsigned parts) {
    const int64_t t = std::max(UnixMs(at), last_ms_);
    last_ms_ = t;
    for (Node& node : nodes_) {
      for (Slot& s : node.slots) Advance(node, s, t);
    }
    t_ms_ = t;
    out_ = &out;
    if ((parts & kKubeStateMetrics) != 0) KubeStateMetrics();
    if ((parts & kKubeStateMetrics) != 0) NeuronNodeInfo();
    if ((parts & kDcgmExporter) != 0) {
      DcgmExporter();
      AmdExporter();
      NeuronMonitor();
    }
    out_ = nullptr;
  }

  const ClusterShape& shape() const { return shape_; }
  std::string KubeObjectsJson() const;  // sim_kube_objects.cc
  Duration interval() const { return Duration(interval_ms_); }

 private:
  // --- emission -----------------------------------------------------------------------------

  void Family(std::string_view name, std::string_view help) {
    MetadataView m{MetadataKind::kHelp, name, help};
    out_->OnMetadata(m);
    m.kind = MetadataKind::kType;
    m.text = "gauge";
    m.type = MetricType::kGauge;
    out_->OnMetadata(m);
  }
  void Begin() {
    labels_.clear();
    if (!options_.cluster.empty()) labels_.push_back({"cluster", options_.cluster});
  }
  void L(std::string_view name, std::string_view value) { labels_.push_back({name, value}); }
  void Emit(std::string_view name, double value) {
    SampleView s;
    s.name = name;
    s.labels = labels_;
    s.value = value;
    s.has_timestamp = true;
    s.timestamp_ms = t_ms_;
    out_->OnSample(s);
  }

  template <typename F>
  void ForPods(F f) {
    for (const Node& node : nodes_) {
      for (const Slot& s : node.slots) {
        if (s.pod.alive) f(node, s);
      }
    }
  }
  void PodLabels(const Slot& s) {
    L("namespace", kNamespaces[s.ns].ns);
    L("pod", s.pod.name);
    L("uid", s.pod.uid);
  }

  void KubeStateMetrics();

  void DcgmExporter();

  // The Neuron monitor's Prometheus exporter on AWS Neuron nodes, and their kube_node_info (the
  // provider ID that names the EC2 instance the monitor reports); nothing without such nodes.
  void NeuronMonitor();
  void NeuronNodeInfo();
  // AMD's device metrics exporter on AMD nodes (gpu_gfx_activity of whole GPUs and
  // gpu_gfx_busy_instantaneous of compute partitions, percent, labelled with the pod holding
  // each); nothing without such nodes.
  void AmdExporter();
  void AmdWholeGpus();   // gpu_gfx_activity of unpartitioned GPUs
  void AmdPartitions();  // gpu_gfx_busy_instantaneous per XCC of each compute partition

  // --- pods -----------------------------------------------------------------------------------

  // The activity a slot's pod would give a whole GPU to itself, 0..1.
  double Load(const Slot& s) const;

  void Advance(const Node& node, Slot& s, int64_t t) {
    if (s.pod.alive && t >= s.pod.gone_ms) s.pod.alive = false;
    if (!s.pod.alive && t >= s.next_start_ms) StartPod(node, s, t);
  }

  void StartPod(const Node& node, Slot& s, int64_t t);

  int node_index(const Node& node) const { return static_cast<int>(&node - nodes_.data()); }

  Slot MakeSlot(Rng& r, Kind kind, std::vector<Request> requests, int index);

  Node MakeNode(int i, Sharing sharing, const GpuModelSpec& model);

  // The claims of a DRA node of NVIDIA's static GPUs, under NVIDIA's DynamicMIG, or of an AWS
  // Neuron DRA node, whose units (GPUs, Neuron devices) are made; `add_slot` adds a slot for a
  // pod of a kind (sim_dra_claims.cc).
  using AddSlot = std::function<int(Kind)>;
  void NvidiaDraClaims(Node& node, const AddSlot& add_slot);
  void DynamicMigClaims(Node& node, const AddSlot& add_slot);
  void NeuronDraClaims(Node& node, const AddSlot& add_slot);
  // Reserves `c` for its slots' pods, which run from the first scrape on, each using `load_scale`
  // of the units the claim holds (its `units`, else its GPU's).
  void HoldClaim(Node& node, DraClaim c, double load_scale);

  SimOptions options_;
  uint64_t seed_;
  int64_t interval_ms_;
  int64_t origin_ms_;
  int64_t last_ms_;
  int64_t t_ms_ = 0;
  std::vector<Node> nodes_;
  std::vector<std::string> gpu_index_;  // "0", "1", ... kept alive for label views
  ClusterShape shape_;
  ExpositionHandler* out_ = nullptr;
  std::vector<LabelView> labels_;
  std::string provider_id_;  // kube_node_info's, alive until the sample is emitted
};

}  // namespace gpucost::simulate
