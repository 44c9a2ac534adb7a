// End to end: the simulator serves a kube-state-metrics and a dcgm-exporter over HTTP, the
// Scraper scrapes both every minute for half an hour into the spool, and LoadInput over the
// spool gives the same inventory and usage as the simulator's own timestamped output.
#include <gtest/gtest.h>

#include <thread>

#include "cli/cli_test_util.h"
#include "inventory/timeline_loader.h"
#include "pipeline/input.h"
#include "scrape/scraper.h"
#include "simulate/cluster_simulator.h"
#include "simulate/exposition_writer.h"
#include "simulate/metrics_server.h"

namespace gpucost::scrape {
namespace {

using std::chrono::minutes;
using std::chrono::seconds;

constexpr int64_t kSimStartMs = 1790812800000;  // 2026-10-01T00:00:00Z

simulate::SimOptions Options() {
  simulate::SimOptions o;
  o.nodes = 3;
  o.sharing = {{"whole", 1}, {"mig", 1}, {"time-slicing", 1}};
  return o;
}

TEST(ScrapeSimulator, SpoolOfLiveScrapesAttributesLikeTheSimulatorsFiles) {
  FakeClock clock(InstantFromUnixMs(kSimStartMs));
  auto sim = simulate::ClusterSimulator::Create(Options(), clock.Now());
  ASSERT_TRUE(sim.ok()) << sim.status().ToString();
  simulate::MetricsServer server(**sim, clock);
  Result<int> port = server.Bind("127.0.0.1", 0);
  ASSERT_TRUE(port.ok()) << port.status().ToString();
  std::thread runner([&] { EXPECT_TRUE(server.Run().ok()); });
  while (!server.running()) std::this_thread::yield();

  const std::string base = "http://127.0.0.1:" + std::to_string(*port);
  Result<std::vector<ScrapeTarget>> targets = ParseStaticTargets(
      {"ksm=" + base + "/metrics/kube-state-metrics", "dcgm=" + base + "/metrics/dcgm-exporter"});
  ASSERT_TRUE(targets.ok()) << targets.status().ToString();
  testing_util::TempDir dir;
  Spool spool(dir.path().string());
  ASSERT_TRUE(spool.Open().ok());
  ScraperOptions options;
  options.concurrency = 1;  // the simulator wants its scrapes in time order
  Scraper scraper(options, spool, clock);
  const Window window{clock.Now(), clock.Now() + minutes(30)};
  for (Instant t = window.start; t < window.end; t += seconds(60)) {
    clock.Set(t);
    for (const ScrapeOutcome& o : scraper.ScrapeAll(*targets)) {
      ASSERT_TRUE(o.status.ok()) << o.status.ToString();
      ASSERT_GT(o.samples, 0u);
    }
  }
  server.Stop();
  runner.join();

  InputOptions flags;
  Result<std::vector<std::string>> files = spool.Files(window, minutes(5));
  ASSERT_TRUE(files.ok());
  ASSERT_EQ(files->size(), 60u);  // a file per target and minute
  flags.inputs = *files;
  Result<LoadedInput> scraped = LoadInput(flags, window, seconds(60));
  ASSERT_TRUE(scraped.ok()) << scraped.status().ToString();
  const LoadedTimeline& got = scraped->timeline;
  EXPECT_EQ(got.parse_errors, 0u);
  EXPECT_FALSE(got.usage.devices.empty());
  EXPECT_FALSE(got.inventory.holdings.empty());

  // The same cluster written by the simulator itself (Prometheus text with timestamps).
  auto twin = simulate::ClusterSimulator::Create(Options(), window.start);
  ASSERT_TRUE(twin.ok());
  simulate::ExpositionWriter writer(simulate::TextFormat::kPromText);
  simulate::SimulateWindow(**twin, window, writer);
  TimelineOptions topts;
  topts.window = window;
  Result<LoadedTimeline> direct = LoadTimelineFromText(writer.text(), topts);
  ASSERT_TRUE(direct.ok()) << direct.status().ToString();
  EXPECT_EQ(got.samples, direct->samples);
  EXPECT_EQ(got.inventory.nodes.size(), direct->inventory.nodes.size());
  EXPECT_EQ(got.inventory.units.size(), direct->inventory.units.size());
  EXPECT_EQ(got.inventory.holders.size(), direct->inventory.holders.size());
  EXPECT_EQ(got.inventory.holdings.size(), direct->inventory.holdings.size());
  EXPECT_EQ(got.usage.devices.size(), direct->usage.devices.size());
  EXPECT_EQ(got.usage.holders.size(), direct->usage.holders.size());
  EXPECT_EQ(got.warnings.size(), direct->warnings.size());
}

}  // namespace
}  // namespace gpucost::scrape
