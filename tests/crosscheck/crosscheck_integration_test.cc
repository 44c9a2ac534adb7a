// Cross-checks against a real Prometheus (Debian's 2.x) filled from `gpucost simulate` output by
// `promtool tsdb create-blocks-from openmetrics`:
//   - gpucost's report read over the HTTP API equals its report read from the same files;
//   - where the AWS recipe's PromQL and gpucost's definitions coincide (whole GPUs, no sharing,
//     constant price) Prometheus evaluating PromQL and gpucost agree on allocated GPU-hours,
//     allocated cost and effective cost per namespace to 1e-6;
//   - where they differ, by how much and why: the seed query counts finished pods, divides a
//     ratio by 100, uses one cluster-wide utilization scalar, counts MIG slices and time-slicing
//     replicas as whole GPUs and HAMi's gpucores/gpumem requests as GPUs;
//   - a real Prometheus scraping `gpucost simulate --serve` for a few seconds gets both
//     exporters' series, and gpucost reads them back.
// docs/promql-crosscheck.md explains each query and each difference.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "cli/cli_test_util.h"
#include "common/child_process.h"
#include "promsource/http_transport.h"
#include "promsource/prometheus_client.h"

namespace gpucost {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using testing_util::RunResult;
using testing_util::RunShell;

constexpr int64_t kStart = 1790812800;  // 2026-10-01T00:00:00Z
constexpr int64_t kHours = 6;
constexpr int64_t kEnd = kStart + kHours * 3600;
constexpr double kPrice = 2.5;
const std::string kWindow = std::to_string(kStart) + "," + std::to_string(kEnd);

// The two simulated clusters, told apart by their `cluster` label: "whole" (whole GPUs only,
// where the definitions coincide) and "mixed" (MIG, time-slicing and HAMi beside whole GPUs).
const std::string kWholeFlags = "--nodes 4 --gpu-models a100-80gb --sharing whole --cluster whole";
const std::string kMixedFlags =
    "--nodes 4 --gpu-models a100-80gb --sharing whole:1,mig:1,time-slicing:1,hami:1 --cluster "
    "mixed";

json ReportJson(const std::string& source, const std::string& by) {
  const RunResult r =
      RunShell(kBinary + " report " + source + " --window " + kWindow + " --by " + by +
               " --accumulate --price-per-gpu-hour 2.5 --format json 2>/dev/null");
  EXPECT_EQ(r.exit_code, 0) << source;
  return r.exit_code == 0 ? json::parse(r.output) : json::object();
}

class CrossCheck : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    if (!fs::exists("/usr/bin/prometheus") || !fs::exists("/usr/bin/promtool")) return;
    tmp_ = new testing_util::TempDir();
    const fs::path tsdb = tmp_->path() / "tsdb";
    for (const auto& [name, flags] :
         {std::pair{"whole", kWholeFlags}, std::pair{"mixed", kMixedFlags}}) {
      const fs::path om = tmp_->path() / (std::string(name) + ".om");
      const RunResult sim =
          RunShell(kBinary + " simulate " + flags + " --duration " + std::to_string(kHours) +
                   "h --seed 7 --out " + om.string() + " 2>&1");
      ASSERT_EQ(sim.exit_code, 0) << sim.output;
      const RunResult imp = RunShell("/usr/bin/promtool tsdb create-blocks-from openmetrics " +
                                     om.string() + " " + tsdb.string() + " 2>&1");
      ASSERT_EQ(imp.exit_code, 0) << imp.output;
      files_ += " " + om.string();
    }
    prom_ = new testing_util::PrometheusProcess(tmp_->path(), tsdb);
    ASSERT_TRUE(prom_->WaitReady(std::chrono::seconds(60))) << prom_->Log();
  }
  static void TearDownTestSuite() {
    delete prom_;
    prom_ = nullptr;
    delete tmp_;
    tmp_ = nullptr;
  }
  void SetUp() override {
    if (prom_ == nullptr)
      GTEST_SKIP() << "prometheus and promtool are not installed (scripts/install-deps.sh)";
  }

  // Evaluates `promql` with query_range at kStart, kStart + 60 s, ..., kEnd - 60 s and returns,
  // per value of `key` (labels joined by "/"), the sum of the values × 60 s in hours: the
  // integral over the window of a per-hour rate, step by step as gpucost's 60 s steps.
  static std::map<std::string, double> Integrate(const std::string& promql,
                                                 const std::vector<std::string>& key) {
    auto transport = promsource::MakeCurlTransport();
    promsource::HttpRequest r;
    r.url = prom_->url() + "/api/v1/query_range?query=" + promsource::UrlEncode(promql) +
            "&start=" + std::to_string(kStart) + "&end=" + std::to_string(kEnd - 60) + "&step=60";
    const promsource::TransportResult res = transport->Send(r);
    std::map<std::string, double> out;
    EXPECT_TRUE(res.response.has_value()) << res.error;
    if (!res.response) return out;
    EXPECT_EQ(res.response->status, 200) << promql << "\n" << res.response->body;
    const json doc = json::parse(res.response->body);
    for (const json& series : doc["data"]["result"]) {
      std::string k;
      for (const std::string& l : key) k += (k.empty() ? "" : "/") + series["metric"].value(l, "");
      for (const json& v : series["values"]) out[k] += std::stod(v[1].get<std::string>()) / 60.0;
    }
    return out;
  }

  static std::map<std::string, json> Rows(const json& report, const std::string& cluster,
                                          const std::string& key) {
    std::map<std::string, json> out;
    for (const json& row : report["rows"]) {
      // Idle rows carry their cluster and capacity values too: holders' rows only.
      if (row.value("cluster", "") == cluster && !row.value("idle", false)) {
        out[row[key].get<std::string>()] = row;
      }
    }
    return out;
  }

  static testing_util::TempDir* tmp_;
  static testing_util::PrometheusProcess* prom_;
  static std::string files_;
};

testing_util::TempDir* CrossCheck::tmp_ = nullptr;
testing_util::PrometheusProcess* CrossCheck::prom_ = nullptr;
std::string CrossCheck::files_;

// Request series per pod while the pod holds its GPUs (Pending or Running), sampled as gpucost
// samples: each sample stands for one scrape interval (60 s), not Prometheus' 5 min lookback.
std::string HeldRequests(const std::string& cluster, const std::string& resource_matcher) {
  return "(last_over_time(kube_pod_container_resource_requests{cluster=\"" + cluster + "\"," +
         resource_matcher +
         "}[59s]) * on (namespace, pod, uid) group_left () max by (namespace, pod, uid) "
         "(last_over_time(kube_pod_status_phase{cluster=\"" +
         cluster + "\",phase=~\"Pending|Running\"}[59s])))";
}

// The AWS recipe (AWS "EKS cluster wide GPU cost attribution"): every request series, the default
// lookback, a flat price; effective with one cluster-wide scalar divided by 100.
std::string SeedRequests(const std::string& cluster) {
  return "sum by (namespace) (kube_pod_container_resource_requests{cluster=\"" + cluster +
         "\",resource=~\"nvidia.*(gpu|mig).*\",unit=\"integer\"})";
}
std::string SeedScalar(const std::string& cluster) {
  return "scalar(avg(DCGM_FI_PROF_GR_ENGINE_ACTIVE{cluster=\"" + cluster + "\"}) / 100)";
}

TEST_F(CrossCheck, ReportFromPrometheusEqualsReportFromFiles) {
  for (const std::string by :
       {"cluster,namespace", "cluster,node,workload_kind", "cluster,capacity_type,mig_profile"}) {
    const json api = ReportJson("--prometheus " + prom_->url() + " --prometheus-chunk 50m", by);
    const json files = ReportJson("--input" + files_, by);
    ASSERT_FALSE(api.empty());
    ASSERT_EQ(api["rows"].size(), files["rows"].size()) << by;
    ASSERT_GT(api["rows"].size(), 4u);
    for (size_t i = 0; i < files["rows"].size(); ++i) {
      for (const auto& [k, v] : files["rows"][i].items()) {
        if (v.is_number()) {
          EXPECT_NEAR(api["rows"][i][k].get<double>(), v.get<double>(),
                      1e-9 * std::max(1.0, std::fabs(v.get<double>())))
              << by << " rows[" << i << "]." << k;
        } else {
          EXPECT_EQ(api["rows"][i][k], v) << by << " rows[" << i << "]." << k;
        }
      }
    }
    for (const std::string k : {"cost_usd", "allocated_usd", "effective_usd", "idle_usd"}) {
      EXPECT_NEAR(api["totals"][k].get<double>(), files["totals"][k].get<double>(),
                  1e-9 * files["totals"]["cost_usd"].get<double>());
    }
    // Conservation: 32 + 29 physical GPUs... whatever the mix, allocated + idle = cost.
    EXPECT_NEAR(
        files["totals"]["allocated_usd"].get<double>() + files["totals"]["idle_usd"].get<double>(),
        files["totals"]["cost_usd"].get<double>(),
        1e-9 * files["totals"]["cost_usd"].get<double>());
  }
}

TEST_F(CrossCheck, WholeGpusPromQlAgreesWithGpucostToOnePartPerMillion) {
  const json report = ReportJson("--input" + files_, "cluster,namespace");
  const auto rows = Rows(report, "whole", "namespace");
  ASSERT_GE(rows.size(), 4u);

  // Allocated GPU-hours and cost: held requests x price, per namespace.
  const auto gpu_hours = Integrate(
      "sum by (namespace) " + HeldRequests("whole", "resource=\"nvidia_com_gpu\""), {"namespace"});
  const auto allocated = Integrate(
      "sum by (namespace) " + HeldRequests("whole", "resource=\"nvidia_com_gpu\"") + " * 2.5",
      {"namespace"});
  // Effective, the per-pod join: each pod's allocated rate x the mean activity of the GPUs
  // dcgm-exporter labels with the pod.
  const auto effective =
      Integrate("sum by (namespace) (" + HeldRequests("whole", "resource=\"nvidia_com_gpu\"") +
                    " * on (namespace, pod) group_left () avg by (namespace, pod) "
                    "(last_over_time(DCGM_FI_PROF_GR_ENGINE_ACTIVE{cluster=\"whole\",pod!=\"\"}["
                    "59s]))) * 2.5",
                {"namespace"});
  for (const auto& [ns, row] : rows) {
    if (ns == "__idle__") continue;
    SCOPED_TRACE(ns);
    ASSERT_TRUE(gpu_hours.contains(ns));
    const double g = row["gpu_hours"].get<double>();
    EXPECT_NEAR(gpu_hours.at(ns), g, 1e-6 * g);
    EXPECT_NEAR(allocated.at(ns), row["allocated_usd"].get<double>(),
                1e-6 * row["allocated_usd"].get<double>());
    EXPECT_NEAR(allocated.at(ns), g * kPrice, 1e-6 * g * kPrice);
    EXPECT_NEAR(effective.at(ns), row["effective_usd"].get<double>(),
                1e-6 * row["effective_usd"].get<double>());
  }
  // Namespaces PromQL finds beyond gpucost's rows held nothing (request series of finished pods
  // only, multiplied by phase 0).
  for (const auto& [ns, v] : gpu_hours) {
    if (!rows.contains(ns)) {
      EXPECT_EQ(v, 0) << ns;
    }
  }
}

TEST_F(CrossCheck, WhereTheSeedPromQlDiffers) {
  const json report = ReportJson("--input" + files_, "cluster,namespace");
  const auto rows = Rows(report, "whole", "namespace");
  const auto seed_alloc = Integrate(SeedRequests("whole") + " * 2.5", {"namespace"});
  const auto seed_eff =
      Integrate(SeedRequests("whole") + " * 2.5 * " + SeedScalar("whole"), {"namespace"});
  const auto scalar = Integrate("vector(" + SeedScalar("whole") + ")", {});

  double seed_total = 0, gpucost_total = 0, seed_eff_total = 0, eff_total = 0;
  double min_eff = 1, max_eff = 0;
  for (const auto& [ns, row] : rows) {
    if (ns == "__idle__") continue;
    SCOPED_TRACE(ns);
    const double alloc = row["allocated_usd"].get<double>();
    const double eff = row["effective_usd"].get<double>();
    // 1. Requests of finished pods: kube-state-metrics keeps a Job pod's request series while
    //    it is Succeeded/Failed, and the 5 min lookback stretches every ended series; the seed
    //    query counts both, so it never allocates less.
    EXPECT_GE(seed_alloc.at(ns), alloc * (1 - 1e-9));
    seed_total += seed_alloc.at(ns);
    gpucost_total += alloc;
    seed_eff_total += seed_eff.at(ns);
    eff_total += eff;
    min_eff = std::min(min_eff, eff / alloc);
    max_eff = std::max(max_eff, eff / alloc);
  }
  EXPECT_GT(seed_total, gpucost_total * 1.001) << "finished Jobs' requests are counted";
  // 2. Divided by 100: DCGM_FI_PROF_GR_ENGINE_ACTIVE is already a ratio.
  EXPECT_LT(seed_eff_total, eff_total / 50);
  // 3. One scalar for the cluster: every namespace gets the same efficiency (×100: the scalar
  //    with the ratio error undone) while gpucost's per-pod utilization tells them apart.
  const double mean_scalar =
      scalar.at("") / static_cast<double>(kHours);  // time-average of the scalar
  EXPECT_GT(mean_scalar, 0.002);
  EXPECT_LT(mean_scalar, 0.01) << "a ratio divided by 100";
  EXPECT_GT(max_eff - min_eff, 0.15) << "gpucost's namespaces differ in efficiency";
  // Even with the ratio error undone, the scalar credits idle namespaces (notebooks) with the
  // cluster's average and debits busy ones (training).
  EXPECT_LT(min_eff, mean_scalar * 100);
  EXPECT_GT(max_eff, mean_scalar * 100);
  for (const auto& [ns, v] : seed_eff) {
    // Per step the recipe's efficiency is the same scalar for every namespace; over the window
    // the namespaces' efficiencies differ only through when they held GPUs.
    EXPECT_NEAR(v / seed_alloc.at(ns) * 100, mean_scalar * 100, 0.1) << ns;
  }
  std::cout << "recipe allocated " << seed_total << " vs gpucost " << gpucost_total
            << "; recipe effective " << seed_eff_total << " vs gpucost " << eff_total
            << "; gpucost efficiency " << min_eff << ".." << max_eff << ", seed scalar "
            << mean_scalar << "\n";
}

TEST_F(CrossCheck, MigSlicesAndReplicasAreFractionsNotGpus) {
  const json by_profile = ReportJson("--input" + files_, "cluster,mig_profile");
  const json by_node = ReportJson("--input" + files_, "cluster,node");
  const auto profiles = Rows(by_profile, "mixed", "mig_profile");
  // Held MIG requests per resource: each counts as one GPU in the seed query; gpucost counts
  // compute slices / 7.
  const auto mig =
      Integrate("sum by (resource) " + HeldRequests("mixed", "resource=~\"nvidia_com_mig_.*\""),
                {"resource"});
  ASSERT_GE(mig.size(), 3u);
  for (const auto& [resource, request_hours] : mig) {
    SCOPED_TRACE(resource);
    const std::string profile = resource.substr(std::string("nvidia_com_mig_").size());  // 3g_40gb
    const double slices = std::stod(profile.substr(0, profile.find('g')));
    std::string dotted = profile;
    dotted[dotted.find('_')] = '.';
    ASSERT_TRUE(profiles.contains(dotted)) << by_profile.dump(1);
    EXPECT_NEAR(profiles.at(dotted)["gpu_hours"].get<double>(), request_hours * slices / 7,
                1e-6 * request_hours);
  }
  // Time-slicing: a replica is 1/4 of a GPU.
  const auto node_requests = Integrate(
      "sum by (node) (" + HeldRequests("mixed", "resource=\"nvidia_com_gpu\"") +
          " * on (namespace, pod, uid) group_left (node) max by (namespace, pod, uid, node) "
          "(kube_pod_info{cluster=\"mixed\"}))",
      {"node"});
  const auto nodes = Rows(by_node, "mixed", "node");
  bool saw_ts = false;
  for (const auto& [node, row] : nodes) {
    if (node.find("time-slicing") == std::string::npos) continue;
    saw_ts = true;
    EXPECT_NEAR(row["gpu_hours"].get<double>(), node_requests.at(node) / 4,
                1e-6 * node_requests.at(node));
  }
  EXPECT_TRUE(saw_ts);
  // The seed regex nvidia.*(gpu|mig).* also matches HAMi's nvidia_com_gpucores (percent) and
  // nvidia_com_gpumem (MiB): it allocates far more than the cluster costs.
  const auto seed = Integrate("sum(" + SeedRequests("mixed") + ") * 2.5", {});
  double cost = 0, allocated = 0;
  for (const json& row : by_node["rows"]) {
    if (row.value("cluster", "") == "mixed") allocated += row["allocated_usd"].get<double>();
  }
  const json all = ReportJson("--input " + (tmp_->path() / "mixed.om").string(), "namespace");
  cost = all["totals"]["cost_usd"].get<double>();
  EXPECT_NEAR(allocated, all["totals"]["allocated_usd"].get<double>(), 1e-9 * cost);
  EXPECT_LE(allocated, cost);
  EXPECT_GT(seed.at(""), 10 * cost) << "gpumem MiB counted as GPUs";
}

// A real Prometheus scrapes `gpucost simulate --serve` every second for a few seconds.
// Five-minute scrapes, read from the files and from a real Prometheus holding the same samples:
// the same money per pod, for windows that start and end off the step, a one-minute window that
// holds no scrape, segments (one of them holding a single scrape), and a window reaching past the
// data.
class SparseCrossCheck : public CrossCheck {
 protected:
  // Its own Prometheus, in CrossCheck's slots (the suites run one after the other); CrossCheck's
  // TearDownTestSuite stops it and its SetUp skips without Prometheus.
  static void SetUpTestSuite() {
    if (!fs::exists("/usr/bin/prometheus") || !fs::exists("/usr/bin/promtool")) return;
    tmp_ = new testing_util::TempDir();
    file_ = (tmp_->path() / "sparse.om").string();
    const RunResult sim = RunShell(kBinary +
                                   " simulate --nodes 2 --sharing whole:1,time-slicing:1 "
                                   "--gpu-models t4:1 --duration 3h --scrape-interval 5m --seed 7 "
                                   "--out " + file_ + " 2>&1");
    ASSERT_EQ(sim.exit_code, 0) << sim.output;
    const fs::path tsdb = tmp_->path() / "tsdb";
    const RunResult imp = RunShell("/usr/bin/promtool tsdb create-blocks-from openmetrics " +
                                   file_ + " " + tsdb.string() + " 2>&1");
    ASSERT_EQ(imp.exit_code, 0) << imp.output;
    prom_ = new testing_util::PrometheusProcess(tmp_->path(), tsdb);
    ASSERT_TRUE(prom_->WaitReady(std::chrono::seconds(60))) << prom_->Log();
  }
  static json Report(const std::string& source, int64_t from, int64_t to) {
    const RunResult r = RunShell(kBinary + " report " + source + " --window " +
                                 std::to_string(kStart + from) + "," + std::to_string(kStart + to) +
                                 " --by pod --accumulate --price-per-gpu-hour 2.5 --format json "
                                 "2>/dev/null");
    EXPECT_EQ(r.exit_code, 0) << source;
    return r.exit_code == 0 ? json::parse(r.output) : json::object();
  }
  static std::string file_;
};

std::string SparseCrossCheck::file_;

TEST_F(SparseCrossCheck, FilesAndPrometheusGiveTheSameMoneyForAnyWindowAndSegment) {
  struct Case {
    int64_t from, to;  // seconds after kStart
    std::string segment;
  };
  const Case cases[] = {
      {1860, 1920, "1d"},        // one minute between two scrapes
      {17, 1970, "30m"},         // off the step, the last segment a few minutes long
      {0, 3 * 3600, "1h"},       // the whole data, in hours
      {-1800, 4 * 3600, "45m"},  // reaching past both ends of the data
      {-2600, 3600, "45m"},      // a first segment holding one scrape (at 0) of every series
  };
  for (const Case& c : cases) {
    const std::string what = std::to_string(c.from) + ".." + std::to_string(c.to) + " " + c.segment;
    const json files = Report("--input " + file_, c.from, c.to);
    const json api = Report("--prometheus " + prom_->url() + " --segment " + c.segment +
                                " --segment-samples 0",
                            c.from, c.to);
    ASSERT_FALSE(files.empty()) << what;
    ASSERT_FALSE(api.empty()) << what;
    ASSERT_GT(files["totals"]["gpu_hours"].get<double>(), 0) << what;
    for (const std::string k : {"gpu_hours", "cost_usd", "allocated_usd", "idle_usd",
                                "effective_usd", "unmeasured_gpu_hours"}) {
      const json& want = files["totals"][k];
      if (want.is_null()) {
        EXPECT_TRUE(api["totals"][k].is_null()) << what << " " << k;
        continue;
      }
      EXPECT_NEAR(api["totals"][k].get<double>(), want.get<double>(),
                  1e-9 * std::max(1.0, std::fabs(want.get<double>())))
          << what << " totals." << k;
    }
    std::map<std::string, json> by_pod;
    for (const json& row : api["rows"]) by_pod[row["pod"].get<std::string>()] = row;
    ASSERT_EQ(by_pod.size(), files["rows"].size()) << what;
    for (const json& row : files["rows"]) {
      const json& got = by_pod[row["pod"].get<std::string>()];
      for (const std::string k : {"gpu_hours", "allocated_usd", "effective_usd"}) {
        if (row[k].is_null()) {
          EXPECT_TRUE(got[k].is_null()) << what << " " << row["pod"] << " " << k;
          continue;
        }
        EXPECT_NEAR(got[k].get<double>(), row[k].get<double>(), 1e-9)
            << what << " " << row["pod"] << " " << k;
      }
    }
  }
}

TEST(LiveEndpoint, PrometheusScrapesIt) {
  if (!fs::exists("/usr/bin/prometheus")) GTEST_SKIP() << "prometheus is not installed";
  testing_util::TempDir tmp;
  const fs::path dir = tmp.path();
  const int sim_port = testing_util::FreePort();
  testing_util::ChildProcess sim(
      {kBinary, "simulate", "--nodes", "3", "--sharing", "whole:1,mig:1,time-slicing:1",
       "--scrape-interval", "1s", "--serve", "127.0.0.1:" + std::to_string(sim_port), "--serve-for",
       "120s"},
      (dir / "sim.log").string());
  testing_util::PrometheusProcess prom(dir, dir / "tsdb",
                                       "  - job_name: simulated\n    honor_labels: true\n    "
                                       "scrape_interval: 1s\n    static_configs:\n"
                                       "      - targets: ['127.0.0.1:" +
                                           std::to_string(sim_port) + "']\n",
                                       "  scrape_interval: 1s\n");
  ASSERT_TRUE(prom.WaitReady(std::chrono::seconds(60))) << prom.Log();
  const auto started = std::chrono::system_clock::now();
  promsource::PrometheusClient client(prom.url(), {});
  auto count = [&](const std::string& q) {
    auto body =
        client.Query(q, InstantFromUnixMs(std::chrono::duration_cast<std::chrono::milliseconds>(
                                              std::chrono::system_clock::now().time_since_epoch())
                                              .count()));
    if (!body.ok()) return -1.0;
    const json doc = json::parse(*body);
    return doc["data"]["result"].empty()
               ? 0.0
               : std::stod(doc["data"]["result"][0]["value"][1].get<std::string>());
  };
  double samples = 0;
  for (int i = 0; i < 300 && samples < 5; ++i) {  // five scrapes or 30 s
    samples = count("count_over_time(up{job=\"simulated\"}[1m])");
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  ASSERT_GE(samples, 5) << prom.Log() << sim.Log();
  EXPECT_EQ(count("max(up{job=\"simulated\"})"), 1);
  EXPECT_EQ(count("count(kube_node_labels)"), 3);
  EXPECT_GT(count("count(DCGM_FI_PROF_GR_ENGINE_ACTIVE)"), 8);
  EXPECT_GT(count("count(kube_pod_status_phase == 1)"), 3);

  // gpucost reads what Prometheus scraped, with no warnings but the one that says the window
  // (from 30 s before the simulator started) reaches before its data.
  const auto now = std::chrono::system_clock::now();
  const auto secs = [](auto t) {
    return std::chrono::duration_cast<std::chrono::seconds>(t.time_since_epoch()).count();
  };
  const RunResult r = RunShell(
      kBinary + " report --prometheus " + prom.url() + " --window " +
      std::to_string(secs(started) - 30) + "," + std::to_string(secs(now)) +
      " --by namespace --accumulate --price-per-gpu-hour 2.5 --format json 2>&1 >/dev/null");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  const std::string beyond = "reaches beyond the input's data";
  EXPECT_NE(r.output.find(beyond), std::string::npos) << r.output;
  EXPECT_EQ(std::count(r.output.begin(), r.output.end(), '\n'), 1) << r.output;
}

}  // namespace
}  // namespace gpucost
