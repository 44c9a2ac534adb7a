// docs/metrics.md lists exactly the metric catalogue (metric_catalog.h): the same names in the
// same order, with the same type, labels and help, so the two cannot drift. On a mismatch the
// test prints the table the catalogue implies.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "monitoring/metric_catalog.h"

namespace gpucost::monitoring {
namespace {

struct DocRow {
  std::string name, type, labels, help;
  friend bool operator==(const DocRow&, const DocRow&) = default;
};

std::string Trimmed(std::string s) {
  while (!s.empty() && s.front() == ' ') s.erase(s.begin());
  while (!s.empty() && s.back() == ' ') s.pop_back();
  return s;
}

std::string Unquote(std::string s) {
  if (s.size() >= 2 && s.front() == '`' && s.back() == '`') return s.substr(1, s.size() - 2);
  return s;
}

// The rows of the table whose first cell is a `gpucost_...` metric name.
std::vector<DocRow> DocRows(const std::string& text) {
  std::vector<DocRow> rows;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    if (!line.starts_with("| `gpucost_")) continue;
    std::vector<std::string> cells;
    size_t start = 1;
    for (size_t bar = line.find('|', start); bar != std::string::npos;
         bar = line.find('|', start)) {
      cells.push_back(Trimmed(line.substr(start, bar - start)));
      start = bar + 1;
    }
    if (cells.size() != 4) {
      ADD_FAILURE() << "docs/metrics.md: row with " << cells.size() << " cells: " << line;
      continue;
    }
    rows.push_back({Unquote(cells[0]), cells[1], cells[2], cells[3]});
  }
  return rows;
}

std::vector<DocRow> CatalogRows() {
  std::vector<DocRow> rows;
  for (const MetricDef& m : MetricCatalog()) {
    DocRow r;
    r.name = std::string(m.name);
    r.type = m.type == MetricType::kCounter ? "counter" : "gauge";
    for (std::string_view l : m.labels) {
      if (!r.labels.empty()) r.labels += ", ";
      r.labels += "`" + std::string(l) + "`";
    }
    if (r.labels.empty()) r.labels = "(none)";
    r.help = std::string(m.help);
    rows.push_back(r);
  }
  return rows;
}

std::string Table(const std::vector<DocRow>& rows) {
  std::string out = "| metric | type | labels | help |\n|---|---|---|---|\n";
  for (const DocRow& r : rows) {
    out += "| `" + r.name + "` | " + r.type + " | " + r.labels + " | " + r.help + " |\n";
  }
  return out;
}

TEST(MetricsDoc, ListsExactlyTheCatalogue) {
  std::ifstream in(std::string(GPUCOST_SOURCE_DIR) + "/docs/metrics.md");
  ASSERT_TRUE(in.good()) << "docs/metrics.md is missing";
  std::stringstream text;
  text << in.rdbuf();
  const std::vector<DocRow> doc = DocRows(text.str());
  const std::vector<DocRow> want = CatalogRows();
  ASSERT_FALSE(want.empty());
  EXPECT_EQ(doc, want) << "docs/metrics.md's table differs from the catalogue; it should be:\n"
                       << Table(want);
}

TEST(MetricsDoc, CatalogueNamesAreUniqueAndFollowPrometheusConventions) {
  std::vector<std::string> names;
  for (const MetricDef& m : MetricCatalog()) {
    const std::string name(m.name);
    EXPECT_TRUE(name.starts_with("gpucost_")) << name;
    EXPECT_EQ(m.type == MetricType::kCounter, name.ends_with("_total")) << name;
    EXPECT_EQ(FindMetric(name), &m) << name << " is listed twice";
    EXPECT_FALSE(m.help.empty()) << name;
  }
}

}  // namespace
}  // namespace gpucost::monitoring
