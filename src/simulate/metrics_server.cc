#include "simulate/metrics_server.h"

#include <httplib.h>

#include <atomic>
#include <charconv>
#include <mutex>

#include "core/http_workers.h"
#include "core/strings.h"
#include "simulate/exposition_writer.h"

namespace gpucost::simulate {

class MetricsServer::Impl {
 public:
  Impl(ClusterSimulator& sim, const Clock& clock) : sim_(sim), clock_(clock) {
    server_.set_socket_options(ExclusivePortSocketOptions);
    Route("/metrics", kAllExporters);
    Route("/metrics/kube-state-metrics", kKubeStateMetrics);
    Route("/metrics/dcgm-exporter", kDcgmExporter);
    server_.Get("/", [](const httplib::Request&, httplib::Response& res) {
      res.set_content(
          "gpucost simulate: /metrics, /metrics/kube-state-metrics, /metrics/dcgm-exporter\n",
          "text/plain; charset=utf-8");
    });
  }

  Result<int> Bind(const std::string& host, int port) {
    int bound = port;
    if (port == 0) {
      bound = server_.bind_to_any_port(host);
      if (bound <= 0) return Status::Unavailable(StrCat("cannot listen on ", host, ":0"));
    } else if (!server_.bind_to_port(host, port)) {
      return Status::Unavailable(StrCat("cannot listen on ", host, ":", port));
    }
    bound_ = true;
    return bound;
  }

  Status Run() {
    if (!bound_) return Status::FailedPrecondition("MetricsServer::Run before Bind");
    if (!server_.listen_after_bind())
      return Status::Unavailable("the metrics server stopped with an error");
    return Status::Ok();
  }

  httplib::Server server_;
  std::atomic<uint64_t> scrapes_{0};

 private:
  void Route(const std::string& path, unsigned parts) {
    server_.Get(path, [this, parts](const httplib::Request&, httplib::Response& res) {
      ExpositionWriter w(TextFormat::kUntimestamped);
      {
        std::lock_guard<std::mutex> lock(mu_);
        sim_.Scrape(clock_.Now(), w, parts);
      }
      ++scrapes_;
      res.set_content(std::move(w.text()), "text/plain; version=0.0.4; charset=utf-8");
    });
  }

  ClusterSimulator& sim_;
  const Clock& clock_;
  std::mutex mu_;
  bool bound_ = false;
};

MetricsServer::MetricsServer(ClusterSimulator& sim, const Clock& clock)
    : impl_(std::make_unique<Impl>(sim, clock)) {}
MetricsServer::~MetricsServer() { Stop(); }

Result<int> MetricsServer::Bind(const std::string& host, int port) {
  return impl_->Bind(host, port);
}
Status MetricsServer::Run() { return impl_->Run(); }
void MetricsServer::Stop() { impl_->server_.stop(); }
bool MetricsServer::running() const { return impl_->server_.is_running(); }
uint64_t MetricsServer::scrapes() const { return impl_->scrapes_.load(); }


}  // namespace gpucost::simulate
