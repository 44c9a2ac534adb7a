#include "alerts/render.h"

#include <cmath>
#include <cstdio>
#include <nlohmann/json.hpp>

#include "core/strings.h"

namespace gpucost::alerts {
namespace {

using Json = nlohmann::ordered_json;

Json Number(double v) { return std::isfinite(v) ? Json(v) : Json(nullptr); }

std::string Pad(std::string s, size_t width) {
  // Widths count code points so that "—" and friends line up.
  size_t n = 0;
  for (unsigned char c : s) n += (c & 0xC0) != 0x80;
  if (n < width) s.append(width - n, ' ');
  return s;
}

std::string Fixed(double v, int decimals) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
  return buf;
}

std::string Money(const TeamBudget& b, double usd, bool exact) {
  if (!std::isfinite(usd) || (!exact && !b.amounts_known())) return "unknown";
  return exact ? FormatUsd(usd) : StrCat(FormatUsd(usd), " + unknown");
}

std::string BudgetState(const TeamBudget& b) {
  if (!b.budget_usd) return "no budget";
  if (!b.amounts_known()) return "unknown";
  if (b.over()) return "over";
  return b.exact() ? "ok" : "ok so far (some prices unknown)";
}

void Text(const AlertReport& r, std::ostream& out) {
  out << "Alerts at " << FormatRfc3339(r.as_of) << " (data from " << FormatRfc3339(r.window.start)
      << "): ";
  if (r.alerts.empty()) {
    out << "none firing\n";
  } else {
    out << r.alerts.size() << " firing\n";
  }
  for (const Alert& a : r.alerts) {
    out << Pad(a.severity, 8) << " " << a.alertname << ": " << a.summary << "\n";
    std::vector<std::string> labels;
    for (const auto& [k, v] : a.labels) labels.push_back(StrCat(k, "=", v));
    out << "         " << Join(labels, " ") << "; since " << FormatRfc3339(a.starts_at) << "\n";
    out << "         " << a.description << "\n";
  }
  if (!r.budgets) return;
  const BudgetTable& t = *r.budgets;
  out << "\nBudgets for " << MonthName(t.month.start) << " (as of " << FormatRfc3339(t.as_of);
  if (!t.teams.empty()) {
    const BudgetForecast& f = t.teams.front().forecast;
    out << "; run rate over the last " << Fixed(f.rate_days, 2) << " days, "
        << Fixed(f.remaining_days, 2) << " days left";
    if (f.partial_month) out << "; month-to-date counts from " << FormatRfc3339(r.window.start);
  }
  out << ")\n";
  std::vector<std::vector<std::string>> rows = {
      {"team", "budget", "month-to-date", "forecast", "of budget", "status"}};
  for (const TeamBudget& b : t.teams) {
    std::string ratio = "-";
    if (b.budget_usd && *b.budget_usd > 0 && b.amounts_known() &&
        std::isfinite(b.forecast.forecast_usd)) {
      ratio = Fixed(100 * b.forecast.forecast_usd / *b.budget_usd, 1) + "%";
    }
    rows.push_back({b.team, b.budget_usd ? FormatUsd(*b.budget_usd) : "-",
                    Money(b, b.month_to_date_usd, b.month_exact()),
                    Money(b, b.forecast.forecast_usd, b.exact()), ratio, BudgetState(b)});
  }
  std::vector<size_t> width(rows.front().size(), 0);
  for (const auto& row : rows) {
    for (size_t i = 0; i < row.size(); ++i) width[i] = std::max(width[i], row[i].size());
  }
  for (const auto& row : rows) {
    std::string line;
    for (size_t i = 0; i < row.size(); ++i) {
      line += i + 1 == row.size() ? row[i] : Pad(row[i], width[i] + 2);
    }
    out << line << "\n";
  }
}

void JsonOut(const AlertReport& r, const AlertSettings& settings, std::ostream& out) {
  Json doc;
  doc["as_of"] = FormatRfc3339(r.as_of);
  doc["window"] = {{"start", FormatRfc3339(r.window.start)}, {"end", FormatRfc3339(r.window.end)}};
  Json s = Json::object();
  for (const SettingDef& d : AlertSettingDefs())
    s[std::string(d.name)] = SettingText(settings, d.name);
  doc["settings"] = s;
  doc["firing"] = r.alerts.size();
  Json alerts = Json::array();
  for (const Alert& a : r.alerts) {
    Json j;
    j["alertname"] = a.alertname;
    j["severity"] = a.severity;
    j["labels"] = a.labels;
    j["annotations"] = {{"summary", a.summary}, {"description", a.description}};
    j["starts_at"] = FormatRfc3339(a.starts_at);
    j["value"] = Number(a.value);
    alerts.push_back(std::move(j));
  }
  doc["alerts"] = std::move(alerts);
  if (r.budgets) {
    const BudgetTable& t = *r.budgets;
    Json b;
    b["month"] = MonthName(t.month.start);
    b["month_start"] = FormatRfc3339(t.month.start);
    b["month_end"] = FormatRfc3339(t.month.end);
    b["as_of"] = FormatRfc3339(t.as_of);
    Json teams = Json::array();
    for (const TeamBudget& tb : t.teams) {
      const bool known = tb.amounts_known();
      const BudgetForecast& f = tb.forecast;
      Json j;
      j["team"] = tb.team;
      j["budget_usd"] = tb.budget_usd ? Json(*tb.budget_usd) : Json(nullptr);
      j["month_to_date_usd"] =
          known || tb.month_exact() ? Json(tb.month_to_date_usd) : Json(nullptr);
      j["run_rate_usd_per_day"] = known ? Number(f.run_rate_usd_per_day) : Json(nullptr);
      j["forecast_usd"] = known ? Number(f.forecast_usd) : Json(nullptr);
      j["rate_window_start"] = FormatRfc3339(f.rate_window.start);
      j["rate_days"] = f.rate_days;
      j["remaining_days"] = f.remaining_days;
      j["partial_month"] = f.partial_month;
      j["prices_known"] = tb.exact();
      j["unpriced_gpu_hours"] = tb.unpriced_gpu_hours;
      j["month_to_date_unpriced_gpu_hours"] = tb.month_unpriced_gpu_hours;
      j["over_budget"] = tb.over();
      teams.push_back(std::move(j));
    }
    b["teams"] = std::move(teams);
    doc["budgets"] = std::move(b);
  } else {
    doc["budgets"] = nullptr;
  }
  out << doc.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
}

}  // namespace

Result<AlertFormat> ParseAlertFormat(std::string_view text) {
  if (text == "text") return AlertFormat::kText;
  if (text == "json") return AlertFormat::kJson;
  return Status::InvalidArgument(StrCat("--format \"", text, "\": expected text or json"));
}

void RenderAlerts(const AlertReport& report, const AlertSettings& settings, AlertFormat format,
                  std::ostream& out) {
  if (format == AlertFormat::kJson) {
    JsonOut(report, settings, out);
  } else {
    Text(report, out);
  }
}

}  // namespace gpucost::alerts
