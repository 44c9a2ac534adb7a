// ClusterSimulator: a deterministic (seeded) Kubernetes GPU cluster whose kube-state-metrics and
// dcgm-exporter scrapes it emits, sample by sample, to any ExpositionHandler: a text writer
// (files, the live /metrics endpoint) or the InventoryBuilder itself (benchmarks). Nodes of
// chosen GPU models and sharing modes run pods that churn: training Jobs busy for hours,
// notebooks idle most of the day, inference Deployments with a diurnal load. The cluster's
// state moves forward with the scrape time, so scrapes must come in time order.
// Not thread-safe.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/result.h"
#include "core/time.h"
#include "ingest/exposition.h"
#include "simulate/sim_options.h"

namespace gpucost::simulate {

enum ScrapeParts : unsigned {
  kKubeStateMetrics = 1,
  kDcgmExporter = 2,
  kAllExporters = 3,
};

struct ClusterShape {
  int nodes = 0;
  int gpus = 0;        // physical GPUs
  int units = 0;       // holdable units: GPUs, MIG instances, replicas; HAMi GPUs count once
  int namespaces = 0;  // namespaces that run pods
  int spot_nodes = 0;
  std::vector<std::string> node_summaries;  // "name model sharing gpus capacity-type"
};

class ClusterSimulator {
 public:
  // `origin` is the first scrape; every slot's first pod starts at or after it.
  static Result<std::unique_ptr<ClusterSimulator>> Create(const SimOptions& options,
                                                          Instant origin);
  ~ClusterSimulator();
  ClusterSimulator(const ClusterSimulator&) = delete;
  ClusterSimulator& operator=(const ClusterSimulator&) = delete;

  // Emits the scrape at `t` (HELP and TYPE, then samples stamped `t`). A `t` earlier than the
  // previous scrape's is taken as the previous one.
  void Scrape(Instant t, ExpositionHandler& out, unsigned parts = kAllExporters);

  const ClusterShape& shape() const;
  // The Kubernetes API's objects of the DRA nodes (ResourceSlices, allocated ResourceClaims, the
  // pods using them, their nodes, namespaces and owners) as at the latest scrape, in the List
  // that `kubectl get ... -A -o json` writes and `gpucost report --kube-objects` reads; a List
  // of namespaces only when no node's model is a DRA one.
  std::string KubeObjectsJson() const;
  Duration scrape_interval() const;

 private:
  class Impl;
  explicit ClusterSimulator(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

// Scrapes at window.start + k * interval for every such time before window.end; returns how
// many. The simulator should have been created with origin window.start.
int64_t SimulateWindow(ClusterSimulator& sim, Window window, ExpositionHandler& out,
                       unsigned parts = kAllExporters);

}  // namespace gpucost::simulate
