#include "report/render.h"

#include <gtest/gtest.h>

#include <cmath>
#include <nlohmann/json.hpp>
#include <sstream>

#include "core/strings.h"
#include "report/report_test_util.h"

namespace gpucost {
namespace {

using report_test::Aggregate;
using report_test::FourNodes;
using report_test::Held;
using report_test::Idle;
using report_test::Options;

std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

std::vector<std::string> Words(const std::string& line) {
  std::vector<std::string> out;
  std::istringstream in(line);
  for (std::string w; in >> w;) out.push_back(w);
  return out;
}

TEST(TableRenderer, EachFigureIsRoundedOnItsOwnAndANoteSaysWhatTheRowsAddUpTo) {
  const Inventory inv = FourNodes();
  // Three pods at one third of a dollar each.
  const Report report =
      Aggregate(inv, Options("pod"),
                {Held(0, 0, 0, 0.1, 1.0 / 3, 0.5), Held(0, 1, 1, 0.1, 1.0 / 3, 0.5),
                 Held(0, 2, 2, 0.1, 1.0 / 3, 0.5)});
  const std::vector<std::string> lines = Lines(RenderToString(report, OutputFormat::kTable));
  ASSERT_GE(lines.size(), 8u);
  const std::vector<std::string> header = Words(lines[0]);
  ASSERT_GE(header.size(), 3u);
  EXPECT_EQ(header[0], "pod");
  EXPECT_EQ(header[1], "gpu_hours");
  EXPECT_EQ(header[2], "allocated_usd");
  std::vector<std::string> printed;
  for (int i = 1; i <= 3; ++i) printed.push_back(Words(lines[i])[2]);
  // Each pod's $1/3 prints as it would in any other table: 0.33, never 0.34 to make a column add
  // up; the total is the true total rounded.
  EXPECT_EQ(printed, (std::vector<std::string>{"0.33", "0.33", "0.33"}));
  EXPECT_EQ(lines[4].find_first_not_of('-'), std::string::npos);  // the rule
  const std::vector<std::string> total = Words(lines[5]);
  EXPECT_EQ(total[0], "total");
  EXPECT_EQ(total[2], "1.00");
  // Effective (1/6 each): 0.17 x 3 under a total of 0.50.
  for (int i = 1; i <= 3; ++i) EXPECT_EQ(Words(lines[i])[3], "0.17");
  EXPECT_EQ(total[3], "0.50");
  EXPECT_EQ(total[6], "50.0%");  // utilization
  EXPECT_NE(lines[6].find("cost_usd: 1.00 USD"), std::string::npos);
  // The note names each column whose rows do not add up to its total, and what they add up to.
  bool noted = false;
  for (const std::string& l : lines) {
    if (l.find("rounded to the cent on its own") == std::string::npos) continue;
    noted = true;
    EXPECT_NE(l.find("allocated_usd 0.99"), std::string::npos) << l;
    EXPECT_NE(l.find("effective_usd 0.51"), std::string::npos) << l;
    EXPECT_EQ(l.find("gpu_hours"), std::string::npos) << l;  // 0.10 x 3 = 0.30: adds up
  }
  EXPECT_TRUE(noted);
}

// Money past what the old rounding held in an int64_t (9.2e12 USD) printed as a negative
// figure; it prints exactly, and a figure past 10^18 cents prints "out of range", never a
// wrapped one.
TEST(TableRenderer, HugeFiguresPrintExactlyOrOutOfRangeNeverNegative) {
  const Inventory inv = FourNodes();
  const Report big = Aggregate(inv, Options("pod"),
                               {Held(0, 0, 0, 1e7, 4e12, 0.5), Held(0, 1, 1, 1e7, 4e12, 0.5),
                                Held(0, 2, 2, 1e7, 4e12, 0.5)});
  const std::string text = RenderToString(big, OutputFormat::kTable);
  const std::vector<std::string> lines = Lines(text);
  ASSERT_GE(lines.size(), 6u);
  EXPECT_EQ(Words(lines[1])[2], "4,000,000,000,000.00");
  EXPECT_EQ(Words(lines[5])[0], "total");
  EXPECT_EQ(Words(lines[5])[2], "12,000,000,000,000.00");
  EXPECT_EQ(text.find("-9,"), std::string::npos) << text;

  const Report huge = Aggregate(inv, Options("pod"),
                                {Held(0, 0, 0, 1e7, 4e12, 0.5), Held(0, 1, 1, 1e7, 1e17, 0.5)});
  const std::string all = RenderToString(huge, OutputFormat::kTable);
  EXPECT_NE(all.find("out of range"), std::string::npos) << all;
  EXPECT_EQ(all.find("-9,"), std::string::npos) << all;
  EXPECT_EQ(all.find("-1,"), std::string::npos) << all;
}

TEST(TableRenderer, NullsPrintAsDashAndColumnsAlign) {
  const Inventory inv = FourNodes();
  const Report report = Aggregate(
      inv, Options("namespace,team"),
      {Held(0, 0, 0, 0.5, 2.0, NAN), Held(0, 1, 1, 0.25, 1.0, 0.75), Idle(0, 2, 1.0, 4.0)});
  const std::string text = RenderToString(report, OutputFormat::kTable);
  const std::vector<std::string> lines = Lines(text);
  // namespace team gpu_hours allocated effective waste idle utilization efficiency unmeasured est
  const std::vector<std::string> a = Words(lines[1]);
  ASSERT_EQ(a.size(), 10u) << text;
  EXPECT_EQ(a[0], "a");
  EXPECT_EQ(a[3], "2.00");
  EXPECT_EQ(a[4], "-");  // effective: unmeasured
  EXPECT_EQ(a[5], "-");
  EXPECT_EQ(a[7], "-");
  EXPECT_EQ(a[9], "0.50");
  const std::vector<std::string> b = Words(lines[2]);
  EXPECT_EQ(b[4], "0.75");
  EXPECT_EQ(b[7], "75.0%");
  const std::vector<std::string> idle = Words(lines[3]);
  EXPECT_EQ(idle[0], "__idle__");
  EXPECT_EQ(idle[6], "4.00");
  // Right-aligned numbers: every data line has the same length up to the last numeric column.
  const size_t end_of_allocated =
      lines[0].find("allocated_usd") + std::string("allocated_usd").size();
  for (size_t i = 1; i <= 3; ++i) EXPECT_NE(lines[i][end_of_allocated - 1], ' ') << lines[i];
  EXPECT_NE(text.find("cost_usd: 7.00 USD"), std::string::npos) << text;
  EXPECT_NE(text.find("0.50 GPU-hours had no usage sample"), std::string::npos) << text;
}

// Money that leaves out hours with no known price says so in its cell, as the cost_usd line does:
// the holder with some unpriced hours, the unpriced idle row's total, and every money total; a
// holder whose hours are all priced, and a holder's idle received, print plain.
TEST(TableRenderer, MoneyThatLeavesOutUnpricedHoursReadsPlusUnknown) {
  const Inventory inv = FourNodes();
  const Report report =
      Aggregate(inv, Options("namespace"),
                {Held(0, 0, 0, 0.5, 2.0, 0.5), Unpriced(Held(0, 1, 0, 0.5, 0, 0.5)),
                 Held(0, 0, 1, 0.25, 1.0, 1.0), Unpriced(Idle(0, 2, 1.0, NAN))});
  const std::string text = RenderToString(report, OutputFormat::kTable);
  const std::vector<std::string> lines = Lines(text);
  ASSERT_GE(lines.size(), 6u) << text;
  // namespace gpu_hours allocated effective waste idle ...
  const auto cell = [&](size_t line, std::string_view column) {
    const size_t end = lines[0].find(column) + column.size();
    const size_t start = lines[line].rfind("  ", end - 1);
    return std::string(Trim(lines[line].substr(start, end - start)));
  };
  EXPECT_EQ(cell(1, "allocated_usd"), "2.00 + unknown") << text;  // a: half its hours unpriced
  EXPECT_EQ(cell(1, "effective_usd"), "1.00 + unknown") << text;
  EXPECT_EQ(cell(1, "idle_usd"), "0.00") << text;       // idle received: priced idle only
  EXPECT_EQ(cell(2, "allocated_usd"), "1.00") << text;  // b: all priced
  EXPECT_EQ(cell(3, "idle_usd"), "-") << text;          // the unpriced idle row
  EXPECT_EQ(cell(5, "allocated_usd"), "3.00 + unknown") << text;
  EXPECT_EQ(cell(5, "idle_usd"), "0.00 + unknown") << text;
  EXPECT_NE(text.find("cost_usd: 3.00 USD + unknown"), std::string::npos) << text;
}

Report SmallBucketedReport() {
  const Inventory inv = FourNodes();
  AggregatorOptions o = Options("namespace,label:app", /*accumulate=*/false);
  o.output_step = std::chrono::minutes(30);
  return Aggregate(
      inv, o,
      {Held(0, 0, 0, 0.5, 2.0, 0.25), Held(30, 0, 1, 0.5, 1.0, NAN), Idle(30, 0, 0.5, 2.0)});
}

TEST(CsvRenderer, ExactShape) {
  const std::string csv = RenderToString(SmallBucketedReport(), OutputFormat::kCsv);
  EXPECT_EQ(csv,
            "namespace,label:app,start,end,gpu_hours,allocated_usd,effective_usd,waste_usd,"
            "idle_usd,utilization,efficiency,unmeasured_gpu_hours,unpriced_gpu_hours,"
            "activity_gpu_hours,estimated,oversubscribed,idle\n"
            "a,web,2025-10-01T00:00:00Z,2025-10-01T00:30:00Z,0.5,2,0.5,1.5,0,0.25,0.25,0,0,0.125,"
            "false,false,false\n"
            "b,__unallocated__,2025-10-01T00:30:00Z,2025-10-01T01:00:00Z,0.5,1,,,0,,,0.5,0,0,"
            "false,false,false\n"
            "__idle__,__idle__,2025-10-01T00:30:00Z,2025-10-01T01:00:00Z,0.5,0,,2,2,,,0,0,0,"
            "false,false,true\n");
}

TEST(CsvRenderer, AccumulatedHasNoTimeColumnsAndQuotesFields) {
  Inventory inv = FourNodes();
  inv.holders[0].namespace_name = "a,\"b\"";
  const Report report = Aggregate(inv, Options("namespace"), {Held(0, 0, 0, 1.0 / 3, 1.0 / 3, 1)});
  const std::vector<std::string> lines = Lines(RenderToString(report, OutputFormat::kCsv));
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_TRUE(lines[0].starts_with("namespace,gpu_hours,allocated_usd,"));
  // Full precision: the shortest text that reads back as the same double.
  EXPECT_TRUE(lines[1].starts_with("\"a,\"\"b\"\"\",0.3333333333333333,0.3333333333333333,"))
      << lines[1];
}

TEST(JsonRenderer, ParsesBackWithTheDocumentedShape) {
  const std::string text = RenderToString(SmallBucketedReport(), OutputFormat::kJson);
  const nlohmann::json doc = nlohmann::json::parse(text);
  EXPECT_EQ(doc["window"]["start"], "2025-10-01T00:00:00Z");
  EXPECT_EQ(doc["window"]["end"], "2025-10-01T01:00:00Z");
  EXPECT_EQ(doc["step_s"], 1800);
  EXPECT_EQ(doc["currency"], "USD");
  EXPECT_EQ(doc["by"], nlohmann::json({"namespace", "label:app"}));
  EXPECT_EQ(doc["idle_policy"], "separate");
  ASSERT_EQ(doc["rows"].size(), 3u);

  const nlohmann::json& a = doc["rows"][0];
  EXPECT_EQ(a["namespace"], "a");
  EXPECT_EQ(a["label:app"], "web");
  EXPECT_EQ(a["start"], "2025-10-01T00:00:00Z");
  EXPECT_EQ(a["end"], "2025-10-01T00:30:00Z");
  EXPECT_DOUBLE_EQ(a["gpu_hours"].get<double>(), 0.5);
  EXPECT_DOUBLE_EQ(a["allocated_usd"].get<double>(), 2.0);
  EXPECT_DOUBLE_EQ(a["effective_usd"].get<double>(), 0.5);
  EXPECT_DOUBLE_EQ(a["waste_usd"].get<double>(), 1.5);
  EXPECT_DOUBLE_EQ(a["utilization"].get<double>(), 0.25);
  EXPECT_DOUBLE_EQ(a["efficiency"].get<double>(), 0.25);
  EXPECT_EQ(a["estimated"], false);
  for (const char* key : {"idle_usd", "unmeasured_gpu_hours", "oversubscribed"}) {
    EXPECT_TRUE(a.contains(key)) << key;
  }

  const nlohmann::json& b = doc["rows"][1];
  EXPECT_TRUE(b["effective_usd"].is_null());
  EXPECT_TRUE(b["waste_usd"].is_null());
  EXPECT_TRUE(b["utilization"].is_null());
  EXPECT_DOUBLE_EQ(b["unmeasured_gpu_hours"].get<double>(), 0.5);

  const nlohmann::json& idle = doc["rows"][2];
  EXPECT_EQ(idle["namespace"], "__idle__");
  EXPECT_DOUBLE_EQ(idle["idle_usd"].get<double>(), 2.0);

  const nlohmann::json& t = doc["totals"];
  EXPECT_DOUBLE_EQ(t["cost_usd"].get<double>(), 5.0);
  EXPECT_DOUBLE_EQ(t["allocated_usd"].get<double>(), 3.0);
  EXPECT_DOUBLE_EQ(t["idle_usd"].get<double>(), 2.0);
  EXPECT_DOUBLE_EQ(t["effective_usd"].get<double>(), 0.5);
  EXPECT_EQ(t["prices_known"], true);
  EXPECT_FALSE(t.contains("namespace"));
}

// Two clusters' holders and idle, grouped by cluster: idle rows carry their cluster.
Report TwoClusterIdleReport(const char* by) {
  return Aggregate(FourNodes(), Options(by),
                   {Held(0, 0, 0, 0.5, 2.0, 0.5), Idle(0, 0, 0.5, 2.0), Held(0, 3, 3, 0.25, 1.0, 1),
                    Idle(0, 3, 0.75, 3.0)});
}

TEST(IdleColumn, MarksIdleRowsInEveryFormatWhenTheyCarryCapacityValues) {
  const Report report = TwoClusterIdleReport("cluster");
  const std::vector<std::string> table = Lines(RenderToString(report, OutputFormat::kTable));
  ASSERT_GE(table.size(), 7u);
  const std::vector<std::string> header = Words(table[0]);
  ASSERT_FALSE(header.empty());
  EXPECT_EQ(header.back(), "idle");
  // prod, dev, then the idle rows dev and prod, each marked.
  EXPECT_EQ(Words(table[1]).front(), "prod");
  EXPECT_NE(Words(table[1]).back(), "yes");
  EXPECT_EQ(Words(table[3]).front(), "dev");
  EXPECT_EQ(Words(table[3]).back(), "yes");
  EXPECT_EQ(Words(table[4]).front(), "prod");
  EXPECT_EQ(Words(table[4]).back(), "yes");
  EXPECT_EQ(Words(table[6]).front(), "total");
  EXPECT_NE(Words(table[6]).back(), "yes");

  const std::vector<std::string> csv = Lines(RenderToString(report, OutputFormat::kCsv));
  ASSERT_EQ(csv.size(), 5u);
  EXPECT_TRUE(csv[0].ends_with(",estimated,oversubscribed,idle")) << csv[0];
  EXPECT_TRUE(csv[1].starts_with("prod,") && csv[1].ends_with(",false")) << csv[1];
  EXPECT_TRUE(csv[3].starts_with("dev,0.75,0,,3,3,") && csv[3].ends_with(",true")) << csv[3];
  EXPECT_TRUE(csv[4].starts_with("prod,0.5,0,,2,2,") && csv[4].ends_with(",true")) << csv[4];

  const nlohmann::json doc = nlohmann::json::parse(RenderToString(report, OutputFormat::kJson));
  ASSERT_EQ(doc["rows"].size(), 4u);
  EXPECT_EQ(doc["rows"][0]["idle"], false);
  EXPECT_EQ(doc["rows"][2]["cluster"], "dev");
  EXPECT_EQ(doc["rows"][2]["idle"], true);
  EXPECT_DOUBLE_EQ(doc["rows"][2]["idle_usd"].get<double>(), 3.0);
  EXPECT_EQ(doc["rows"][3]["cluster"], "prod");
  EXPECT_EQ(doc["rows"][3]["idle"], true);
  EXPECT_DOUBLE_EQ(doc["rows"][3]["idle_usd"].get<double>(), 2.0);
  EXPECT_FALSE(doc["totals"].contains("idle"));
  EXPECT_DOUBLE_EQ(doc["totals"]["idle_usd"].get<double>(), 5.0);
}

TEST(IdleColumn, AbsentWhenEveryDimensionIsTheHolders) {
  const Report report = TwoClusterIdleReport("namespace,team");
  const std::string table = RenderToString(report, OutputFormat::kTable);
  EXPECT_EQ(Words(Lines(table)[0]).back(), "estimated") << table;
  const std::vector<std::string> csv = Lines(RenderToString(report, OutputFormat::kCsv));
  EXPECT_TRUE(csv[0].ends_with(",estimated,oversubscribed")) << csv[0];
  EXPECT_TRUE(csv.back().starts_with("__idle__,__idle__,1.25,0,,5,5,")) << csv.back();
  const nlohmann::json doc = nlohmann::json::parse(RenderToString(report, OutputFormat::kJson));
  for (const nlohmann::json& row : doc["rows"]) EXPECT_FALSE(row.contains("idle")) << row;
  EXPECT_EQ(doc["rows"].back()["namespace"], "__idle__");
}

TEST(JsonRenderer, AccumulatedRowsHaveNoTimesAndNullForUnknownMoney) {
  const Inventory inv = FourNodes();
  CostRecord r = Held(0, 0, 0, 1, 0, 0.5);
  r.price_known = false;
  r.allocated_usd = r.effective_usd = NAN;
  const Report report = Aggregate(inv, Options("team"), {r});
  const nlohmann::json doc = nlohmann::json::parse(RenderToString(report, OutputFormat::kJson));
  EXPECT_EQ(doc["step_s"], 60);  // the attribution step; rows span the window
  const nlohmann::json& row = doc["rows"][0];
  EXPECT_FALSE(row.contains("start"));
  EXPECT_TRUE(row["allocated_usd"].is_null());
  EXPECT_DOUBLE_EQ(row["unpriced_gpu_hours"].get<double>(), 1.0);
  EXPECT_TRUE(doc["totals"]["cost_usd"].is_null());
  EXPECT_EQ(doc["totals"]["prices_known"], false);
}

TEST(Render, FormatNames) {
  EXPECT_EQ(ParseOutputFormat("csv").value(), OutputFormat::kCsv);
  EXPECT_EQ(ParseOutputFormat("json").value(), OutputFormat::kJson);
  EXPECT_FALSE(ParseOutputFormat("yaml").ok());
  EXPECT_EQ(ParseIdlePolicy("proportional").value(), IdlePolicy::kProportional);
  EXPECT_EQ(ParseIdleScope("node").value(), IdleScope::kNode);
  EXPECT_FALSE(ParseIdlePolicy("share").ok());
}

}  // namespace
}  // namespace gpucost
