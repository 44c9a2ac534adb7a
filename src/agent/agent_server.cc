#include "agent/agent_server.h"

#include <httplib.h>

#include <thread>

#include "core/strings.h"

namespace gpucost::agent {

struct AgentServer::Http {
  httplib::Server server;
};

AgentServer::AgentServer(Agent& agent, std::chrono::milliseconds interval)
    : agent_(agent), interval_(interval), http_(std::make_unique<Http>()) {
  // Prometheus scrapes one request at a time; two workers leave room for a probe beside it and
  // keep the agent's threads (and their stacks) few.
  http_->server.new_task_queue = [] { return new httplib::ThreadPool(2); };
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
