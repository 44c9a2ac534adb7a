// `gpucost serve` through a bounded storm (docs/serve.md, "Operating"), from a real Prometheus
// and from files: SIGKILLed at seeded random points, a full disk for a round (RLIMIT_FSIZE:
// writes fail as on a full disk), its source gone for another, 200 slow and idle sockets and
// malformed requests every round. Afterwards the ledger holds what the one-shot report says, to
// 1e-9, and checks sound; /healthz never took 100 ms to answer (its tests run alone: ctest's
// RUN_SERIAL); the secrets it was given (a password in the source's URL, the API token) appear
// in no log line, metric or answer.
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "cli/cli_test_util.h"
#include "common/child_process.h"
#include "ledger/serve_test_util.h"

namespace gpucost {
namespace {

using serve_test::ConnectLoopback;
using serve_test::Get;
using serve_test::Response;
using serve_test::SumOf;
using serve_test::WaitFor;
using testing_util::ChildProcess;
using testing_util::FreePort;
using testing_util::PrometheusProcess;
using testing_util::RunResult;
using testing_util::RunShell;
using testing_util::TempDir;

constexpr const char* kSecret = "Ch4osS3cret";
// Built in the optimised build only (tests/CMakeLists.txt): the sanitizers' build answers several
// times slower.
constexpr double kHealthzLimitSeconds = 0.1;
constexpr int kRounds = 6;

enum class Source { kPrometheus, kFiles };

std::string SourceName(const ::testing::TestParamInfo<Source>& info) {
  return info.param == Source::kPrometheus ? "Prometheus" : "Files";
}

// Sends `request` as it is and gives back what came back within 1 s ("" for nothing).
std::string Raw(int port, const std::string& request) {
  const int fd = ConnectLoopback(port);
  if (fd < 0) return "";
  timeval timeout{1, 0};
  ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof timeout);
  (void)::send(fd, request.data(), request.size(), MSG_NOSIGNAL);
  std::string answer;
  char buf[4096];
  for (ssize_t n; (n = ::recv(fd, buf, sizeof buf, 0)) > 0;) answer.append(buf, n);
  ::close(fd);
  return answer;
}

// /healthz asked every 20 ms from a thread of its own: how long each answer took.
class HealthProbe {
 public:
  explicit HealthProbe(std::string url)
      : thread_([this, url = std::move(url)] {
          while (!stop_) {
            const auto start = std::chrono::steady_clock::now();
            const int status = Get(url).status;
            const double took =
                std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
            if (status == 200) took_.push_back(took);
            std::this_thread::sleep_for(std::chrono::milliseconds(20));
          }
        }) {}
  // Stops it; the answers' times.
  std::vector<double> Stop() {
    stop_ = true;
    thread_.join();
    return took_;
  }

 private:
  std::atomic<bool> stop_{false};
  std::vector<double> took_;  // the thread's until Stop()
  std::thread thread_;
};

class ServeChaos : public ::testing::TestWithParam<Source> {
 protected:
  void SetUp() override {
    input_ = (dir_.path() / "demo.om").string();
    ledger_ = (dir_.path() / "costs.db").string();
    ASSERT_EQ(RunShell(kBinary + " demo --write-openmetrics " + input_).exit_code, 0);
    token_file_ = (dir_.path() / "token").string();
    std::ofstream(token_file_) << "token-" << kSecret << "\n";
    if (GetParam() == Source::kFiles) return;
    if (!std::filesystem::exists("/usr/bin/prometheus")) {
      if (std::getenv("CI") != nullptr) FAIL() << "prometheus is not installed";
      GTEST_SKIP() << "prometheus is not installed (scripts/install-deps.sh)";
    }
    const RunResult imported = RunShell("/usr/bin/promtool tsdb create-blocks-from openmetrics " +
                                        input_ + " " + (dir_.path() / "tsdb").string() + " 2>&1");
    ASSERT_EQ(imported.exit_code, 0) << imported.output;
    prometheus_ = std::make_unique<PrometheusProcess>(dir_.path(), dir_.path() / "tsdb");
    ASSERT_TRUE(prometheus_->WaitReady(std::chrono::seconds(60))) << prometheus_->Log();
  }

  // Takes the source away (a stopped Prometheus, a file moved off) and back.
  void SourceDown() {
    if (prometheus_) {
      prometheus_port_ = prometheus_->port();
      ASSERT_EQ(prometheus_->Stop(), 0);
      prometheus_.reset();
    } else {
      std::filesystem::rename(input_, input_ + ".away");
    }
  }
  void SourceUp() {
    if (GetParam() == Source::kPrometheus) {
      if (prometheus_) return;
      prometheus_ = std::make_unique<PrometheusProcess>(
          dir_.path(), dir_.path() / "tsdb", "", "  scrape_interval: 1h\n", prometheus_port_);
      ASSERT_TRUE(prometheus_->WaitReady(std::chrono::seconds(60))) << prometheus_->Log();
    } else if (std::filesystem::exists(input_ + ".away")) {
      std::filesystem::rename(input_ + ".away", input_);
    }
  }

  // serve with the source's password in its URL and a token on its API; `disk_kib` > 0: no file
  // may grow past that (a full disk).
  std::unique_ptr<ChildProcess> Start(int port, int round, int disk_kib = 0) {
    std::string source = "--input " + input_;
    if (GetParam() == Source::kPrometheus) {
      source = "--prometheus http://gpucost:" + std::string(kSecret) +
               "@127.0.0.1:" + std::to_string(prometheus_ ? prometheus_->port() : prometheus_port_);
    }
    const std::string command =
        (disk_kib > 0 ? "trap '' XFSZ; ulimit -f " + std::to_string(disk_kib) + "; " : "") +
        "exec " + kBinary + " serve --ledger " + ledger_ +
        " --price-per-gpu-hour 12 --from 2026-10-01T00:00:00Z --interval 1s "
        "--token-file " +
        token_file_ + " --listen 127.0.0.1:" + std::to_string(port) + " " + source;
    logs_.push_back((dir_.path() / ("serve-" + std::to_string(round) + ".log")).string());
    return std::make_unique<ChildProcess>(std::vector<std::string>{"/bin/bash", "-c", command},
                                          logs_.back());
  }

  TempDir dir_;
  std::string input_, ledger_, token_file_;
  std::unique_ptr<PrometheusProcess> prometheus_;
  int prometheus_port_ = 0;
  std::vector<std::string> logs_;
};
INSTANTIATE_TEST_SUITE_P(Sources, ServeChaos,
                         ::testing::Values(Source::kPrometheus, Source::kFiles), SourceName);

TEST_P(ServeChaos, AStormLeavesTheLedgerExactAndTheProbesFast) {
  const int port = FreePort();
  const std::string base = "http://127.0.0.1:" + std::to_string(port);
  const std::string token = "token-" + std::string(kSecret);
  // What clients got back, searched for the secrets at the end.
  std::string answers;
  const std::vector<std::string> malformed = {
      "GARBAGE\r\n\r\n",
      "GET /api/v1/report?window=0,99999999999999 HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer " +
          token + "\r\nConnection: close\r\n\r\n",
      "GET /api/v1/report?by=label:%FF%FE&accumulate=maybe HTTP/1.1\r\nHost: x\r\n"
      "Authorization: bearer " +
          token + "\r\nConnection: close\r\n\r\n",
      "GET /allocation?window=%22garbage%22 HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer " + token +
          "\r\nConnection: close\r\n\r\n",
      "GET /metrics HTTP/1.1\r\nHost: x\r\nX-Long: " + std::string(200'000, 'a') + "\r\n\r\n",
      "POST /api/v1/report HTTP/1.1\r\nHost: x\r\nContent-Length: 99999999999\r\n\r\nxx",
      "GET /metrics HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer wrong\r\n\r\n",
  };
  std::mt19937 rng(20261127);  // the same storm every run
  std::vector<double> took;    // each /healthz answer's
  for (int round = 0; round < kRounds; ++round) {
    // Round 0: the disk is full (the new ledger's schema fits, its first chunk does not).
    // Round 1: the source is gone.
    if (round == 1) SourceDown();
    auto serve = Start(port, round, round == 0 ? 160 : 0);
    ASSERT_TRUE(WaitFor(base + "/healthz", 200, std::chrono::seconds(30))) << serve->Log();
    {
      HealthProbe probe(base + "/healthz");
      std::vector<int> sockets;
      for (int i = 0; i < 200; ++i) {
        const int fd = ConnectLoopback(port);
        ASSERT_GE(fd, 0) << "round " << round << ", socket " << i;
        if (i % 2 == 1) {
          const std::string part = "GET /healthz HTTP/1.1\r\nHost: x\r\n";
          (void)::send(fd, part.data(), part.size(), MSG_NOSIGNAL);
        }
        sockets.push_back(fd);
      }
      // All at once, each on its own connection.
      std::vector<std::string> got(malformed.size());
      {
        std::vector<std::thread> clients;
        for (size_t i = 0; i < malformed.size(); ++i) {
          clients.emplace_back([&, i] { got[i] = Raw(port, malformed[i]); });
        }
        for (std::thread& t : clients) t.join();
      }
      for (size_t i = 0; i < malformed.size(); ++i) {
        // A client's mistake is never a server error.
        EXPECT_FALSE(got[i].starts_with("HTTP/1.1 500"))
            << "round " << round << ": " << malformed[i].substr(0, 60) << " -> " << got[i];
        answers += got[i];
      }
      answers += Get(base + "/metrics", token).body;
      // Killed at a random point of its catch-up (or after it, on later rounds).
      std::this_thread::sleep_for(
          std::chrono::milliseconds(std::uniform_int_distribution<int>(200, 2500)(rng)));
      ASSERT_TRUE(serve->Kill()) << "round " << round;
      for (int fd : sockets) ::close(fd);
      const std::vector<double> these = probe.Stop();
      took.insert(took.end(), these.begin(), these.end());
    }
    if (round == 1) SourceUp();
  }

  // A last start, left alone: it catches up, and the ledger is the one-shot report's.
  auto serve = Start(port, kRounds);
  ASSERT_TRUE(WaitFor(base + "/readyz", 200, std::chrono::seconds(120))) << serve->Log();
  const RunResult once = RunShell(kBinary + " report --input " + input_ +
                                  " --price-per-gpu-hour 12 --accumulate --format json");
  ASSERT_EQ(once.exit_code, 0) << once.output;
  const Response served = Get(base + "/api/v1/report?rollups=false", token);
  ASSERT_EQ(served.status, 200) << served.body;
  answers += served.body;
  const auto totals = [](const std::string& body) { return nlohmann::json::parse(body)["totals"]; };
  for (const char* field : {"cost_usd", "allocated_usd", "idle_usd", "gpu_hours"}) {
    EXPECT_NEAR(totals(served.body)[field].get<double>(), totals(once.output)[field].get<double>(),
                1e-9)
        << field;
  }
  const std::string metrics = Get(base + "/metrics", token).body;
  answers += metrics;
  EXPECT_NEAR(SumOf(metrics, "gpucost_allocated_usd_total"),
              totals(once.output)["allocated_usd"].get<double>(), 1e-6);
  EXPECT_EQ(serve->Terminate(), 0);
  const RunResult check = RunShell(kBinary + " ledger check " + ledger_ + " 2>&1");
  EXPECT_EQ(check.exit_code, 0) << check.output;
  EXPECT_NE(check.output.find(": sound: its storage checked, "), std::string::npos) << check.output;
  const RunResult info = RunShell(kBinary + " ledger info " + ledger_ + " 2>&1");
  EXPECT_NE(info.output.find(" 420 cost records"), std::string::npos) << info.output;

  ASSERT_GT(took.size(), 20u);
  std::sort(took.begin(), took.end());
  const double p99 = took[took.size() * 99 / 100];
  std::printf("/healthz through the storm: %zu answers, p99 %.1f ms, slowest %.1f ms\n",
              took.size(), p99 * 1e3, took.back() * 1e3);
  EXPECT_LT(took.back(), kHealthzLimitSeconds)
      << "the slowest /healthz took " << took.back() << " s";
  for (const std::string& log : logs_) {
    std::ifstream in(log);
    const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    EXPECT_EQ(text.find(kSecret), std::string::npos) << log << ":\n" << text;
  }
  EXPECT_EQ(answers.find(kSecret), std::string::npos);
}

}  // namespace
}  // namespace gpucost
