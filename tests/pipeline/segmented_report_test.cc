// RunSegmentedReport: a simulated cluster (churning pods; whole, MIG, time-sliced, MPS and HAMi
// GPUs, so that requests draw from pools) attributed in segments gives, row for row, the report
// of one attribution of the whole window, whatever the segments' length and alignment.
#include "pipeline/segmented_report.h"

#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <span>
#include <string>
#include <tuple>
#include <vector>

#include "common/sanitizer.h"
#include "core/strings.h"
#include "simulate/cluster_simulator.h"

namespace gpucost {
namespace {

constexpr int64_t kOriginMs = 1790812800000;  // 2026-10-01T00:00:00Z
constexpr int64_t kHourMs = 3'600'000;

Instant Hours(double h) { return InstantFromUnixMs(kOriginMs + static_cast<int64_t>(h * kHourMs)); }

// Hands on the samples a store would return for [from, to).
class RangeFilter final : public ExpositionHandler {
 public:
  RangeFilter(ExpositionHandler& out, Window range) : out_(out), range_(range) {}
  void OnSample(const SampleView& s) override {
    const Instant t = InstantFromUnixMs(s.timestamp_ms);
    if (t >= range_.start && t < range_.end) out_.OnSample(s);
  }
  void OnMetadata(const MetadataView& m) override { out_.OnMetadata(m); }

 private:
  ExpositionHandler& out_;
  Window range_;
};

// Six nodes of the default mix with seed 3: pods that drew units from a pool run across the
// boundaries below, so that without the draws carried over the rows differ.
simulate::SimOptions Cluster() {
  simulate::SimOptions o;
  o.nodes = 6;
  o.seed = 3;
  return o;
}

constexpr Duration kStaleness = std::chrono::minutes(5);

// The simulated cluster's timeline of `w` (samples from w.start - staleness to w.end), as
// LoadInput reads it from a store. The simulator starts at the origin whatever `w`.
Result<LoadedTimeline> Load(Window w) {
  GPUCOST_ASSIGN_OR_RETURN(auto sim, simulate::ClusterSimulator::Create(Cluster(), Hours(0)));
  TimelineOptions topts;
  topts.window = w;
  topts.staleness = kStaleness;
  InventoryBuilder builder(topts);
  builder.BeginSource("simulator");
  RangeFilter filter(builder, {w.start - kStaleness, w.end});
  if (w.end > Hours(0)) simulate::SimulateWindow(*sim, {Hours(0), w.end}, filter);
  return builder.Build();
}

PriceFn Price() {
  return [](const Node& n, Window w) {
    // Spot nodes at a lower rate, so that rows mix prices.
    const double usd = n.capacity_type == "spot" ? 1.1 : 2.5;
    return std::vector<PricePeriod>{{{w.start, w.end}, usd, PriceSource::kCatalog, w.start, "t"}};
  };
}

ReportSettings Settings(Window w, const char* by, bool accumulate) {
  ReportSettings s;
  s.window = w;
  s.step = std::chrono::seconds(60);
  s.staleness = kStaleness;
  s.accumulate = accumulate;
  s.by = *ParseDimensions(by);
  return s;
}

Result<SegmentedRun> Segmented(const SegmentLoader& load, const ReportSettings& settings,
                               SegmentSizing sizing) {
  InventoryUnion units;
  return RunSegmentedReport(load, Price(), settings, units, {sizing});
}

using RowKey = std::tuple<int64_t, bool, std::vector<std::string>>;

void ExpectSameRows(const Report& got, const Report& want) {
  std::map<RowKey, const ReportRow*> rows;
  for (const ReportRow& r : want.rows) rows[{r.bucket, r.is_idle, r.values}] = &r;
  ASSERT_EQ(got.rows.size(), want.rows.size());
  const auto near = [](double a, double b) {
    return (std::isnan(a) && std::isnan(b)) ||
           std::fabs(a - b) <= 1e-9 * std::max(1.0, std::fabs(b));
  };
  int shown = 0;
  for (const ReportRow& r : got.rows) {
    auto it = rows.find({r.bucket, r.is_idle, r.values});
    ASSERT_NE(it, rows.end()) << "row " << r.bucket << " " << Join(r.values, "/");
    const ReportRow& w = *it->second;
    const bool same = near(r.gpu_hours, w.gpu_hours) && near(r.allocated_usd, w.allocated_usd) &&
                      near(r.effective_usd, w.effective_usd) && near(r.idle_usd, w.idle_usd) &&
                      near(r.activity_gpu_hours, w.activity_gpu_hours) &&
                      near(r.unmeasured_gpu_hours, w.unmeasured_gpu_hours) &&
                      r.estimated == w.estimated && r.oversubscribed == w.oversubscribed;
    EXPECT_TRUE(same || shown > 5)
        << "row " << r.bucket << " " << Join(r.values, "/") << ": allocated " << r.allocated_usd
        << " vs " << w.allocated_usd << ", effective " << r.effective_usd << " vs "
        << w.effective_usd;
    shown += same ? 0 : 1;
  }
  EXPECT_EQ(shown, 0) << "rows that differ";
  EXPECT_TRUE(near(got.totals.cost_usd, want.totals.cost_usd));
  EXPECT_TRUE(near(got.totals.effective_usd, want.totals.effective_usd));
}

TEST(SegmentedReport, SegmentsGrowAndShrinkTowardTheirSamplesInWholeSteps) {
  const Duration step = std::chrono::minutes(7);
  const Duration hours3 = std::chrono::hours(3);
  const SegmentSizing fixed{hours3, 0};
  // Fixed: the length, in whole steps (3 h is 25.7 steps of 7 minutes).
  EXPECT_EQ(NextSegmentLength(hours3, 123, fixed, step), 25 * step);
  const SegmentSizing sized{hours3, 1000};
  EXPECT_EQ(NextSegmentLength(hours3, 1000, sized, step), 25 * step);
  EXPECT_EQ(NextSegmentLength(hours3, 4000, sized, step), 6 * step);   // a quarter of 180 min
  EXPECT_EQ(NextSegmentLength(hours3, 250, sized, step), 102 * step);  // 4 x 180 min
  EXPECT_EQ(NextSegmentLength(hours3, 10, sized, step), 205 * step);   // at most 8 x
  EXPECT_EQ(NextSegmentLength(hours3, 0, sized, step), 205 * step);    // an empty one too
  EXPECT_EQ(NextSegmentLength(hours3, 1'000'000, sized, step), step);  // at least one step
  EXPECT_EQ(NextSegmentLength(std::chrono::hours(1), 0, {std::chrono::hours(1), 1},
                              std::chrono::minutes(1)),
            std::chrono::minutes(480));
}

TEST(SegmentedReport, EqualsOneAttributionOfTheWholeWindow) {
  const Window window{Hours(0), Hours(14)};
  Result<LoadedTimeline> whole_timeline = Load(window);
  ASSERT_TRUE(whole_timeline.ok()) << whole_timeline.status().ToString();
  for (const auto& [by, accumulate] : {std::pair{"namespace,pod,container", true},
                                       std::pair{"team,gpu_model,capacity_type", false}}) {
    SCOPED_TRACE(by);
    const ReportSettings settings = Settings(window, by, accumulate);
    Result<ReportRun> whole = RunReport(*whole_timeline, Price(), settings);
    ASSERT_TRUE(whole.ok()) << whole.status().ToString();
    ASSERT_GT(whole->report.rows.size(), 20u);
    // Fixed lengths, one that divides no hour, the window at once, and segments sized by their
    // samples (about 100,000 a segment: an hour of this cluster holds ~35,000).
    // Under ASan (several times slower, and checking memory) one fixed and one sized.
    std::vector<SegmentSizing> sizings = {SegmentSizing{std::chrono::minutes(197), 0},
                                          SegmentSizing{std::chrono::hours(1), 100'000}};
    if (!testing_util::kUnderAsan) {
      sizings.insert(sizings.end(), {SegmentSizing{std::chrono::hours(2), 0},
                                     SegmentSizing{Duration(0), 0}});
    }
    for (const SegmentSizing& sizing : sizings) {
      SCOPED_TRACE(StrCat(FormatDuration(sizing.first), " ", sizing.target_samples));
      std::vector<Window> asked;
      const SegmentLoader load = [&asked](Window w) {
        asked.push_back(w);
        return Load(w);
      };
      Result<SegmentedRun> run = Segmented(load, settings, sizing);
      ASSERT_TRUE(run.ok()) << run.status().ToString();
      EXPECT_EQ(run->segments, asked.size());
      if (sizing.first == Duration(0)) {
        EXPECT_EQ(asked, std::vector<Window>{window});
      } else {
        EXPECT_GE(asked.size(), 4u);
        // Each segment is read with the staleness after it, but never past the window; each
        // starts where the one before ended.
        EXPECT_EQ(asked[0], (Window{Hours(0), Hours(0) + sizing.first + kStaleness}));
        for (size_t i = 1; i < asked.size(); ++i) {
          EXPECT_EQ(asked[i].start, asked[i - 1].end - kStaleness);
          EXPECT_EQ((asked[i].start - window.start) % settings.step, Duration(0));
        }
        EXPECT_EQ(asked.back().end, window.end);
      }
      if (sizing.target_samples > 0) {  // the first hour held fewer: the next one is longer
        ASSERT_GE(asked.size(), 2u);
        EXPECT_GT(asked[1].length(), asked[0].length());
      }
      ExpectSameRows(run->run.report, whole->report);
      EXPECT_NEAR(run->run.summary.node_cost_usd, whole->summary.node_cost_usd, 1e-9);
      EXPECT_EQ(run->run.summary.steps, whole->summary.steps);
      EXPECT_EQ(run->run.summary.records, whole->summary.records);
      EXPECT_TRUE(run->run.summary.open_draws.empty());
    }
  }
}

TEST(SegmentedReport, SegmentsBeforeTheClusterExistedAreEmptyNotErrors) {
  const Window window{Hours(-5), Hours(3)};
  Result<LoadedTimeline> whole_timeline = Load(window);
  ASSERT_TRUE(whole_timeline.ok());
  const ReportSettings settings = Settings(window, "namespace", true);
  Result<ReportRun> whole = RunReport(*whole_timeline, Price(), settings);
  ASSERT_TRUE(whole.ok()) << whole.status().ToString();
  Result<SegmentedRun> run = Segmented(Load, settings, SegmentSizing{std::chrono::hours(2), 0});
  ASSERT_TRUE(run.ok()) << run.status().ToString();
  EXPECT_EQ(run->segments, 4u);
  ExpectSameRows(run->run.report, whole->report);
  // The empty segments' "no data" is not the input's: the input has data.
  for (const InputWarning& w : run->warnings) EXPECT_NE(w.message, kNoClusterData);

  Result<SegmentedRun> none = Segmented(Load, Settings({Hours(-9), Hours(-1)}, "namespace", true),
                                        SegmentSizing{std::chrono::hours(2), 0});
  ASSERT_FALSE(none.ok());
  EXPECT_NE(none.status().message().find("no samples"), std::string::npos);
}

// The caller's sink gets every record the report got, in the union's indexes and the window's
// steps.
TEST(SegmentedReport, TheCallersSinkGetsEveryRecordRenumbered) {
  class Check final : public CostSink {
   public:
    explicit Check(const InventoryUnion& units) : units_(units) {}
    void Consume(std::span<const CostRecord> records) override {
      for (const CostRecord& r : records) {
        ++records_;
        if (r.price_known) money_ += r.allocated_usd;
        bad_ += r.unit >= units_.inventory().units.size() ||
                (!r.is_idle() && r.holder >= units_.inventory().holders.size()) || r.step < 0 ||
                r.step >= 6 * 60;
      }
    }
    const InventoryUnion& units_;
    int64_t records_ = 0;
    int64_t bad_ = 0;
    double money_ = 0;
  };
  const ReportSettings settings = Settings({Hours(0), Hours(6)}, "namespace", true);
  InventoryUnion units;
  Check check(units);
  Result<SegmentedRun> run = RunSegmentedReport(
      Load, Price(), settings, units, {SegmentSizing{std::chrono::minutes(70), 0}, &check});
  ASSERT_TRUE(run.ok()) << run.status().ToString();
  EXPECT_EQ(run->segments, 6u);
  EXPECT_EQ(check.records_, run->run.summary.records);
  EXPECT_GT(check.records_, 1000);
  EXPECT_EQ(check.bad_, 0);
  EXPECT_NEAR(check.money_, run->run.report.totals.cost_usd, 1e-9 * check.money_);
}

TEST(SegmentedReport, ALoaderErrorStopsTheReport) {
  int calls = 0;
  const SegmentLoader load = [&calls](Window w) -> Result<LoadedTimeline> {
    if (++calls == 2) return Status::Unavailable("prometheus: 503 for the second segment");
    return Load(w);
  };
  Result<SegmentedRun> run = Segmented(load, Settings({Hours(0), Hours(6)}, "namespace", true),
                                       SegmentSizing{std::chrono::hours(2), 0});
  ASSERT_FALSE(run.ok());
  EXPECT_EQ(run.status().code(), StatusCode::kUnavailable);
  EXPECT_EQ(calls, 2);
}

}  // namespace
}  // namespace gpucost
