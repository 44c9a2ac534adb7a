// `gpucost report --prometheus` against a real Prometheus (Debian's 2.x): the demo's input and a
// golden case are imported with promtool, served by Prometheus, and the report read through
// remote read (streamed XOR chunks) and through the query API, in chunks shorter than the window,
// must equal the report read from the files. Sample by sample, remote read must hand over exactly
// what the query API does.
#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <bit>
#include <iostream>
#include <map>
#include <tuple>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "cli/cli_test_util.h"
#include "common/sanitizer.h"
#include "common/child_process.h"
#include "core/strings.h"
#include "inventory/input_metrics.h"
#include "promsource/http_transport.h"
#include "promsource/prometheus_source.h"
#include "promsource/promsource_test_util.h"

namespace gpucost::promsource {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using testing_util::RunResult;
using testing_util::RunShell;
using testing_util::PrometheusProcess;
using testing_util::TempDir;

const char kPrometheus[] = "/usr/bin/prometheus";
const char kPromtool[] = "/usr/bin/promtool";

// Prometheus text with millisecond timestamps -> OpenMetrics with second timestamps, the form
// promtool imports. Comment lines are dropped (every family becomes "unknown").
void PromTextToOpenMetrics(const fs::path& in, const fs::path& out) {
  std::ifstream src(in);
  std::ofstream dst(out);
  std::string line;
  while (std::getline(src, line)) {
    if (line.empty() || line[0] == '#') continue;
    const size_t sp = line.rfind(' ');
    const long long ms = std::stoll(line.substr(sp + 1));
    dst << line.substr(0, sp) << ' ' << ms / 1000 << '.' << std::setw(3) << std::setfill('0')
        << ms % 1000 << '\n';
  }
  dst << "# EOF\n";
}

// Writes every tenth activity sample of an OpenMetrics file again, right after it, with another
// value: a conflicting duplicate. Prometheus keeps the first (promtool's import as its scrapes);
// files must too, or the same data costs differently by source.
void AddConflictingDuplicates(const fs::path& file) {
  std::ifstream src(file);
  std::string out;
  int activity = 0;
  for (std::string line; std::getline(src, line);) {
    out += line + "\n";
    if (line.starts_with("DCGM_FI_PROF_GR_ENGINE_ACTIVE{") && ++activity % 10 == 0) {
      const size_t value = line.rfind(' ', line.rfind(' ') - 1);
      out += line.substr(0, value) + " 0.01" + line.substr(line.rfind(' ')) + "\n";
    }
  }
  src.close();
  std::ofstream(file) << out;
}

// Every row and total agrees: numbers to 1e-9 (relative above 1), everything else exactly.
void ExpectSameReport(const json& got, const json& want) {
  ASSERT_EQ(got["rows"].size(), want["rows"].size()) << got.dump(1) << "\n" << want.dump(1);
  auto compare = [](const json& a, const json& b, const std::string& where) {
    for (const auto& [k, v] : b.items()) {
      ASSERT_TRUE(a.contains(k)) << where << "." << k;
      if (v.is_number()) {
        ASSERT_TRUE(a[k].is_number()) << where << "." << k << ": " << a[k];
        const double x = a[k].get<double>(), y = v.get<double>();
        EXPECT_NEAR(x, y, 1e-9 * std::max(1.0, std::fabs(y))) << where << "." << k;
      } else if (!v.is_object()) {
        EXPECT_EQ(a[k], v) << where << "." << k;
      }
    }
  };
  for (size_t i = 0; i < want["rows"].size(); ++i) {
    compare(got["rows"][i], want["rows"][i], StrCat("rows[", i, "]"));
  }
  compare(got["totals"], want["totals"], "totals");
  EXPECT_EQ(got["window"], want["window"]);
}

json Report(const std::string& source_flags, const std::string& flags) {
  const RunResult r = RunShell(kBinary + " report " + source_flags + " " + flags + " 2>/dev/null");
  EXPECT_EQ(r.exit_code, 0) << source_flags << " " << flags << "\n" << r.output;
  if (r.exit_code != 0) return json::object();
  return json::parse(r.output);
}

class PrometheusIntegration : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!fs::exists(kPrometheus) || !fs::exists(kPromtool)) {
      GTEST_SKIP() << "prometheus and promtool are not installed (scripts/install-deps.sh)";
    }
  }

  // Imports `openmetrics` into a TSDB under the temp dir and starts Prometheus on it.
  std::unique_ptr<PrometheusProcess> Serve(const fs::path& openmetrics) {
    const fs::path tsdb = tmp_.path() / "tsdb";
    const RunResult p = RunShell(StrCat(kPromtool, " tsdb create-blocks-from openmetrics ",
                                        openmetrics.string(), " ", tsdb.string(), " 2>&1"));
    EXPECT_EQ(p.exit_code, 0) << p.output;
    auto prom = std::make_unique<PrometheusProcess>(tmp_.path(), tsdb);
    const bool ready = prom->WaitReady(std::chrono::seconds(60));
    EXPECT_TRUE(ready) << prom->Log();
    if (!ready) return nullptr;
    return prom;
  }

  // Reports a golden case from its files and through Prometheus (both APIs): the same report.
  // Returns the rows read by remote read.
  json ExpectGoldenCaseThroughPrometheus(const std::string& name) {
    const fs::path dir = fs::path(GPUCOST_SOURCE_DIR) / "tests" / "golden" / "cases" / name;
    const fs::path om = tmp_.path() / "scrape.om";
    PromTextToOpenMetrics(dir / "input" / "scrape.prom", om);
    const auto prom = Serve(om);
    if (prom == nullptr) return json::array();
    std::string args = testing_util::RunShell("cat " + (dir / "args").string()).output;
    while (!args.empty() && (args.back() == '\n' || args.back() == ' ')) args.pop_back();
    const std::string flags = args + " --format json";
    const json via_file = Report("--input " + (dir / "input").string(), flags);
    json rows = json::array();
    for (const char* api : {"query", "remote-read"}) {
      SCOPED_TRACE(api);
      const json via_api = Report(
          StrCat("--prometheus ", prom->url(), " --prometheus-chunk 3m --prometheus-api ", api),
          flags);
      EXPECT_FALSE(via_api.empty());
      if (via_api.empty()) continue;
      EXPECT_FALSE(via_api["rows"].empty());
      ExpectSameReport(via_api, via_file);
      rows = via_api["rows"];
    }
    return rows;
  }

  TempDir tmp_;
};

TEST_F(PrometheusIntegration, DemoReportEqualsTheFileReport) {
  const auto started = std::chrono::steady_clock::now();
  const fs::path om = tmp_.path() / "demo.om";
  const RunResult w = RunShell(kBinary + " demo --write-openmetrics " + om.string() + " 2>&1");
  ASSERT_EQ(w.exit_code, 0) << w.output;
  AddConflictingDuplicates(om);
  const auto prom = Serve(om);
  ASSERT_NE(prom, nullptr);
  const auto ready = std::chrono::steady_clock::now();

  const std::string flags =
      "--window 1790812800,1790816400 --by namespace --accumulate --price-per-gpu-hour 12 "
      "--format json";
  const std::string source = "--prometheus " + prom->url();
  const json via_api = Report(source + " --prometheus-api query --prometheus-chunk 20m", flags);
  const json via_file = Report("--input " + om.string(), flags);
  ASSERT_FALSE(via_api.empty());
  ExpectSameReport(via_api, via_file);
  const json via_remote_read =
      Report(source + " --prometheus-api remote-read --prometheus-chunk 20m", flags);
  ASSERT_FALSE(via_remote_read.empty());
  ExpectSameReport(via_remote_read, via_file);
  ExpectSameReport(via_remote_read, via_api);
  ASSERT_EQ(via_api["rows"].size(), 3u) << via_api.dump(1);
  EXPECT_EQ(via_api["rows"][0]["namespace"], "bu-a");
  EXPECT_NEAR(via_api["rows"][0]["allocated_usd"].get<double>(), 12.0 * 3 / 7, 1e-9);
  EXPECT_NEAR(via_api["rows"][1]["allocated_usd"].get<double>(), 12.0 * 2 / 7, 1e-9);
  EXPECT_NEAR(via_api["rows"][2]["allocated_usd"].get<double>(), 12.0 * 2 / 7, 1e-9);
  EXPECT_NEAR(via_api["totals"]["cost_usd"].get<double>(), 12.0, 1e-9);

  // A chunk that does not divide the window, and one longer than it, read the same, by either
  // API (auto picks remote read, which Prometheus offers).
  for (const char* api : {"query", "auto"}) {
    for (const char* chunk : {"7m", "2h"}) {
      SCOPED_TRACE(StrCat(api, " ", chunk));
      ExpectSameReport(
          Report(StrCat(source, " --prometheus-api ", api, " --prometheus-chunk ", chunk), flags),
          via_file);
    }
  }
  const auto done = std::chrono::steady_clock::now();
  using ms = std::chrono::milliseconds;
  std::cout << "prometheus integration: import + start "
            << std::chrono::duration_cast<ms>(ready - started).count() << " ms, six reports "
            << std::chrono::duration_cast<ms>(done - ready).count() << " ms\n";
}

TEST_F(PrometheusIntegration, GoldenCaseReportEqualsTheFileReport) {
  ExpectGoldenCaseThroughPrometheus("workload_identity_and_team");
}

// Shared GPUs measured by the node agent: its series must be among those fetched, or the rows
// would be estimated.
TEST_F(PrometheusIntegration, AgentGoldenCaseReportEqualsTheFileReport) {
  const json rows = ExpectGoldenCaseThroughPrometheus("shared_gpus_agent");
  ASSERT_EQ(rows.size(), 6u);
  for (const json& row : rows) {
    if (row["pod"] != "__idle__") {
      EXPECT_EQ(row["estimated"], false) << row.dump();
    }
  }
}

// Every inventory metric of the demo, fetched by both APIs in 25-minute chunks: the same
// samples (series, timestamps, bit-identical values) in the same order per series.
TEST_F(PrometheusIntegration, RemoteReadHandsOverWhatTheQueryApiDoes) {
  const fs::path om = tmp_.path() / "demo.om";
  const RunResult w = RunShell(kBinary + " demo --write-openmetrics " + om.string() + " 2>&1");
  ASSERT_EQ(w.exit_code, 0) << w.output;
  AddConflictingDuplicates(om);
  const auto prom = Serve(om);
  ASSERT_NE(prom, nullptr);
  const Window range{InstantFromUnixMs(1790812800000 - 300000), InstantFromUnixMs(1790816400000)};
  using Key = std::tuple<std::string, std::vector<std::pair<std::string, std::string>>, int64_t>;
  auto fetch = [&](PrometheusApi api, FetchStats& stats) {
    PrometheusClient client(prom->url(), {});
    testing::RecordingHandler h;
    const Status s = FetchRawSamples(client, api, range, std::chrono::minutes(25),
                                     kInventoryMetricNames, h, &stats);
    EXPECT_TRUE(s.ok()) << s.ToString();
    std::map<Key, uint64_t> out;
    for (auto& r : h.samples) {
      std::sort(r.labels.begin(), r.labels.end());
      const bool fresh =
          out.emplace(Key{r.name, r.labels, r.t_ms}, std::bit_cast<uint64_t>(r.value)).second;
      EXPECT_TRUE(fresh) << "sample handed over twice: " << r.name << " at " << r.t_ms;
    }
    return out;
  };
  FetchStats rr_stats, q_stats;
  const auto via_remote_read = fetch(PrometheusApi::kRemoteRead, rr_stats);
  const auto via_query = fetch(PrometheusApi::kQuery, q_stats);
  EXPECT_EQ(rr_stats.api, PrometheusApi::kRemoteRead);
  EXPECT_GT(via_query.size(), 5000u);
  EXPECT_EQ(via_remote_read.size(), via_query.size());
  EXPECT_TRUE(via_remote_read == via_query);
  // One request per chunk instead of one per chunk and metric.
  EXPECT_EQ(rr_stats.requests, 3u);
  EXPECT_EQ(q_stats.requests, 3u * kInventoryMetricNames.size());
}

// Rows keyed by `keys`: the same rows, numbers to 1e-9 (relative above 1), whatever their order.
void ExpectSameRowsByKey(const json& got, const json& want, const std::vector<std::string>& keys) {
  auto key = [&keys](const json& row) {
    std::string k;
    for (const std::string& name : keys) k += row.value(name, "") + "/";
    return k;
  };
  std::map<std::string, json> rows;
  for (const json& r : want["rows"]) rows[key(r)] = r;
  ASSERT_EQ(got["rows"].size(), want["rows"].size());
  int differ = 0;
  for (const json& r : got["rows"]) {
    auto it = rows.find(key(r));
    ASSERT_NE(it, rows.end()) << key(r);
    for (const auto& [k, v] : it->second.items()) {
      const bool same = v.is_number() && r[k].is_number()
                            ? std::fabs(r[k].get<double>() - v.get<double>()) <=
                                  1e-9 * std::max(1.0, std::fabs(v.get<double>()))
                            : r[k] == v;
      if (!same && ++differ <= 5) ADD_FAILURE() << key(r) << " " << k << ": " << r[k] << " vs " << v;
    }
  }
  EXPECT_EQ(differ, 0);
  EXPECT_NEAR(got["totals"]["cost_usd"].get<double>(), want["totals"]["cost_usd"].get<double>(),
              1e-9 * want["totals"]["cost_usd"].get<double>());
}

// Two JSON documents alike: the same structure and strings, numbers to 1e-9 (relative above 1).
void ExpectAlike(const json& got, const json& want, const std::string& where) {
  if (want.is_number() && got.is_number()) {
    const double x = got.get<double>(), y = want.get<double>();
    EXPECT_NEAR(x, y, 1e-9 * std::max(1.0, std::fabs(y))) << where;
  } else if (want.is_object() && got.is_object()) {
    EXPECT_EQ(got.size(), want.size()) << where;
    for (const auto& [k, v] : want.items()) {
      ASSERT_TRUE(got.contains(k)) << where << "." << k;
      ExpectAlike(got[k], v, where + "." + k);
    }
  } else if (want.is_array() && got.is_array()) {
    ASSERT_EQ(got.size(), want.size()) << where;
    for (size_t i = 0; i < want.size(); ++i) ExpectAlike(got[i], want[i], StrCat(where, "[", i, "]"));
  } else {
    EXPECT_EQ(got, want) << where;
  }
}

json Chargeback(const std::string& source_flags, const std::string& flags) {
  const RunResult r =
      RunShell(kBinary + " chargeback " + source_flags + " " + flags + " 2>/dev/null");
  EXPECT_EQ(r.exit_code, 0) << source_flags << " " << flags << "\n" << r.output;
  if (r.exit_code != 0) return json::object();
  return json::parse(r.output);
}

// A day of a churning simulated cluster read in segments (bounded memory) gives the report of the
// whole window read at once and of the files. Pods that drew their units from a node's pool run
// across the boundaries: without their draws carried over, rows would differ.
TEST_F(PrometheusIntegration, ASegmentedReportIsTheWholeWindowsReport) {
  const fs::path om = tmp_.path() / "sim.om";
  // Under ASan (several times slower, and checking memory) half the cluster: 3 nodes still give
  // over 50 rows, six teams' statements and several segments of each sizing.
  const std::string nodes = testing_util::kUnderAsan ? "3" : "6";
  const RunResult sim = RunShell(StrCat(kBinary, " simulate --nodes ", nodes,
                                        " --seed 3 --duration 1d --out ", om.string(), " 2>&1"));
  ASSERT_EQ(sim.exit_code, 0) << sim.output;
  const auto prom = Serve(om);
  ASSERT_NE(prom, nullptr);
  const std::string flags =
      "--window 2026-10-01T00:00:00Z,2026-10-02T00:00:00Z --by namespace,pod,container "
      "--accumulate --price-per-gpu-hour 2.5 --format json";
  const std::vector<std::string> keys = {"namespace", "pod", "container"};
  const json via_file = Report("--input " + om.string(), flags);
  const std::string source = "--prometheus " + prom->url();
  const json whole = Report(source + " --segment 0", flags);
  ASSERT_FALSE(whole.empty());
  ASSERT_GT(whole["rows"].size(), 20u);
  ExpectSameRowsByKey(whole, via_file, keys);
  // Fixed segments, and segments sized by their samples (the default, here of 100,000 samples:
  // an hour of this cluster holds about 35,000, of its ASan half 17,500).
  // Under ASan one fixed and one sized segmenting.
  std::vector<std::string> segmentings = {"5h --segment-samples 0", "1h --segment-samples 100000"};
  if (!testing_util::kUnderAsan) {
    segmentings.insert(segmentings.end(), {"7h13m --segment-samples 0", "1d"});
  }
  for (const std::string& segment : segmentings) {
    SCOPED_TRACE(segment);
    ExpectSameRowsByKey(Report(StrCat(source, " --segment ", segment), flags), whole, keys);
  }
  // Per step, by team, through the query API: the buckets of every segment in their place.
  const std::string per_step =
      "--window 2026-10-01T00:00:00Z,2026-10-01T12:00:00Z --by team --step 5m "
      "--price-per-gpu-hour 2.5 --format json --prometheus-api query";
  const std::vector<std::string> bucket_keys = {"team", "start"};
  ExpectSameRowsByKey(Report(source + " --segment 67m --segment-samples 0", per_step),
                      Report(source + " --segment 0", per_step), bucket_keys);
  // Every team's chargeback statement (lines, idle hours, top workloads) the same in segments.
  const std::string statements =
      "--by team --window 2026-10-01T00:00:00Z,2026-10-02T00:00:00Z --price-per-gpu-hour 2.5 "
      "--format json";
  const json statements_from_file = Chargeback("--input " + om.string(), statements);
  ASSERT_GE(statements_from_file["statements"].size(), 3u);
  ExpectAlike(Chargeback(source + " --segment 5h --segment-samples 0", statements),
              statements_from_file, "chargeback");
}

TEST_F(PrometheusIntegration, FlagsAreChecked) {
  const RunResult both = RunShell(kBinary +
                                  " report --input x --prometheus http://127.0.0.1:1 "
                                  "--window 1790812800,1790816400 2>&1");
  EXPECT_EQ(both.exit_code, 2);
  EXPECT_TRUE(testing_util::Contains(both.output, "either --input or --prometheus")) << both.output;
  const RunResult no_window = RunShell(kBinary + " report --prometheus http://127.0.0.1:1 2>&1");
  EXPECT_EQ(no_window.exit_code, 2);
  EXPECT_TRUE(testing_util::Contains(no_window.output, "--prometheus needs --window"))
      << no_window.output;
  const RunResult segment_of_files =
      RunShell(kBinary + " report --input x --segment 1h 2>&1");
  EXPECT_EQ(segment_of_files.exit_code, 2);
  EXPECT_TRUE(testing_util::Contains(segment_of_files.output, "--segment applies to --prometheus"))
      << segment_of_files.output;
  const RunResult negative = RunShell(kBinary +
                                      " report --prometheus http://127.0.0.1:1 --segment -1h "
                                      "--window 1790812800,1790816400 2>&1");
  EXPECT_EQ(negative.exit_code, 2);
}

}  // namespace
}  // namespace gpucost::promsource
