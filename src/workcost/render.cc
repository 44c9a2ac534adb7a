#include "workcost/render.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/money.h"
#include "core/strings.h"

namespace gpucost::workcost {
namespace {

std::string Fixed(double v, int decimals) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
  return buf;
}

std::string Money(double usd, int decimals) {
  if (!std::isfinite(usd)) return "unknown";
  return FormatDollarUnits(RoundUnits(usd, decimals), decimals);
}

std::string Work(double w) {
  return w == std::floor(w) && std::fabs(w) < 1e15 ? Fixed(w, 0) : Fixed(w, 3);
}

// 1000 -> "1000", 1e6 -> "1M", 2.5 -> "2.5".
std::string PerText(double per) {
  if (per >= 1e6 && per < 1e15 && std::fmod(per, 1e6) == 0) return Fixed(per / 1e6, 0) + "M";
  if (per == std::floor(per) && per < 1e6) return Fixed(per, 0);
  return FormatDouble(per);
}

void Text(const UnitCostTable& t, std::ostream& out) {
  const UnitCostSettings& s = t.settings;
  const std::string per = PerText(s.per);
  out << "Cost per " << per << " " << s.unit << " (" << s.metric << "), "
      << FormatRfc3339(s.window.start) << " to " << FormatRfc3339(s.window.end);
  if (!s.workload_kind.empty()) out << ", workload kind " << s.workload_kind;
  out << "\n";
  std::vector<std::string> header = t.columns;
  const size_t keys = header.size();
  for (const char* h : {"work", "gpu_hours", "allocated", "effective"}) header.emplace_back(h);
  header.push_back("$/" + per + " " + s.unit);
  header.push_back("effective $/" + per);
  header.push_back("GPU-h/" + per);
  std::vector<std::vector<std::string>> cells;
  auto add = [&](const std::vector<std::string>& key, const UnitCostRow& r) {
    std::vector<std::string> line = key;
    line.push_back(Work(r.work));
    line.push_back(Fixed(r.gpu_hours, 3));
    line.push_back(Money(r.allocated_usd, 2));
    line.push_back(Money(r.effective_usd, 2));
    line.push_back(Money(r.allocated_usd_per_n, 4));
    line.push_back(Money(r.effective_usd_per_n, 4));
    line.push_back(std::isfinite(r.gpu_hours_per_n) ? Fixed(r.gpu_hours_per_n, 4) : "unknown");
    cells.push_back(std::move(line));
  };
  for (const UnitCostRow& r : t.rows) add(r.keys, r);
  std::vector<std::string> total_key(keys, "");
  if (keys > 0) total_key[0] = "TOTAL";
  add(total_key, t.totals);

  std::vector<size_t> width(header.size());
  for (size_t c = 0; c < header.size(); ++c) {
    width[c] = header[c].size();
    for (const auto& line : cells) width[c] = std::max(width[c], line[c].size());
  }
  auto print = [&](const std::vector<std::string>& line) {
    std::string text;
    for (size_t c = 0; c < line.size(); ++c) {
      const std::string pad(width[c] - line[c].size(), ' ');
      text += c < keys ? line[c] + pad : pad + line[c];  // keys left, numbers right
      if (c + 1 < line.size()) text += "  ";
    }
    while (!text.empty() && text.back() == ' ') text.pop_back();
    out << text << "\n";
  };
  print(header);
  for (const auto& line : cells) print(line);
  if (t.unmatched_series > 0) {
    out << "Not joined to a GPU holder: " << Work(t.unmatched_work) << " " << s.unit << " in "
        << t.unmatched_series << " series\n";
  }
}

std::string CsvNumber(double v) { return std::isfinite(v) ? FormatDouble(v) : ""; }

const char* const kNumberColumns[] = {"work",
                                      "gpu_hours",
                                      "allocated_usd",
                                      "effective_usd",
                                      "unmeasured_gpu_hours",
                                      "unpriced_gpu_hours",
                                      "allocated_usd_per_n",
                                      "effective_usd_per_n",
                                      "gpu_hours_per_n",
                                      "series",
                                      "resets"};

std::vector<double> Numbers(const UnitCostRow& r) {
  return {r.work,
          r.gpu_hours,
          r.allocated_usd,
          r.effective_usd,
          r.unmeasured_gpu_hours,
          r.unpriced_gpu_hours,
          r.allocated_usd_per_n,
          r.effective_usd_per_n,
          r.gpu_hours_per_n,
          static_cast<double>(r.series),
          static_cast<double>(r.resets)};
}

void Csv(const UnitCostTable& t, std::ostream& out) {
  std::vector<std::string> header = t.columns;
  for (const char* c : kNumberColumns) header.emplace_back(c);
  out << Join(header, ",") << "\n";
  for (const UnitCostRow& r : t.rows) {
    std::vector<std::string> line;
    for (const std::string& k : r.keys) line.push_back(CsvField(k));
    for (double v : Numbers(r)) line.push_back(CsvNumber(v));
    out << Join(line, ",") << "\n";
  }
}

nlohmann::json JsonNumber(double v) { return std::isfinite(v) ? nlohmann::json(v) : nullptr; }

nlohmann::json JsonRow(const UnitCostRow& r, const std::vector<std::string>& columns) {
  nlohmann::json row = nlohmann::json::object();
  for (size_t i = 0; i < columns.size() && i < r.keys.size(); ++i) row[columns[i]] = r.keys[i];
  const std::vector<double> numbers = Numbers(r);
  for (size_t i = 0; i < numbers.size(); ++i) row[kNumberColumns[i]] = JsonNumber(numbers[i]);
  row["series"] = r.series;
  row["resets"] = r.resets;
  return row;
}

void Json(const UnitCostTable& t, std::ostream& out) {
  const UnitCostSettings& s = t.settings;
  nlohmann::json doc;
  doc["window"] = {{"start", FormatRfc3339(s.window.start)}, {"end", FormatRfc3339(s.window.end)}};
  doc["work_metric"] = s.metric;
  doc["per"] = s.per;
  doc["unit"] = s.unit;
  doc["by"] = t.columns;
  if (!s.workload_kind.empty()) doc["workload_kind"] = s.workload_kind;
  doc["rows"] = nlohmann::json::array();
  for (const UnitCostRow& r : t.rows) doc["rows"].push_back(JsonRow(r, t.columns));
  doc["totals"] = JsonRow(t.totals, {});
  doc["unmatched"] = {{"work", t.unmatched_work}, {"series", t.unmatched_series}};
  out << doc.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
}

}  // namespace

Result<UnitCostFormat> ParseUnitCostFormat(std::string_view name) {
  if (name == "text") return UnitCostFormat::kText;
  if (name == "csv") return UnitCostFormat::kCsv;
  if (name == "json") return UnitCostFormat::kJson;
  return Status::InvalidArgument(StrCat("--format: \"", name, "\" is not text, csv or json"));
}

void RenderUnitCost(const UnitCostTable& table, UnitCostFormat format, std::ostream& out) {
  switch (format) {
    case UnitCostFormat::kText:
      return Text(table, out);
    case UnitCostFormat::kCsv:
      return Csv(table, out);
    case UnitCostFormat::kJson:
      return Json(table, out);
  }
}

}  // namespace gpucost::workcost
