// serve reads the scrape spool's last minutes every cycle, replaying the files it parsed before
// from a ParsedFileCache (src/ingest/parsed_file_cache.h): cycle after cycle, the money of every
// row must be the money of the same files parsed afresh, and the files must really be replayed.
#include <gtest/gtest.h>

#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "cli/cli_test_util.h"
#include "ingest/parsed_file_cache.h"
#include "pipeline/input.h"
#include "pipeline/report_pipeline.h"
#include "scrape/scrape_text.h"
#include "simulate/cluster_simulator.h"

namespace gpucost {
namespace {

using testing_util::TempDir;

constexpr int64_t kReplayOriginMs = 1790812800000;  // 2026-10-01T00:00:00Z
constexpr Duration kReplayMinute = std::chrono::minutes(1);

Instant ReplayMinute(int m) { return InstantFromUnixMs(kReplayOriginMs) + m * kReplayMinute; }

// A spool of `minutes` files, one a minute, each holding two scrapes 30 s apart of a simulated
// cluster whose pods come and go (whole, MIG, time-sliced, MPS and HAMi GPUs).
std::vector<std::string> WriteReplaySpool(const TempDir& dir, int minutes) {
  simulate::SimOptions o;
  o.nodes = 5;
  o.seed = 7;
  o.scrape_interval = std::chrono::seconds(30);
  auto sim = simulate::ClusterSimulator::Create(o, ReplayMinute(0));
  EXPECT_TRUE(sim.ok()) << sim.status().ToString();
  std::vector<std::string> files;
  for (int m = 0; m < minutes; ++m) {
    std::string text;
    for (int k = 0; k < 2; ++k) {
      const Instant t = ReplayMinute(m) + k * std::chrono::seconds(30);
      scrape::ScrapeText scrape(UnixMs(t), {{"job", "sim"}});
      (*sim)->Scrape(t, scrape);
      text += scrape.text();
    }
    files.push_back(dir.Write("spool/" + std::to_string(100 + m) + ".prom", text));
  }
  return files;
}

PriceFn ReplayPrice() {
  return [](const Node& n, Window w) {
    const double usd = n.capacity_type == "spot" ? 1.1 : 2.5;
    return std::vector<PricePeriod>{{{w.start, w.end}, usd, PriceSource::kCatalog, w.start, "t"}};
  };
}

using ReplayRow = std::tuple<double, double, double, double, double>;

// The rows of an accumulated report by pod of `w` over `files`.
std::map<std::vector<std::string>, ReplayRow> ReplayRows(const std::vector<std::string>& files,
                                                         Window w, ParsedFileCache* cache) {
  InputOptions flags;
  flags.inputs = files;
  flags.staleness = "3m";
  Result<LoadedInput> input = LoadInput(flags, w, kReplayMinute, nullptr, cache);
  EXPECT_TRUE(input.ok()) << input.status().ToString();
  if (!input.ok()) return {};
  ReportSettings settings;
  settings.step = kReplayMinute;
  settings.accumulate = true;
  settings.by = *ParseDimensions("cluster,namespace,pod");
  ApplyInput(*input, settings);
  Result<ReportRun> run = RunReport(input->timeline, ReplayPrice(), settings);
  EXPECT_TRUE(run.ok()) << run.status().ToString();
  std::map<std::vector<std::string>, ReplayRow> rows;
  if (!run.ok()) return rows;
  for (const ReportRow& r : run->report.rows) {
    std::vector<std::string> key = r.values;
    key.push_back(r.is_idle ? "idle" : "");
    rows[key] = {r.gpu_hours, r.allocated_usd, r.effective_usd, r.activity_gpu_hours,
                 r.unmeasured_gpu_hours};
  }
  return rows;
}

TEST(SpoolReplay, CyclesOverReplayedFilesGiveTheMoneyOfFreshParses) {
  TempDir dir;
  constexpr int kMinutes = 14;
  const std::vector<std::string> files = WriteReplaySpool(dir, kMinutes);
  ParsedFileCache cache;
  int windows = 0;
  // Each cycle attributes two minutes (one new, one again: a grace of a minute) and reads 3
  // minutes (the staleness) before them, as serve does: every file is read by five cycles, the
  // last two of which attribute its samples.
  for (int i = 4; i < kMinutes; ++i) {
    const Window w{ReplayMinute(i - 1), ReplayMinute(i + 1)};
    const std::vector<std::string> reads(files.begin() + (i - 4), files.begin() + (i + 1));
    const auto replayed = ReplayRows(reads, w, &cache);
    cache.Retain(std::vector<std::string>(files.begin() + (i - 3), files.begin() + (i + 1)));
    const auto parsed = ReplayRows(reads, w, nullptr);
    ASSERT_FALSE(parsed.empty());
    ASSERT_EQ(replayed.size(), parsed.size()) << "minute " << i;
    for (const auto& [key, row] : parsed) {
      const auto it = replayed.find(key);
      ASSERT_NE(it, replayed.end()) << "minute " << i << ": " << key.back();
      // The same samples in the same order: the same arithmetic, to the bit (unknown is NaN).
      const auto same = [](double a, double b) { return a == b || (a != a && b != b); };
      const auto& [h, a, e, act, u] = row;
      const auto& [h2, a2, e2, act2, u2] = it->second;
      EXPECT_TRUE(same(h, h2) && same(a, a2) && same(e, e2) && same(act, act2) && same(u, u2))
          << "minute " << i << ": " << h2 << " " << a2 << " " << e2 << " vs " << h << " " << a
          << " " << e;
    }
    ++windows;
  }
  // The first cycle parsed its five files; every later one parsed one and replayed four.
  EXPECT_EQ(cache.stats().misses, 5u + (windows - 1));
  EXPECT_EQ(cache.stats().hits, 4u * (windows - 1));
  EXPECT_EQ(cache.stats().files, 4u);
  EXPECT_GT(cache.stats().series, 0u);
}

}  // namespace
}  // namespace gpucost
