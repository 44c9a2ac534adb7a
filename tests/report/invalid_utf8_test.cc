// Label values are bytes from outside. A report whose namespaces and labels are not UTF-8 renders
// in every format as UTF-8 (U+FFFD for what is not, control characters too in the table), its
// groups and money unchanged; label keys and HTTP query parameters that are not text are errors
// that say so, never a crash.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "common/utf8_check.h"
#include "core/strings.h"
#include "core/utf8.h"
#include "report/focus_export.h"
#include "report/render.h"
#include "report/report_query.h"
#include "report/report_test_util.h"

namespace gpucost {
namespace {

using report_test::Aggregate;
using report_test::FourNodes;
using report_test::Held;
using report_test::Idle;
using report_test::Options;

const std::string kFffd(kReplacementCharacter);

// FourNodes with holder 0's namespace and the app labels of holders 0 and 2 made of bytes that
// are not UTF-8: "web\xff" and "web\xfe" differ only in those bytes.
Inventory NotUtf8Nodes() {
  Inventory inv = FourNodes();
  inv.holders[0].namespace_name = "a\xff\xfe";
  inv.holders[0].labels = LabelSet{{"app", "web\xff"}};
  inv.holders[2].labels = LabelSet{{"app", "web\xfe"}};
  inv.holders[1].namespace_name = "\x1b[2Jb\n";  // an escape sequence and a line break
  inv.nodes[0].labels = LabelSet{{"pool", "gpu-\xc3"}};
  return inv;
}

std::vector<CostRecord> NotUtf8Records() {
  return {Held(0, 0, 0, 1.0, 4.0, 0.5), Held(0, 1, 1, 1.0, 2.0, 0.25), Held(0, 2, 2, 1.0, 1.0, 1.0),
          Idle(0, 3, 1.0, 3.0)};
}

std::vector<std::string> TextLines(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

TEST(NotUtf8, GroupsAndMoneyUseTheBytesAsTheyCame) {
  const Report report = Aggregate(NotUtf8Nodes(), Options("label:app"), NotUtf8Records());
  // Two groups, as two different label values are, with their own money.
  const ReportRow* a = report_test::FindRow(report, {"web\xff"});
  const ReportRow* b = report_test::FindRow(report, {"web\xfe"});
  ASSERT_NE(a, nullptr);
  ASSERT_NE(b, nullptr);
  EXPECT_DOUBLE_EQ(a->allocated_usd, 4.0);
  EXPECT_DOUBLE_EQ(b->allocated_usd, 1.0);
}

TEST(NotUtf8, EveryFormatIsUtf8) {
  const Report report =
      Aggregate(NotUtf8Nodes(), Options("namespace,label:app,label:pool"), NotUtf8Records());
  for (OutputFormat f : {OutputFormat::kTable, OutputFormat::kCsv, OutputFormat::kJson}) {
    std::string text;
    ASSERT_NO_THROW(text = RenderToString(report, f)) << OutputFormatName(f);
    EXPECT_TRUE(testing_util::IsUtf8(text)) << OutputFormatName(f) << ":\n" << text;
    EXPECT_NE(text.find("a" + kFffd + kFffd), std::string::npos) << text;
    EXPECT_NE(text.find("gpu-" + kFffd), std::string::npos) << text;
  }
}

TEST(NotUtf8, JsonParsesBackWithReplacementCharacters) {
  const Report report = Aggregate(NotUtf8Nodes(), Options("namespace,label:app"), NotUtf8Records());
  const nlohmann::json doc = nlohmann::json::parse(RenderToString(report, OutputFormat::kJson));
  std::vector<std::string> apps;
  bool found = false;
  for (const auto& row : doc["rows"]) {
    apps.push_back(row["label:app"].get<std::string>());
    found = found || row["namespace"] == "a" + kFffd + kFffd;
  }
  EXPECT_TRUE(found) << doc.dump(2);
  // The two groups stay two rows, shown the same (docs/report.md, "Text that is not UTF-8").
  EXPECT_EQ(std::count(apps.begin(), apps.end(), "web" + kFffd), 2) << doc.dump(2);
  // JSON escapes control characters rather than replacing them: the value reads back.
  EXPECT_NE(std::find(apps.begin(), apps.end(), "__unallocated__"), apps.end());
  bool escaped = false;
  for (const auto& row : doc["rows"]) escaped = escaped || row["namespace"] == "\x1b[2Jb\n";
  EXPECT_TRUE(escaped) << doc.dump(2);
}

TEST(NotUtf8, TableKeepsItsLinesAndColumns) {
  const Report report = Aggregate(NotUtf8Nodes(), Options("namespace,label:app"), NotUtf8Records());
  const std::string text = RenderToString(report, OutputFormat::kTable);
  EXPECT_EQ(text.find('\x1b'), std::string::npos) << text;
  const std::vector<std::string> lines = TextLines(text);
  // header, 4 rows, rule, total: a line break in a value does not add a line.
  ASSERT_GE(lines.size(), 7u) << text;
  EXPECT_EQ(lines[5].find_first_not_of('-'), std::string::npos) << text;
  // gpu_hours starts in the same column (code points, not bytes) on every line.
  const auto column_of = [](const std::string& line, size_t byte) {
    return Utf8Length(line.substr(0, byte));
  };
  const size_t header = column_of(lines[0], lines[0].find("gpu_hours"));
  for (size_t i = 1; i <= 4; ++i) {
    const size_t end = column_of(lines[i], lines[i].find(" 1.00") + 5);
    EXPECT_EQ(end, header + std::string("gpu_hours").size()) << lines[i];
  }
}

TEST(NotUtf8, CsvFieldsAreReplacedAndStillQuoted) {
  const Report report = Aggregate(NotUtf8Nodes(), Options("namespace"), NotUtf8Records());
  const std::string text = RenderToString(report, OutputFormat::kCsv);
  EXPECT_TRUE(testing_util::IsUtf8(text)) << text;
  EXPECT_NE(text.find("\na" + kFffd + kFffd + ","), std::string::npos) << text;
  // The escape cannot drive a terminal showing the file; the newline is text, quoted.
  EXPECT_NE(text.find("\n\"" + kFffd + "[2Jb\n\","), std::string::npos) << text;
  EXPECT_EQ(text.find('\x1b'), std::string::npos) << text;
}

TEST(NotUtf8, FocusIsUtf8) {
  const Inventory inv = NotUtf8Nodes();
  FocusOptions options;
  options.window = report_test::kHour;
  options.engine_step = std::chrono::minutes(1);
  const PriceFn price = [](const Node&, Window w) {
    PricePeriod p;
    p.interval = {w.start, w.end};
    p.usd_per_gpu_hour = 4;
    p.source = PriceSource::kDefault;
    p.effective_from = w.start;
    return std::vector<PricePeriod>{p};
  };
  Result<FocusExporter> exporter = FocusExporter::Create(inv, price, options);
  ASSERT_TRUE(exporter.ok()) << exporter.status().ToString();
  const std::vector<CostRecord> records = NotUtf8Records();
  exporter->Consume(records);
  Result<FocusTable> table = exporter->Finish();
  ASSERT_TRUE(table.ok()) << table.status().ToString();
  std::ostringstream out;
  ASSERT_NO_THROW(WriteFocusCsv(*table, out));
  EXPECT_TRUE(testing_util::IsUtf8(out.str())) << out.str();
  EXPECT_NE(out.str().find("a" + kFffd + kFffd), std::string::npos) << out.str();
  EXPECT_NE(out.str().find("web" + kFffd), std::string::npos) << out.str();
}

TEST(NotUtf8, LabelKeysMustBeText) {
  for (const std::string by : {"label:\xff",
                               "namespace,label:a\xfe"
                               "b",
                               "label:a\nb", "label:\x1b[31m"}) {
    const Result<std::vector<Dimension>> dims = ParseDimensions(by);
    ASSERT_FALSE(dims.ok()) << testing::PrintToString(by);
    EXPECT_TRUE(testing_util::IsUtf8(std::string(dims.status().message())));
    EXPECT_NE(dims.status().message().find("UTF-8"), std::string::npos) << dims.status().ToString();
  }
  const Result<std::vector<Dimension>> unknown = ParseDimensions("\xff\xfe");
  ASSERT_FALSE(unknown.ok());
  EXPECT_TRUE(testing_util::IsUtf8(std::string(unknown.status().message())));
  // Keys that are text, whatever the script, are fine.
  EXPECT_TRUE(ParseDimensions("label:caf\xc3\xa9").ok());
}

std::optional<std::string> From(const std::map<std::string, std::string>& params,
                                const std::string& name) {
  const auto it = params.find(name);
  if (it == params.end()) return std::nullopt;
  return it->second;
}

Result<ReportQuery> Query(const std::map<std::string, std::string>& params) {
  return ParseReportQuery([&params](const std::string& name) { return From(params, name); });
}

TEST(ReportQuery, ParsesTheParametersOfTheReportApi) {
  Result<ReportQuery> q = Query({});
  ASSERT_TRUE(q.ok()) << q.status().ToString();
  EXPECT_FALSE(q->window.has_value());
  ASSERT_EQ(q->by.size(), 1u);
  EXPECT_EQ(q->by[0].Name(), "namespace");
  EXPECT_TRUE(q->accumulate);
  EXPECT_TRUE(q->rollups);
  EXPECT_TRUE(q->clusters.empty());

  q = Query({{"window", "2026-10-01T00:00:00Z,2026-10-01T01:00:00Z"},
             {"by", "team,label:app"},
             {"accumulate", "false"},
             {"cluster", " east,,west "}});
  ASSERT_TRUE(q.ok()) << q.status().ToString();
  ASSERT_TRUE(q->window.has_value());
  EXPECT_EQ(q->window->end - q->window->start, std::chrono::hours(1));
  EXPECT_EQ(q->by.size(), 2u);
  EXPECT_FALSE(q->accumulate);
  EXPECT_FALSE(q->rollups);  // roll-ups are for accumulated reports only
  EXPECT_EQ(q->clusters, (std::vector<std::string>{"east", "west"}));

  q = Query({{"rollups", "false"}});
  ASSERT_TRUE(q.ok());
  EXPECT_TRUE(q->accumulate);
  EXPECT_FALSE(q->rollups);
  EXPECT_EQ(q->step, Duration(0));  // the data's step

  q = Query({{"accumulate", "false"}, {"step", "1h"}});
  ASSERT_TRUE(q.ok()) << q.status().ToString();
  EXPECT_EQ(q->step, std::chrono::hours(1));
  for (const char* bad : {"0s", "-5m", "soon", ""}) {
    q = Query({{"step", bad}});
    ASSERT_FALSE(q.ok()) << bad;
    EXPECT_NE(q.status().message().find("step:"), std::string::npos) << q.status().message();
  }
}

TEST(ReportQuery, AnyBytesAreAnErrorWithAJsonBody) {
  for (const auto& params : std::vector<std::map<std::string, std::string>>{{{"by", "label:\xff"}},
                                                                            {{"by", "colour"}},
                                                                            {{"by", "\xff\"}"}},
                                                                            {{"window", "\xff"}},
                                                                            {{"window", "\"a\",b"}},
                                                                            {{"by", ""}}}) {
    const Result<ReportQuery> q = Query(params);
    ASSERT_FALSE(q.ok()) << testing::PrintToString(params);
    const std::string body = JsonErrorBody(q.status().message());
    EXPECT_TRUE(testing_util::IsUtf8(body)) << body;
    nlohmann::json doc;
    ASSERT_NO_THROW(doc = nlohmann::json::parse(body)) << body;
    EXPECT_EQ(doc["error"].get<std::string>(), ValidUtf8(q.status().message()));
  }
}

TEST(ReportQuery, ErrorBodiesAreJsonWhateverTheMessage) {
  // Quotes and backslashes were once written into the body as they were.
  const std::string body = JsonErrorBody("unknown dimension \"x\\y\" \xff");
  const nlohmann::json doc = nlohmann::json::parse(body);
  EXPECT_EQ(doc["error"], "unknown dimension \"x\\y\" " + kFffd);
  EXPECT_EQ(body.back(), '\n');
}

}  // namespace
}  // namespace gpucost
