#include "chargeback/render.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "chargeback/svg_chart.h"
#include "chargeback_test_util.h"
#include "common/utf8_check.h"

namespace gpucost::chargeback {
namespace {

// Team ml: A100 on demand 10 h at $3.06, A100 spot 20 h at $1.17 (2 h of it idle), T4 spot
// 3 h at a third of a dollar, and an H100 with no price; team <b>&amp; (a name to escape).
StatementSet Sample() {
  StatementBuilder b(October(), {});
  b.Add(Labels("ml", "eval", "NVIDIA A100-SXM4-80GB", "on_demand"), Amounts(Day(2), 10, 3.06, 0.9));
  b.Add(Labels("ml", "train", "NVIDIA A100-SXM4-80GB", "spot"), Amounts(Day(3), 18, 1.17, 0.8));
  b.Add(Labels("ml", "train", "NVIDIA A100-SXM4-80GB", "spot"), Amounts(Day(4), 2, 1.17, 0.0));
  b.Add(Labels("ml", "serve", "Tesla T4", "spot"), Amounts(Day(5), 3, 1.0 / 3, 0.5));
  b.Add(Labels("ml", "probe", "NVIDIA H100 80GB HBM3", "on_demand"), Amounts(Day(6), 4, NAN, 0.5));
  b.Add(Labels("<b>&amp;", "x|y", "Tesla T4", "spot"), Amounts(Day(7), 1, 0.35, 1));
  auto set = b.Finish({});
  return set.ok() ? *set : StatementSet{};
}

std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

TEST(TextRenderer, StatementTreeWithUnknownPriceAndTotals) {
  const std::string text = RenderStatementsToString(Sample(), StatementFormat::kText);
  const std::vector<std::string> lines = Lines(text);
  // The <b>&amp; team sorts first; ml's statement follows a blank line.
  auto it = std::find(lines.begin(), lines.end(), "Monthly GPU Report — ml");
  ASSERT_NE(it, lines.end()) << text;
  EXPECT_EQ(*(it + 2), "GPU-hours consumed: 37.0 hrs");
  // Every rate with the decimals the most precise one needs ($1/3 to the micro-dollar).
  EXPECT_EQ(*(it + 3), "├── A100 on-demand: 10.0 hrs ×     $3.060000 = $30.60");
  EXPECT_EQ(*(it + 4), "├── A100 spot:      20.0 hrs ×     $1.170000 = $23.40");
  EXPECT_EQ(*(it + 5), "├── H100 on-demand:  4.0 hrs × unknown price = unknown");
  EXPECT_EQ(*(it + 6), "└── T4 spot:         3.0 hrs ×     $0.333333 = $1.00");
  EXPECT_EQ(*(it + 7), "Total: $55.00 + unknown (4.0 hrs have no price)");
  EXPECT_NE(text.find("idle GPU-hours 2.0 hrs (5.4%), idle cost $2.34"), std::string::npos) << text;
  EXPECT_NE(text.find("Spot ratio: 62.2% (target > 70%, missed)"), std::string::npos) << text;
  EXPECT_NE(text.find("Top consumers: 1. eval 10.0 GPU-hrs ($30.60)"), std::string::npos);
  EXPECT_NE(text.find("               4. probe 4.0 GPU-hrs (unknown)"), std::string::npos);
  EXPECT_EQ(text.find("$0.00 ="), std::string::npos);  // never a silent zero
}

TEST(MarkdownRenderer, TablesAndEscapedCells) {
  const std::string md = RenderStatementsToString(Sample(), StatementFormat::kMarkdown);
  EXPECT_NE(md.find("## Monthly GPU Report — ml\n"), std::string::npos) << md;
  EXPECT_NE(md.find("| A100 on-demand | 10.0 | $3.060000 | $30.60 |"), std::string::npos) << md;
  EXPECT_NE(md.find("| H100 on-demand | 4.0 | unknown price | unknown |"), std::string::npos);
  EXPECT_NE(
      md.find("| **Total** | **37.0 hrs** | | **$55.00 + unknown (4.0 hrs have no price)** |"),
      std::string::npos)
      << md;
  EXPECT_NE(md.find("| 1 | x\\|y | 1.00 | $0.35 |"), std::string::npos) << md;
}

TEST(CsvRenderer, OneRowPerLineAndAmountsAddUp) {
  const std::vector<std::string> lines =
      Lines(RenderStatementsToString(Sample(), StatementFormat::kCsv));
  ASSERT_EQ(lines.size(), 1u + 1u + 4u);
  EXPECT_EQ(lines[0].substr(0, 60), "team,period_start,period_end,gpu_model,capacity_type,rate_us");
  int64_t ml_cents = 0;
  for (const std::string& l : lines) {
    if (l.rfind("ml,", 0) != 0) continue;
    std::vector<std::string> f;
    std::istringstream in(l);
    for (std::string field; std::getline(in, field, ',');) f.push_back(field);
    ASSERT_GE(f.size(), 8u) << l;
    if (f[7].empty()) {
      EXPECT_NE(l.find("HBM3"), std::string::npos) << l;  // the unpriced line: no amount
      EXPECT_EQ(l.substr(l.size() - 13), ",false,charge") << l;
    } else {
      ml_cents += std::llround(std::stod(f[7]) * 100);
    }
  }
  EXPECT_EQ(ml_cents, 5500);
  EXPECT_EQ(lines[1].rfind("<b>&amp;,", 0), 0u) << lines[1];  // teams sort by name
}

TEST(JsonRenderer, NullsForUnknownAndCentsThatAddUp) {
  const nlohmann::json doc =
      nlohmann::json::parse(RenderStatementsToString(Sample(), StatementFormat::kJson));
  EXPECT_EQ(doc["period"]["month"], "2026-10");
  EXPECT_DOUBLE_EQ(doc["settings"]["idle_threshold"].get<double>(), 0.05);
  ASSERT_EQ(doc["statements"].size(), 2u);
  const nlohmann::json& ml = doc["statements"][1];
  EXPECT_EQ(ml["team"], "ml");
  EXPECT_DOUBLE_EQ(ml["total_usd"].get<double>(), 55.00);
  EXPECT_EQ(ml["prices_known"], false);
  EXPECT_DOUBLE_EQ(ml["unpriced_gpu_hours"].get<double>(), 4);
  double lines = 0;
  for (const auto& l : ml["lines"]) {
    if (l["amount_usd"].is_null()) {
      EXPECT_TRUE(l["rate_usd_per_gpu_hour"].is_null());
      EXPECT_TRUE(l["allocated_usd"].is_null());
    } else {
      lines += l["amount_usd"].get<double>();
    }
  }
  EXPECT_NEAR(lines, 55.00, 1e-9);
  EXPECT_EQ(ml["workloads"][0]["workload"], "eval");
  EXPECT_EQ(ml["workloads"].size(), 4u);
  EXPECT_EQ(ml["days"].size(), 31u);
  EXPECT_EQ(ml["days"][2]["date"], "2026-10-03");
  EXPECT_NEAR(ml["spot_ratio"].get<double>(), 23.0 / 37, 1e-12);
  EXPECT_EQ(ml["spot_ratio_met"], false);
}

// Held GPU-hours none of which has a price: no idle hour costs $0.00 in the JSON as in the text;
// idle hours cost an unknown amount (null, "unknown"), never $0.00.
TEST(JsonRenderer, AnUnpricedTeamsIdleCostIsZeroWithoutIdleHoursAndUnknownWithThem) {
  StatementBuilder b(October(), {});
  b.Add(Labels("busy", "b", "NVIDIA H100 80GB HBM3", "on_demand"), Amounts(Day(3), 6, NAN, 0.9));
  b.Add(Labels("lazy", "c", "NVIDIA H100 80GB HBM3", "on_demand"), Amounts(Day(4), 4, NAN, 0.0));
  auto set = b.Finish({});
  ASSERT_TRUE(set.ok()) << set.status().ToString();
  const nlohmann::json doc =
      nlohmann::json::parse(RenderStatementsToString(*set, StatementFormat::kJson));
  std::map<std::string, nlohmann::json> team;
  for (const nlohmann::json& st : doc["statements"]) team[st["team"].get<std::string>()] = st;
  ASSERT_EQ(team.size(), 2u) << doc.dump();
  EXPECT_TRUE(team["busy"]["allocated_usd"].is_null());
  EXPECT_EQ(team["busy"]["idle_gpu_hours"].get<double>(), 0);
  ASSERT_TRUE(team["busy"]["idle_usd"].is_number()) << team["busy"].dump();
  EXPECT_EQ(team["busy"]["idle_usd"].get<double>(), 0);
  EXPECT_EQ(team["lazy"]["idle_gpu_hours"].get<double>(), 4);
  EXPECT_TRUE(team["lazy"]["idle_usd"].is_null()) << team["lazy"].dump();
  const std::string text = RenderStatementsToString(*set, StatementFormat::kText);
  EXPECT_NE(text.find("idle cost $0.00"), std::string::npos) << text;
  EXPECT_NE(text.find("idle cost unknown"), std::string::npos) << text;
}

// A team charged shared idle owes it whether or not its own hours are priced: "$0.50 + unknown",
// the report's allocated_usd, never "unknown"; and in CSV the shared idle and the rounding line
// are rows of their own, so that a team's amounts add up to its total.
TEST(Formats, SharedIdleIsOwedWithoutPricedHoursAndItsOwnCsvRow) {
  StatementBuilder b(October(), {});
  b.Add(Labels("dark", "d", "NVIDIA H100 80GB HBM3", "on_demand"), Amounts(Day(3), 2, NAN, 0.5));
  b.Add(Labels("lit", "l", "Tesla T4", "spot"), Amounts(Day(4), 3, 1.004 / 3, 0.5));
  auto set = b.Finish({});
  ASSERT_TRUE(set.ok()) << set.status().ToString();
  set->cluster = ClusterSummary{};
  set->cluster->idle_policy = "even";
  for (Statement& st : set->statements) st.shared_idle_usd = 0.504;

  const std::string text = RenderStatementsToString(*set, StatementFormat::kText);
  EXPECT_NE(text.find("Total: $0.50 + unknown (2.00 hrs have no price)"), std::string::npos)
      << text;
  const nlohmann::json doc =
      nlohmann::json::parse(RenderStatementsToString(*set, StatementFormat::kJson));
  std::map<std::string, nlohmann::json> team;
  for (const nlohmann::json& st : doc["statements"]) team[st["team"].get<std::string>()] = st;
  ASSERT_TRUE(team["dark"]["total_usd"].is_number()) << team["dark"].dump();
  EXPECT_DOUBLE_EQ(team["dark"]["total_usd"].get<double>(), 0.5);
  EXPECT_FALSE(team["dark"]["prices_known"].get<bool>());
  EXPECT_TRUE(team["dark"]["allocated_usd"].is_null());

  const std::vector<std::string> lines =
      Lines(RenderStatementsToString(*set, StatementFormat::kCsv));
  ASSERT_FALSE(lines.empty());
  EXPECT_EQ(lines[0].substr(lines[0].size() - 17), ",price_known,line") << lines[0];
  std::map<std::string, int64_t> cents;
  std::map<std::string, std::vector<std::string>> kinds;
  for (size_t i = 1; i < lines.size(); ++i) {
    std::vector<std::string> f;
    std::istringstream in(lines[i]);
    for (std::string field; std::getline(in, field, ',');) f.push_back(field);
    ASSERT_EQ(f.size(), 17u) << lines[i];
    kinds[f[0]].push_back(f[16]);
    if (!f[7].empty()) cents[f[0]] += std::llround(std::stod(f[7]) * 100);
  }
  EXPECT_EQ(kinds["dark"], (std::vector<std::string>{"charge", "idle_shared"}));
  EXPECT_EQ(cents["dark"], 50);
  // lit: $1.004 of T4 and $0.504 of idle make $1.51, printed as 1.00 + 0.50 + 0.01 rounding.
  EXPECT_EQ(kinds["lit"], (std::vector<std::string>{"charge", "idle_shared", "rounding"}));
  EXPECT_EQ(cents["lit"], 151);
  EXPECT_DOUBLE_EQ(team["lit"]["total_usd"].get<double>(), 1.51);
}

// Efficiency of a team nothing of which was measured is unknown: not rated, never "missed".
TEST(Formats, AnUnknownEfficiencyIsNotRated) {
  StatementBuilder b(October(), {});
  b.Add(Labels("blind", "x", "Tesla T4", "spot"), Amounts(Day(3), 2, 0.35, NAN));
  b.Add(Labels("seen", "y", "Tesla T4", "spot"), Amounts(Day(3), 2, 0.35, 0.5));
  auto set = b.Finish({});
  ASSERT_TRUE(set.ok()) << set.status().ToString();
  const std::string text = RenderStatementsToString(*set, StatementFormat::kText);
  EXPECT_NE(text.find("efficiency unknown (target > 80%, not rated)"), std::string::npos) << text;
  EXPECT_NE(text.find("efficiency 50.0% (target > 80%, missed)"), std::string::npos) << text;
  const nlohmann::json doc =
      nlohmann::json::parse(RenderStatementsToString(*set, StatementFormat::kJson));
  std::map<std::string, nlohmann::json> team;
  for (const nlohmann::json& st : doc["statements"]) team[st["team"].get<std::string>()] = st;
  EXPECT_TRUE(team["blind"]["efficiency_met"].is_null()) << team["blind"].dump();
  EXPECT_EQ(team["seen"]["efficiency_met"], false);
}

// Tags outside <style>, in order, must nest: every opened element is closed, except void ones.
// (A hand scan rather than std::regex, whose GCC 12 implementation trips -Wmaybe-uninitialized
// in the sanitizer build.)
bool TagsNest(const std::string& html, std::string& why) {
  static const std::vector<std::string> kVoid = {"meta", "br", "hr", "img", "input", "link"};
  auto is_alpha = [](char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); };
  auto is_alnum = [&](char c) { return is_alpha(c) || (c >= '0' && c <= '9'); };
  std::vector<std::string> open;
  for (size_t lt = html.find('<'); lt != std::string::npos; lt = html.find('<', lt + 1)) {
    size_t p = lt + 1;
    const bool closing = p < html.size() && html[p] == '/';
    if (closing) ++p;
    if (p >= html.size() || !is_alpha(html[p])) continue;  // <!DOCTYPE, comments, text
    const size_t name_start = p;
    while (p < html.size() && is_alnum(html[p])) ++p;
    const std::string name = html.substr(name_start, p - name_start);
    const size_t gt = html.find('>', p);
    if (gt == std::string::npos) {
      why = "unterminated <" + name;
      return false;
    }
    const bool self_closing = html[gt - 1] == '/';
    if (closing) {
      if (open.empty() || open.back() != name) {
        why = "unexpected </" + name + ">";
        return false;
      }
      open.pop_back();
    } else if (!self_closing && std::find(kVoid.begin(), kVoid.end(), name) == kVoid.end()) {
      open.push_back(name);
    }
  }
  why = open.empty() ? "" : "unclosed <" + open.back() + ">";
  return open.empty();
}

TEST(HtmlRenderer, OneSelfContainedDocumentWithCharts) {
  const std::string html = RenderStatementsToString(Sample(), StatementFormat::kHtml);
  EXPECT_EQ(html.rfind("<!DOCTYPE html>\n<html", 0), 0u);
  EXPECT_EQ(html.find("<!DOCTYPE", 1), std::string::npos);
  EXPECT_EQ(html.find("<html", html.find("<html") + 1), std::string::npos);
  EXPECT_EQ(html.substr(html.size() - 8), "</html>\n");
  // Nothing fetched: no scripts, no links, no remote references of any kind.
  for (const char* banned : {"<script", "<link", "<iframe", "<img", "@import", "url(", "http://",
                             "https://", "//cdn", "src="}) {
    EXPECT_EQ(html.find(banned), std::string::npos) << banned;
  }
  EXPECT_NE(html.find("<style>"), std::string::npos);
  std::string why;
  EXPECT_TRUE(TagsNest(html, why)) << why;
  // Per team: the daily chart and the by-workload chart.
  size_t svgs = 0;
  for (size_t p = html.find("<svg"); p != std::string::npos; p = html.find("<svg", p + 1)) ++svgs;
  EXPECT_EQ(svgs, 4u);
  EXPECT_NE(html.find("Allocated cost by day"), std::string::npos);
  EXPECT_NE(html.find("Allocated cost by workload"), std::string::npos);
  // Names are escaped, never markup.
  EXPECT_EQ(html.find("<b>&amp;"), std::string::npos);
  EXPECT_NE(html.find("&lt;b&gt;&amp;amp;"), std::string::npos);
  EXPECT_NE(html.find("<td class=\"n\">$55.00 + unknown (4.0 hrs have no price)</td>"),
            std::string::npos)
      << html;
}

// A team none of whose hours has a price: no chart of dollars that would all be $0, a sentence
// saying why instead, and an efficiency that says it comes from the hours.
TEST(HtmlRenderer, AnUnpricedTeamGetsNoEmptyChartAndSaysWhereItsEfficiencyComesFrom) {
  StatementBuilder b(October(), {});
  b.Add(Labels("priced", "a", "Tesla T4", "spot"), Amounts(Day(2), 10, 0.35, 0.5));
  b.Add(Labels("unpriced", "b", "NVIDIA H100 80GB HBM3", "on_demand"),
        Amounts(Day(3), 6, NAN, 0.9));
  b.Add(Labels("unpriced", "c", "NVIDIA H100 80GB HBM3", "on_demand"),
        Amounts(Day(4), 4, NAN, 0.9));
  auto set = b.Finish({});
  ASSERT_TRUE(set.ok()) << set.status().ToString();
  const std::string html = RenderStatementsToString(*set, StatementFormat::kHtml);
  const size_t unpriced = html.find("<h2>Monthly GPU Report — unpriced</h2>");
  ASSERT_NE(unpriced, std::string::npos) << html;
  const std::string priced_part = html.substr(0, unpriced);
  const std::string unpriced_part =
      html.substr(unpriced, html.find("</section>", unpriced) - unpriced);
  EXPECT_NE(priced_part.find("<svg"), std::string::npos);
  EXPECT_EQ(unpriced_part.find("<svg"), std::string::npos) << unpriced_part;
  EXPECT_NE(unpriced_part.find("No cost charts: none of the team's 10.0 hrs has a price"),
            std::string::npos)
      << unpriced_part;
  EXPECT_NE(unpriced_part.find("<dd>90.0% (target &gt; 80%), of GPU-hours: no price</dd>"),
            std::string::npos)
      << unpriced_part;
  // Its consumers are still listed, with unknown money.
  EXPECT_NE(unpriced_part.find("Top consumers"), std::string::npos);
  // The priced team's efficiency is money's, said as before.
  EXPECT_EQ(priced_part.find("of GPU-hours"), std::string::npos);
  std::string why;
  EXPECT_TRUE(TagsNest(html, why)) << why;
}

// Team, workload and GPU model names that are not UTF-8 or hold control characters (bytes from
// outside): every format is UTF-8 with U+FFFD for them, JSON parses, HTML still escapes markup
// and carries no control character (XML refuses one, so the SVG would not show).
TEST(Formats, NamesThatAreNotUtf8PrintAsReplacementCharacters) {
  StatementBuilder b(October(), {});
  b.Add(Labels("re\xffsearch", "\x1b[2Jwipe\n", "NVIDIA A100\xfe", "spot"),
        Amounts(Day(2), 10, 3.06, 0.9));
  b.Add(Labels("<i>\xc3", "x", "Tesla T4", "on_demand"), Amounts(Day(3), 1, 1.0, 0.5));
  const Result<StatementSet> set = b.Finish({});
  ASSERT_TRUE(set.ok()) << set.status().ToString();
  const std::string fffd = "\xEF\xBF\xBD";
  for (StatementFormat f :
       {StatementFormat::kText, StatementFormat::kMarkdown, StatementFormat::kCsv,
        StatementFormat::kJson, StatementFormat::kHtml}) {
    std::string out;
    ASSERT_NO_THROW(out = RenderStatementsToString(*set, f)) << static_cast<int>(f);
    EXPECT_TRUE(testing_util::IsUtf8(out)) << out;
    EXPECT_NE(out.find("re" + fffd + "search"), std::string::npos) << out;
    if (f != StatementFormat::kJson && f != StatementFormat::kCsv) {
      EXPECT_EQ(out.find('\x1b'), std::string::npos) << out;
    }
  }
  const std::string html = RenderStatementsToString(*set, StatementFormat::kHtml);
  EXPECT_NE(html.find("&lt;i&gt;" + fffd), std::string::npos) << html;
  EXPECT_NE(html.find(fffd + "[2Jwipe" + fffd), std::string::npos) << html;
  std::string why;
  EXPECT_TRUE(TagsNest(html, why)) << why;
  const nlohmann::json doc =
      nlohmann::json::parse(RenderStatementsToString(*set, StatementFormat::kJson));
  EXPECT_NE(doc.dump().find("re" + fffd + "search"), std::string::npos) << doc.dump(2);
}

TEST(Formats, NamesParse) {
  EXPECT_EQ(*ParseStatementFormat("md"), StatementFormat::kMarkdown);
  EXPECT_EQ(*ParseStatementFormat("html"), StatementFormat::kHtml);
  auto bad = ParseStatementFormat("pdf");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().ToString().find("text, markdown, csv, json, html"), std::string::npos);
}

// A bar's total past what a figure keeps exact prints "out of range", never a wrapped or made-up
// amount; an ordinary one rounds as every other figure does (1.005 is 1.00499... in binary, and
// 100.49999... cents: $1.01 by the one rounding rule, as the statement beside it prints it).
TEST(SvgChart, AFigureRoundsAsTheStatementDoesAndPastRangeSaysSo) {
  const std::vector<ChartSeries> series = {{"effective", "#2b7a4b"}};
  const std::string svg = BarChart(series, {{"huge", {1e300}, false}, {"ok", {1.005}, false}}, "t");
  EXPECT_NE(svg.find("out of range"), std::string::npos) << svg;
  EXPECT_EQ(svg.find("-$"), std::string::npos) << svg;
  EXPECT_NE(svg.find("$1.01"), std::string::npos) << svg;
}

}  // namespace
}  // namespace gpucost::chargeback
