// gpucost against a real Slurm 22.05 (tests/slurm_real/real_slurm.h): the test submits real jobs
// (plain GPU jobs, an array, a heterogeneous job, a job with steps, a cancelled and a requeued
// job, a job still running at the window's end), waits on their states in sacct/squeue, and checks
// `gpucost report --slurm`, `--slurm-billing-weights` from `scontrol show partition`, chargeback
// statements per team, sreport's own GPU-seconds and `gpucost serve --slurm` against them.
//
// One cluster for the whole binary (SetUpTestSuite); ctest runs the binary as one test. Without
// the Slurm packages the tests skip, except under CI=true, where they fail.
#include "slurm_real/real_slurm.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <cstdlib>
#include <functional>
#include <iostream>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "common/child_process.h"
#include "core/strings.h"
#include "core/subprocess.h"

namespace gpucost {
namespace {

using testing_util::RealSlurm;
using Json = nlohmann::json;
namespace fs = std::filesystem;

int64_t NowS() {
  return std::chrono::duration_cast<std::chrono::seconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> out;
  for (std::string_view l : Split(text, '\n')) {
    if (!Trim(l).empty()) out.emplace_back(Trim(l));
  }
  return out;
}

// One allocation row of `sacct -D -X` (every run of every job), times in unix seconds.
struct SacctJob {
  std::string id;  // as sacct writes it: 12, 3_0, 7+1
  std::string raw;
  std::string account;
  std::string partition;
  std::string alloc_tres;
  int64_t start = 0;
  std::optional<int64_t> end;  // none while running
  std::string state;
  std::string nodes;
  // The count of one TRES in AllocTRES (mem: MB, "4096M" with --noconvert).
  int Tres(std::string_view key) const {
    for (std::string_view kv : Split(alloc_tres, ',')) {
      const size_t eq = kv.find('=');
      if (eq != std::string_view::npos && kv.substr(0, eq) == key) {
        return std::atoi(std::string(kv.substr(eq + 1)).c_str());
      }
    }
    return 0;
  }
  // GPU-seconds inside [w0, w1).
  int64_t GpuSeconds(int64_t w0, int64_t w1) const {
    const int64_t s = std::max(start, w0);
    const int64_t e = std::min(end.value_or(w1), w1);
    return e > s ? Tres("gres/gpu") * (e - s) : 0;
  }
};

// What the suite submitted and the window it ran in.
struct Scenario {
  int64_t w0 = 0, w1 = 0;
  std::map<std::string, std::string> ids;  // name (plain_a100, array, het, ...) -> job id
  std::vector<SacctJob> rows;              // sacct -D -X over [w0, w1]
};

class RealSlurmTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    const std::string missing = RealSlurm::Missing();
    if (!missing.empty()) {
      skip_ = "no real Slurm here: needs " + missing + " (scripts/install-deps.sh)";
      return;
    }
    slurm_ = std::make_unique<RealSlurm>();
    const auto t0 = std::chrono::steady_clock::now();
    if (!slurm_->Start()) {
      setup_error_ = "starting Slurm: " + slurm_->error();
      return;
    }
    started_s_ = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    scenario_ = std::make_unique<Scenario>();
    const auto t1 = std::chrono::steady_clock::now();
    if (std::string e = RunScenario(*scenario_); !e.empty()) {
      setup_error_ = e + "\n" + slurm_->Logs();
    }
    std::cout << "real Slurm: started in " << started_s_ << " s, its jobs ran in "
              << std::chrono::duration<double>(std::chrono::steady_clock::now() - t1).count()
              << " s\n";
  }
  static void TearDownTestSuite() {
    if (slurm_) slurm_->Stop();
    slurm_.reset();
    scenario_.reset();
  }
  void SetUp() override {
    if (!skip_.empty()) {
      const char* ci = std::getenv("CI");
      if (ci != nullptr && std::string(ci) == "true") FAIL() << skip_ << " (CI=true: not skipped)";
      GTEST_SKIP() << skip_;
    }
    ASSERT_TRUE(setup_error_.empty()) << setup_error_;
  }

  static Result<std::string> Slurm(const std::vector<std::string>& argv) {
    return slurm_->Client(argv);
  }

  // Polls `ready` (every 200 ms) until it holds; false after `limit`.
  static bool WaitUntil(const std::function<bool()>& ready,
                        std::chrono::seconds limit = std::chrono::seconds(40)) {
    const auto deadline = std::chrono::steady_clock::now() + limit;
    while (std::chrono::steady_clock::now() < deadline) {
      if (ready()) return true;
      std::this_thread::sleep_for(std::chrono::milliseconds(200));
    }
    return false;
  }

  // sacct -X -D: every run of every job that ran in [w0, w1], times as unix seconds.
  static Result<std::vector<SacctJob>> SacctRows(int64_t w0, int64_t w1,
                                                 const std::string& job = "") {
    std::vector<std::string> argv = {
        "sacct",
        "-a",
        "-X",
        "-D",
        "-P",
        "-n",
        "--noconvert",
        StrCat("-S", FormatTime(w0)),
        StrCat("-E", FormatTime(w1)),
        "--format=JobID,JobIDRaw,Account,Partition,AllocTRES,Start,End,State,NodeList"};
    if (!job.empty()) argv.push_back("-j" + job);
    GPUCOST_ASSIGN_OR_RETURN(
        CommandOutput out,
        RunCommand(argv, {"SLURM_CONF=" + slurm_->conf(), "TZ=UTC0", "SLURM_TIME_FORMAT=%s"}));
    std::vector<SacctJob> rows;
    for (const std::string& line : Lines(out.out)) {
      const std::vector<std::string_view> f = Split(line, '|');
      if (f.size() != 9) return Status::Internal("sacct row: " + line);
      SacctJob j;
      j.id = std::string(f[0]);
      j.raw = std::string(f[1]);
      j.account = std::string(f[2]);
      j.partition = std::string(f[3]);
      j.alloc_tres = std::string(f[4]);
      if (f[5] == "Unknown" || f[5] == "None") continue;  // pending
      j.start = std::atoll(std::string(f[5]).c_str());
      if (f[6] != "Unknown" && f[6] != "None") j.end = std::atoll(std::string(f[6]).c_str());
      j.state = std::string(f[7]);
      j.nodes = std::string(f[8]);
      rows.push_back(std::move(j));
    }
    return rows;
  }

  static std::string FormatTime(int64_t unix_s) {
    const std::time_t t = unix_s;
    std::tm tm{};
    ::gmtime_r(&t, &tm);
    char buf[32];
    std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%S", &tm);
    return buf;
  }
  static std::string Rfc3339(int64_t unix_s) { return FormatTime(unix_s) + "Z"; }

  // The job's state in sacct (first allocation row, the newest run), "" when not there yet.
  static std::string StateOf(const std::string& id) {
    auto out = Slurm({"sacct", "-X", "-n", "-P", "-j", id, "--format=State"});
    if (!out.ok()) return "";
    const auto lines = Lines(*out);
    return lines.empty() ? "" : lines.front();
  }
  static int64_t ElapsedOf(const std::string& id) {
    auto out = Slurm({"sacct", "-X", "-n", "-P", "-j", id, "--format=ElapsedRaw"});
    if (!out.ok()) return 0;
    const auto lines = Lines(*out);
    return lines.empty() ? 0 : std::atoll(lines.front().c_str());
  }
  static bool Finished(const std::string& id) {
    auto out = Slurm({"sacct", "-X", "-n", "-P", "-j", id, "--format=State"});
    if (!out.ok()) return false;
    const auto lines = Lines(*out);
    if (lines.empty()) return false;
    for (const std::string& s : lines) {
      if (s.starts_with("PENDING") || s.starts_with("RUNNING") || s.starts_with("REQUEUED") ||
          s.starts_with("COMPLETING")) {
        return false;
      }
    }
    return true;
  }

  // sbatch --parsable; the job id.
  static Result<std::string> Submit(std::vector<std::string> args) {
    args.insert(args.begin(), {"sbatch", "--parsable", "-o", "/dev/null"});
    GPUCOST_ASSIGN_OR_RETURN(std::string out, Slurm(args));
    std::string id(Trim(out));
    if (const size_t semi = id.find(';'); semi != std::string::npos) id.resize(semi);
    return id;
  }

  // Submits the jobs and waits on their states. "" or what went wrong.
  static std::string RunScenario(Scenario& s) {
    s.w0 = NowS() - 1;
    struct Spec {
      std::string name;
      std::vector<std::string> args;
    };
    const std::vector<Spec> specs = {
        // Memory too: the gpu partition bills it (Mem=0.25G, 0.25 per GB).
        {"plain_a100",
         {"-A", "ml", "-p", "gpu", "--mem=4G", "--gres=gpu:a100:2", "--wrap", "sleep 2"}},
        {"plain_l4", {"-A", "vision", "-p", "premium", "--gres=gpu:l4:1", "--wrap", "sleep 2"}},
        // One GPU on each of the two nodes: AllocTRES holds the job's total, NodeList a range.
        {"two_nodes",
         {"-A", "ml", "-p", "gpu", "-N", "2", "--gres=gpu:a100:1", "--wrap", "sleep 2"}},
        // No type asked: Slurm records the type of the GPU it got (checked below).
        {"plain_any", {"-A", "vision", "-p", "gpu", "--gres=gpu:1", "--wrap", "sleep 2"}},
        {"array",
         {"-A", "ml", "-p", "gpu", "--array=0-2", "--gres=gpu:a100:1", "--wrap", "sleep 1"}},
        {"het",
         {"-A", "vision", "-p", "gpu", "--gres=gpu:a100:1", ":", "-p", "premium", "--gres=gpu:l4:2",
          "--wrap", "sleep 2"}},
        {"steps",
         {"-A", "ml", "-p", "premium", "-n", "2", "--gres=gpu:a100:2", "--wrap",
          "srun -n2 sleep 1; srun -n1 --gres=gpu:a100:1 sleep 1"}},
        {"cancelled", {"-A", "vision", "-p", "gpu", "--gres=gpu:l4:1", "--wrap", "sleep 120"}},
        // The first run outlives the test's patience; the run after the requeue is short.
        {"requeued",
         {"-A", "ml", "-p", "gpu", "--requeue", "--gres=gpu:a100:1", "--wrap",
          "if [ \"${SLURM_RESTART_COUNT:-0}\" = 0 ]; then sleep 120; else sleep 1; fi"}},
        {"running", {"-A", "infra", "-p", "gpu", "--gres=gpu:l4:1", "--wrap", "sleep 600"}},
    };
    for (const Spec& spec : specs) {
      auto id = Submit(spec.args);
      if (!id.ok()) return StrCat("sbatch ", spec.name, ": ", id.status().ToString());
      s.ids[spec.name] = *id;
    }
    const auto running_a_second = [](const std::string& id) {
      return [id] { return StateOf(id) == "RUNNING" && ElapsedOf(id) >= 1; };
    };
    // Cancel one after it ran a second.
    if (!WaitUntil(running_a_second(s.ids["cancelled"]))) return "`cancelled` never ran";
    if (auto r = Slurm({"scancel", s.ids["cancelled"]}); !r.ok()) return r.status().ToString();
    // Requeue one after it ran a second, then let its second run start now: a requeued batch
    // job is held (BeginTime) for a while before it may run again.
    const std::string rq = s.ids["requeued"];
    if (!WaitUntil(running_a_second(rq))) return "`requeued` never ran";
    if (auto r = Slurm({"scontrol", "requeue", rq}); !r.ok()) return r.status().ToString();
    if (!WaitUntil([&] { return StateOf(rq) == "PENDING"; })) return "`requeued` not pending";
    if (auto r = Slurm({"scontrol", "update", "JobId=" + rq, "StartTime=now"}); !r.ok()) {
      return "scontrol update StartTime=now: " + r.status().ToString();
    }
    if (!WaitUntil(running_a_second(s.ids["running"]))) return "`running` never ran";
    for (const auto& [name, id] : s.ids) {
      if (name == "running") continue;
      if (!WaitUntil([&] { return Finished(id); })) {
        return StrCat("`", name, "` (job ", id, ") did not finish: ", StateOf(id));
      }
    }
    s.w1 = NowS() + 1;
    auto rows = SacctRows(s.w0, s.w1);
    if (!rows.ok()) return rows.status().ToString();
    s.rows = std::move(*rows);
    return "";
  }

  // gpucost with the cluster's SLURM_CONF in its environment; stdout, stderr into *err.
  static Result<std::string> Gpucost(std::vector<std::string> args, std::string* err = nullptr) {
    args.insert(args.begin(), GPUCOST_BINARY);
    GPUCOST_ASSIGN_OR_RETURN(CommandOutput out, RunCommand(args, {}));
    if (err != nullptr) *err = out.err;
    return std::move(out.out);
  }

  std::string Window() const { return StrCat(scenario_->w0, ",", scenario_->w1); }

  // Rows of the scenario whose id starts with the job (3 -> 3_0, 3_1, 3_2; 7 -> 7+0, 7+1).
  std::vector<const SacctJob*> RowsOf(const std::string& name) const {
    const std::string& id = scenario_->ids.at(name);
    std::vector<const SacctJob*> out;
    for (const SacctJob& r : scenario_->rows) {
      if (r.id == id || r.id.starts_with(id + "_") || r.id.starts_with(id + "+")) {
        out.push_back(&r);
      }
    }
    return out;
  }

  static inline std::unique_ptr<RealSlurm> slurm_;
  static inline std::unique_ptr<Scenario> scenario_;
  static inline std::string skip_;
  static inline std::string setup_error_;
  static inline double started_s_ = 0;
};

// sacct's rows are the jobs as submitted: ids, GPU counts and types, states.
TEST_F(RealSlurmTest, SacctRecordsWhatWasSubmitted) {
  auto one = [&](const std::string& name) {
    const auto rows = RowsOf(name);
    EXPECT_EQ(rows.size(), 1u) << name;
    return rows.empty() ? SacctJob{} : *rows.front();
  };
  EXPECT_EQ(one("plain_a100").Tres("gres/gpu:a100"), 2);
  EXPECT_EQ(one("plain_l4").Tres("gres/gpu:l4"), 1);
  const SacctJob two = one("two_nodes");
  EXPECT_EQ(two.Tres("gres/gpu:a100"), 2) << two.alloc_tres;
  EXPECT_EQ(two.nodes, "gpu[1-2]");
  const SacctJob any = one("plain_any");
  EXPECT_EQ(any.Tres("gres/gpu"), 1);
  EXPECT_EQ(any.Tres("gres/gpu:a100") + any.Tres("gres/gpu:l4"), 1) << any.alloc_tres;
  const auto array = RowsOf("array");
  ASSERT_EQ(array.size(), 3u);
  for (const SacctJob* r : array) EXPECT_EQ(r->Tres("gres/gpu:a100"), 1) << r->id;
  const auto het = RowsOf("het");
  ASSERT_EQ(het.size(), 2u);
  EXPECT_EQ(het[0]->id, scenario_->ids["het"] + "+0");
  EXPECT_EQ(het[0]->Tres("gres/gpu:a100"), 1);
  EXPECT_EQ(het[1]->id, scenario_->ids["het"] + "+1");
  EXPECT_EQ(het[1]->Tres("gres/gpu:l4"), 2);
  EXPECT_NE(het[0]->nodes, het[1]->nodes) << "het components never share a node";
  EXPECT_EQ(one("steps").Tres("gres/gpu:a100"), 2);
  EXPECT_THAT(one("cancelled").state, ::testing::StartsWith("CANCELLED"));
  const auto rq = RowsOf("requeued");
  ASSERT_EQ(rq.size(), 2u) << "sacct -D: the requeued run and the last";
  EXPECT_EQ(rq[0]->state, "REQUEUED");
  EXPECT_EQ(rq[1]->state, "COMPLETED");
  EXPECT_EQ(one("running").state, "RUNNING");
  EXPECT_FALSE(one("running").end.has_value());
}

// report --slurm runs the real sacct: each job's GPU-hours are its GPUs × its time in the window,
// every run of a requeued job counted, the running one up to the window's end.
TEST_F(RealSlurmTest, ReportChargesEachJobItsGpusTimesItsTime) {
  std::string err;
  auto out = Gpucost({"report", "--slurm", "--window", Window(), "--step", "1s", "--by", "pod",
                      "--format", "json", "--price-per-gpu-hour", "3.6"},
                     &err);
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  const Json j = Json::parse(*out);
  std::map<std::string, double> hours;
  for (const Json& row : j["rows"]) {
    const std::string pod = row["pod"].get<std::string>();
    if (pod != "__idle__") hours[pod] += row["gpu_hours"].get<double>();
  }
  std::map<std::string, int64_t> expected;
  int64_t total = 0;
  for (const SacctJob& r : scenario_->rows) {
    expected[r.id] += r.GpuSeconds(scenario_->w0, scenario_->w1);
    total += r.GpuSeconds(scenario_->w0, scenario_->w1);
  }
  for (const auto& [id, seconds] : expected) {
    EXPECT_NEAR(hours[id] * 3600.0, static_cast<double>(seconds), 1e-6) << "job " << id;
  }
  // Known by construction, whatever the timing: the requeued job ran twice on one GPU.
  const auto rq = RowsOf("requeued");
  ASSERT_EQ(rq.size(), 2u);
  EXPECT_GT(*rq[0]->end - rq[0]->start, 0);
  EXPECT_NEAR(hours[scenario_->ids["requeued"]] * 3600.0,
              static_cast<double>((*rq[0]->end - rq[0]->start) + (*rq[1]->end - rq[1]->start)),
              1e-6);
  // The running job is held to the window's end.
  const SacctJob& running = *RowsOf("running").front();
  EXPECT_NEAR(hours[running.id] * 3600.0, static_cast<double>(scenario_->w1 - running.start), 1e-6);
  double held = 0;
  for (const auto& [pod, h] : hours) held += h;
  EXPECT_NEAR(held * 3600.0, static_cast<double>(total), 1e-6);
  // No GPU held by two jobs at once (units of each type assigned over time).
  EXPECT_FALSE(j["totals"]["oversubscribed"].get<bool>());
  // Money is GPU-hours × the price, never silently zero.
  EXPECT_NEAR(j["totals"]["allocated_usd"].get<double>(), 3.6 * static_cast<double>(total) / 3600.0,
              1e-6);
}

// The same in a ledger of minute steps, where both runs of the requeued job fall in one step
// (they are seconds apart) and may hold the same GPU: two holders, not one record overwriting the
// other.
TEST_F(RealSlurmTest, LedgerKeepsEveryRunOfARequeuedJob) {
  const std::string ledger = (slurm_->dir() / "minutes.db").string();
  const int64_t from = scenario_->w0 / 60 * 60, to = (scenario_->w1 / 60 + 1) * 60;
  auto write = Gpucost({"ledger", "write", ledger, "--slurm", "--window", StrCat(from, ",", to),
                        "--step", "60s", "--price-per-gpu-hour", "3.6"});
  ASSERT_TRUE(write.ok()) << write.status().ToString();
  auto out = Gpucost({"report", "--ledger", ledger, "--by", "pod", "--format", "json"});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  const Json j = Json::parse(*out);
  double hours = 0;
  for (const Json& row : j["rows"]) {
    if (row["pod"] == scenario_->ids["requeued"]) hours += row["gpu_hours"].get<double>();
  }
  int64_t seconds = 0;
  for (const SacctJob* r : RowsOf("requeued")) seconds += *r->end - r->start;
  EXPECT_NEAR(hours * 3600.0, static_cast<double>(seconds), 1e-6);
}

// Nodes hold GPUs of two types: each job's GPU-hours go to the type it asked for.
TEST_F(RealSlurmTest, GpuHoursByTypeFollowTheTypedGres) {
  auto out = Gpucost({"report", "--slurm", "--window", Window(), "--step", "1s", "--by",
                      "gpu_model", "--format", "json"});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  const Json j = Json::parse(*out);
  std::map<std::string, double> hours;
  for (const Json& row : j["rows"]) {
    if (!row.value("idle", false)) {
      hours[row["gpu_model"].get<std::string>()] += row["gpu_hours"].get<double>();
    }
  }
  int64_t a100 = 0, l4 = 0;
  for (const SacctJob& r : scenario_->rows) {
    const int64_t s = r.GpuSeconds(scenario_->w0, scenario_->w1) / std::max(1, r.Tres("gres/gpu"));
    a100 += s * r.Tres("gres/gpu:a100");
    l4 += s * r.Tres("gres/gpu:l4");
  }
  EXPECT_NEAR(hours["a100"] * 3600.0, static_cast<double>(a100), 1e-6) << out->substr(0, 2000);
  EXPECT_NEAR(hours["l4"] * 3600.0, static_cast<double>(l4), 1e-6);
}

// --slurm-billing-weights from the real `scontrol show partition`: the billing gpucost recomputes
// is the one Slurm recorded (no "differs" warning) and billing units are billing × hours.
TEST_F(RealSlurmTest, BillingWeightsFromScontrolShowPartition) {
  auto partitions = Slurm({"scontrol", "show", "partition"});
  ASSERT_TRUE(partitions.ok()) << partitions.status().ToString();
  const fs::path weights = slurm_->dir() / "partitions.txt";
  std::ofstream(weights) << *partitions;
  std::string err;
  auto out = Gpucost({"report", "--slurm", "--window", Window(), "--step", "1s", "--by", "pod",
                      "--format", "json", "--slurm-billing-weights", weights.string()},
                     &err);
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_THAT(err, ::testing::Not(::testing::HasSubstr("billing")));
  const Json j = Json::parse(*out);
  std::map<std::string, double> units;
  for (const Json& row : j["rows"]) {
    if (!row["billing_units"].is_null()) {
      units[row["pod"].get<std::string>()] += row["billing_units"].get<double>();
    }
  }
  // The weights as configured (real_slurm.h): gpu CPU=1, Mem=0.25G (0.25 per GB), GRES/gpu=2;
  // premium CPU=1, GRES/gpu:a100=8, GRES/gpu:l4=3; Slurm truncates. --noconvert prints memory in
  // MB: plain_a100 asked for 4G, the others have the default 100 MB a CPU.
  EXPECT_THAT(RowsOf("plain_a100").front()->alloc_tres, ::testing::HasSubstr("mem=4096M"));
  for (const SacctJob& r : scenario_->rows) {
    const double billing =
        r.partition == "gpu"
            ? r.Tres("cpu") + 0.25 * r.Tres("mem") / 1024.0 + 2 * r.Tres("gres/gpu")
            : r.Tres("cpu") + 8 * r.Tres("gres/gpu:a100") + 3 * r.Tres("gres/gpu:l4");
    EXPECT_EQ(static_cast<int>(billing), r.Tres("billing")) << r.id << " " << r.alloc_tres;
  }
  std::map<std::string, double> expected;
  for (const SacctJob& r : scenario_->rows) {
    expected[r.id] += r.Tres("billing") * r.GpuSeconds(scenario_->w0, scenario_->w1) /
                      std::max(1, r.Tres("gres/gpu")) / 3600.0;
  }
  for (const auto& [id, u] : expected) EXPECT_NEAR(units[id], u, 1e-9) << "job " << id;
}

// Chargeback statements per team, accounts mapped to teams (sacct named by its path).
TEST_F(RealSlurmTest, ChargebackPerTeamFromAccounts) {
  const fs::path teams = slurm_->dir() / "account-teams";
  std::ofstream(teams) << "# account team\nml research\nvision product\ninfra platform\n";
  auto out = Gpucost({"chargeback", "--slurm", "--slurm-sacct-bin", "/usr/bin/sacct", "--window",
                      Window(), "--step", "1s", "--by", "team", "--slurm-account-teams",
                      teams.string(), "--price-per-gpu-hour", "3.6", "--format", "json"});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  const Json j = Json::parse(*out);
  std::map<std::string, double> hours;
  for (const Json& s : j["statements"]) {
    hours[s["team"].get<std::string>()] = s["gpu_hours"].get<double>();
  }
  std::map<std::string, int64_t> expected;
  const std::map<std::string, std::string> team_of = {
      {"ml", "research"}, {"vision", "product"}, {"infra", "platform"}};
  for (const SacctJob& r : scenario_->rows) {
    expected[team_of.at(r.account)] += r.GpuSeconds(scenario_->w0, scenario_->w1);
  }
  EXPECT_EQ(hours.size(), 3u) << *out;
  for (const auto& [team, seconds] : expected) {
    EXPECT_NEAR(hours[team] * 3600.0, static_cast<double>(seconds), 1e-6) << team;
  }
}

// sreport's own GPU figures for the same jobs. `sreport cluster ...` reads the hourly roll-up
// tables, which slurmdbd has not computed for the current hour (they are empty here);
// `sreport job SizesByAccount` reads the job records themselves (every run of a requeued job
// included), over whole hours: sreport rounds a start or end inside an hour to the nearest hour
// (and widens an empty range to one hour), so the test asks for the hours around its window,
// in which only its own jobs ran. The running job's
// account (infra) is left out: sreport counts it to now, gpucost to the window's end.
TEST_F(RealSlurmTest, SreportJobSizesAgree) {
  auto out = Slurm({"sreport", "-n", "-P", "-t", "Seconds", "job", "SizesByAccount", "-T",
                    "gres/gpu", "FlatView", "Accounts=ml,vision", "Grouping=1000000",
                    "start=" + FormatTime(scenario_->w0 / 3600 * 3600),
                    "end=" + FormatTime((scenario_->w1 / 3600 + 1) * 3600)});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  std::map<std::string, int64_t> sreport;
  for (const std::string& line : Lines(*out)) {
    const auto f = Split(line, '|');  // Cluster|Account|0-999999 TRES|>= 1000000 TRES|% of cluster
    ASSERT_GE(f.size(), 4u) << line;
    sreport[std::string(f[1])] = std::atoll(std::string(f[2]).c_str());
  }
  auto report = Gpucost({"report", "--slurm", "--window", Window(), "--step", "1s", "--by",
                         "namespace", "--format", "json"});
  ASSERT_TRUE(report.ok()) << report.status().ToString();
  std::map<std::string, double> gpucost;
  const Json parsed = Json::parse(*report);
  for (const Json& row : parsed["rows"]) {
    gpucost[row["namespace"].get<std::string>()] += row["gpu_hours"].get<double>();
  }
  for (const std::string account : {"ml", "vision"}) {
    ASSERT_TRUE(sreport.contains(account)) << account << " not in:\n" << *out;
    EXPECT_GT(sreport[account], 0);
    EXPECT_NEAR(gpucost[account] * 3600.0, static_cast<double>(sreport[account]), 1e-6)
        << account << "\n"
        << *out;
  }
}

// gpucost serve on the head node, with the settings of deploy/systemd/serve.yaml (the paths,
// the port and the pace given on the command line, which wins over the file), keeps its ledger
// current while jobs appear, finish and are requeued: each cycle (1 s here) runs sacct for the
// steps since the last, and its API answers from the ledger.
TEST_F(RealSlurmTest, ServeKeepsTheLedgerCurrent) {
  const int port = testing_util::FreePort();
  const std::string url = StrCat("http://127.0.0.1:", port, "/api/v1/report?by=pod");
  const fs::path token = slurm_->dir() / "token";
  std::ofstream(token) << "s3cret-token";
  const int64_t from = NowS() - 2;
  testing_util::ChildProcess serve(
      {GPUCOST_BINARY, "serve", "--config",
       StrCat(GPUCOST_SOURCE_DIR, "/deploy/systemd/serve.yaml"), "--ledger",
       (slurm_->dir() / "serve.db").string(), "--token-file", token.string(), "--listen",
       StrCat("127.0.0.1:", port), "--interval", "1s", "--step", "1s", "--lag", "0s", "--from",
       std::to_string(from)},
      (slurm_->dir() / "log" / "serve.log").string());
  // GPU-seconds of each job id in the ledger; empty while serve does not answer.
  const auto ledger = [&]() {
    std::map<std::string, double> seconds;
    auto out = RunCommand({"curl", "-sf", "-H", "Authorization: Bearer s3cret-token", url}, {});
    if (!out.ok()) return seconds;
    const Json j = Json::parse(out->out, nullptr, false);
    if (j.is_discarded() || !j.contains("rows")) return seconds;
    for (const Json& row : j["rows"]) {
      const std::string pod = row["pod"].get<std::string>();
      if (pod != "__idle__") seconds[pod] += row["gpu_hours"].get<double>() * 3600.0;
    }
    return seconds;
  };
  // The job's GPU-seconds from sacct -D (all its runs) since `from`, and whether it ended.
  const auto sacct_seconds = [&](const std::string& id) {
    auto rows = SacctRows(from, NowS() + 1, id);
    int64_t total = 0;
    if (rows.ok()) {
      for (const SacctJob& r : *rows) total += r.end ? r.GpuSeconds(from, *r.end) : 0;
    }
    return total;
  };

  // A job appears in the ledger while it runs and its hours grow.
  // Long enough for a few of serve's 1 s cycles while it runs, also on a slow machine.
  auto job = Submit({"-A", "infra", "-p", "gpu", "--gres=gpu:a100:2", "--wrap", "sleep 6"});
  ASSERT_TRUE(job.ok()) << job.status().ToString();
  double seen = 0;
  ASSERT_TRUE(WaitUntil([&] {
    seen = ledger()[*job];
    return seen > 0 && StateOf(*job) == "RUNNING";
  })) << "job "
      << *job << " never showed in serve's ledger while running\n"
      << serve.Log();
  ASSERT_TRUE(WaitUntil([&] { return ledger()[*job] > seen || Finished(*job); }));
  // Once it finished, the ledger holds exactly its GPUs × its run.
  ASSERT_TRUE(WaitUntil([&] { return Finished(*job); })) << StateOf(*job);
  const int64_t finished = sacct_seconds(*job);
  EXPECT_GE(finished, 2 * 5);
  EXPECT_TRUE(WaitUntil([&] { return std::abs(ledger()[*job] - finished) < 1e-6; }))
      << ledger()[*job] << " GPU-seconds in the ledger, sacct says " << finished << "\n"
      << serve.Log();

  // A job requeued while serve runs: the ledger ends with both runs.
  auto rq = Submit({"-A", "infra", "-p", "gpu", "--requeue", "--gres=gpu:l4:1", "--wrap",
                    "if [ \"${SLURM_RESTART_COUNT:-0}\" = 0 ]; then sleep 120; else sleep 2; fi"});
  ASSERT_TRUE(rq.ok()) << rq.status().ToString();
  ASSERT_TRUE(WaitUntil([&] { return StateOf(*rq) == "RUNNING" && ElapsedOf(*rq) >= 2; }));
  ASSERT_TRUE(WaitUntil([&] { return ledger()[*rq] > 0; })) << serve.Log();
  ASSERT_TRUE(Slurm({"scontrol", "requeue", *rq}).ok());
  ASSERT_TRUE(WaitUntil([&] { return StateOf(*rq) == "PENDING"; }));
  ASSERT_TRUE(Slurm({"scontrol", "update", "JobId=" + *rq, "StartTime=now"}).ok());
  ASSERT_TRUE(WaitUntil([&] { return Finished(*rq); })) << StateOf(*rq);
  auto runs = SacctRows(from, NowS() + 1, *rq);
  ASSERT_TRUE(runs.ok());
  ASSERT_EQ(runs->size(), 2u);
  const int64_t both = sacct_seconds(*rq);
  EXPECT_GT(both, *(*runs)[0].end - (*runs)[0].start);
  EXPECT_TRUE(WaitUntil([&] { return std::abs(ledger()[*rq] - both) < 1e-6; }))
      << ledger()[*rq] << " GPU-seconds in the ledger, sacct -D says " << both << "\n"
      << serve.Log();
  // Jobs of the scenario before serve started count only from --from on; the one still running
  // keeps growing.
  const std::string running = scenario_->ids["running"];
  const double before = ledger()[running];
  EXPECT_TRUE(WaitUntil([&] { return ledger()[running] > before; }));
  EXPECT_EQ(serve.Terminate(), 0) << serve.Log();
}

}  // namespace
}  // namespace gpucost
