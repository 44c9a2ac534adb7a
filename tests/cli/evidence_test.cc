// Money only where there is evidence, as a user meets it with `gpucost report`: a window beyond
// the data costs only what the data covers (and says so), sparse scrapes cost the time they
// evidence, and bad values (NaN, negative or infinite requests, negative utilization, conflicting
// duplicates) are warned with file:line and move no money.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "cli/cli_test_util.h"

namespace gpucost {
namespace {

using testing_util::Contains;
using testing_util::RunResult;
using testing_util::RunShell;
using testing_util::TempDir;

const std::string kWholeGpu =
    std::string(GPUCOST_SOURCE_DIR) + "/tests/golden/cases/whole_gpu/input/scrape.prom";

// Runs `gpucost ARGS --format json`: the parsed document and stderr.
struct JsonRun {
  nlohmann::json doc;
  std::string stderr_text;
};

JsonRun ReportJson(const TempDir& tmp, const std::string& args) {
  const std::string err = (tmp.path() / "stderr.txt").string();
  const RunResult r = RunShell(kBinary + " report " + args + " --format json 2>" + err);
  JsonRun out;
  out.stderr_text = tmp.Read("stderr.txt");
  EXPECT_EQ(r.exit_code, 0) << out.stderr_text << r.output;
  if (r.exit_code == 0) out.doc = nlohmann::json::parse(r.output);
  return out;
}

double Total(const JsonRun& r, const char* field) {
  const auto& v = r.doc["totals"][field];
  return v.is_null() ? -1 : v.get<double>();
}

// The simulator's two-hour, two-node cluster: data from 00:00 to 02:00.
class WindowBeyondData : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new TempDir();
    const RunResult r =
        RunShell(kBinary + " simulate --nodes 2 --duration 2h --sharing whole:1 --seed 3 --out " +
                 (dir_->path() / "s.om").string() + " 2>&1");
    ASSERT_EQ(r.exit_code, 0) << r.output;
  }
  static void TearDownTestSuite() {
    delete dir_;
    dir_ = nullptr;
  }
  static std::string Args(const std::string& window) {
    return "--input " + (dir_->path() / "s.om").string() + " --accumulate --by namespace " +
           "--price-per-gpu-hour 2 --window " + window;
  }
  static TempDir* dir_;
};
TempDir* WindowBeyondData::dir_ = nullptr;

TEST_F(WindowBeyondData, AWindowAfterOrBeforeTheDataCostsNothingAndSaysSo) {
  for (const std::string window :
       {"2026-10-01T05:00:00Z,2026-10-01T06:00:00Z", "2026-09-20T05:00:00Z,2026-09-20T06:00:00Z"}) {
    const JsonRun r = ReportJson(*dir_, Args(window));
    // No GPU-hours and no idle: with no data the money is unknown (null), never a bill.
    EXPECT_EQ(Total(r, "gpu_hours"), 0) << window << r.doc.dump();
    EXPECT_TRUE(r.doc["totals"]["cost_usd"].is_null()) << window << r.doc.dump();
    EXPECT_TRUE(r.doc["totals"]["idle_usd"].is_null()) << window << r.doc.dump();
    EXPECT_TRUE(r.doc["rows"].empty()) << window << r.doc.dump();
    EXPECT_EQ(r.doc["covered"]["hours"].get<double>(), 0) << r.doc.dump();
    EXPECT_FALSE(r.doc["covered"]["complete"].get<bool>());
    EXPECT_TRUE(Contains(r.stderr_text, "holds none of the input's data")) << r.stderr_text;
  }
}

TEST_F(WindowBeyondData, AWindowPastTheDataCostsTheCoveredPartOnly) {
  const JsonRun wide = ReportJson(*dir_, Args("2026-10-01T01:00:00Z,2026-10-01T05:00:00Z"));
  const JsonRun exact = ReportJson(*dir_, Args("2026-10-01T01:00:00Z,2026-10-01T02:00:00Z"));
  ASSERT_GT(Total(exact, "cost_usd"), 0);
  EXPECT_NEAR(Total(wide, "cost_usd"), Total(exact, "cost_usd"), 1e-9);
  EXPECT_NEAR(Total(wide, "idle_usd"), Total(exact, "idle_usd"), 1e-9);
  EXPECT_EQ(wide.doc["covered"]["start"], "2026-10-01T01:00:00Z");
  EXPECT_EQ(wide.doc["covered"]["end"], "2026-10-01T02:00:00Z");
  EXPECT_NEAR(wide.doc["covered"]["hours"].get<double>(), 1.0, 1e-12);
  EXPECT_TRUE(exact.doc["covered"]["complete"].get<bool>());
  EXPECT_TRUE(Contains(wide.stderr_text, "only 2026-10-01T01:00:00Z to 2026-10-01T02:00:00Z"))
      << wide.stderr_text;
  EXPECT_FALSE(Contains(exact.stderr_text, "beyond")) << exact.stderr_text;
  // The table says it too.
  const RunResult table = RunShell(
      kBinary + " report " + Args("2026-10-01T01:00:00Z,2026-10-01T05:00:00Z") + " 2>/dev/null");
  EXPECT_TRUE(Contains(table.output,
                       "note: the input covers only 2026-10-01T01:00:00Z to "
                       "2026-10-01T02:00:00Z of this window"))
      << table.output;
}

// Scrapes every 10 minutes under the default 5-minute staleness: each sample stands for its
// series' interval, so the cluster costs its whole time, as it does scraped every 30 s.
TEST(SparseScrapes, TenMinuteScrapesCostTheTimeTheyEvidence) {
  TempDir tmp;
  double cost[2] = {0, 0};
  const char* intervals[2] = {"30s", "10m"};
  for (int i = 0; i < 2; ++i) {
    const std::string file = (tmp.path() / (std::string("c") + intervals[i] + ".om")).string();
    const RunResult sim = RunShell(kBinary +
                                   " simulate --nodes 2 --sharing whole:1 --gpu-models t4:1 "
                                   "--gpus-per-node 4 --duration 3h --seed 7 --scrape-interval " +
                                   intervals[i] + " --out " + file + " 2>&1");
    ASSERT_EQ(sim.exit_code, 0) << sim.output;
    const JsonRun r = ReportJson(tmp, "--input " + file + " --accumulate --price-per-gpu-hour 1");
    cost[i] = Total(r, "cost_usd");
    // 2 nodes x 4 GPUs x 3 hours at $1.
    EXPECT_NEAR(cost[i], 24.0, 1e-9) << intervals[i];
    EXPECT_EQ(Total(r, "unmeasured_gpu_hours"), 0) << intervals[i] << r.doc.dump();
    EXPECT_EQ(Contains(r.stderr_text, "sampled as sparsely as every 10m"), i == 1) << r.stderr_text;
  }
  EXPECT_NEAR(cost[0], cost[1], 1e-9);
}

// The whole_gpu case (one pod holding one of two A100s for 10 one-minute scrapes) with line
// `line_no` (1-based) replaced by `replacement`, or `replacement` inserted after it.
std::string Edited(const TempDir& tmp, int line_no, const std::string& replacement,
                   bool insert_after = false) {
  std::ifstream in(kWholeGpu);
  std::ostringstream out;
  std::string line;
  int n = 0;
  while (std::getline(in, line)) {
    ++n;
    if (n == line_no && !insert_after) {
      out << replacement << "\n";
      continue;
    }
    out << line << "\n";
    if (n == line_no && insert_after) out << replacement << "\n";
  }
  return tmp.Write("scrape.prom", out.str());
}

// Line `line_no` (1-based) of the whole_gpu case.
std::string Line(int line_no) {
  std::ifstream in(kWholeGpu);
  std::string line;
  for (int n = 0; n < line_no && std::getline(in, line); ++n) {
  }
  return line;
}

// The value of a sample line replaced (the timestamp kept).
std::string WithValue(int line_no, const std::string& value) {
  const std::string line = Line(line_no);
  const size_t ts = line.rfind(' ');
  const size_t v = line.rfind(' ', ts - 1);
  return line.substr(0, v + 1) + value + line.substr(ts);
}

const nlohmann::json& PodRow(const JsonRun& r) {
  for (const auto& row : r.doc["rows"]) {
    if (row["pod"] == "train-0") return row;
  }
  static const nlohmann::json kNone;
  ADD_FAILURE() << "no row for train-0: " << r.doc.dump();
  return kNone;
}

constexpr const char* kPodArgs = " --accumulate --by pod --price-per-gpu-hour 4";

TEST(BadValues, ARequestThatIsNoCountIsWarnedAndMovesNoMoney) {
  TempDir tmp;
  const JsonRun clean = ReportJson(tmp, "--input " + kWholeGpu + kPodArgs);
  const double clean_usd = PodRow(clean)["allocated_usd"].get<double>();
  ASSERT_NEAR(clean_usd, 4.0 * 10 / 60, 1e-9);
  // Line 117: the pod's nvidia.com/gpu request at the fifth scrape.
  for (const std::string value : {"NaN", "-4", "+Inf"}) {
    const std::string file = Edited(tmp, 117, WithValue(117, value));
    const JsonRun bad = ReportJson(tmp, "--input " + file + kPodArgs);
    EXPECT_NEAR(PodRow(bad)["allocated_usd"].get<double>(), clean_usd, 1e-9) << value;
    EXPECT_NEAR(Total(bad, "idle_usd"), Total(clean, "idle_usd"), 1e-9) << value;
    EXPECT_TRUE(Contains(bad.stderr_text, "scrape.prom:117:")) << value << bad.stderr_text;
    EXPECT_TRUE(Contains(bad.stderr_text, "not a device count")) << value << bad.stderr_text;
  }
}

TEST(BadValues, NegativeUtilizationIsUnmeasuredNotAMeasuredZero) {
  TempDir tmp;
  // Line 129: the pod's GPU activity at the fifth scrape (one 60 s step).
  const std::string file = Edited(tmp, 129, WithValue(129, "-0.5"));
  const JsonRun bad = ReportJson(tmp, "--input " + file + kPodArgs);
  EXPECT_NEAR(PodRow(bad)["unmeasured_gpu_hours"].get<double>(), 1.0 / 60, 1e-12);
  EXPECT_TRUE(Contains(bad.stderr_text, "scrape.prom:129:")) << bad.stderr_text;
  EXPECT_TRUE(Contains(bad.stderr_text, "negative")) << bad.stderr_text;
}

TEST(BadValues, ConflictingDuplicateSamplesAreWarnedWhereTheyAre) {
  TempDir tmp;
  const JsonRun clean = ReportJson(tmp, "--input " + kWholeGpu + kPodArgs);
  // The same activity sample again, right after it, with another value: the first one is used, as
  // Prometheus keeps it (the money is the clean file's), and the warning names the later's line.
  const std::string file = Edited(tmp, 129, WithValue(129, "0.99"), /*insert_after=*/true);
  const JsonRun bad = ReportJson(tmp, "--input " + file + kPodArgs);
  EXPECT_TRUE(Contains(bad.stderr_text, "scrape.prom:130:")) << bad.stderr_text;
  EXPECT_TRUE(Contains(bad.stderr_text, "two different values")) << bad.stderr_text;
  EXPECT_NEAR(PodRow(bad)["effective_usd"].get<double>(),
              PodRow(clean)["effective_usd"].get<double>(), 1e-12);
  // The same sample twice is no conflict.
  const std::string same = Edited(tmp, 129, Line(129), /*insert_after=*/true);
  const JsonRun twice = ReportJson(tmp, "--input " + same + kPodArgs);
  EXPECT_FALSE(Contains(twice.stderr_text, "two different values")) << twice.stderr_text;
  EXPECT_NEAR(PodRow(twice)["effective_usd"].get<double>(),
              PodRow(clean)["effective_usd"].get<double>(), 1e-12);
}

// One stray timestamp (1 ms after 1970, or milliseconds written where seconds were meant) must
// not stretch the window by decades and bill idle for them.
TEST(BadValues, AStrayTimestampIsSkippedAndNamed) {
  TempDir tmp;
  const JsonRun clean =
      ReportJson(tmp, "--input " + kWholeGpu + " --accumulate --price-per-gpu-hour 4");
  for (const std::string stamp : {"1", "99999999999000"}) {
    const std::string line = Line(3);
    const std::string file = Edited(tmp, 3, line.substr(0, line.rfind(' ') + 1) + stamp, true);
    const JsonRun bad = ReportJson(tmp, "--input " + file + " --accumulate --price-per-gpu-hour 4");
    EXPECT_EQ(bad.doc["window"], clean.doc["window"]) << stamp;
    EXPECT_NEAR(Total(bad, "cost_usd"), Total(clean, "cost_usd"), 1e-12) << stamp;
    EXPECT_TRUE(Contains(bad.stderr_text, "scrape.prom:4:")) << stamp << bad.stderr_text;
    EXPECT_TRUE(Contains(bad.stderr_text, "sample skipped")) << stamp << bad.stderr_text;
  }
}

// With no price flag the built-in catalog prices what it knows: the report says which source
// priced how many GPU-hours (all of the capacity, held and idle), never silently.
TEST(PriceSources, EveryReportSaysWhichPricesItsMoneyRestsOn) {
  TempDir tmp;
  const std::string file = (tmp.path() / "c.om").string();
  const RunResult sim = RunShell(kBinary + " simulate --nodes 4 --duration 2h --seed 9 " +
                                 "--spot-fraction 0.5 --out " + file + " 2>&1");
  ASSERT_EQ(sim.exit_code, 0) << sim.output;
  const JsonRun catalog = ReportJson(tmp, "--input " + file + " --accumulate");
  const auto& sources = catalog.doc["price_sources"];
  ASSERT_TRUE(sources.contains("catalog")) << sources.dump();
  ASSERT_TRUE(sources.contains("spot")) << sources.dump();
  double hours = 0;
  for (const auto& [source, h] : sources.items()) hours += h.get<double>();
  EXPECT_NEAR(hours, Total(catalog, "gpu_hours"), 1e-9);
  const RunResult table = RunShell(kBinary + " report --input " + file + " --accumulate 2>/dev/null");
  EXPECT_TRUE(Contains(table.output, "prices: catalog ")) << table.output;
  // One flat rate: the default source, all of it.
  const JsonRun flat = ReportJson(tmp, "--input " + file + " --accumulate --price-per-gpu-hour 2");
  ASSERT_EQ(flat.doc["price_sources"].size(), 1u) << flat.doc["price_sources"].dump();
  EXPECT_NEAR(flat.doc["price_sources"]["default"].get<double>(), Total(flat, "gpu_hours"), 1e-9);
  // Nothing priced: said as unknown.
  const JsonRun none = ReportJson(tmp, "--input " + kWholeGpu + " --accumulate");
  EXPECT_NEAR(none.doc["price_sources"]["unknown"].get<double>(), Total(none, "gpu_hours"), 1e-9);
}

}  // namespace
}  // namespace gpucost
