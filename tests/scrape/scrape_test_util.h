// Exporters for the scrape tests: cpp-httplib servers on 127.0.0.1 (free port) that answer
// /metrics with a fixed body, a delay, or a status, plus a port nothing listens on.
#pragma once

#include <httplib.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <string>
#include <thread>

namespace gpucost::scrape::testing {

class Exporter {
 public:
  explicit Exporter(std::string body, int status = 200,
                    std::chrono::milliseconds delay = std::chrono::milliseconds(0))
      : body_(std::move(body)), status_(status), delay_(delay) {
    server_.Get("/metrics", [this](const httplib::Request& req, httplib::Response& res) {
      std::unique_lock<std::mutex> lock(mu_);
      ++requests_;
      accept_ = req.get_header_value("Accept");
      accept_encoding_ = req.get_header_value("Accept-Encoding");
      // A slow exporter: wait out the delay unless the test is over.
      cv_.wait_for(lock, delay_, [this] { return stopping_; });
      res.status = status_;
      res.set_content(body_, "text/plain; version=0.0.4; charset=utf-8");
    });
    port_ = server_.bind_to_any_port("127.0.0.1");
    thread_ = std::thread([this] { server_.listen_after_bind(); });
    while (!server_.is_running()) std::this_thread::yield();
  }
  ~Exporter() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      stopping_ = true;
    }
    cv_.notify_all();
    server_.stop();
    thread_.join();
  }
  Exporter(const Exporter&) = delete;
  Exporter& operator=(const Exporter&) = delete;

  std::string url() const { return "http://127.0.0.1:" + std::to_string(port_) + "/metrics"; }
  void set_body(std::string body) {
    std::lock_guard<std::mutex> lock(mu_);
    body_ = std::move(body);
  }
  int requests() {
    std::lock_guard<std::mutex> lock(mu_);
    return requests_;
  }
  // Headers of the latest request. With them httplib (built with zlib) gzips the body.
  std::string accept() {
    std::lock_guard<std::mutex> lock(mu_);
    return accept_;
  }
  std::string accept_encoding() {
    std::lock_guard<std::mutex> lock(mu_);
    return accept_encoding_;
  }

 private:
  httplib::Server server_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::string body_;
  int status_;
  std::chrono::milliseconds delay_;
  bool stopping_ = false;
  int requests_ = 0;
  std::string accept_;
  std::string accept_encoding_;
  int port_ = 0;
  std::thread thread_;
};

// A loopback port that was free a moment ago and has no listener: connections are refused.
inline int ClosedPort() {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = 0;
  ::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr);
  socklen_t len = sizeof addr;
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
  ::close(fd);
  return ntohs(addr.sin_port);
}

// A dcgm-exporter 4.x scrape of one whole A100 held by ml/trainer-0 on node-a.
inline std::string DcgmBody(double activity = 0.75) {
  const std::string labels =
      "gpu=\"0\",UUID=\"GPU-0a0a0a0a-1111-2222-3333-444444444444\",pci_bus_id=\"00000000:01:00.0\","
      "device=\"nvidia0\",modelName=\"NVIDIA A100-SXM4-80GB\",Hostname=\"node-a\","
      "DCGM_FI_DRIVER_VERSION=\"570.86.15\",container=\"train\",namespace=\"ml\",pod=\"trainer-0\"";
  return "# HELP DCGM_FI_PROF_GR_ENGINE_ACTIVE Ratio of time the graphics engine is active.\n"
         "# TYPE DCGM_FI_PROF_GR_ENGINE_ACTIVE gauge\n"
         "DCGM_FI_PROF_GR_ENGINE_ACTIVE{" +
         labels + "} " + std::to_string(activity) +
         "\n"
         "# HELP DCGM_FI_DEV_GPU_UTIL GPU utilization (in %).\n"
         "# TYPE DCGM_FI_DEV_GPU_UTIL gauge\n"
         "DCGM_FI_DEV_GPU_UTIL{" +
         labels + "} " + std::to_string(static_cast<int>(activity * 100)) +
         "\n"
         "# HELP DCGM_FI_DEV_FB_USED Framebuffer memory used (in MiB).\n"
         "# TYPE DCGM_FI_DEV_FB_USED gauge\n"
         "DCGM_FI_DEV_FB_USED{" +
         labels + "} 40960\n";
}

// Line 4 lacks its closing '}'.
inline std::string MalformedBody() {
  return "# HELP DCGM_FI_DEV_GPU_UTIL GPU utilization (in %).\n"
         "# TYPE DCGM_FI_DEV_GPU_UTIL gauge\n"
         "DCGM_FI_DEV_GPU_UTIL{gpu=\"0\",UUID=\"GPU-bad00000-0000-0000-0000-000000000000\","
         "Hostname=\"node-b\"} 10\n"
         "DCGM_FI_DEV_GPU_UTIL{gpu=\"1\",UUID=\"GPU-bad11111-0000-0000-0000-000000000000\","
         "Hostname=\"node-b\" 20\n";
}

}  // namespace gpucost::scrape::testing
