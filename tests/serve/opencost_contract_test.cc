// The OpenCost allocation API as its clients ask for it: the OpenCost UI's views (its default
// `window=7d&aggregate=namespace&accumulate=true` and each aggregation it offers) and
// kubectl-cost's queries (`aggregate=cluster,namespace,deployment`, a controllerKind filter, and
// the monthly rate it computes as cost x 43200 / minutes). The ledger is three hours of a small
// cluster written by the gpucost binary: two nodes of A100s at $2 a GPU-hour and five pods of
// one GPU each, of a Deployment, a StatefulSet, a DaemonSet, a Job and none, running for
// different parts of the three hours.
#include <gtest/gtest.h>

#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "cli/cli_test_util.h"
#include "core/time.h"
#include "serve/opencost_api.h"

namespace gpucost::serve {
namespace {

using nlohmann::json;
using testing_util::RunResult;
using testing_util::RunShell;
using testing_util::TempDir;

constexpr int64_t kLedgerStart = 1790812800;  // 2026-10-01T00:00:00Z
constexpr int kLedgerMinutes = 180;
constexpr int64_t kLedgerEnd = kLedgerStart + kLedgerMinutes * 60;

struct ContractPod {
  std::string ns;
  std::string pod;
  std::string node;
  std::string owner_kind;  // kube_pod_owner's
  std::string owner_name;
  std::string labels;  // kube_pod_labels' label_* pairs
  int first_minute;    // its series start here, Running
  int end_minute;      // Succeeded from here
};

const std::vector<ContractPod>& ContractPods() {
  static const std::vector<ContractPod> pods = {
      {"shop", "api-5d9f7c-x1", "n1", "ReplicaSet", "api-5d9f7c", "label_app=\"api\"", 0, 180},
      {"shop", "db-0", "n1", "StatefulSet", "db", "label_app=\"db\"", 0, 180},
      {"shop", "agent-q7", "n2", "DaemonSet", "agent", "", 60, 180},
      {"ml", "nightly-29001-abc", "n1", "Job", "nightly-29001", "", 120, 180},
      {"lab", "scratch", "n2", "", "", "", 0, 60},
  };
  return pods;
}

// kube-state-metrics' series for the three hours, a sample a minute, one metric after another.
std::string ContractScrape() {
  std::string out;
  const auto series = [&out](const std::string& metric,
                             const std::function<std::string(int)>& line) {
    out += "# TYPE " + metric + " gauge\n";
    for (int m = 0; m < kLedgerMinutes; ++m) {
      const std::string lines = line(m);
      if (!lines.empty()) out += lines;
    }
  };
  const auto at = [](int m) { return " " + std::to_string((kLedgerStart + m * 60) * 1000) + "\n"; };
  const std::map<std::string, int> gpus = {{"n1", 4}, {"n2", 2}};
  series("kube_node_labels", [&](int m) {
    std::string s;
    for (const auto& [node, count] : gpus) {
      s += "kube_node_labels{node=\"" + node +
           "\",label_nvidia_com_gpu_product=\"NVIDIA-A100-SXM4-80GB\",label_nvidia_com_gpu_count="
           "\"" +
           std::to_string(count) + "\"} 1" + at(m);
    }
    return s;
  });
  series("kube_node_status_capacity", [&](int m) {
    std::string s;
    for (const auto& [node, count] : gpus) {
      s += "kube_node_status_capacity{node=\"" + node +
           "\",resource=\"nvidia_com_gpu\",unit=\"integer\"} " + std::to_string(count) + at(m);
    }
    return s;
  });
  const auto pod_id = [](const ContractPod& p) {
    return "namespace=\"" + p.ns + "\",pod=\"" + p.pod + "\",uid=\"uid-" + p.pod + "\"";
  };
  series("kube_pod_info", [&](int m) {
    std::string s;
    for (const ContractPod& p : ContractPods()) {
      if (m < p.first_minute) continue;
      s += "kube_pod_info{" + pod_id(p) + ",node=\"" + p.node + "\",created_by_kind=\"" +
           p.owner_kind + "\",created_by_name=\"" + p.owner_name + "\"} 1" + at(m);
    }
    return s;
  });
  series("kube_pod_owner", [&](int m) {
    std::string s;
    for (const ContractPod& p : ContractPods()) {
      if (m < p.first_minute) continue;
      s += "kube_pod_owner{" + pod_id(p) + ",owner_kind=\"" + p.owner_kind + "\",owner_name=\"" +
           p.owner_name + "\",owner_is_controller=\"" + (p.owner_kind.empty() ? "" : "true") +
           "\"} 1" + at(m);
    }
    return s;
  });
  series("kube_replicaset_owner", [&](int m) {
    return "kube_replicaset_owner{namespace=\"shop\",replicaset=\"api-5d9f7c\",owner_kind="
           "\"Deployment\",owner_name=\"api\",owner_is_controller=\"true\"} 1" +
           at(m);
  });
  series("kube_pod_labels", [&](int m) {
    std::string s;
    for (const ContractPod& p : ContractPods()) {
      if (m < p.first_minute) continue;
      if (!p.labels.empty()) s += "kube_pod_labels{" + pod_id(p) + "," + p.labels + "} 1" + at(m);
    }
    return s;
  });
  series("kube_pod_status_phase", [&](int m) {
    std::string s;
    for (const ContractPod& p : ContractPods()) {
      if (m < p.first_minute) continue;
      const std::string now = m < p.end_minute ? "Running" : "Succeeded";
      for (const char* phase : {"Pending", "Running", "Succeeded", "Failed", "Unknown"}) {
        s += "kube_pod_status_phase{" + pod_id(p) + ",phase=\"" + phase + "\"} " +
             (now == phase ? "1" : "0") + at(m);
      }
    }
    return s;
  });
  series("kube_pod_container_resource_requests", [&](int m) {
    std::string s;
    for (const ContractPod& p : ContractPods()) {
      if (m < p.first_minute) continue;
      s += "kube_pod_container_resource_requests{" + pod_id(p) + ",container=\"main\",node=\"" +
           p.node + "\",resource=\"nvidia_com_gpu\",unit=\"integer\"} 1" + at(m);
    }
    return s;
  });
  out += "# EOF\n";
  return out;
}

class OpenCostContract : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new TempDir();
    const std::string input = dir_->Write("cluster.om", ContractScrape());
    ledger_ = (dir_->path() / "costs.db").string();
    const RunResult wrote =
        RunShell(kBinary + " ledger write " + ledger_ + " --input " + input +
                 " --price-per-gpu-hour 2 --window " + std::to_string(kLedgerStart) + "," +
                 std::to_string(kLedgerEnd) + " 2>&1");
    ASSERT_EQ(wrote.exit_code, 0) << wrote.output;
  }
  static void TearDownTestSuite() {
    delete dir_;
    dir_ = nullptr;
  }

  // The allocation API's answer to `query` (name=value pairs joined by &, unescaped) asked at
  // the ledger's end.
  static json Ask(const std::string& query, int status = 200) {
    return Call(&OpenCostAllocation, query, status);
  }
  static json Call(ApiResponse (*api)(const std::string&,
                                      const std::function<std::string(const char*)>&, Instant),
                   const std::string& query, int status) {
    std::map<std::string, std::string> params;
    for (const std::string& pair : Split(query)) {
      const size_t eq = pair.find('=');
      params[pair.substr(0, eq)] = eq == std::string::npos ? "" : pair.substr(eq + 1);
    }
    const ApiResponse r = api(
        ledger_,
        [&params](const char* name) {
          const auto it = params.find(name);
          return it == params.end() ? std::string() : it->second;
        },
        InstantFromUnixMs(kLedgerEnd * 1000));
    EXPECT_EQ(r.status, status) << query << ": " << r.body;
    return json::parse(r.body);
  }

  // The one allocation set of an accumulated answer, checking OpenCost's envelope on the way.
  static json OneSet(const std::string& query) {
    const json doc = Ask(query);
    EXPECT_EQ(doc["code"], 200) << query;
    EXPECT_EQ(doc["status"], "success") << query;
    EXPECT_TRUE(doc["data"].is_array()) << query;
    EXPECT_EQ(doc["data"].size(), 1u) << query << ": " << doc.dump(1);
    return doc["data"].empty() ? json::object() : doc["data"][0];
  }

  static std::set<std::string> Names(const json& set) {
    std::set<std::string> names;
    for (const auto& [name, allocation] : set.items()) {
      EXPECT_EQ(allocation["name"], name);
      names.insert(name);
    }
    return names;
  }

  static double Total(const json& set, const char* field) {
    double sum = 0;
    for (const auto& [name, allocation] : set.items()) sum += allocation[field].get<double>();
    return sum;
  }

  static std::vector<std::string> Split(const std::string& text) {
    std::vector<std::string> out;
    size_t from = 0;
    for (size_t amp = text.find('&'); amp != std::string::npos; amp = text.find('&', from)) {
      out.push_back(text.substr(from, amp - from));
      from = amp + 1;
    }
    out.push_back(text.substr(from));
    return out;
  }

  static std::string At(int minute) {
    return FormatRfc3339(InstantFromUnixMs((kLedgerStart + minute * 60) * 1000));
  }

  static TempDir* dir_;
  static std::string ledger_;
};
TempDir* OpenCostContract::dir_ = nullptr;
std::string OpenCostContract::ledger_;

// The UI's first view: namespaces over seven days, accumulated into one set.
TEST_F(OpenCostContract, UiDefaultViewIsOneSetOfNamespaces) {
  const json set = OneSet("window=7d&aggregate=namespace&accumulate=true");
  EXPECT_EQ(Names(set), (std::set<std::string>{"shop", "ml", "lab"})) << set.dump(1);
  const json& shop = set["shop"];
  EXPECT_EQ(shop["properties"]["namespace"], "shop");
  EXPECT_EQ(shop["properties"]["cluster"], "default");   // all its pods share it
  EXPECT_FALSE(shop["properties"].contains("node"));     // they do not share a node
  EXPECT_NEAR(shop["gpuHours"].get<double>(), 8, 1e-5);  // api 3 + db 3 + agent 2
  EXPECT_NEAR(shop["gpuCost"].get<double>(), 16, 1e-5);
  EXPECT_NEAR(shop["totalCost"].get<double>(), 16, 1e-5);
  // Its running time, not the window's seven days.
  EXPECT_EQ(shop["start"], At(0));
  EXPECT_EQ(shop["end"], At(180));
  EXPECT_NEAR(shop["minutes"].get<double>(), 180, 1e-5);
  EXPECT_NEAR(shop["gpuCount"].get<double>(), 8.0 / 3, 1e-5);
  // The fields OpenCost's clients read, with OpenCost's types.
  EXPECT_FALSE(shop.contains("totalEfficiency"));  // CPU and RAM's, which gpucost has not
  EXPECT_TRUE(shop.contains("gpuEfficiency"));
  EXPECT_TRUE(shop["gpuAllocation"]["gpuModel"].is_string());
  EXPECT_EQ(shop["gpuRequestAverage"], shop["gpuAllocation"]["gpuRequestAverage"]);
  EXPECT_NEAR(shop["gpuRequestAverage"].get<double>(), 8.0 / 3, 1e-5);
  EXPECT_TRUE(shop.contains("gpuUsageAverage"));
  EXPECT_EQ(shop["gpuUsageAverage"], shop["gpuAllocation"]["gpuUsageAverage"]);
  EXPECT_FALSE(set.contains("__idle__"));
}

// Each aggregation the UI and kubectl-cost offer (and OpenCost's others) answers, with the
// names OpenCost gives its groups, and the same money in all of them.
TEST_F(OpenCostContract, EveryAggregationOpenCostAccepts) {
  const std::set<std::string> namespaces = {"shop", "ml", "lab"};
  const struct {
    std::string aggregate;
    std::set<std::string> names;
  } cases[] = {
      {"cluster", {"default"}},
      {"node", {"n1", "n2"}},
      {"namespace", namespaces},
      {"controllerKind", {"deployment", "statefulset", "daemonset", "job", "__unallocated__"}},
      {"controller",
       {"deployment:api", "statefulset:db", "daemonset:agent", "job:nightly-29001",
        "__unallocated__"}},
      {"pod", {"api-5d9f7c-x1", "db-0", "agent-q7", "nightly-29001-abc", "scratch"}},
      {"container", {"main"}},
      {"service", {"__unallocated__"}},
      {"services", {"__unallocated__"}},
      {"annotation:owner", {"__unallocated__"}},
      {"deployment", {"api", "__unallocated__"}},
      {"statefulset", {"db", "__unallocated__"}},
      {"daemonset", {"agent", "__unallocated__"}},
      {"job", {"nightly-29001", "__unallocated__"}},
      {"label:app", {"api", "db", "__unallocated__"}},
      {"all", {""}},
      // Names in any case; unknown ones dropped, as OpenCost drops them.
      {"NameSpace", namespaces},
      {"colour,namespace", namespaces},
      {"colour",
       {"default/n1/shop/api-5d9f7c-x1/main", "default/n1/shop/db-0/main",
        "default/n2/shop/agent-q7/main", "default/n1/ml/nightly-29001-abc/main",
        "default/n2/lab/scratch/main"}},
      {"namespace,controllerKind",
       {"shop/deployment", "shop/statefulset", "shop/daemonset", "ml/job", "lab/__unallocated__"}},
  };
  for (const auto& c : cases) {
    const json set = OneSet("window=7d&accumulate=true&aggregate=" + c.aggregate);
    EXPECT_EQ(Names(set), c.names) << c.aggregate << ": " << set.dump(1);
    EXPECT_NEAR(Total(set, "gpuHours"), 10, 1e-4) << c.aggregate;
    EXPECT_NEAR(Total(set, "gpuCost"), 20, 1e-4) << c.aggregate;
  }
}

TEST_F(OpenCostContract, ControllersAreKindColonName) {
  const json set = OneSet("window=1d&accumulate=true&aggregate=controller");
  const json& api = set["deployment:api"];
  EXPECT_EQ(api["properties"]["controller"], "deployment:api");
  EXPECT_EQ(api["properties"]["controllerKind"], "deployment");
  EXPECT_EQ(api["properties"]["namespace"], "shop");
  EXPECT_EQ(api["properties"]["pod"], "api-5d9f7c-x1");
  EXPECT_EQ(set["job:nightly-29001"]["properties"]["controllerKind"], "job");
  // A pod without a controller has neither property.
  EXPECT_FALSE(set["__unallocated__"]["properties"].contains("controller"));
  EXPECT_FALSE(set["__unallocated__"]["properties"].contains("controllerKind"));
}

TEST_F(OpenCostContract, LabelsAreAMapOfProperties) {
  const json set = OneSet("window=1d&accumulate=true&aggregate=label:app");
  EXPECT_EQ(set["api"]["properties"]["labels"], (json{{"app", "api"}})) << set.dump(1);
  EXPECT_EQ(set["db"]["properties"]["labels"], (json{{"app", "db"}}));
  EXPECT_FALSE(set["api"]["properties"].contains("label:app"));
  EXPECT_FALSE(set["__unallocated__"]["properties"].contains("labels"));
  EXPECT_NEAR(set["__unallocated__"]["gpuHours"].get<double>(), 4, 1e-5);
}

// kubectl-cost's `kubectl cost deployment` (and its namespace and cluster columns).
TEST_F(OpenCostContract, KubectlCostByClusterNamespaceDeployment) {
  const json set = OneSet("window=1d&accumulate=true&aggregate=cluster,namespace,deployment");
  EXPECT_EQ(Names(set),
            (std::set<std::string>{"default/shop/api", "default/shop/__unallocated__",
                                   "default/ml/__unallocated__", "default/lab/__unallocated__"}))
      << set.dump(1);
  const json& api = set["default/shop/api"];
  EXPECT_EQ(api["properties"]["cluster"], "default");
  EXPECT_EQ(api["properties"]["namespace"], "shop");
  EXPECT_EQ(api["properties"]["controller"], "deployment:api");
  EXPECT_NEAR(api["gpuCost"].get<double>(), 6, 1e-5);
  EXPECT_NEAR(set["default/shop/__unallocated__"]["gpuHours"].get<double>(), 5, 1e-5);
}

// kubectl-cost's --filter on a controller kind, in the case clients write it.
TEST_F(OpenCostContract, ControllerKindFilterIgnoresCase) {
  for (const char* kind : {"deployment", "Deployment", "DEPLOYMENT"}) {
    const json set = OneSet(std::string("window=1d&accumulate=true&aggregate=namespace&filter=") +
                            "controllerKind:\"" + kind + "\"");
    EXPECT_EQ(Names(set), (std::set<std::string>{"shop"})) << kind;
    EXPECT_NEAR(set["shop"]["gpuHours"].get<double>(), 3, 1e-5) << kind;
  }
  const json jobs =
      OneSet("window=1d&accumulate=true&aggregate=controller&filter=controllerKind:\"job\"");
  EXPECT_EQ(Names(jobs), (std::set<std::string>{"job:nightly-29001"}));
  const json others = OneSet(
      "window=1d&accumulate=true&aggregate=namespace&filter=controllerKind!:\"deployment\","
      "\"statefulset\"");
  EXPECT_NEAR(others["shop"]["gpuHours"].get<double>(), 2, 1e-5);  // the DaemonSet's
}

// kubectl-cost's monthly rate is cost x 43200 / minutes: over a one-day window of a ledger
// that holds three hours, each allocation's minutes are its own, so the rate is that of the
// hours it ran (x 43200/180 for a namespace that ran all three), not diluted over the day.
TEST_F(OpenCostContract, KubectlCostMonthlyRateFromAThreeHourLedger) {
  const json set = OneSet("window=1d&accumulate=true&aggregate=namespace");
  const auto monthly = [&set](const char* name) {
    return set[name]["totalCost"].get<double>() * 43200 / set[name]["minutes"].get<double>();
  };
  EXPECT_NEAR(monthly("shop"), 16.0 * 43200 / 180, 1e-3);  // not 16 x 43200 / 1440
  EXPECT_NEAR(monthly("ml"), 2.0 * 43200 / 60, 1e-3);      // the Job's last hour
  EXPECT_NEAR(monthly("lab"), 2.0 * 43200 / 60, 1e-3);     // the bare pod's first hour
  EXPECT_EQ(set["ml"]["start"], At(120));
  EXPECT_EQ(set["ml"]["end"], At(180));
  EXPECT_EQ(set["lab"]["start"], At(0));
  EXPECT_EQ(set["lab"]["end"], At(60));
  EXPECT_NEAR(set["ml"]["gpuCount"].get<double>(), 1, 1e-5);
  // The window stays the set's: "1d" is today, whole (to tomorrow 00:00), as OpenCost counts it.
  EXPECT_EQ(set["ml"]["window"]["start"], At(0));
  EXPECT_EQ(set["ml"]["window"]["end"], At(24 * 60));
}

// OpenCost's windows (UTC): "Nd" and "Nw" are whole days ending at tomorrow 00:00, "Nh" and "Nm"
// end now, "D offset O" ends O ago; today ends at tomorrow 00:00; weeks start on Sunday.
TEST(OpenCostWindows, AsOpenCostCountsThem) {
  // Wednesday 2026-10-07, 15:30 UTC.
  const Instant now = *ParseInstant("2026-10-07T15:30:00Z");
  const auto window = [now](const char* text) {
    const Result<Window> w = ParseOpenCostWindow(text, now);
    EXPECT_TRUE(w.ok()) << text << ": " << w.status().ToString();
    return w.ok() ? FormatRfc3339(w->start) + "," + FormatRfc3339(w->end) : std::string();
  };
  EXPECT_EQ(window("7d"), "2026-10-01T00:00:00Z,2026-10-08T00:00:00Z");
  EXPECT_EQ(window("1d"), "2026-10-07T00:00:00Z,2026-10-08T00:00:00Z");
  EXPECT_EQ(window("2w"), "2026-09-24T00:00:00Z,2026-10-08T00:00:00Z");
  EXPECT_EQ(window("24h"), "2026-10-06T15:30:00Z,2026-10-07T15:30:00Z");
  EXPECT_EQ(window("45m"), "2026-10-07T14:45:00Z,2026-10-07T15:30:00Z");
  EXPECT_EQ(window("7d offset 48h"), "2026-09-28T15:30:00Z,2026-10-05T15:30:00Z");
  EXPECT_EQ(window("24h offset 1d"), "2026-10-05T15:30:00Z,2026-10-06T15:30:00Z");
  EXPECT_EQ(window("today"), "2026-10-07T00:00:00Z,2026-10-08T00:00:00Z");
  EXPECT_EQ(window("yesterday"), "2026-10-06T00:00:00Z,2026-10-07T00:00:00Z");
  EXPECT_EQ(window("week"), "2026-10-04T00:00:00Z,2026-10-07T15:30:00Z");  // Sunday
  EXPECT_EQ(window("lastweek"), "2026-09-27T00:00:00Z,2026-10-04T00:00:00Z");
  EXPECT_EQ(window("month"), "2026-10-01T00:00:00Z,2026-10-07T15:30:00Z");
  EXPECT_EQ(window("lastmonth"), "2026-09-01T00:00:00Z,2026-10-01T00:00:00Z");
  EXPECT_EQ(window("1790812800,1790899200"), "2026-10-01T00:00:00Z,2026-10-02T00:00:00Z");
  // A Sunday's week is that day on.
  const Result<Window> sunday = ParseOpenCostWindow("week", *ParseInstant("2026-10-04T01:00:00Z"));
  ASSERT_TRUE(sunday.ok());
  EXPECT_EQ(FormatRfc3339(sunday->start), "2026-10-04T00:00:00Z");
  for (const char* bad : {"7x", "d", "0d", "7d offset", "7d offset x", "7d  offset 1h", ""}) {
    EXPECT_FALSE(ParseOpenCostWindow(bad, now).ok()) << bad;
  }
  // Durations past 200 years are refused before they are multiplied: "30500568905w" wrapped
  // around to a few hours, an empty window, and a division by zero that stopped serve.
  for (const char* huge : {"30500568905w", "61001137810w", "99999999999h offset 99999999999w",
                           "73201d", "1d offset 99999999999w"}) {
    EXPECT_FALSE(ParseOpenCostWindow(huge, now).ok()) << huge;
  }
  EXPECT_EQ(window("73200d").substr(21), "2026-10-08T00:00:00Z");
}

// A step longer than the window is one set (step=INT64_MAX ms overflowed the instant it was
// added to and grew the answer without end); a window that crashed serve is a 400.
TEST_F(OpenCostContract, StepsAndWindowsPastAnyInstantAreBounded) {
  EXPECT_EQ(Ask("window=1d&step=9223372036854775807ms")["data"].size(), 1u);
  EXPECT_EQ(Ask("window=1d&step=106751991167d")["data"].size(), 1u);
  for (const char* query : {"window=30500568905w", "window=61001137810w&step=1h"}) {
    EXPECT_EQ(Ask(query, 400)["code"], 400) << query;
  }
  // Too many sets: the step is named, and what to ask instead.
  EXPECT_EQ(
      Ask("window=1d&step=1m", 400)["message"],
      "step 1m cuts the window into 1440 sets, at most 1000: a longer step or a shorter window");
}

// Idle capacity is named by the capacity it is on and carries the properties that capacity
// shares.
TEST_F(OpenCostContract, IdleCarriesItsClusterAndNode) {
  const json by_namespace =
      OneSet("window=1d&accumulate=true&aggregate=namespace&includeIdle=true");
  const json& idle = by_namespace["__idle__"];
  EXPECT_EQ(idle["properties"]["cluster"], "default") << by_namespace.dump(1);
  EXPECT_FALSE(idle["properties"].contains("node"));  // on both nodes
  EXPECT_NEAR(idle["gpuHours"].get<double>(), 18 - 10, 1e-5);
  EXPECT_NEAR(idle["gpuCost"].get<double>(), 16, 1e-5);
  EXPECT_NEAR(Total(by_namespace, "gpuCost"), 36, 1e-4);  // all six GPUs' three hours
  const json by_node = OneSet("window=1d&accumulate=true&aggregate=node&includeIdle=true");
  EXPECT_EQ(Names(by_node), (std::set<std::string>{"n1", "n2", "n1/__idle__", "n2/__idle__"}));
  EXPECT_EQ(by_node["n1/__idle__"]["properties"]["node"], "n1");
  EXPECT_EQ(by_node["n1/__idle__"]["properties"]["cluster"], "default");
  EXPECT_NEAR(by_node["n1/__idle__"]["gpuHours"].get<double>(), 12 - 7, 1e-5);
  EXPECT_NEAR(by_node["n2/__idle__"]["gpuHours"].get<double>(), 6 - 3, 1e-5);
}

// shareIdle shares the idle that includeIdle brings: without includeIdle OpenCost has no idle, so
// shareIdle alone changes nothing; with both, idle is spread over the allocations and is in no
// __idle__ of its own.
TEST_F(OpenCostContract, ShareIdleSharesOnlyTheIdleIncludeIdleBrings) {
  const json plain = OneSet("window=1d&accumulate=true&aggregate=namespace");
  const json share_alone = OneSet("window=1d&accumulate=true&aggregate=namespace&shareIdle=true");
  EXPECT_EQ(share_alone.dump(), plain.dump());
  EXPECT_NEAR(Total(plain, "gpuCost"), 20, 1e-4);
  const json shared =
      OneSet("window=1d&accumulate=true&aggregate=namespace&includeIdle=true&shareIdle=true");
  EXPECT_FALSE(shared.contains("__idle__")) << shared.dump(1);
  EXPECT_NEAR(Total(shared, "gpuCost"), 36, 1e-4);
  EXPECT_GT(shared["shop"]["gpuCost"].get<double>(), plain["shop"]["gpuCost"].get<double>());
}

// Sets per step, and per calendar period with accumulateBy (or accumulate=day...).
TEST_F(OpenCostContract, StepsAndAccumulatedPeriods) {
  const json hourly =
      Ask("window=" + At(0) + "," + At(180) + "&aggregate=namespace&step=1h&accumulate=false");
  ASSERT_EQ(hourly["data"].size(), 3u) << hourly.dump(1);
  EXPECT_FALSE(hourly["data"][0].contains("ml"));
  EXPECT_TRUE(hourly["data"][2].contains("ml"));
  EXPECT_EQ(hourly["data"][2]["ml"]["start"], At(120));
  EXPECT_NEAR(hourly["data"][2]["ml"]["minutes"].get<double>(), 60, 1e-5);
  EXPECT_FALSE(hourly["data"][2].contains("lab"));

  for (const char* by : {"accumulateBy=day", "accumulate=day"}) {
    const json daily = Ask(std::string("window=2026-09-30T00:00:00Z,2026-10-02T00:00:00Z") +
                           "&aggregate=namespace&" + by);
    ASSERT_EQ(daily["data"].size(), 2u) << by << ": " << daily.dump(1);
    EXPECT_TRUE(daily["data"][0].empty()) << by;
    EXPECT_NEAR(daily["data"][1]["shop"]["gpuCost"].get<double>(), 16, 1e-5) << by;
    EXPECT_EQ(daily["data"][1]["shop"]["window"]["start"], "2026-10-01T00:00:00Z");
  }
  const json monthly = Ask(
      "window=2026-09-15T00:00:00Z,2026-10-15T00:00:00Z&aggregate=namespace&accumulateBy=month");
  ASSERT_EQ(monthly["data"].size(), 2u) << monthly.dump(1);
  EXPECT_NEAR(monthly["data"][1]["shop"]["gpuCost"].get<double>(), 16, 1e-5);
  EXPECT_EQ(monthly["data"][1]["shop"]["window"]["start"], "2026-10-01T00:00:00Z");
  EXPECT_EQ(monthly["data"][1]["shop"]["window"]["end"], "2026-10-15T00:00:00Z");
}

// The OpenCost UI's filter suggestions: distinct values of a field in the window.
TEST_F(OpenCostContract, AutocompleteListsDistinctValues) {
  const auto complete = [](const std::string& query, int status = 200) {
    return Call(&OpenCostAutocomplete, query, status);
  };
  const json namespaces = complete("field=namespace");
  EXPECT_EQ(namespaces["code"], 200);
  EXPECT_EQ(namespaces["data"], (json{"lab", "ml", "shop"}));
  EXPECT_EQ(complete("field=cluster&window=1d")["data"], (json{"default"}));
  EXPECT_EQ(complete("field=node")["data"], (json{"n1", "n2"}));
  EXPECT_EQ(complete("field=controllerKind")["data"],
            (json{"daemonset", "deployment", "job", "statefulset"}));
  EXPECT_EQ(complete("field=controller")["data"],
            (json{"daemonset:agent", "deployment:api", "job:nightly-29001", "statefulset:db"}));
  EXPECT_EQ(complete("field=label")["data"], (json{"app"}));
  EXPECT_EQ(complete("field=label:app")["data"], (json{"api", "db"}));
  EXPECT_EQ(complete("field=label[app]&search=A")["data"], (json{"api"}));
  EXPECT_EQ(complete("field=namespace&search=HO")["data"], (json{"shop"}));
  EXPECT_EQ(complete("field=namespace&limit=1")["data"], (json{"lab"}));
  EXPECT_EQ(complete("field=namespace&filter=node:\"n2\"")["data"], (json{"lab", "shop"}));
  // Before the ledger: nothing.
  EXPECT_EQ(complete("field=namespace&window=2026-09-01T00:00:00Z,2026-09-02T00:00:00Z")["data"],
            json::array());
  EXPECT_EQ(complete("field=colour", 400)["code"], 400);
  EXPECT_EQ(complete("field=namespace&limit=x", 400)["code"], 400);
}

}  // namespace
}  // namespace gpucost::serve
