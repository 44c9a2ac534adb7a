#include "alerts/budgets.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>

#include "core/files.h"
#include "core/strings.h"
#include "core/yaml_keys.h"

namespace gpucost::alerts {
namespace {

constexpr double kMsPerDay = 86'400'000.0;

std::string Where(std::string_view source, const YAML::Node& node) {
  const YAML::Mark mark = node.Mark();
  if (mark.is_null()) return StrCat(source, ": ");
  return StrCat(source, ":", mark.line + 1, ": ");
}

Result<double> Amount(std::string_view source, const YAML::Node& node, std::string_view field) {
  if (!node.IsScalar()) {
    return Status::ParseError(StrCat(Where(source, node), field, ": expected an amount in USD"));
  }
  double v = 0;
  try {
    v = node.as<double>();
  } catch (const YAML::Exception&) {
    return Status::ParseError(StrCat(Where(source, node), field, ": not an amount in USD: \"",
                                     node.Scalar(), "\""));
  }
  if (!std::isfinite(v) || v < 0) {
    return Status::ParseError(StrCat(Where(source, node), field,
                                     ": must be a finite amount >= 0, got \"", node.Scalar(),
                                     "\""));
  }
  return v;
}

Result<BudgetFile> Read(std::string_view source, const YAML::Node& root) {
  if (!root.IsMap()) {
    return Status::ParseError(
        StrCat(Where(source, root), "expected a map with \"budgets\" (team: USD per month)"));
  }
  BudgetFile file;
  bool have_budgets = false;
  for (const auto& entry : root) {
    const std::string key = entry.first.Scalar();
    const YAML::Node value = entry.second;
    if (key == "budgets") {
      have_budgets = true;
      if (value.IsNull()) continue;
      if (!value.IsMap()) {
        return Status::ParseError(
            StrCat(Where(source, value), "budgets: expected a map of team: USD per month"));
      }
      for (const auto& team : value) {
        const std::string name = team.first.Scalar();
        if (name.empty()) {
          return Status::ParseError(StrCat(Where(source, team.first), "budgets: empty team name"));
        }
        GPUCOST_ASSIGN_OR_RETURN(double usd,
                                 Amount(source, team.second, StrCat("budgets.", name)));
        if (!file.budgets_usd.emplace(name, usd).second) {
          return Status::ParseError(
              StrCat(Where(source, team.first), "budgets.", name, ": listed twice"));
        }
      }
    } else if (key == "default") {
      GPUCOST_ASSIGN_OR_RETURN(file.default_usd, Amount(source, value, "default"));
    } else if (key == "currency") {
      if (!value.IsScalar() || value.Scalar() != "USD") {
        return Status::ParseError(
            StrCat(Where(source, value), "currency: only USD is supported"));
      }
    } else {
      return Status::ParseError(StrCat(Where(source, entry.first), "unknown field \"", key,
                                       "\" (expected budgets, default, currency)"));
    }
  }
  if (!have_budgets && !file.default_usd) {
    return Status::ParseError(StrCat(source, ": no \"budgets\" and no \"default\""));
  }
  return file;
}

}  // namespace

std::optional<double> BudgetFile::For(std::string_view team) const {
  if (auto it = budgets_usd.find(std::string(team)); it != budgets_usd.end()) return it->second;
  return default_usd;
}

Result<BudgetFile> ParseBudgets(std::string_view text, std::string_view source) {
  YAML::Node root;
  try {
    root = YAML::Load(std::string(text));
  } catch (const YAML::ParserException& e) {
    return Status::ParseError(StrCat(source, ":", e.mark.line + 1, ": ", e.msg));
  } catch (const YAML::Exception& e) {
    return Status::ParseError(StrCat(source, ": ", e.what()));
  }
  GPUCOST_RETURN_IF_ERROR(CheckUniqueYamlKeys(root, source));
  try {
    return Read(source, root);
  } catch (const YAML::Exception& e) {
    return Status::ParseError(StrCat(source, ": ", e.what()));
  }
}

Result<BudgetFile> LoadBudgets(const std::string& path) {
  Result<std::string> text = ReadWholeFile(path);
  if (!text.ok()) return text.status().WithContext("--budgets");
  return ParseBudgets(*text, path);
}

Window MonthOf(Instant t) {
  using namespace std::chrono;
  const year_month_day ymd{floor<days>(t)};
  const year_month first = ymd.year() / ymd.month();
  const sys_days start{first / day(1)};
  const sys_days end{(first + months(1)) / day(1)};
  return Window{time_point_cast<Duration>(start), time_point_cast<Duration>(end)};
}

std::string MonthName(Instant month_start) {
  using namespace std::chrono;
  const year_month_day ymd{floor<days>(month_start)};
  char buf[16];
  std::snprintf(buf, sizeof buf, "%04d-%02u", static_cast<int>(ymd.year()),
                static_cast<unsigned>(ymd.month()));
  return buf;
}

Window RateWindow(Instant as_of, Instant data_start, Duration lookback) {
  return Window{std::min(as_of, std::max(data_start, as_of - lookback)), as_of};
}

BudgetForecast Forecast(const ForecastInput& in) {
  BudgetForecast f;
  f.rate_window = RateWindow(in.as_of, in.data_start, in.lookback);
  f.rate_days = static_cast<double>(f.rate_window.length().count()) / kMsPerDay;
  f.remaining_days =
      std::max(0.0, static_cast<double>((in.month.end - in.as_of).count()) / kMsPerDay);
  f.partial_month = in.data_start > in.month.start;
  if (f.rate_days > 0) {
    f.run_rate_usd_per_day = in.recent_usd / f.rate_days;
    f.forecast_usd = in.month_to_date_usd + f.run_rate_usd_per_day * f.remaining_days;
  } else if (f.remaining_days == 0) {
    f.forecast_usd = in.month_to_date_usd;  // nothing left to forecast
  }
  return f;
}

}  // namespace gpucost::alerts
