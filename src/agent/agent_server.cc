#include "agent/agent_server.h"

#include <httplib.h>

#include <thread>

#include "core/http_workers.h"
#include "core/strings.h"

namespace gpucost::agent {

struct AgentServer::Http {
  httplib::Server server;
  int listen_fd = -1;  // once bound
};

AgentServer::AgentServer(Agent& agent, std::chrono::milliseconds interval)
    : agent_(agent), interval_(interval), http_(std::make_unique<Http>()) {
  // A thread per connection, started when needed: slow or idle clients cannot hold back
  // Prometheus's scrape or the kubelet's probe.
  ServeHttpSafely(http_->server, kHttpMaxConnections, &http_->listen_fd);
  http_->server.Get("/metrics", [this](const httplib::Request&, httplib::Response& res) {
    res.set_content(agent_.Metrics(), "text/plain; version=0.0.4; charset=utf-8");
  });
  http_->server.Get("/healthz", [](const httplib::Request&, httplib::Response& res) {
    res.set_content("ok\n", "text/plain");
  });
}

AgentServer::~AgentServer() { Stop(); }

void AgentServer::CollectLoop() {
  std::unique_lock<std::mutex> lock(mu_);
  while (!stopping_) {
    const auto next = std::chrono::steady_clock::now() + interval_;
    lock.unlock();
    agent_.Collect();
    lock.lock();
    wake_.wait_until(lock, next, [this] { return stopping_; });
  }
}

Result<int> AgentServer::Bind(const std::string& host, int port) {
  const int bound = port == 0 ? http_->server.bind_to_any_port(host)
                              : (http_->server.bind_to_port(host, port) ? port : -1);
  if (bound <= 0) {
    return Status::Unavailable(StrCat("gpucost agent: cannot listen on ", host, ":", port));
  }
  WidenAcceptQueue(http_->listen_fd);
  return bound;
}

bool AgentServer::running() const { return http_->server.is_running(); }

Status AgentServer::Run() {
  std::thread collector([this] { CollectLoop(); });
  if (!http_->server.listen_after_bind()) {
    Stop();
    collector.join();
    return Status::Unavailable("gpucost agent: the HTTP server stopped with an error");
  }
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
  }
  wake_.notify_all();
  collector.join();
  return Status::Ok();
}

void AgentServer::Stop() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
  }
  wake_.notify_all();
  http_->server.stop();
}

}  // namespace gpucost::agent
