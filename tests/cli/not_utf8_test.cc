// Label values are bytes from outside: the demo cluster with a namespace (and its team) of bytes
// that are not UTF-8 and a pod label likewise, through every command and format that prints
// them, a ledger and serve's HTTP API. Nothing aborts; every output is UTF-8, with U+FFFD for
// what is not; label keys and query parameters that are not text are errors that say so.
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "cli/cli_test_util.h"
#include "common/child_process.h"
#include "common/utf8_check.h"
#include "ledger/serve_test_util.h"

namespace gpucost {
namespace {

using nlohmann::json;
using testing_util::Contains;
using testing_util::IsUtf8;
using testing_util::RunResult;
using testing_util::RunShell;
using testing_util::TempDir;

const std::string kBytes = "bu-\xff\xfe";  // the namespace and team "bu-a" in the demo
const std::string kShown = "bu-\xEF\xBF\xBD\xEF\xBF\xBD";

// The demo's input with "bu-a" made of bytes that are not UTF-8, and a pod label
// app="nb\xff" on every pod.
class NotUtf8Cli : public ::testing::Test {
 protected:
  void SetUp() override {
    const std::string demo = (dir_.path() / "demo.om").string();
    ASSERT_EQ(RunShell(kBinary + " demo --write-openmetrics " + demo + " >/dev/null").exit_code, 0);
    std::ifstream in(demo);
    std::ostringstream out;
    std::vector<std::string> pod_labels;
    for (std::string line; std::getline(in, line);) {
      for (size_t at = line.find("bu-a"); at != std::string::npos; at = line.find("bu-a", at)) {
        line.replace(at, 4, kBytes);
      }
      if (line == "# EOF") break;
      out << line << "\n";
      if (line.rfind("kube_pod_info{", 0) != 0) continue;
      // kube_pod_labels{namespace,pod,uid of this line,label_app="nb\xff"} at its time.
      const size_t uid_end = line.find('"', line.find("uid=\"") + 5);
      pod_labels.push_back(PodLabelsLine(line.substr(14, uid_end + 1 - 14), line));
    }
    out << "# TYPE kube_pod_labels gauge\n";
    for (const std::string& l : pod_labels) out << l << "\n";
    out << "# EOF\n";
    input_ = dir_.Write("bad.om", out.str());
  }

  static std::string PodLabelsLine(const std::string& identity, const std::string& info_line) {
    return "kube_pod_labels{" + identity + ",label_app=\"nb\xff\"}" +
           info_line.substr(info_line.rfind(" 1 "));
  }

  RunResult Gpucost(const std::string& args) {
    return RunShell(kBinary + " " + args + " 2>" + (dir_.path() / "stderr").string());
  }
  std::string Stderr() const { return dir_.Read("stderr"); }

  TempDir dir_;
  std::string input_;
};

TEST_F(NotUtf8Cli, ReportInEveryFormat) {
  for (const std::string format : {"table", "csv", "json", "focus"}) {
    const RunResult r =
        Gpucost("report --input " + input_ + " --price-per-gpu-hour 12 --by namespace,label:app " +
                (format == "focus" ? "" : "--accumulate ") + "--format " + format);
    ASSERT_EQ(r.exit_code, 0) << format << ": " << Stderr();
    EXPECT_TRUE(IsUtf8(r.output)) << format;
    EXPECT_TRUE(Contains(r.output, kShown)) << format << ":\n" << r.output;
    EXPECT_TRUE(Contains(r.output, "nb\xEF\xBF\xBD")) << format << ":\n" << r.output;
  }
  const RunResult j = Gpucost("report --input " + input_ +
                              " --price-per-gpu-hour 12 --by team --accumulate --format json");
  ASSERT_EQ(j.exit_code, 0) << Stderr();
  const json doc = json::parse(j.output);
  bool found = false;
  for (const json& row : doc["rows"]) found = found || row["team"] == kShown;
  EXPECT_TRUE(found) << doc.dump(2);
  EXPECT_NEAR(doc["totals"]["cost_usd"].get<double>(), 12.0, 1e-9);  // the money is all there
}

TEST_F(NotUtf8Cli, LabelKeysThatAreNotTextAreFlagErrors) {
  for (const std::string by : {"label:\xff", "\xff", "namespace,label:a\xfe"}) {
    const RunResult r = Gpucost("report --input " + input_ + " --format json --by '" + by + "'");
    EXPECT_EQ(r.exit_code, 2) << Stderr();
    EXPECT_TRUE(IsUtf8(Stderr())) << Stderr();
    EXPECT_TRUE(r.output.empty()) << r.output;
  }
  EXPECT_TRUE(Contains(Stderr(), "UTF-8")) << Stderr();
}

TEST_F(NotUtf8Cli, ThroughALedger) {
  const std::string ledger = (dir_.path() / "costs.db").string();
  const RunResult w =
      Gpucost("ledger write " + ledger + " --input " + input_ + " --price-per-gpu-hour 12");
  ASSERT_EQ(w.exit_code, 0) << Stderr();
  for (const std::string format : {"table", "csv", "json"}) {
    const RunResult r = Gpucost("report --ledger " + ledger +
                                " --by namespace,label:app --accumulate --format " + format);
    ASSERT_EQ(r.exit_code, 0) << format << ": " << Stderr();
    EXPECT_TRUE(IsUtf8(r.output)) << format;
    EXPECT_TRUE(Contains(r.output, kShown)) << format << ":\n" << r.output;
  }
  const RunResult info = Gpucost("ledger info --format json " + ledger);
  ASSERT_EQ(info.exit_code, 0) << Stderr();
  EXPECT_TRUE(json::accept(info.output)) << info.output;
}

TEST_F(NotUtf8Cli, OtherCommandsThatPrintNames) {
  for (const std::string args :
       {"chargeback --by team --format json", "chargeback --by team --format html",
        "chargeback --by team --format csv", "chargeback --by team --format text",
        "recommend --format json", "whatif --policy spot-batch,cull-notebooks --format json"}) {
    const RunResult r = Gpucost(args + " --input " + input_ + " --price-per-gpu-hour 12");
    ASSERT_EQ(r.exit_code, 0) << args << ": " << Stderr();
    EXPECT_TRUE(IsUtf8(r.output)) << args;
    if (Contains(args, "json")) {
      EXPECT_TRUE(json::accept(r.output)) << r.output;
    }
  }
}

TEST_F(NotUtf8Cli, ServeAnswersEveryRequestWithUtf8) {
  const int port = testing_util::FreePort();
  const std::string base = "http://127.0.0.1:" + std::to_string(port);
  const std::string ledger = (dir_.path() / "serve.db").string();
  testing_util::ChildProcess serve(
      {kBinary, "serve", "--ledger", ledger, "--input", input_, "--price-per-gpu-hour", "12",
       "--from", "2026-10-01T00:00:00Z", "--interval", "1s", "--listen",
       "127.0.0.1:" + std::to_string(port)},
      (dir_.path() / "serve.log").string());
  ASSERT_TRUE(serve_test::WaitFor(base + "/readyz", 200, std::chrono::seconds(60))) << serve.Log();

  const serve_test::Response report = serve_test::Get(base + "/api/v1/report?by=namespace,team");
  ASSERT_EQ(report.status, 200) << report.body;
  EXPECT_TRUE(IsUtf8(report.body));
  EXPECT_TRUE(Contains(json::parse(report.body).dump(), kShown)) << report.body;

  // Bad parameters, whatever their bytes: 400 and a JSON body that says why.
  for (const std::string query : {"by=label:%FF", "by=%FF%FE", "by=colour", "window=%FF",
                                  "by=label:%1B%5B2J", "window=%22,%22"}) {
    const serve_test::Response r = serve_test::Get(base + "/api/v1/report?" + query);
    EXPECT_EQ(r.status, 400) << query << ": " << r.body;
    json body;
    ASSERT_NO_THROW(body = json::parse(r.body)) << query << ": " << r.body;
    EXPECT_TRUE(body["error"].is_string()) << r.body;
  }

  // OpenCost's API: its errors and answers are JSON too.
  const serve_test::Response bad_window = serve_test::Get(base + "/allocation?window=%FF");
  EXPECT_EQ(bad_window.status, 400) << bad_window.body;
  EXPECT_TRUE(json::accept(bad_window.body)) << bad_window.body;
  const serve_test::Response alloc = serve_test::Get(
      base + "/allocation?window=2026-10-01T00:00:00Z,2026-10-01T01:00:00Z&aggregate=namespace");
  ASSERT_EQ(alloc.status, 200) << alloc.body;
  EXPECT_TRUE(Contains(json::parse(alloc.body).dump(), kShown)) << alloc.body;

  // /metrics: Prometheus refuses a whole scrape over one label value that is not UTF-8.
  const serve_test::Response metrics = serve_test::Get(base + "/metrics");
  ASSERT_EQ(metrics.status, 200);
  EXPECT_TRUE(IsUtf8(metrics.body));
  EXPECT_TRUE(Contains(metrics.body, "namespace=\"" + kShown + "\"")) << metrics.body;
  if (std::filesystem::exists("/usr/bin/promtool")) {
    const std::string file = dir_.Write("metrics.txt", metrics.body);
    const RunResult check = RunShell("/usr/bin/promtool check metrics < " + file + " 2>&1");
    EXPECT_FALSE(Contains(check.output, "parsing error")) << check.output;  // "invalid label value"
  }
}

// A warning that echoes input (a malformed line's value) writes its control characters as
// U+FFFD: an ESC in a file cannot colour or move the user's terminal.
TEST(TerminalSafeWarnings, ControlCharactersOfTheInputNeverReachTheTerminal) {
  TempDir dir;
  const std::string demo = (dir.path() / "demo.om").string();
  ASSERT_EQ(RunShell(kBinary + " demo --write-openmetrics " + demo + " >/dev/null").exit_code, 0);
  std::ifstream in(demo);
  std::stringstream text;
  text << in.rdbuf();
  std::string body = text.str();
  body.insert(body.rfind("# EOF"), "odd_metric{a=\"b\"} x\x1b[31mRED\x07\n");
  const std::string input = dir.Write("esc.om", body);
  const RunResult r =
      RunShell(kBinary + " report --input " + input + " --price-per-gpu-hour 12 2>&1 >/dev/null");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_TRUE(Contains(r.output, "invalid value \"x\xEF\xBF\xBD[31mRED\xEF\xBF\xBD\"")) << r.output;
  EXPECT_EQ(r.output.find('\x1b'), std::string::npos);
  EXPECT_EQ(r.output.find('\x07'), std::string::npos);
}

}  // namespace
}  // namespace gpucost
