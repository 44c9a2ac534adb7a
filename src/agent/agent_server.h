// Runs the agent: a collection every interval on its own thread and an HTTP server answering
// GET /metrics (Prometheus text) and GET /healthz until Stop() (or a signal handler calling
// it). Thread-safe: Stop() may be called from any thread.
#pragma once

#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <string>

#include "agent/agent.h"
#include "core/result.h"

namespace gpucost::agent {

class AgentServer {
 public:
  AgentServer(Agent& agent, std::chrono::milliseconds interval);
  ~AgentServer();

  // Binds host:port (0: any free port) and returns the port. Errors: it cannot be bound.
  Result<int> Bind(const std::string& host, int port);
  // Collects and serves until Stop().
  Status Run();
  void Stop();
  bool running() const;

 private:
  struct Http;
  void CollectLoop();

  Agent& agent_;
  std::chrono::milliseconds interval_;
  std::unique_ptr<Http> http_;
  std::mutex mu_;
  std::condition_variable wake_;
  bool stopping_ = false;
};

}  // namespace gpucost::agent
