// The parser's table of series seen before: a line whose series text was parsed before must give
// exactly the sample a fresh parse gives, whatever its label values hold, and the samples of one
// series share one id.
#include "ingest/known_series.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "exposition_test_util.h"
#include "ingest/exposition.h"

namespace gpucost {
namespace {

using testing::Recorder;

Recorder Parse(const std::string& text, ExpositionFormat format = ExpositionFormat::kText) {
  Recorder r;
  ParseOptions o;
  o.format = format;
  o.remember_series = true;
  auto src = StringByteSource(text);
  const auto stats = ParseExposition(*src, o, r);
  EXPECT_TRUE(stats.ok()) << stats.status().ToString();
  return r;
}

// The lines three times over: the second time a series comes back with others in between it
// is remembered, the third time it is read through the table.
std::string Thrice(const std::vector<std::string>& lines) {
  std::string out;
  for (int pass = 0; pass < 3; ++pass) {
    for (const std::string& l : lines) out += l + "\n";
  }
  return out;
}

TEST(KnownSeries, ARepeatedLineGivesTheSameSampleUnderOneId) {
  const std::vector<std::string> lines = {
      R"(kube_pod_info{namespace="ml",pod="a",node="n1"} 1 1000)",
      R"(m{v="has } and a space"} 2 1000)",
      R"(m{v="escaped \"q\" } x",w="2"} 3 1000)",
      R"(m{v="ends in a backslash\\"} 4)",
      R"(m{v="new\nline"}   5    1000)",
      R"(plain 6 1000)",
      R"({"dotted.name",a="b"} 7 1000)",
      R"(m{v="x"} NaN)",
  };
  const Recorder r = Parse(Thrice(lines));
  ASSERT_TRUE(r.errors.empty()) << r.errors[0].message;
  const size_t n = lines.size();
  ASSERT_EQ(r.samples.size(), 3 * n);
  std::vector<uint64_t> ids;
  for (size_t i = 0; i < n; ++i) {
    const testing::RecordedSample& first = r.samples[i];
    testing::RecordedSample second = r.samples[n + i], third = r.samples[2 * n + i];
    EXPECT_EQ(first.series, 0u) << lines[i];  // seen once: not remembered
    EXPECT_NE(second.series, 0u) << lines[i];
    EXPECT_EQ(second.series, third.series) << lines[i];
    second.line = third.line = first.line;
    EXPECT_EQ(first, second) << lines[i];
    EXPECT_EQ(first, third) << lines[i];
    ids.push_back(third.series);
  }
  EXPECT_EQ(r.samples[1].Label("v"), "has } and a space");
  EXPECT_EQ(r.samples[2 * n + 2].Label("v"), "escaped \"q\" } x");
  EXPECT_EQ(r.samples[2 * n + 3].Label("v"), "ends in a backslash\\");
  EXPECT_EQ(r.samples[2 * n + 6].name, "dotted.name");
  std::sort(ids.begin(), ids.end());
  EXPECT_EQ(std::unique(ids.begin(), ids.end()), ids.end()) << "one id per series";
}

TEST(KnownSeries, ASeriesWhoseSamplesAreTogetherIsNotRemembered) {
  const Recorder r = Parse(
      "m{a=\"b\"} 1 1000\nm{a=\"b\"} 2 2000\nm{a=\"b\"} 3 3000\n"
      "m{a=\"c\"} 1 1000\nm{a=\"c\"} 2 2000\n"
      "m{a=\"b\"} 4 4000\nm{a=\"b\"} 5 5000\n");
  ASSERT_EQ(r.samples.size(), 7u);
  for (int i = 0; i < 5; ++i) EXPECT_EQ(r.samples[i].series, 0u) << i;
  EXPECT_NE(r.samples[5].series, 0u);  // back after another series: remembered
  EXPECT_EQ(r.samples[6].series, r.samples[5].series);
}

TEST(KnownSeries, TextThatOnlyLooksLikeAKnownSeriesIsParsedAfresh) {
  const Recorder r = Parse(
      "plain 1 1000\n"
      "plain {a=\"b\"} 2 1000\n"  // a label set after a space: not the series `plain`
      "m{a=\"b\"} 3 1000\n"
      "m{a=\"b\"} x 1000\n"          // a known series with a bad value: an error
      "m{a=\"b\"} 4 1000 # 5 6\n"    // text after the timestamp: an error
      "m{a=\"b\",a=\"c\"} 5 1000\n"  // a duplicate label: an error each time
      "m{a=\"b\",a=\"c\"} 5 1000\n"
      "m{a=\"b\"} 6 1000\n");
  ASSERT_EQ(r.samples.size(), 4u);
  EXPECT_EQ(r.samples[1].name, "plain");
  EXPECT_EQ(r.samples[1].Label("a"), "b");
  EXPECT_EQ(r.samples[1].value, 2);
  EXPECT_EQ(r.samples[3].value, 6);
  ASSERT_EQ(r.errors.size(), 4u);
  EXPECT_EQ(r.errors[0].line, 4u);
  EXPECT_NE(r.errors[0].message.find("invalid value \"x\" for metric \"m\""), std::string::npos)
      << r.errors[0].message;
  EXPECT_EQ(r.errors[1].line, 5u);
  EXPECT_EQ(r.errors[2].line, 6u);
  EXPECT_EQ(r.errors[3].line, 7u);
  EXPECT_EQ(r.errors[2].message, r.errors[3].message);
}

TEST(KnownSeries, OpenMetricsLinesWithExemplarsAndCreatedSamples) {
  const std::string text =
      "# TYPE c counter\n"
      "c_total{a=\"b\"} 1 10.5 # {trace_id=\"t\"} 0.5 10.0\n"
      "c_total{a=\"b\"} 2 11.5 # {trace_id=\"t\"} 0.5 11.0\n"
      "c_created{a=\"b\"} 9 10.5\n"
      "c_created{a=\"b\"} 9 11.5\n"
      "# EOF\n";
  const Recorder r = Parse(text, ExpositionFormat::kOpenMetrics);
  ASSERT_TRUE(r.errors.empty()) << r.errors[0].message;
  ASSERT_EQ(r.samples.size(), 4u);
  EXPECT_EQ(r.samples[1].timestamp_ms, 11500);
  EXPECT_EQ(r.samples[0].series, r.samples[1].series);
  EXPECT_FALSE(r.samples[1].is_created);
  EXPECT_TRUE(r.samples[2].is_created);
  EXPECT_TRUE(r.samples[3].is_created);
}

TEST(KnownSeries, SeriesInAnotherOrderThanBeforeAreStillTheirOwn) {
  // The table guesses that a series follows the one it followed before; scrapes that change
  // their order (or a series that stops, or a prefix of another's text) must not fool it.
  const std::string a = "m{p=\"a\"}", b = "m{p=\"a\",q=\"b\"}", c = "m{p=\"c\"}";
  std::string text;
  int t = 0;
  for (const auto& order : std::vector<std::vector<std::string>>{
           {a, b, c}, {a, b, c}, {a, c, b}, {b, a, c}, {a, c}, {a, b, c}, {c, b, a}}) {
    for (const std::string& series : order) {
      ++t;
      text += series + " " + std::to_string(t) + " " + std::to_string(t * 1000) + "\n";
    }
  }
  const Recorder with = Parse(text);
  Recorder without;
  ParseOptions plain;
  plain.format = ExpositionFormat::kText;
  auto src = StringByteSource(text);
  ASSERT_TRUE(ParseExposition(*src, plain, without).ok());
  ASSERT_EQ(with.samples.size(), without.samples.size());
  for (size_t i = 0; i < with.samples.size(); ++i) {
    EXPECT_EQ(with.samples[i], without.samples[i]) << i;
  }
  EXPECT_NE(with.samples.back().series, 0u);
}

TEST(KnownSeries, OnlyWhenAskedFor) {
  Recorder r;
  auto src = StringByteSource("m{a=\"b\"} 1 1000\nm{a=\"b\"} 2 2000\n");
  ASSERT_TRUE(ParseExposition(*src, ParseOptions{}, r).ok());
  ASSERT_EQ(r.samples.size(), 2u);
  EXPECT_EQ(r.samples[0].series, 0u);
  EXPECT_EQ(r.samples[1].series, 0u);
  EXPECT_EQ(r.samples[1].Label("a"), "b");
}

TEST(KnownSeries, StopsGrowingAtItsBound) {
  exposition_internal::KnownSeries table(4096);
  std::vector<std::string> texts;
  std::vector<std::string> values;
  int added = 0;
  for (int i = 0; i < 1000; ++i) {
    texts.push_back("m{i=\"" + std::to_string(i) + "\"}");
    values.push_back(std::to_string(i));
    const std::vector<LabelView> labels = {LabelView{"i", values.back()}};
    if (table.Add(texts.back(), Hash64(texts.back()), "m", labels) == nullptr) break;
    ++added;
  }
  EXPECT_GT(added, 5);
  EXPECT_LT(added, 1000);
  for (int i = 0; i < added; ++i) {
    const auto* e = table.Find(texts[i]);
    ASSERT_NE(e, nullptr) << i;
    EXPECT_EQ(e->name, "m");
    ASSERT_EQ(e->labels.size(), 1u);
    EXPECT_EQ(e->labels[0].value, std::to_string(i));
  }
  EXPECT_EQ(table.Find(texts[added]), nullptr);
}

}  // namespace
}  // namespace gpucost
