// AWS Neuron devices carry their unit kind through the ledger, serve and chargeback as GPUs do
// through reports (docs/report.md, "Unit kinds"): a ledger written from a GPU node and a Neuron
// node answers `report --ledger --by unit_kind` and serve's /api/v1/report?by=unit_kind with the
// dollars `report --by unit_kind` gives for the same inputs, to 1e-9; the fleet names the Neuron
// node's kind; and statements of Neuron capacity say accelerator-hours (/metrics:
// tests/serve/unit_kind_metrics_test.cc); a ledger of schema 7 gets its totals' unit kinds from
// its nodes.
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <chrono>
#include <cmath>
#include <map>
#include <nlohmann/json.hpp>
#include <string>

#include "cli/cli_test_util.h"
#include "common/child_process.h"
#include "ledger/ledger.h"
#include "ledger/serve_test_util.h"

namespace gpucost {
namespace {

using serve_test::Get;
using serve_test::Response;
using serve_test::WaitFor;
using testing_util::ChildProcess;
using testing_util::FreePort;
using testing_util::RunResult;
using testing_util::RunShell;
using testing_util::TempDir;

// Both golden cases cover these 10 minutes at 60 s steps, priced from the built-in catalog.
constexpr const char* kWindow = "1790812800,1790813400";
constexpr const char* kApiWindow = "2026-10-01T00:00:00Z,2026-10-01T00:10:00Z";

std::string CaseInput(const std::string& name) {
  return std::string(GPUCOST_SOURCE_DIR) + "/tests/golden/cases/" + name + "/input";
}

// Runs `sql` on the SQLite file `db` as it is (an older schema made by hand); "" when it worked,
// else SQLite's message.
std::string ExecSqlite(const std::string& db, const char* sql) {
  sqlite3* raw = nullptr;
  if (sqlite3_open(db.c_str(), &raw) != SQLITE_OK) return "cannot open " + db;
  char* error = nullptr;
  const int rc = sqlite3_exec(raw, sql, nullptr, nullptr, &error);
  std::string message = rc == SQLITE_OK ? "" : error != nullptr ? error : "failed";
  sqlite3_free(error);
  sqlite3_close(raw);
  return message;
}

// A p4d.24xlarge (ml/train-0 on one A100) and an inf2.xlarge (ml/embed-0 on one NeuronCore)
// written to a SQLite ledger, served read-only.
class UnitKinds : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new TempDir();
    ledger_ = (dir_->path() / "costs.db").string();
    input_ = CaseInput("neuron_and_gpu_by_unit_kind");
    const RunResult wrote = RunShell(kBinary + " ledger write " + ledger_ + " --input " + input_ +
                                     " --window " + kWindow + " --step 60s 2>&1");
    ASSERT_EQ(wrote.exit_code, 0) << wrote.output;
    const int port = FreePort();
    serve_ = new ChildProcess({kBinary, "serve", "--ledger", ledger_, "--read-only", "--listen",
                               "127.0.0.1:" + std::to_string(port)},
                              (dir_->path() / "serve.log").string());
    base_ = "http://127.0.0.1:" + std::to_string(port);
    ASSERT_TRUE(WaitFor(base_ + "/readyz", 200, std::chrono::seconds(60))) << serve_->Log();
  }
  static void TearDownTestSuite() {
    delete serve_;
    serve_ = nullptr;
    delete dir_;
    dir_ = nullptr;
  }

  static std::string Run(const std::string& args) {
    const RunResult r = RunShell(kBinary + " " + args + " 2>/dev/null");
    EXPECT_EQ(r.exit_code, 0) << args << "\n" << r.output;
    return r.output;
  }
  static nlohmann::json RunJson(const std::string& args) {
    return nlohmann::json::parse(Run(args), nullptr, false);
  }
  static Response Api(const std::string& path) {
    const Response r = Get(base_ + path);
    EXPECT_EQ(r.status, 200) << path << ": " << r.body;
    return r;
  }

  static TempDir* dir_;
  static std::string ledger_;
  static std::string input_;
  static ChildProcess* serve_;
  static std::string base_;
};
TempDir* UnitKinds::dir_ = nullptr;
std::string UnitKinds::ledger_;
std::string UnitKinds::input_;
ChildProcess* UnitKinds::serve_ = nullptr;
std::string UnitKinds::base_;

// A report's rows by (unit_kind, idle).
std::map<std::string, nlohmann::json> RowsByKind(const nlohmann::json& report) {
  std::map<std::string, nlohmann::json> out;
  for (const nlohmann::json& r : report["rows"]) {
    out[r["unit_kind"].get<std::string>() + (r.value("idle", false) ? "/idle" : "")] = r;
  }
  return out;
}

void ExpectNear(const nlohmann::json& a, const nlohmann::json& b, const std::string& what) {
  ASSERT_EQ(a.is_null(), b.is_null()) << what << ": " << a << " vs " << b;
  if (a.is_null()) return;
  const double x = a.get<double>();
  const double y = b.get<double>();
  EXPECT_NEAR(x, y, 1e-9 * std::max(1.0, std::abs(y))) << what;
}

void ExpectSameByKind(const nlohmann::json& got, const nlohmann::json& want,
                      const std::string& source) {
  const std::map<std::string, nlohmann::json> g = RowsByKind(got);
  const std::map<std::string, nlohmann::json> w = RowsByKind(want);
  ASSERT_EQ(g.size(), w.size()) << source << ": " << got;
  for (const auto& [key, row] : w) {
    ASSERT_TRUE(g.contains(key)) << source << " has no row " << key;
    for (const char* field : {"gpu_hours", "allocated_usd", "effective_usd", "waste_usd",
                              "idle_usd", "unmeasured_gpu_hours"}) {
      ExpectNear(g.at(key)[field], row[field], source + " " + key + " " + field);
    }
  }
  for (const char* kind : {"gpu", "neuron_device"}) {
    ExpectNear(got["unit_kind_hours"][kind], want["unit_kind_hours"][kind],
               source + " unit_kind_hours " + kind);
  }
  ExpectNear(got["totals"]["cost_usd"], want["totals"]["cost_usd"], source + " cost_usd");
}

TEST_F(UnitKinds, TheLedgerAndServesApiGroupByUnitKindWithTheReportsDollars) {
  const nlohmann::json from_input = RunJson(std::string("report --input ") + input_ + " --window " +
                                            kWindow + " --step 60s --by unit_kind --format json");
  ASSERT_EQ(RowsByKind(from_input).size(), 4u) << from_input;
  ASSERT_TRUE(from_input["unit_kind_hours"].contains("neuron_device")) << from_input;

  const nlohmann::json from_ledger = RunJson("report --ledger " + ledger_ + " --window " + kWindow +
                                             " --by unit_kind --format json");
  ExpectSameByKind(from_ledger, from_input, "report --ledger");

  const Response api = Api(std::string("/api/v1/report?by=unit_kind&window=") + kApiWindow);
  ExpectSameByKind(nlohmann::json::parse(api.body), from_input, "/api/v1/report");

  // A capacity dimension among others: the Neuron row of team ml is the report's.
  const nlohmann::json by_team = nlohmann::json::parse(
      Api(std::string("/api/v1/report?by=team,unit_kind&window=") + kApiWindow).body);
  const nlohmann::json want = RunJson(std::string("report --input ") + input_ + " --window " +
                                      kWindow + " --step 60s --by team,unit_kind --format json");
  ASSERT_EQ(by_team["rows"].size(), want["rows"].size()) << by_team;
  for (size_t i = 0; i < want["rows"].size(); ++i) {
    EXPECT_EQ(by_team["rows"][i]["unit_kind"], want["rows"][i]["unit_kind"]);
    ExpectNear(by_team["rows"][i]["allocated_usd"], want["rows"][i]["allocated_usd"],
               "team,unit_kind allocated_usd");
  }
}

TEST_F(UnitKinds, TheFleetNamesTheNeuronNodesUnitKind) {
  const nlohmann::json fleet = nlohmann::json::parse(Api("/api/v1/fleet").body);
  ASSERT_EQ(fleet["nodes"].size(), 2u) << fleet;
  for (const nlohmann::json& n : fleet["nodes"]) {
    if (n["name"] == "inf-b") {
      EXPECT_EQ(n["unit_kind"], "neuron_device") << n;
    } else {
      EXPECT_FALSE(n.contains("unit_kind")) << n;  // GPU nodes read as they always have
    }
  }
}

TEST_F(UnitKinds, AStatementOfGpusAndNeuronDevicesSaysBothAndChargesTheReportsDollars) {
  const std::string text =
      Run("chargeback --ledger " + ledger_ + " --window " + kWindow + " --team ml");
  EXPECT_NE(text.find("GPU and Accelerator Report — ml"), std::string::npos) << text;
  EXPECT_NE(text.find("GPU- and accelerator-hours consumed: "), std::string::npos) << text;
  EXPECT_NE(text.find("Total GPU and accelerator cost: "), std::string::npos) << text;
  EXPECT_EQ(text.find("GPU-hours consumed"), std::string::npos) << text;

  const nlohmann::json statements = RunJson("chargeback --ledger " + ledger_ + " --window " +
                                            kWindow + " --team ml --format json");
  const nlohmann::json by_team = RunJson(std::string("report --input ") + input_ + " --window " +
                                         kWindow + " --step 60s --by team --format json");
  const nlohmann::json& s = statements["statements"][0];
  ExpectNear(s["allocated_usd"], by_team["rows"][0]["allocated_usd"], "statement allocated_usd");
  int neuron_lines = 0;
  for (const nlohmann::json& line : s["lines"]) {
    if (line.value("unit_kind", "gpu") == "neuron_device") ++neuron_lines;
  }
  EXPECT_EQ(neuron_lines, 1) << s["lines"];
  EXPECT_TRUE(statements["cluster"].contains("unit_kind_hours")) << statements["cluster"];

  const std::string csv =
      Run("chargeback --ledger " + ledger_ + " --window " + kWindow + " --team ml --format csv");
  EXPECT_NE(csv.find(",price_known,unit_kind,line\n"), std::string::npos) << csv;
  EXPECT_NE(csv.find(",neuron_device,charge\n"), std::string::npos) << csv;
}

TEST(UnitKindStatements, AStatementOfNeuronDevicesOnlySaysAcceleratorHours) {
  const std::string args = std::string(" --input ") + CaseInput("neuron_cores_and_devices") +
                           " --window " + kWindow + " --step 60s --team train";
  const RunResult text = RunShell(kBinary + " chargeback" + args + " 2>/dev/null");
  ASSERT_EQ(text.exit_code, 0) << text.output;
  EXPECT_NE(text.output.find("Accelerator Report — train"), std::string::npos) << text.output;
  EXPECT_NE(text.output.find("Accelerator-hours consumed: "), std::string::npos) << text.output;
  EXPECT_NE(text.output.find("idle accelerator-hours "), std::string::npos) << text.output;
  EXPECT_NE(text.output.find("Total accelerator cost: "), std::string::npos) << text.output;
  EXPECT_EQ(text.output.find("GPU-h"), std::string::npos) << text.output;

  const RunResult md = RunShell(kBinary + " chargeback" + args + " --format markdown 2>/dev/null");
  ASSERT_EQ(md.exit_code, 0) << md.output;
  EXPECT_NE(md.output.find("| Accelerator and capacity | Accelerator-hours | rate | amount |"),
            std::string::npos)
      << md.output;
  const RunResult html = RunShell(kBinary + " chargeback" + args + " --format html 2>/dev/null");
  ASSERT_EQ(html.exit_code, 0) << html.output;
  EXPECT_NE(html.output.find("<th>Accelerator and capacity</th><th class=\"n\">Accelerator-hours"),
            std::string::npos);
  EXPECT_EQ(html.output.find("GPU-hours"), std::string::npos);
}

// The totals of a ledger from before schema 8 had no unit kind: migrating gives each the kind of
// the nodes it names, and moves no money.
TEST(UnitKindLedger, ASchema7LedgersTotalsGetTheUnitKindsOfTheirNodes) {
  TempDir dir;
  const std::string db = (dir.path() / "costs.db").string();
  const RunResult wrote = RunShell(kBinary + " ledger write " + db + " --input " +
                                   CaseInput("neuron_and_gpu_by_unit_kind") + " --window " +
                                   kWindow + " --step 60s 2>&1");
  ASSERT_EQ(wrote.exit_code, 0) << wrote.output;
  double holder_usd = 0;
  double idle_usd = 0;
  {
    Result<std::unique_ptr<ledger::Ledger>> l = ledger::Ledger::Open(db);
    ASSERT_TRUE(l.ok()) << l.status().message();
    Result<ledger::LedgerTotals> t = (*l)->Totals();
    ASSERT_TRUE(t.ok()) << t.status().message();
    for (const ledger::HolderTotal& h : t->holders) holder_usd += h.allocated_usd;
    for (const ledger::NodeIdleTotal& n : t->idle) idle_usd += n.idle_usd;
  }
  // The totals as schema 7 kept them: no unit kind, in the key or anywhere.
  const char* kToSchema7 = R"sql(
CREATE TABLE h7 AS SELECT cluster, namespace, team, workload, workload_kind, gpu_model,
  capacity_type, allocated_usd, effective_usd, waste_usd, gpu_hours, unmeasured_gpu_hours
  FROM holder_totals;
DROP TABLE holder_totals;
CREATE TABLE holder_totals (
  cluster TEXT NOT NULL, namespace TEXT NOT NULL, team TEXT NOT NULL, workload TEXT NOT NULL,
  workload_kind TEXT NOT NULL, gpu_model TEXT NOT NULL, capacity_type TEXT NOT NULL,
  allocated_usd DOUBLE PRECISION NOT NULL, effective_usd DOUBLE PRECISION NOT NULL,
  waste_usd DOUBLE PRECISION NOT NULL, gpu_hours DOUBLE PRECISION NOT NULL,
  unmeasured_gpu_hours DOUBLE PRECISION NOT NULL,
  PRIMARY KEY (cluster, namespace, team, workload, workload_kind, gpu_model, capacity_type));
INSERT INTO holder_totals SELECT * FROM h7;
DROP TABLE h7;
CREATE TABLE i7 AS SELECT cluster, node, gpu_model, capacity_type, idle_usd, idle_gpu_hours
  FROM idle_totals;
DROP TABLE idle_totals;
CREATE TABLE idle_totals (
  cluster TEXT NOT NULL, node TEXT NOT NULL, gpu_model TEXT NOT NULL,
  capacity_type TEXT NOT NULL, idle_usd DOUBLE PRECISION NOT NULL,
  idle_gpu_hours DOUBLE PRECISION NOT NULL,
  PRIMARY KEY (cluster, node, gpu_model, capacity_type));
INSERT INTO idle_totals SELECT * FROM i7;
DROP TABLE i7;
UPDATE meta SET value = '7' WHERE key = 'schema_version';
)sql";
  ASSERT_EQ(ExecSqlite(db, kToSchema7), "");

  Result<std::unique_ptr<ledger::Ledger>> l = ledger::Ledger::Open(db);
  ASSERT_TRUE(l.ok()) << l.status().message();
  EXPECT_EQ((*l)->Info()->schema_version, 9);
  Result<ledger::LedgerTotals> t = (*l)->Totals();
  ASSERT_TRUE(t.ok()) << t.status().message();
  ASSERT_EQ(t->holders.size(), 2u);
  double holder_after = 0;
  double idle_after = 0;
  for (const ledger::HolderTotal& h : t->holders) {
    holder_after += h.allocated_usd;
    EXPECT_EQ(h.unit_kind, h.gpu_model.find("A100") != std::string::npos ? "gpu" : "neuron_device")
        << h.gpu_model;
  }
  ASSERT_EQ(t->idle.size(), 2u);
  for (const ledger::NodeIdleTotal& n : t->idle) {
    idle_after += n.idle_usd;
    EXPECT_EQ(n.unit_kind, n.node == "inf-b" ? "neuron_device" : "gpu") << n.node;
  }
  EXPECT_DOUBLE_EQ(holder_after, holder_usd);
  EXPECT_DOUBLE_EQ(idle_after, idle_usd);
}

// Schema 9 keeps the totals' priced hours. A ledger from before knew only their money: migrating
// takes a group with money as priced through all its hours, one without as unpriced, and moves
// no money.
TEST(UnitKindLedger, ASchema8LedgersTotalsGetTheirPricedHours) {
  TempDir dir;
  const std::string db = (dir.path() / "costs.db").string();
  const RunResult wrote = RunShell(kBinary + " ledger write " + db + " --input " +
                                   CaseInput("neuron_and_gpu_by_unit_kind") + " --window " +
                                   kWindow + " --step 60s 2>&1");
  ASSERT_EQ(wrote.exit_code, 0) << wrote.output;
  const char* kToSchema8 = R"sql(
ALTER TABLE holder_totals DROP COLUMN priced_gpu_hours;
ALTER TABLE idle_totals DROP COLUMN priced_gpu_hours;
UPDATE meta SET value = '8' WHERE key = 'schema_version';
)sql";
  ASSERT_EQ(ExecSqlite(db, kToSchema8), "");

  Result<std::unique_ptr<ledger::Ledger>> l = ledger::Ledger::Open(db);
  ASSERT_TRUE(l.ok()) << l.status().message();
  EXPECT_EQ((*l)->Info()->schema_version, 9);
  Result<ledger::LedgerTotals> t = (*l)->Totals();
  ASSERT_TRUE(t.ok()) << t.status().message();
  ASSERT_FALSE(t->holders.empty());
  for (const ledger::HolderTotal& h : t->holders) {
    EXPECT_EQ(h.priced_gpu_hours, h.allocated_usd != 0 ? h.gpu_hours : 0) << h.gpu_model;
  }
  for (const ledger::NodeIdleTotal& n : t->idle) {
    EXPECT_EQ(n.priced_gpu_hours, n.idle_usd != 0 ? n.idle_gpu_hours : 0) << n.node;
  }
}

}  // namespace
}  // namespace gpucost
