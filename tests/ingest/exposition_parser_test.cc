#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "core/labels.h"
#include "ingest/exposition.h"
#include "ingest/exposition_test_util.h"

namespace gpucost {
namespace {

using testing::ChunkedSource;
using testing::ParseString;
using testing::Recorder;

TEST(ExpositionParser, SamplesLabelsAndMetadata) {
  const auto r = ParseString(
      "# HELP http_requests_total The total number of HTTP requests.\n"
      "# TYPE http_requests_total counter\n"
      "http_requests_total{method=\"post\",code=\"200\"} 1027 1395066363000\n"
      "http_requests_total{method=\"post\",code=\"400\"}    3 1395066363000\n"
      "\n"
      "# a plain comment\n"
      "metric_without_timestamp_and_labels 12.47\n");
  ASSERT_TRUE(r.stats.ok()) << r.stats.status().ToString();
  EXPECT_EQ(r.stats->lines, 7u);
  EXPECT_EQ(r.stats->samples, 3u);
  EXPECT_EQ(r.stats->errors, 0u);
  ASSERT_EQ(r.rec.samples.size(), 3u);
  const auto& s = r.rec.samples[0];
  EXPECT_EQ(s.name, "http_requests_total");
  ASSERT_EQ(s.labels.size(), 2u);
  EXPECT_EQ(s.labels[0], (std::pair<std::string, std::string>{"method", "post"}));
  EXPECT_EQ(s.labels[1], (std::pair<std::string, std::string>{"code", "200"}));
  EXPECT_EQ(s.value, 1027);
  EXPECT_TRUE(s.has_timestamp);
  EXPECT_EQ(s.timestamp_ms, 1395066363000);
  EXPECT_EQ(s.line, 3u);
  EXPECT_EQ(r.rec.samples[1].value, 3);
  EXPECT_EQ(r.rec.samples[2].value, 12.47);
  EXPECT_FALSE(r.rec.samples[2].has_timestamp);
  EXPECT_TRUE(r.rec.samples[2].labels.empty());
  EXPECT_EQ(r.rec.samples[2].line, 7u);
  ASSERT_EQ(r.rec.metadata.size(), 2u);
  EXPECT_EQ(r.rec.metadata[0].kind, MetadataKind::kHelp);
  EXPECT_EQ(r.rec.metadata[0].text, "The total number of HTTP requests.");
  EXPECT_EQ(r.rec.metadata[1].kind, MetadataKind::kType);
  EXPECT_EQ(r.rec.metadata[1].type, MetricType::kCounter);
  EXPECT_EQ(r.rec.metadata[1].line, 2u);
}

TEST(ExpositionParser, LabelValueEscapingRoundTrips) {
  const std::string tricky = "a\\b \"quoted\"\nnext line \\n literal";
  std::string line = "m{v=\"";
  AppendEscapedLabelValue(line, tricky);
  line += "\",plain=\"x\"} 1\n";
  const auto r = ParseString(line);
  ASSERT_EQ(r.rec.samples.size(), 1u);
  EXPECT_EQ(r.rec.samples[0].Label("v"), tricky);
  EXPECT_EQ(r.rec.samples[0].Label("plain"), "x");

  // And back: LabelSet::ToString of the parsed value parses to the same value again.
  const LabelSet set{{"v", r.rec.samples[0].Label("v")}};
  const auto again = ParseString("m" + set.ToString() + " 1\n");
  ASSERT_EQ(again.rec.samples.size(), 1u);
  EXPECT_EQ(again.rec.samples[0].Label("v"), tricky);
}

TEST(ExpositionParser, UnknownEscapesAreKeptAsWritten) {
  const auto r = ParseString("m{path=\"C:\\temp\"} 1\n");
  ASSERT_EQ(r.rec.samples.size(), 1u);
  EXPECT_EQ(r.rec.samples[0].Label("path"), "C:\\temp");
}

TEST(ExpositionParser, HelpEscaping) {
  const auto r = ParseString("# HELP m Line one\\nback\\\\slash \\\"q\\\"\nm 1\n");
  ASSERT_EQ(r.rec.metadata.size(), 1u);
  EXPECT_EQ(r.rec.metadata[0].text, "Line one\nback\\slash \"q\"");
}

TEST(ExpositionParser, SpecialValuesAsGoAcceptsThem) {
  const auto r = ParseString(
      "a NaN\nb +Inf\nc -Inf\nd Inf\ne inf\nf -infinity\ng nan\nh 1e+08\ni -0.5\nj 0x1p-2\n"
      "k 9223372036854775794\nl .5\nm 1.501569018e+09\n");
  ASSERT_EQ(r.stats->errors, 0u) << r.rec.errors[0].message;
  ASSERT_EQ(r.rec.samples.size(), 13u);
  EXPECT_TRUE(std::isnan(r.rec.samples[0].value));
  EXPECT_EQ(r.rec.samples[1].value, INFINITY);
  EXPECT_EQ(r.rec.samples[2].value, -INFINITY);
  EXPECT_EQ(r.rec.samples[3].value, INFINITY);
  EXPECT_EQ(r.rec.samples[4].value, INFINITY);
  EXPECT_EQ(r.rec.samples[5].value, -INFINITY);
  EXPECT_TRUE(std::isnan(r.rec.samples[6].value));
  EXPECT_EQ(r.rec.samples[7].value, 1e8);
  EXPECT_EQ(r.rec.samples[8].value, -0.5);
  EXPECT_EQ(r.rec.samples[9].value, 0.25);
  EXPECT_EQ(r.rec.samples[10].value, 9223372036854775794.0);
  EXPECT_EQ(r.rec.samples[11].value, 0.5);
  EXPECT_EQ(r.rec.samples[12].value, 1501569018.0);
}

TEST(ExpositionParser, FastDecimalPathMatchesFullParse) {
  // Values the fast path takes must equal what strtod gives.
  for (const char* v : {"0.000000", "0.1", "12.47", "-3.14159", "123456789012345", "0.3", "99.99",
                        "1234567.890123", "-0.000001"}) {
    const auto r = ParseString(std::string("m ") + v + "\n");
    ASSERT_EQ(r.rec.samples.size(), 1u) << v;
    EXPECT_EQ(r.rec.samples[0].value, std::strtod(v, nullptr)) << v;
  }
}

TEST(ExpositionParser, InvalidValuesAreErrors) {
  for (const char* v : {"abc", "1.2.3", "+NaN", "1e400", "--1", "0x", "1_000", "12a"}) {
    const auto r = ParseString(std::string("m ") + v + "\n");
    EXPECT_TRUE(r.rec.samples.empty()) << v;
    ASSERT_EQ(r.rec.errors.size(), 1u) << v;
    EXPECT_EQ(r.rec.errors[0].message, std::string("invalid value \"") + v + "\" for metric \"m\"");
  }
}

TEST(ExpositionParser, TimestampUnitsByFormat) {
  const std::string text = "a 1 1700000000000\nb 1 1700000000\nc 1 1700000000.5\n";
  const auto au = ParseString(text);
  ASSERT_EQ(au.rec.samples.size(), 3u);
  EXPECT_EQ(au.rec.samples[0].timestamp_ms, 1700000000000);  // >= 1e11: milliseconds
  EXPECT_EQ(au.rec.samples[1].timestamp_ms, 1700000000000);  // < 1e11: seconds
  EXPECT_EQ(au.rec.samples[2].timestamp_ms, 1700000000500);

  const auto tx = ParseString(text, {.format = ExpositionFormat::kText});
  ASSERT_EQ(tx.rec.samples.size(), 2u);
  EXPECT_EQ(tx.rec.samples[0].timestamp_ms, 1700000000000);
  EXPECT_EQ(tx.rec.samples[1].timestamp_ms, 1700000000);  // text: always milliseconds
  ASSERT_EQ(tx.rec.errors.size(), 1u);
  EXPECT_EQ(tx.rec.errors[0].line, 3u);
  EXPECT_NE(tx.rec.errors[0].message.find("integer milliseconds"), std::string::npos);

  const auto om = ParseString(text + "# EOF\n", {.format = ExpositionFormat::kOpenMetrics});
  ASSERT_EQ(om.rec.samples.size(), 3u);
  EXPECT_EQ(om.rec.samples[0].timestamp_ms, 1700000000000000);  // OpenMetrics: always seconds
  EXPECT_EQ(om.rec.samples[1].timestamp_ms, 1700000000000);
  EXPECT_EQ(om.rec.samples[2].timestamp_ms, 1700000000500);
  EXPECT_EQ(om.stats->errors, 0u);
}

TEST(ExpositionParser, ExemplarsAreValidatedAndSkipped) {
  const std::string text =
      "# TYPE foo histogram\n"
      "foo_bucket{le=\"0.01\"} 0\n"
      "foo_bucket{le=\"0.1\"} 8 # {} 0.054\n"
      "foo_bucket{le=\"1\"} 11 # {trace_id=\"KOO5S4vxi0o\"} 0.67\n"
      "foo_bucket{le=\"10\"} 17 # {trace_id=\"oHg5SJYRHA0\"} 9.8 1520879607.789\n"
      "foo_bucket{le=\"+Inf\"} 17 1520879607 # {trace_id=\"a\"} 1.0 1520879607.789\n"
      "foo_bucket{le=\"x\"} 1 # {trace_id=\"a} 1\n"
      "foo_bucket{le=\"y\"} 1 # trace_id=\"a\" 1\n"
      "foo_bucket{le=\"z\"} 1 # {a=\"b\"} notanumber\n"
      "# EOF\n";
  const auto r = ParseString(text);
  ASSERT_EQ(r.rec.samples.size(), 5u);
  EXPECT_EQ(r.rec.samples[2].value, 11);
  EXPECT_EQ(r.rec.samples[4].timestamp_ms, 1520879607000);
  ASSERT_EQ(r.rec.errors.size(), 3u);
  EXPECT_EQ(r.rec.errors[0].line, 7u);
  EXPECT_EQ(r.rec.errors[0].message, "invalid exemplar: label value for \"trace_id\" is missing its closing quote");
  EXPECT_EQ(r.rec.errors[1].line, 8u);
  EXPECT_EQ(r.rec.errors[2].line, 9u);
  EXPECT_EQ(r.rec.errors[2].message, "invalid exemplar value \"notanumber\"");

  const auto text_mode = ParseString("m 1 # {a=\"b\"} 1\n", {.format = ExpositionFormat::kText});
  ASSERT_EQ(text_mode.rec.errors.size(), 1u);
  EXPECT_NE(text_mode.rec.errors[0].message.find("not allowed"), std::string::npos);
}

TEST(ExpositionParser, EofMarker) {
  const auto ok = ParseString("a 1\n# EOF\n", {.format = ExpositionFormat::kOpenMetrics});
  EXPECT_TRUE(ok.stats->saw_eof_marker);
  EXPECT_EQ(ok.stats->errors, 0u);

  // Content after "# EOF" (two files concatenated) is said once per marker and read, not lost.
  const auto after = ParseString("a 1\n# EOF\nb 2\nc 3\n# EOF\n\nd 4\n# EOF\n");
  ASSERT_EQ(after.rec.samples.size(), 4u);
  ASSERT_EQ(after.rec.errors.size(), 2u);
  EXPECT_EQ(after.rec.errors[0].line, 3u);
  EXPECT_EQ(after.rec.errors[0].message,
            "content after \"# EOF\", which must be the last line (files concatenated?); the "
            "lines after it are read as well");
  EXPECT_EQ(after.rec.errors[1].line, 7u);

  const auto missing = ParseString("a 1\nb 2\n", {.format = ExpositionFormat::kOpenMetrics});
  EXPECT_EQ(missing.rec.samples.size(), 2u);
  ASSERT_EQ(missing.rec.errors.size(), 1u);
  EXPECT_EQ(missing.rec.errors[0].line, 2u);
  EXPECT_EQ(missing.rec.errors[0].message, "OpenMetrics input must end with \"# EOF\"");

  // Auto and text modes do not require it, except of a file named as OpenMetrics: without its
  // "# EOF" it was most likely cut short, which is said (its lines are read).
  EXPECT_EQ(ParseString("a 1\n").stats->errors, 0u);
  for (const std::string name : {"cut.om", "cut.om.gz", "cut.openmetrics.zst"}) {
    const auto cut = ParseString("a 1\nb 2\n", {.source_name = name});
    EXPECT_EQ(cut.rec.samples.size(), 2u) << name;
    ASSERT_EQ(cut.rec.errors.size(), 1u) << name;
    EXPECT_EQ(cut.rec.errors[0].line, 2u) << name;
    EXPECT_NE(cut.rec.errors[0].message.find("it may be cut short"), std::string::npos) << name;
  }
  EXPECT_EQ(ParseString("a 1\n", {.source_name = "whole.prom"}).stats->errors, 0u);
  EXPECT_EQ(ParseString("a 1\n# EOF\n", {.source_name = "whole.om"}).stats->errors, 0u);
  // In text mode "# EOF" is an ordinary comment.
  const auto tx = ParseString("a 1\n# EOF\nb 2\n", {.format = ExpositionFormat::kText});
  EXPECT_EQ(tx.rec.samples.size(), 2u);
  EXPECT_FALSE(tx.stats->saw_eof_marker);
}

TEST(ExpositionParser, CreatedSamplesOfCountersAreMarked) {
  const auto r = ParseString(
      "# TYPE req counter\n"
      "# UNIT req requests\n"
      "req_total 5\n"
      "req_created 1700000000.25\n"
      "# TYPE job gauge\n"
      "job_created 3\n"
      "# TYPE lat summary\n"
      "lat_count 2\nlat_sum 1.5\nlat_created 1700000000\n"
      "# EOF\n");
  ASSERT_EQ(r.rec.samples.size(), 6u);
  EXPECT_FALSE(r.rec.samples[0].is_created);
  EXPECT_TRUE(r.rec.samples[1].is_created);
  EXPECT_EQ(r.rec.samples[1].value, 1700000000.25);
  EXPECT_FALSE(r.rec.samples[2].is_created);  // a gauge's "_created" is just a gauge
  EXPECT_TRUE(r.rec.samples[5].is_created);
  ASSERT_GE(r.rec.metadata.size(), 2u);
  EXPECT_EQ(r.rec.metadata[1].kind, MetadataKind::kUnit);
  EXPECT_EQ(r.rec.metadata[1].text, "requests");
}

TEST(ExpositionParser, QuotedUtf8Names) {
  const auto r = ParseString(
      "# TYPE \"my.metric\" gauge\n"
      "{\"my.metric\",\"label.with.dots\"=\"v\",b=\"c\"} 1\n"
      "{\"other.metric\"} 2\n"
      "plain{\"quoted label\"=\"x\"} 3\n");
  ASSERT_EQ(r.stats->errors, 0u) << r.rec.errors[0].message;
  ASSERT_EQ(r.rec.samples.size(), 3u);
  EXPECT_EQ(r.rec.samples[0].name, "my.metric");
  EXPECT_EQ(r.rec.samples[0].Label("label.with.dots"), "v");
  EXPECT_EQ(r.rec.samples[0].Label("b"), "c");
  EXPECT_EQ(r.rec.samples[1].name, "other.metric");
  EXPECT_EQ(r.rec.samples[2].Label("quoted label"), "x");
  EXPECT_EQ(r.rec.metadata[0].family, "my.metric");
}

TEST(ExpositionParser, ErrorLinesInterleavedWithGoodLines) {
  const std::string text =
      "good_1 1\n"                                  // 1
      "bad{pod=\"abc} 1\n"                          // 2
      "good_2{a=\"b\"} 2\n"                         // 3
      "bad{pod \"x\"} 1\n"                          // 4
      "bad{pod=\"x\" 1\n"                           // 5
      "bad{pod=\"x\",pod=\"y\"} 1\n"                // 6
      "good_3 3\n"                                  // 7
      "bad{pod=x} 1\n"                              // 8
      "9bad 1\n"                                    // 9
      "bad_no_value\n"                              // 10
      "bad 1 2 3\n"                                 // 11
      "# TYPE t nonsense\n"                         // 12
      "# TYPE\n"                                    // 13
      "bad{1a=\"b\"} 1\n"                           // 14
      "good_4 4\n";                                 // 15
  const auto r = ParseString(text);
  ASSERT_TRUE(r.stats.ok());
  ASSERT_EQ(r.rec.samples.size(), 4u);
  EXPECT_EQ(r.rec.samples[0].line, 1u);
  EXPECT_EQ(r.rec.samples[1].line, 3u);
  EXPECT_EQ(r.rec.samples[2].line, 7u);
  EXPECT_EQ(r.rec.samples[3].line, 15u);
  const std::vector<std::pair<uint64_t, std::string>> want = {
      {2, "label value for \"pod\" is missing its closing quote"},
      {4, "expected '=' after label name \"pod\", found '\"'"},
      {5, "expected ',' or '}' after the value of label \"pod\", found '1'"},
      {6, "label name \"pod\" appears more than once"},
      {8, "label value for \"pod\" must start with a quote, found 'x'"},
      {9, "expected a metric name, found '9'"},
      {10, "metric \"bad_no_value\" has no value"},
      {11, "unexpected text after the timestamp of \"bad\""},
      {12, "unknown metric type \"nonsense\" for \"t\""},
      {13, "TYPE line is missing the metric name"},
      {14, "expected a label name, found '1'"},
  };
  ASSERT_EQ(r.rec.errors.size(), want.size());
  for (size_t i = 0; i < want.size(); ++i) {
    EXPECT_EQ(r.rec.errors[i].line, want[i].first) << i;
    EXPECT_EQ(r.rec.errors[i].message, want[i].second) << i;
  }
  EXPECT_EQ(r.stats->errors, want.size());
  EXPECT_EQ(r.stats->lines, 15u);
}

// A file saved with a UTF-8 byte order mark keeps its first line (it was "found byte 0xef").
TEST(ExpositionParser, AByteOrderMarkIsNotPartOfTheFirstLine) {
  const auto r = ParseString("\xEF\xBB\xBFgpu_first{a=\"b\"} 1\nsecond 2\n\xEF\xBB\xBFthird 3\n");
  ASSERT_TRUE(r.stats.ok());
  ASSERT_EQ(r.rec.samples.size(), 2u);
  EXPECT_EQ(r.rec.samples[0].name, "gpu_first");
  EXPECT_EQ(r.rec.samples[1].name, "second");
  ASSERT_EQ(r.rec.errors.size(), 1u);  // only a first line's mark is one
  EXPECT_EQ(r.rec.errors[0].line, 3u);
}

// A line of many labels: a name given twice is found however far apart (the sorted check past a
// few dozen labels), and all-distinct names pass.
TEST(ExpositionParser, ALabelGivenTwiceAmongManyIsFound) {
  for (const size_t n : {10, 49, 100, 5000}) {
    std::string distinct = "m{";
    for (size_t i = 0; i < n; ++i) distinct += (i ? ",l" : "l") + std::to_string(i) + "=\"v\"";
    const std::string twice = distinct + ",l0=\"w\"} 1\n";
    distinct += "} 1\n";
    const auto ok = ParseString(distinct);
    ASSERT_TRUE(ok.stats.ok());
    EXPECT_TRUE(ok.rec.errors.empty()) << n;
    ASSERT_EQ(ok.rec.samples.size(), 1u) << n;
    const auto bad = ParseString(twice + distinct);
    ASSERT_TRUE(bad.stats.ok());
    ASSERT_EQ(bad.rec.errors.size(), 1u) << n;
    EXPECT_EQ(bad.rec.errors[0].message, "label name \"l0\" appears more than once") << n;
    EXPECT_EQ(bad.rec.samples.size(), 1u) << n;  // the good line after it is kept
  }
}

TEST(ExpositionParser, StrictModeStopsAtFirstError) {
  ParseOptions o;
  o.strict = true;
  o.source_name = "metrics.txt";
  const auto r = ParseString("a 1\nb 2\nbad{pod=\"x} 1\nc 3\n", o);
  ASSERT_FALSE(r.stats.ok());
  EXPECT_EQ(r.stats.status().code(), StatusCode::kParseError);
  EXPECT_EQ(r.stats.status().message(), "metrics.txt:3: label value for \"pod\" is missing its closing quote");
  EXPECT_EQ(r.rec.samples.size(), 2u);
  EXPECT_TRUE(r.rec.errors.empty());
}

TEST(ExpositionParser, HandlerCanStopParsing) {
  Recorder rec;
  rec.stop_after_errors = 1;
  auto src = StringByteSource("x{\n y 1\nz{\nw 2\n");
  const auto stats = ParseExposition(*src, {}, rec);
  ASSERT_TRUE(stats.ok());
  EXPECT_EQ(rec.errors.size(), 1u);
  EXPECT_TRUE(rec.samples.empty());
}

TEST(ExpositionParser, CrlfBlankLinesAndWhitespace) {
  const auto r = ParseString("# TYPE a gauge\r\na{x=\"1\"} 1\r\n\r\n   \n\t\na { x = \"2\" , } 2 \r\nb 3");
  ASSERT_EQ(r.stats->errors, 0u) << r.rec.errors[0].message;
  ASSERT_EQ(r.rec.samples.size(), 3u);
  EXPECT_EQ(r.rec.samples[0].Label("x"), "1");
  EXPECT_EQ(r.rec.samples[1].Label("x"), "2");
  EXPECT_EQ(r.rec.samples[1].line, 6u);
  EXPECT_EQ(r.rec.samples[2].value, 3);  // last line without a newline
  EXPECT_EQ(r.rec.samples[2].line, 7u);
  EXPECT_EQ(r.rec.metadata[0].type, MetricType::kGauge);
}

std::string SampleText() {
  std::string t;
  for (int i = 0; i < 200; ++i) {
    t += "# HELP m" + std::to_string(i % 7) + " help \\n text\n# TYPE m" + std::to_string(i % 7) + " gauge\n";
    t += "m" + std::to_string(i % 7) + "{pod=\"p-" + std::to_string(i) + "\",esc=\"a\\\"b\\\\c\\nd\"} " +
         std::to_string(i) + ".5 " + std::to_string(1700000000000 + i) + "\r\n";
    if (i % 13 == 0) t += "broken{pod=\"oops} 1\n";
    if (i % 17 == 0) t += "\n";
  }
  return t;
}

TEST(ExpositionParser, BlockBoundariesAnywhereGiveTheSameResult) {
  const std::string text = SampleText();
  const auto whole = ParseString(text);
  ASSERT_EQ(whole.rec.samples.size(), 200u);
  for (size_t max_chunk = 1; max_chunk <= 7; ++max_chunk) {
    Recorder rec;
    ChunkedSource src(text, max_chunk);
    const auto stats = ParseExposition(src, {}, rec);
    ASSERT_TRUE(stats.ok());
    EXPECT_EQ(rec.samples, whole.rec.samples) << max_chunk;
    ASSERT_EQ(rec.errors.size(), whole.rec.errors.size());
    for (size_t i = 0; i < rec.errors.size(); ++i) EXPECT_EQ(rec.errors[i].line, whole.rec.errors[i].line);
    ASSERT_EQ(rec.metadata.size(), whole.rec.metadata.size());
    for (size_t i = 0; i < rec.metadata.size(); ++i) EXPECT_EQ(rec.metadata[i].text, whole.rec.metadata[i].text);
    EXPECT_EQ(rec.metadata[rec.metadata.size() - 2].text, "help \n text");
    EXPECT_EQ(stats->lines, whole.stats->lines);
    EXPECT_EQ(stats->bytes, text.size());
  }
}

TEST(ExpositionParser, VeryLongLinesAreKeptUnderTheLimit) {
  const std::string big(5u << 20, 'x');  // 5 MiB label value: spans several read blocks
  const std::string text = "before 1\nlong{v=\"" + big + "\"} 7\nafter 2\n";
  const auto r = ParseString(text);
  ASSERT_EQ(r.rec.samples.size(), 3u);
  EXPECT_EQ(r.rec.samples[1].Label("v").size(), big.size());
  EXPECT_EQ(r.rec.samples[1].value, 7);
  EXPECT_EQ(r.rec.samples[2].line, 3u);
}

TEST(ExpositionParser, LinesOverTheLimitAreSkippedWithAnError) {
  const std::string big(3u << 20, 'y');
  const std::string text = "before 1\nlong{v=\"" + big + "\"} 7\nafter 2\nmid{v=\"" +
                           std::string(2000, 'z') + "\"} 1\nend 3\n";
  ParseOptions o;
  o.max_line_bytes = 1000;
  for (size_t chunk : {size_t{0}, size_t{7}}) {
    Recorder rec;
    std::unique_ptr<ByteSource> src =
        chunk == 0 ? StringByteSource(text) : std::make_unique<ChunkedSource>(text, chunk);
    const auto stats = ParseExposition(*src, o, rec);
    ASSERT_TRUE(stats.ok());
    ASSERT_EQ(rec.samples.size(), 3u);
    EXPECT_EQ(rec.samples[0].name, "before");
    EXPECT_EQ(rec.samples[1].name, "after");
    EXPECT_EQ(rec.samples[1].line, 3u);
    EXPECT_EQ(rec.samples[2].name, "end");
    EXPECT_EQ(rec.samples[2].line, 5u);
    ASSERT_EQ(rec.errors.size(), 2u);
    EXPECT_EQ(rec.errors[0].line, 2u);
    EXPECT_NE(rec.errors[0].message.find("longer than the limit of 1000 bytes"), std::string::npos);
    EXPECT_EQ(rec.errors[1].line, 4u);
    EXPECT_EQ(stats->lines, 5u);
  }
}

TEST(ExpositionParser, RealDcgmExporterLines) {
  const auto r = ParseString(
      "# HELP DCGM_FI_DEV_SM_CLOCK SM clock frequency (in MHz).\n"
      "# TYPE DCGM_FI_DEV_SM_CLOCK gauge\n"
      "DCGM_FI_DEV_SM_CLOCK{gpu=\"0\",UUID=\"GPU-08533397-8c65-7a0b-003b-c4bd120e67c1\",pci_bus_id=\"00000000:01:00.0\",device=\"nvidia0\",modelName=\"Quadro T2000\",Hostname=\"sheryb\",DCGM_FI_DRIVER_VERSION=\"570.169\"} 300\n"
      "DCGM_FI_DEV_SM_CLOCK{gpu=\"0\",UUID=\"GPU-55274b56-9033-f166-7723-77088b0ff94d\",device=\"nvidia0\",modelName=\"NVIDIA TITAN V\",Hostname=\"dcgm-exporter-lcxpl\",container=\"\",namespace=\"\",pod=\"\"} 135\n"
      "DCGM_FI_PROF_GR_ENGINE_ACTIVE{gpu=\"0\",UUID=\"GPU-58e8f5ea-13cc-013a-d88f-2bcf5ae8bc77\",pci_bus_id=\"00000000:1A:00.0\",device=\"nvidia0\",modelName=\"NVIDIA H100 80GB HBM3\",GPU_I_PROFILE=\"1g.10gb\",GPU_I_ID=\"7\",Hostname=\"gsrh100-074\",DCGM_FI_DRIVER_VERSION=\"535.129.03\",container=\"kserve-container\",namespace=\"model-playground-stg\",pod=\"text-embedding-predictor-00008-deployment-57946f6c67-vdtjl\"} 0.000000\n"
      "DCGM_FI_DEV_GPU_TEMP{DCGM_FI_DRIVER_VERSION=\"545.29.06\", Hostname=\"worker1\", UUID=\"GPU-longgui\", container=\"exporter\", device=\"nvidia0\", endpoint=\"metrics\", exported_container=\"ai-artifactory-control\", exported_namespace=\"default\", exported_pod=\"pod1\", gpu=\"0\", instance=\"someip:9400\", job=\"dcgm-exporter-dev\", modelName=\"NVIDIA GeForce RTX 4090\", namespace=\"monitoring\", pod=\"dcgm-exporter-dev-78z52\", service=\"dcgm-exporter-dev\"} 41\n"
      "DCGM_FI_DEV_MEMORY_TEMP{gpu=\"0\", UUID=\"GPU-604a\"} 9223372036854775794\n"
      "DCGM_FI_DEV_SM_CLOCK{gpu=\"0\",UUID=\"GPU-1\",device=\"nvidia0\",modelName=\"NVIDIA A100 80GB PCIe\",GPU_I_PROFILE=\"<<<NULL>>>\",GPU_I_ID=\"0\",hostname=\"metal-gpu-08\"} 1410\n");
  ASSERT_EQ(r.stats->errors, 0u) << r.rec.errors[0].message;
  ASSERT_EQ(r.rec.samples.size(), 6u);
  EXPECT_EQ(r.rec.samples[0].Label("Hostname"), "sheryb");
  EXPECT_EQ(r.rec.samples[0].Label("hostname"), "<absent>");  // names are case-sensitive
  EXPECT_EQ(r.rec.samples[0].value, 300);
  EXPECT_EQ(r.rec.samples[1].Label("pod"), "");
  EXPECT_EQ(r.rec.samples[2].Label("GPU_I_PROFILE"), "1g.10gb");
  EXPECT_EQ(r.rec.samples[2].Label("GPU_I_ID"), "7");
  EXPECT_EQ(r.rec.samples[2].value, 0.0);
  EXPECT_EQ(r.rec.samples[3].Label("exported_pod"), "pod1");
  EXPECT_EQ(r.rec.samples[3].Label("pod"), "dcgm-exporter-dev-78z52");
  EXPECT_EQ(r.rec.samples[3].labels.size(), 16u);
  EXPECT_EQ(r.rec.samples[4].value, 9223372036854775794.0);
  EXPECT_GE(r.rec.samples[4].value, static_cast<double>(0x7ffffffffffffff0));
  EXPECT_EQ(r.rec.samples[5].Label("hostname"), "metal-gpu-08");
  EXPECT_EQ(r.rec.samples[5].Label("GPU_I_PROFILE"), "<<<NULL>>>");
}

TEST(ExpositionParser, RealKubeStateMetricsLines) {
  const auto r = ParseString(
      "# HELP kube_pod_container_resource_requests The number of requested request resource by a container.\n"
      "# TYPE kube_pod_container_resource_requests gauge\n"
      "kube_pod_container_resource_requests{namespace=\"default\",pod=\"pod0\",uid=\"abc-0\",container=\"pod1_con1\",node=\"node1\",resource=\"cpu\",unit=\"core\"} 0.2\n"
      "kube_pod_container_resource_requests{namespace=\"default\",pod=\"pod0\",uid=\"abc-0\",container=\"pod1_con1\",node=\"node1\",resource=\"memory\",unit=\"byte\"} 1e+08\n"
      "kube_pod_container_resource_requests{namespace=\"default\",pod=\"pod0\",uid=\"abc-0\",container=\"pod1_con1\",node=\"node1\",resource=\"nvidia_com_gpu\",unit=\"integer\"} 1\n"
      "kube_pod_info{namespace=\"default\",pod=\"pod0\",uid=\"abc-0\",host_ip=\"1.1.1.1\",pod_ip=\"1.2.3.4\",node=\"node1\",created_by_kind=\"\",created_by_name=\"\",priority_class=\"\",host_network=\"false\"} 1\n"
      "kube_pod_status_phase{namespace=\"default\",pod=\"pod0\",uid=\"abc-0\",phase=\"Pending\"} 0\n"
      "kube_pod_created{namespace=\"default\",pod=\"pod0\",uid=\"abc-0\"} 1.5e+09\n"
      "kube_pod_start_time{namespace=\"default\",pod=\"pod0\",uid=\"abc-0\"} 1.501569018e+09\n");
  ASSERT_EQ(r.stats->errors, 0u) << r.rec.errors[0].message;
  ASSERT_EQ(r.rec.samples.size(), 7u);
  EXPECT_EQ(r.rec.samples[0].value, 0.2);
  EXPECT_EQ(r.rec.samples[1].value, 1e8);
  EXPECT_EQ(r.rec.samples[2].Label("resource"), "nvidia_com_gpu");
  EXPECT_EQ(r.rec.samples[3].Label("created_by_kind"), "");
  EXPECT_EQ(r.rec.samples[5].value, 1.5e9);
  EXPECT_FALSE(r.rec.samples[5].is_created);  // no TYPE counter for kube_pod
  EXPECT_EQ(r.rec.samples[6].value, 1501569018.0);
}

}  // namespace
}  // namespace gpucost

namespace gpucost {
namespace {

// Whole-buffer and few-bytes-per-read parses must agree at the max_line_bytes edge: a CRLF line
// whose text is exactly the limit, and an over-long line after "# EOF".
TEST(ExpositionParser, LineLimitEdgesAgreeAcrossBlockBoundaries) {
  ParseOptions o;
  o.max_line_bytes = 64;
  const std::string exact = "m{v=\"" + std::string(64 - 9, 'a') + "\"} 1\r\n";  // 64 bytes + CRLF
  const std::string over = "m{v=\"" + std::string(64 - 8, 'a') + "\"} 1\r\n";   // 65 bytes + CRLF
  for (const std::string& text : {exact + over + "end 2\n", "a 1\n# EOF\n" + std::string(200, 'x') + "\nb 2\n"}) {
    auto src = StringByteSource(text);
    Recorder whole;
    const auto ws = ParseExposition(*src, o, whole);
    Recorder pieces;
    ChunkedSource chunked(text, 3);
    const auto ps = ParseExposition(chunked, o, pieces);
    ASSERT_TRUE(ws.ok() && ps.ok());
    EXPECT_EQ(pieces.samples, whole.samples);
    ASSERT_EQ(pieces.errors.size(), whole.errors.size());
    for (size_t i = 0; i < whole.errors.size(); ++i) EXPECT_EQ(pieces.errors[i].line, whole.errors[i].line);
  }
  const auto r = ParseString(exact + over + "end 2\n", o);
  ASSERT_EQ(r.rec.samples.size(), 2u);
  ASSERT_EQ(r.rec.errors.size(), 1u);
  EXPECT_EQ(r.rec.errors[0].line, 2u);
}

}  // namespace
}  // namespace gpucost
