// The commands `make serve-demo` prints for a user to paste (scripts/serve-demo.sh
// --print-commands) run as printed: against a server that answers their paths, each exits 0 and
// its query reaches the server whole (PromQL's spaces URL-encoded, not raw in the URL).
#include <gtest/gtest.h>
#include <httplib.h>

#include <chrono>
#include <map>
#include <mutex>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "cli/cli_test_util.h"

namespace {

using gpucost::testing_util::RunResult;
using gpucost::testing_util::RunShell;
using gpucost::testing_util::TempDir;

// Answers every GET on a free loopback port and records each path with its query parameters.
class RecordingServer {
 public:
  RecordingServer() {
    server_.Get(".*", [this](const httplib::Request& req, httplib::Response& res) {
      std::lock_guard<std::mutex> lock(mu_);
      std::string seen = req.path;
      for (const auto& [key, value] : req.params) seen += " " + key + "=" + value;
      requests_.push_back(seen);
      res.set_content("gpucost_allocated_usd_total{team=\"a\"} 1\n", "text/plain");
    });
    port_ = server_.bind_to_any_port("127.0.0.1");
    thread_ = std::thread([this] { server_.listen_after_bind(); });
    for (int i = 0; i < 400 && !server_.is_running(); ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
  }
  ~RecordingServer() {
    server_.stop();
    thread_.join();
  }
  int port() const { return port_; }
  std::vector<std::string> requests() {
    std::lock_guard<std::mutex> lock(mu_);
    return requests_;
  }

 private:
  httplib::Server server_;
  int port_ = 0;
  std::thread thread_;
  std::mutex mu_;
  std::vector<std::string> requests_;
};

TEST(ServeDemo, PrintedCommandsWorkWhenPasted) {
  if (RunShell("command -v curl >/dev/null").exit_code != 0) GTEST_SKIP() << "no curl";
  RecordingServer server;
  const TempDir dir;
  const std::string port = std::to_string(server.port());
  const RunResult printed =
      RunShell("SERVE_PORT=" + port + " PROM_PORT=" + port + " bash '" + GPUCOST_SOURCE_DIR +
               "/scripts/serve-demo.sh' --print-commands");
  ASSERT_EQ(printed.exit_code, 0) << printed.output;
  std::istringstream lines(printed.output);
  int commands = 0;
  for (std::string line; std::getline(lines, line);) {
    ASSERT_EQ(line.rfind("  curl ", 0), 0u) << line;
    // As pasted: the line is a shell script of its own (curl tries both of localhost's addresses).
    const std::string script = dir.Write("command.sh", "set -o pipefail\n" + line + "\n");
    const RunResult r = RunShell("bash '" + script + "' 2>&1");
    EXPECT_EQ(r.exit_code, 0) << line << "\n" << r.output;
    ++commands;
  }
  EXPECT_EQ(commands, 4) << printed.output;
  const std::vector<std::string> requests = server.requests();
  const std::vector<std::string> want = {
      "/metrics", "/api/v1/report by=team", "/allocation aggregate=namespace window=1h",
      "/api/v1/query query=sum by (team) (gpucost_allocated_usd_total)"};
  EXPECT_EQ(requests, want);
}

}  // namespace
