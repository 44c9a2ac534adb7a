// WorkSeriesCollector: which samples it keeps, how a series finds its pod and namespace
// (exported_* after relabelling, or the labels given), ordering and duplicates, and the
// warnings for samples it cannot use, with file:line and the series.
#include "workcost/work_series.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "ingest/exposition.h"

namespace gpucost::workcost {
namespace {

std::vector<WorkSeries> Collect(WorkSeriesCollector& c, const std::string& text,
                                const std::string& name = "work.prom") {
  c.BeginSource(name);
  auto source = StringByteSource(text, name);
  ParseOptions po;
  po.source_name = name;
  EXPECT_TRUE(ParseExposition(*source, po, c).ok());
  return c.Finish();
}

WorkSeriesOptions Options(std::string metric = "vllm:request_success_total") {
  WorkSeriesOptions o;
  o.metric = std::move(metric);
  o.default_cluster = "prod";
  return o;
}

TEST(WorkSeries, KeepsOnlyTheWorkMetricPerSeriesInTimeOrder) {
  WorkSeriesCollector c(Options());
  const std::string a = "vllm:request_success_total{namespace=\"ml\",pod=\"a\",";
  const auto series = Collect(c, a + "finished_reason=\"stop\"} 7 1790812802000\n" + a +
                                     "finished_reason=\"stop\"} 5 1790812801000\n" + a +
                                     "finished_reason=\"length\"} 1 1790812801000\n" + a +
                                     "finished_reason=\"stop\"} 6 1790812801000\n"
                                     "vllm:generation_tokens_total{namespace=\"ml\",pod=\"a\"} "
                                     "900 1790812801000\n"
                                     "vllm:request_success_total{cluster=\"eu\",namespace=\"ml\","
                                     "pod=\"b\"} 3 1790812801000\n");
  ASSERT_EQ(series.size(), 3u);
  EXPECT_EQ(c.samples(), 5u);
  // Sorted; the repeated timestamp keeps the value read first, as the cost series and
  // Prometheus keep it.
  EXPECT_EQ(series[0].samples,
            (std::vector<CounterSample>{{1790812801000, 5}, {1790812802000, 7}}));
  EXPECT_EQ(series[0].pod, "a");
  EXPECT_EQ(series[0].namespace_name, "ml");
  EXPECT_EQ(series[0].cluster, "prod");
  EXPECT_EQ(series[0].first_seen, "work.prom:1");
  EXPECT_EQ(series[1].labels.Get("finished_reason"), "length");
  EXPECT_EQ(series[2].cluster, "eu");
  EXPECT_TRUE(c.warnings().empty());
}

TEST(WorkSeries, ExportedLabelsWinUnlessLabelsAreGiven) {
  const std::string text =
      "steps_total{namespace=\"monitoring\",pod=\"prometheus-0\",exported_namespace=\"ml\","
      "exported_pod=\"trainer-0\",job_pod=\"trainer-x\",job_ns=\"research\"} 1 1790812801000\n";
  WorkSeriesCollector automatic(Options("steps_total"));
  auto s = Collect(automatic, text);
  ASSERT_EQ(s.size(), 1u);
  EXPECT_EQ(s[0].namespace_name, "ml");
  EXPECT_EQ(s[0].pod, "trainer-0");

  WorkSeriesOptions o = Options("steps_total");
  o.pod_label = "job_pod";
  o.namespace_label = "job_ns";
  WorkSeriesCollector given(o);
  s = Collect(given, text);
  ASSERT_EQ(s.size(), 1u);
  EXPECT_EQ(s[0].namespace_name, "research");
  EXPECT_EQ(s[0].pod, "trainer-x");
}

TEST(WorkSeries, SkipsUnusableSamplesWithTheirPlace) {
  WorkSeriesCollector c(Options("steps_total"));
  const auto series = Collect(c,
                              "steps_total{pod=\"a\",namespace=\"ml\"} 1 1790812801000\n"
                              "steps_total{pod=\"a\",namespace=\"ml\"} NaN 1790812802000\n"
                              "steps_total{pod=\"a\",namespace=\"ml\"} -4 1790812803000\n"
                              "steps_total{pod=\"a\",namespace=\"ml\"} -5 1790812804000\n"
                              "steps_total{pod=\"a\",namespace=\"ml\"} 9\n"
                              "steps_total{pod=\"a\",namespace=\"ml\"} 10 1790812805000\n",
                              "train.prom");
  ASSERT_EQ(series.size(), 1u);
  EXPECT_EQ(series[0].samples,
            (std::vector<CounterSample>{{1790812801000, 1}, {1790812805000, 10}}));
  const std::vector<std::string> w = c.warnings();
  ASSERT_EQ(w.size(), 3u);
  EXPECT_EQ(w[0], "train.prom:5: steps_total{pod=\"a\",namespace=\"ml\"}: no timestamp: skipped");
  EXPECT_EQ(w[1],
            "train.prom:2: steps_total{pod=\"a\",namespace=\"ml\"}: value is NaN or infinite: "
            "skipped");
  EXPECT_EQ(w[2],
            "train.prom:3: steps_total{pod=\"a\",namespace=\"ml\"}: negative value (not a "
            "counter): skipped (2 such samples)");
}

// One glitched sample of 1e308 made every cost per unit $0.0000: a rise past 2^53 in one step is
// skipped, said, and the next sample rises from the one before the glitch. A counter that is large
// but counts on is kept.
TEST(WorkSeries, ARisePastWhatACounterCountsIsAGlitch) {
  WorkSeriesCollector c(Options("steps_total"));
  const auto series = Collect(c,
                              "steps_total{pod=\"a\",namespace=\"ml\"} 100 1790812801000\n"
                              "steps_total{pod=\"a\",namespace=\"ml\"} 1e308 1790812802000\n"
                              "steps_total{pod=\"a\",namespace=\"ml\"} 130 1790812803000\n"
                              "steps_total{pod=\"b\",namespace=\"ml\"} 9e15 1790812801000\n"
                              "steps_total{pod=\"b\",namespace=\"ml\"} 9.1e15 1790812802000\n",
                              "train.prom");
  const std::vector<std::string> w = c.warnings();
  ASSERT_EQ(w.size(), 1u);
  EXPECT_EQ(w[0],
            "train.prom:1: steps_total{namespace=\"ml\",pod=\"a\"}: a rise of 1e+308 at "
            "2026-10-01T00:00:02Z, more than a counter counts in one step (2^53): skipped");
  ASSERT_EQ(series.size(), 2u);
  EXPECT_EQ(series[0].samples,
            (std::vector<CounterSample>{{1790812801000, 100}, {1790812803000, 130}}));
  EXPECT_EQ(series[1].samples.size(), 2u);
}

TEST(WorkSeries, OpenMetricsCreatedSamplesAreNotWork) {
  WorkSeriesCollector c(Options("jobs_total"));
  const auto series = Collect(c,
                              "# TYPE jobs counter\n"
                              "jobs_total{pod=\"a\",namespace=\"ml\"} 4 1790812800\n"
                              "jobs_created{pod=\"a\",namespace=\"ml\"} 1790812000 1790812800\n"
                              "# EOF\n");
  ASSERT_EQ(series.size(), 1u);
  EXPECT_EQ(series[0].samples, (std::vector<CounterSample>{{1790812800000, 4}}));
}

}  // namespace
}  // namespace gpucost::workcost
