// Child processes for the integration tests: a real Prometheus (Debian's package) on a free
// loopback port serving a TSDB and optionally scraping targets, and `gpucost simulate --serve`.
// Each is stopped (SIGTERM, then SIGKILL) and reaped when its guard goes away, also when an
// assertion fails.
#pragma once

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <memory>
#include <thread>
#include <vector>

#include "promsource/http_transport.h"

extern char** environ;

namespace gpucost::testing_util {

inline int FreePort() {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr);
  socklen_t len = sizeof addr;
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
  ::close(fd);
  return ntohs(addr.sin_port);
}

// A process whose stdout and stderr go to `log`.
class ChildProcess {
 public:
  ChildProcess(std::vector<std::string> args, std::string log) : log_(std::move(log)) {
    std::vector<char*> argv;
    for (std::string& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, 1, log_.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    posix_spawn_file_actions_adddup2(&actions, 1, 2);
    if (posix_spawn(&pid_, argv[0], &actions, nullptr, argv.data(), environ) != 0) pid_ = -1;
    posix_spawn_file_actions_destroy(&actions);
  }
  ~ChildProcess() {
    if (pid_ <= 0) return;
    ::kill(pid_, SIGTERM);
    for (int i = 0; i < 100; ++i) {
      if (::waitpid(pid_, nullptr, WNOHANG) == pid_) return;
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    ::kill(pid_, SIGKILL);
    ::waitpid(pid_, nullptr, 0);
  }
  ChildProcess(const ChildProcess&) = delete;
  ChildProcess& operator=(const ChildProcess&) = delete;

  // SIGTERM, then the exit code once it ends (-1: killed by a signal or still running after 10 s,
  // which gets it SIGKILL).
  int Terminate() {
    if (pid_ <= 0) return -1;
    ::kill(pid_, SIGTERM);
    int status = 0;
    for (int i = 0; i < 100; ++i) {
      if (::waitpid(pid_, &status, WNOHANG) == pid_) {
        pid_ = -1;
        return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    return -1;  // the destructor kills it
  }

  // SIGKILL, as a crash or an OOM kill would; true once it is reaped.
  bool Kill() {
    if (pid_ <= 0) return false;
    ::kill(pid_, SIGKILL);
    const bool reaped = ::waitpid(pid_, nullptr, 0) == pid_;
    pid_ = -1;
    return reaped;
  }

  bool Exited() {
    if (pid_ > 0 && ::waitpid(pid_, nullptr, WNOHANG) == pid_) pid_ = -1;
    return pid_ <= 0;
  }
  std::string Log() const {
    std::ifstream in(log_);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
  }

 private:
  pid_t pid_ = -1;
  std::string log_;
};

// Prometheus serving `tsdb` with `scrape_configs` (YAML under "scrape_configs:", may be empty).
class PrometheusProcess {
 public:
  PrometheusProcess(const std::filesystem::path& dir, const std::filesystem::path& tsdb,
                    const std::string& scrape_configs = "",
                    const std::string& global = "  scrape_interval: 1h\n", int port = 0)
      : port_(port != 0 ? port : FreePort()) {
    const std::filesystem::path config = dir / "prometheus.yml";
    std::ofstream(config) << "global:\n"
                          << global
                          << (scrape_configs.empty() ? "" : "scrape_configs:\n" + scrape_configs);
    process_ = std::make_unique<ChildProcess>(
        std::vector<std::string>{"/usr/bin/prometheus", "--config.file=" + config.string(),
                                 "--storage.tsdb.path=" + tsdb.string(),
                                 "--storage.tsdb.retention.time=100y",
                                 // Also a sink: tests remote-write into the same server.
                                 "--web.enable-remote-write-receiver",
                                 "--web.listen-address=127.0.0.1:" + std::to_string(port_)},
        (dir / "prometheus.log").string());
  }

  std::string url() const { return "http://127.0.0.1:" + std::to_string(port_); }
  int port() const { return port_; }
  // Stops it (SIGTERM); a new PrometheusProcess on port() over the same storage brings it back.
  int Stop() { return process_->Terminate(); }

  // Polls /-/ready for up to `limit`.
  bool WaitReady(std::chrono::seconds limit) {
    promsource::HttpOptions options;
    options.request_timeout = std::chrono::seconds(2);
    auto transport = promsource::MakeCurlTransport(options);
    const auto deadline = std::chrono::steady_clock::now() + limit;
    while (std::chrono::steady_clock::now() < deadline) {
      if (process_->Exited()) return false;
      promsource::HttpRequest r;
      r.url = url() + "/-/ready";
      const promsource::TransportResult res = transport->Send(r);
      if (res.response && res.response->status == 200) return true;
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    return false;
  }
  std::string Log() const { return process_->Log(); }

 private:
  int port_;
  std::unique_ptr<ChildProcess> process_;
};

}  // namespace gpucost::testing_util
