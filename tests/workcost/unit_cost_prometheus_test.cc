// `gpucost unit-cost --prometheus` against a real Prometheus (Debian's package): the test's
// cluster is imported with `promtool tsdb create-blocks-from openmetrics`, and the table read
// through remote read and through the query API, in chunks shorter than the window, must equal
// the one read from the file, work and money alike. Skipped when prometheus or promtool is not
// installed, unless CI is set.
#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <thread>

#include "cli/cli_test_util.h"
#include "common/child_process.h"
#include "workcost/cluster_input.h"

namespace gpucost {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using testing_util::RunResult;
using testing_util::RunShell;
using testing_util::TempDir;

// Prometheus text with millisecond timestamps -> OpenMetrics with second timestamps.
std::string ToOpenMetrics(const std::string& text) {
  std::istringstream in(text);
  std::ostringstream out;
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    const size_t sp = line.rfind(' ');
    const long long ms = std::stoll(line.substr(sp + 1));
    out << line.substr(0, sp) << ' ' << ms / 1000 << '.' << std::setw(3) << std::setfill('0')
        << ms % 1000 << '\n';
  }
  out << "# EOF\n";
  return out.str();
}

json UnitCost(const std::string& source, const std::string& flags) {
  const std::string command = kBinary + " unit-cost " + source + " " + flags;
  const RunResult r = RunShell(command + " 2>/dev/null");
  if (r.exit_code != 0) {
    ADD_FAILURE() << command << "\n" << RunShell(command + " 2>&1").output;
    return json::object();
  }
  return json::parse(r.output);
}

void ExpectSameRow(const json& got, const json& want, const std::string& where) {
  for (const auto& [k, v] : want.items()) {
    ASSERT_TRUE(got.contains(k)) << where << "." << k;
    if (v.is_number()) {
      ASSERT_TRUE(got[k].is_number()) << where << "." << k << ": " << got[k];
      const double x = got[k].get<double>(), y = v.get<double>();
      EXPECT_NEAR(x, y, 1e-9 * std::max(1.0, std::fabs(y))) << where << "." << k;
    } else {
      EXPECT_EQ(got[k], v) << where << "." << k;
    }
  }
}

TEST(UnitCostPrometheus, EqualsTheFileReadingThroughBothApis) {
  if (!fs::exists("/usr/bin/prometheus") || !fs::exists("/usr/bin/promtool")) {
    if (std::getenv("CI") != nullptr) FAIL() << "prometheus and promtool are required in CI";
    GTEST_SKIP() << "prometheus and promtool are not installed (Debian package prometheus)";
  }
  TempDir tmp;
  const std::string text = workcost_test::ClusterText();
  const std::string file = tmp.Write("cluster.prom", text);
  const std::string om = tmp.Write("cluster.om", ToOpenMetrics(text));
  const fs::path tsdb = tmp.path() / "tsdb";
  const RunResult imported = RunShell("/usr/bin/promtool tsdb create-blocks-from openmetrics " +
                                      om + " " + tsdb.string() + " 2>&1");
  ASSERT_EQ(imported.exit_code, 0) << imported.output;
  testing_util::PrometheusProcess prom(tmp.path(), tsdb);
  bool ready = false;
  for (int i = 0; i < 600 && !ready; ++i) {
    ready = RunShell("curl -sf -o /dev/null " + prom.url() + "/-/ready").exit_code == 0;
    if (!ready) std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  ASSERT_TRUE(ready) << prom.Log();

  const std::string flags =
      "--work-metric vllm:request_success_total --per 1000 --unit requests --by workload "
      "--price-per-gpu-hour 4 --window 1790812800,1790813400 --format json";
  const json want = UnitCost("--input " + file, flags);
  ASSERT_EQ(want["rows"].size(), 2u) << want.dump(1);
  EXPECT_DOUBLE_EQ(want["rows"][0]["work"].get<double>(), 420);
  for (const char* api : {"query", "remote-read"}) {
    SCOPED_TRACE(api);
    const json got = UnitCost(std::string("--prometheus ") + prom.url() +
                                  " --prometheus-chunk 3m --prometheus-api " + api,
                              flags);
    ASSERT_EQ(got["rows"].size(), want["rows"].size()) << got.dump(1);
    for (size_t i = 0; i < want["rows"].size(); ++i) {
      ExpectSameRow(got["rows"][i], want["rows"][i], "rows[" + std::to_string(i) + "]");
    }
    ExpectSameRow(got["totals"], want["totals"], "totals");
    ExpectSameRow(got["unmatched"], want["unmatched"], "unmatched");
  }
}

}  // namespace
}  // namespace gpucost
