// `gpucost report` as a user runs it: flags, errors that name what is wrong, unknown prices.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

#include "cli/cli_test_util.h"
#include "core/strings.h"

namespace gpucost {
namespace {

using testing_util::Contains;
using testing_util::RunResult;
using testing_util::RunShell;
using testing_util::TempDir;

const std::string kCase = std::string(GPUCOST_SOURCE_DIR) + "/tests/golden/cases/whole_gpu/input";

RunResult GpucostReport(const std::string& args) {
  return RunShell(kBinary + " report " + args + " 2>&1");
}

TEST(ReportCommand, TableHasTotalsThatAddUp) {
  const RunResult r = GpucostReport("--input " + kCase + " --accumulate --price-per-gpu-hour 4");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_TRUE(Contains(r.output, "namespace")) << r.output;
  EXPECT_TRUE(Contains(r.output, "__idle__")) << r.output;
  EXPECT_TRUE(Contains(r.output, "total")) << r.output;
  EXPECT_TRUE(Contains(r.output, "cost_usd: 1.33 USD")) << r.output;
}

TEST(ReportCommand, WithoutAPriceMoneyIsUnknownNotZero) {
  const RunResult r = RunShell(kBinary + " report --input " + kCase + " --accumulate --format json");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const auto doc = nlohmann::json::parse(r.output);
  ASSERT_FALSE(doc["rows"].empty());
  EXPECT_TRUE(doc["rows"][0]["allocated_usd"].is_null()) << r.output;
  EXPECT_GT(doc["rows"][0]["gpu_hours"].get<double>(), 0.0);
  EXPECT_EQ(doc["totals"]["prices_known"], false);
}

// The whole_gpu case with its pod asking for a MIG slice its node does not have: the request is
// charged to nobody, and the report says how many GPU-hours were asked for (text and JSON). A
// report read from a ledger, which keeps no requests, says it does not know (null).
TEST(ReportCommand, RequestsNoGpuMatchedAreSaidInGpuHoursNotLost) {
  TempDir tmp;
  std::ifstream in(kCase + "/scrape.prom");
  std::stringstream text;
  text << in.rdbuf();
  std::string prom = text.str();
  for (size_t at = 0;
       (at = prom.find("kube_pod_container_resource_requests{", at)) != std::string::npos;) {
    const size_t eol = prom.find('\n', at);
    const size_t r = prom.find("resource=\"nvidia_com_gpu\"", at);
    if (r != std::string::npos && r < eol)
      prom.replace(r, 25, "resource=\"nvidia_com_mig_1g_10gb\"");
    at = prom.find('\n', at);
  }
  const std::string input = tmp.Write("scrape.prom", prom);
  RunResult r =
      RunShell(kBinary + " report --input " + input + " --accumulate --price-per-gpu-hour 4 2>&1");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_TRUE(Contains(r.output, "nvidia.com/mig-1g.10gb x1 by ml/train-0/main: no such unit"))
      << r.output;
  EXPECT_TRUE(Contains(r.output, "note: 0.17 GPU-hours were requested where no GPU matched"))
      << r.output;
  r = RunShell(kBinary + " report --input " + input +
               " --accumulate --price-per-gpu-hour 4 --format json 2>/dev/null");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  auto doc = nlohmann::json::parse(r.output);
  EXPECT_NEAR(doc["totals"]["unplaced_request_gpu_hours"].get<double>(), 10.0 / 60, 1e-12);
  EXPECT_NEAR(doc["totals"]["cost_usd"].get<double>(), 4.0 / 3, 1e-12);  // all of it idle

  // The unmodified case: nothing unplaced, 0 (known), and no note.
  r = RunShell(kBinary + " report --input " + kCase +
               " --accumulate --price-per-gpu-hour 4 --format json 2>/dev/null");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(nlohmann::json::parse(r.output)["totals"]["unplaced_request_gpu_hours"], 0.0);

  const std::string ledger = (tmp.path() / "costs.db").string();
  r = RunShell(kBinary + " ledger write " + ledger + " --input " + input +
               " --price-per-gpu-hour 4 --step 1m 2>&1");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  r = RunShell(kBinary + " report --ledger " + ledger + " --accumulate --format json 2>/dev/null");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  doc = nlohmann::json::parse(r.output);
  EXPECT_TRUE(doc["totals"]["unplaced_request_gpu_hours"].is_null()) << r.output;
  EXPECT_NEAR(doc["totals"]["cost_usd"].get<double>(), 4.0 / 3, 1e-12);
}

// A gzip file whose check fails at its end (damage the inflater did not see before: the parts it
// read may be garbage) is said as the file's damage, apart from its malformed lines and never
// folded into their count, in `report` and in `parse`.
TEST(ReportCommand, DamagedCompressedInputIsSaidApartFromItsMalformedLines) {
  TempDir tmp;
  const std::string dir = tmp.path().string();
  std::string junk;
  for (int i = 0; i < 40; ++i) junk += "not a sample line\n";
  std::ofstream(dir + "/junk.prom") << junk;
  const RunResult made = RunShell(StrCat(
      "cd ", dir, " && cat ", kCase, "/scrape.prom junk.prom | gzip -c > good.prom.gz && ",
      "head -c -8 good.prom.gz > bad.prom.gz && printf '\\000\\000\\000\\000' >> bad.prom.gz && ",
      "tail -c 4 good.prom.gz >> bad.prom.gz && ! gzip -t bad.prom.gz 2>/dev/null"));
  ASSERT_EQ(made.exit_code, 0) << made.output;
  const RunResult r = GpucostReport("--input " + dir + "/bad.prom.gz --price-per-gpu-hour 4");
  EXPECT_TRUE(Contains(r.output, "bad.prom.gz:")) << r.output;
  EXPECT_TRUE(Contains(r.output, "gzip data is damaged at byte")) << r.output;
  EXPECT_TRUE(Contains(r.output, "what was read of the damaged part may be wrong")) << r.output;
  const RunResult parsed = RunShell(kBinary + " parse " + dir + "/bad.prom.gz 2>&1");
  EXPECT_EQ(parsed.exit_code, 1) << parsed.output;
  EXPECT_TRUE(Contains(parsed.output, "damaged: " + dir + "/bad.prom.gz:")) << parsed.output;
  const RunResult good = GpucostReport("--input " + dir + "/good.prom.gz --price-per-gpu-hour 4");
  EXPECT_FALSE(Contains(good.output, "damaged")) << good.output;
}

TEST(ReportCommand, PerStepSeriesCarryBucketTimes) {
  const RunResult r =
      RunShell(kBinary + " report --input " + kCase +
               " --window 1790812800,1790813400 --step 5m --every 5m --by namespace "
               "--price-per-gpu-hour 4 --format csv");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_TRUE(Contains(r.output, "namespace,start,end,gpu_hours")) << r.output;
  EXPECT_TRUE(Contains(r.output, "ml,2026-10-01T00:00:00Z,2026-10-01T00:05:00Z")) << r.output;
  EXPECT_TRUE(Contains(r.output, "ml,2026-10-01T00:05:00Z,2026-10-01T00:10:00Z")) << r.output;
}

TEST(ReportCommand, BadFlagsAreNamed) {
  RunResult r = GpucostReport("--input " + kCase + " --by nodes");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(Contains(r.output, "nodes")) << r.output;

  r = GpucostReport("--input " + kCase + " --window 2026-10-01T00:00:00Z");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(Contains(r.output, "START,END")) << r.output;

  r = GpucostReport("--input " + kCase + " --step 5x");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(Contains(r.output, "5x")) << r.output;

  r = GpucostReport("--input " + kCase + " --idle sometimes");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(Contains(r.output, "sometimes")) << r.output;

  r = GpucostReport("--input /nonexistent/metrics.prom");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(Contains(r.output, "/nonexistent/metrics.prom")) << r.output;
}

TEST(ReportCommand, MalformedLinesAreWarnedWithFileAndLineAndTheRestIsKept) {
  TempDir tmp;
  const std::string good = std::string(GPUCOST_SOURCE_DIR) +
                           "/tests/golden/cases/whole_gpu/input/scrape.prom";
  const std::string bad = (tmp.path() / "scrape.prom").string();
  {
    std::ifstream in(good);
    std::ofstream out(bad);
    std::string line;
    int n = 0;
    while (std::getline(in, line)) {
      if (++n == 5) out << "kube_pod_info{namespace=\"ml\",pod=\"x\" 1 1790812800000\n";
      out << line << "\n";
    }
  }
  const RunResult r = RunShell(kBinary + " report --input " + bad +
                               " --accumulate --price-per-gpu-hour 4 --format json 2>&1 >/dev/null");
  EXPECT_TRUE(Contains(r.output, "scrape.prom:5:")) << r.output;
  const RunResult j = RunShell(kBinary + " report --input " + bad +
                               " --accumulate --price-per-gpu-hour 4 --format json 2>/dev/null");
  ASSERT_EQ(j.exit_code, 0);
  const auto doc = nlohmann::json::parse(j.output);
  EXPECT_NEAR(doc["totals"]["cost_usd"].get<double>(), 8.0 / 6, 1e-9);  // nothing else lost
}

}  // namespace
}  // namespace gpucost

namespace gpucost {
namespace {

// A Kubernetes cluster (the whole_gpu golden case: 2 GPUs, one held) and a Slurm cluster (two
// nodes of 2 GPUs: job 501 holds one GPU for 5 minutes, job 502 both GPUs of gpu02 all window,
// 503 is pending) in one report, at $4/GPU-hour over the same 10 minutes.
TEST(ReportCommand, KubernetesAndSlurmInOneReport) {
  const std::string sacct =
      std::string(GPUCOST_SOURCE_DIR) + "/tests/cli/data/report/sacct_mixed.txt";
  const RunResult r = RunShell(kBinary + " report --input " + kCase + " --slurm-sacct " + sacct +
                               " --slurm-time-zone UTC --slurm-gpus-per-node 2"
                               " --window 1790812800,1790813400 --by cluster,team --accumulate"
                               " --price-per-gpu-hour 4 --format json 2>/dev/null");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const auto doc = nlohmann::json::parse(r.output);
  const double h = 1.0 / 6;
  std::map<std::string, double> allocated;
  std::map<std::string, double> idle_of;  // by cluster: idle rows carry their cluster
  double idle = 0;
  for (const auto& row : doc["rows"]) {
    if (row["idle"] == true) {
      EXPECT_EQ(row["team"], "__idle__");
      idle_of[row["cluster"].get<std::string>()] += row["idle_usd"].get<double>();
      idle += row["idle_usd"].get<double>();
    } else {
      allocated[row["cluster"].get<std::string>() + "/" + row["team"].get<std::string>()] =
          row["allocated_usd"].get<double>();
    }
  }
  EXPECT_NEAR(allocated["default/ml"], 4 * h, 1e-9);
  EXPECT_NEAR(allocated["hpc1/physics"], 4 * 5.0 / 60, 1e-9);  // job 501: 1 GPU, 5 minutes
  EXPECT_NEAR(allocated["hpc1/chemistry"], 2 * 4 * h, 1e-9);   // job 502: 2 GPUs, cut at the end
  EXPECT_EQ(allocated.size(), 3u);                             // 503 is pending: no row
  // 6 GPUs x $4 x 1/6 h in all: conservation across both clusters.
  EXPECT_NEAR(doc["totals"]["cost_usd"].get<double>(), 6 * 4 * h, 1e-9);
  // The Kubernetes node's second GPU; hpc1's 4 GPUs less 5 + 20 GPU-minutes held.
  EXPECT_EQ(idle_of.size(), 2u);
  EXPECT_NEAR(idle_of["default"], 4 * h, 1e-9);
  EXPECT_NEAR(idle_of["hpc1"], 4 * (40 - 5 - 20) / 60.0, 1e-9);
  EXPECT_NEAR(idle + allocated["default/ml"] + allocated["hpc1/physics"] +
                  allocated["hpc1/chemistry"],
              6 * 4 * h, 1e-9);
}

// --slurm-account-teams: a job's team is its account's team from the file, else the account.
TEST(ReportCommand, SlurmAccountsMapToTeamsFromAFile) {
  const std::string sacct =
      std::string(GPUCOST_SOURCE_DIR) + "/tests/cli/data/report/sacct_mixed.txt";
  TempDir dir;
  const std::string teams = dir.Write("teams.txt", "# account  team\nphysics  sciences\n");
  const std::string common = kBinary + " report --slurm-sacct " + sacct +
                             " --slurm-time-zone UTC --slurm-gpus-per-node 2"
                             " --window 1790812800,1790813400 --by team --accumulate"
                             " --price-per-gpu-hour 4 --format json";
  const RunResult r = RunShell(common + " --slurm-account-teams " + teams + " 2>/dev/null");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  std::map<std::string, double> allocated;
  const auto doc = nlohmann::json::parse(r.output);
  for (const auto& row : doc["rows"]) {
    allocated[row["team"].get<std::string>()] = row["allocated_usd"].get<double>();
  }
  EXPECT_NEAR(allocated["sciences"], 4 * 5.0 / 60, 1e-9);  // job 501, account physics
  EXPECT_TRUE(allocated.contains("chemistry"));             // unmapped: the account
  EXPECT_FALSE(allocated.contains("physics"));
  // A malformed line fails naming the file and line.
  const std::string bad = dir.Write("bad.txt", "physics sciences\nchemistry\n");
  const RunResult b = RunShell(common + " --slurm-account-teams " + bad + " 2>&1");
  EXPECT_EQ(b.exit_code, 2);
  EXPECT_TRUE(Contains(b.output, bad + ":2: expected")) << b.output;
}

}  // namespace
}  // namespace gpucost

namespace gpucost {
namespace {

// `--slurm` runs sacct itself: a fake sacct (a script in a temporary folder) checks the
// arguments it is given, as they must be for the window in the Berlin zone, and prints rows
// shaped like real `sacct --parsable2 --noheader` output, times in Berlin time. Job 601 held 1
// GPU for 5 minutes at billing=8 (gres/gpuutil 50 % on its srun step), job 602 both GPUs of
// gpu02 all window; billing units are billing x hours.
TEST(ReportCommand, SlurmRunsSacctForTheWindow) {
  TempDir dir;
  const std::string argv =
      "--parsable2 --noheader --allusers --duplicates --noconvert --starttime=2026-10-01T02:00:00 "
      "--endtime=2026-10-01T02:10:00 --format=JobID,JobIDRaw,Cluster,User,Account,Partition,QOS,"
      "JobName,AllocTRES,Start,End,Elapsed,State,NodeList,NTasks,TRESUsageInTot --clusters=hpc1";
  const std::string script = (dir.path() / "fake-sacct").string();
  {
    std::ofstream out(script);
    out << "#!/bin/sh\n"
        << "if [ \"$*\" != '" << argv << "' ] || [ \"$TZ\" != Europe/Berlin ]; then\n"
        << "  echo \"sacct: unexpected call: $* (TZ=$TZ)\" >&2; exit 1\nfi\n"
        << "cat <<'EOF'\n"
        << "601|601|hpc1|alice|physics|gpu|normal|short|billing=8,cpu=8,gres/gpu=1,mem=64G,node=1|"
           "2026-10-01T02:00:00|2026-10-01T02:05:00|00:05:00|COMPLETED|gpu01||\n"
        << "601.0|601.0|hpc1||physics||||cpu=8,gres/gpu=1,mem=64G,node=1|2026-10-01T02:00:00|"
           "2026-10-01T02:05:00|00:05:00|COMPLETED|gpu01|1|cpu=00:04:00,gres/gpuutil=50,mem=1G\n"
        << "602|602|hpc1|bob|chemistry|gpu|normal|long|billing=16,cpu=16,gres/gpu=2,mem=128G,"
           "node=1|2026-10-01T01:00:00|Unknown|01:10:00|RUNNING|gpu02||\n"
        << "EOF\n";
  }
  ::chmod(script.c_str(), 0755);
  const std::string common = kBinary + " report --slurm --slurm-sacct-bin " + script +
                             " --slurm-clusters hpc1 --slurm-time-zone Europe/Berlin"
                             " --window 1790812800,1790813400 --by team --accumulate"
                             " --price-per-gpu-hour 4";
  const RunResult r = RunShell(common + " --format json 2>&1");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const auto doc = nlohmann::json::parse(r.output);
  const double h = 1.0 / 6;
  std::map<std::string, nlohmann::json> rows;
  for (const auto& row : doc["rows"]) rows[row["team"].get<std::string>()] = row;
  EXPECT_NEAR(rows["physics"]["allocated_usd"].get<double>(), 4 * 5.0 / 60, 1e-9);
  EXPECT_NEAR(rows["physics"]["utilization"].get<double>(), 0.5, 1e-9);
  EXPECT_NEAR(rows["physics"]["billing_units"].get<double>(), 8 * 5.0 / 60, 1e-9);
  EXPECT_NEAR(rows["chemistry"]["billing_units"].get<double>(), 16 * h, 1e-9);
  EXPECT_TRUE(rows["chemistry"]["utilization"].is_null());
  EXPECT_TRUE(rows["__idle__"]["billing_units"].is_null());
  EXPECT_NEAR(doc["totals"]["billing_units"].get<double>(), 8 * 5.0 / 60 + 16 * h, 1e-9);
  EXPECT_NEAR(doc["totals"]["cost_usd"].get<double>(), 3 * 4 * h, 1e-9);

  const RunResult csv = RunShell(common + " --format csv 2>&1");
  ASSERT_EQ(csv.exit_code, 0) << csv.output;
  EXPECT_TRUE(Contains(csv.output.substr(0, csv.output.find('\n')), "billing_units"));
  const RunResult table = RunShell(common + " 2>&1");
  ASSERT_EQ(table.exit_code, 0) << table.output;
  EXPECT_TRUE(Contains(table.output, "billing_units")) << table.output;

  // A failing sacct is a clear error with its stderr and exit 2.
  const RunResult bad = RunShell(kBinary + " report --slurm --slurm-sacct-bin " + script +
                                 " --slurm-time-zone UTC --window 1790812800,1790813400 2>&1");
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_TRUE(Contains(bad.output, "exited with status 1")) << bad.output;
  EXPECT_TRUE(Contains(bad.output, "sacct: unexpected call")) << bad.output;
  const RunResult no_window = RunShell(kBinary + " report --slurm 2>&1");
  EXPECT_EQ(no_window.exit_code, 2);
  EXPECT_TRUE(Contains(no_window.output, "--slurm needs --window")) << no_window.output;
}

// Reports without Slurm billing keep their columns.
TEST(ReportCommand, NoBillingColumnWithoutSlurm) {
  const RunResult r = RunShell(kBinary + " report --input " + kCase +
                               " --price-per-gpu-hour 4 --format csv 2>/dev/null");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_FALSE(Contains(r.output, "billing_units"));
}

}  // namespace
}  // namespace gpucost
