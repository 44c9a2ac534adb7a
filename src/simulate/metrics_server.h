// MetricsServer: serves a ClusterSimulator's scrapes over HTTP as a kube-state-metrics and a
// dcgm-exporter would, at the time a scrape arrives (from the injected clock):
//   /metrics                      both exporters' series
//   /metrics/kube-state-metrics   kube-state-metrics only
//   /metrics/dcgm-exporter        dcgm-exporter only
// Prometheus text 0.0.4 without timestamps. Requests are served from a thread pool; the
// simulator is used under a mutex. Bind, then Run (blocks) until Stop from another thread.
#pragma once

#include <memory>
#include <string>

#include "core/listen_address.h"
#include "core/result.h"
#include "core/time.h"
#include "simulate/cluster_simulator.h"

namespace gpucost::simulate {

class MetricsServer {
 public:
  MetricsServer(ClusterSimulator& sim, const Clock& clock);
  ~MetricsServer();
  MetricsServer(const MetricsServer&) = delete;
  MetricsServer& operator=(const MetricsServer&) = delete;

  // Binds `host:port`; port 0 takes a free port. Returns the bound port.
  Result<int> Bind(const std::string& host, int port);
  // Serves until Stop(). Fails when not bound.
  Status Run();
  void Stop();
  // True once Run is accepting connections.
  bool running() const;
  uint64_t scrapes() const;

 private:
  class Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace gpucost::simulate
