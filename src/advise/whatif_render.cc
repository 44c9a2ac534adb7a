#include "advise/whatif_render.h"

#include <string>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "core/money.h"
#include "core/strings.h"

namespace gpucost::advise {
namespace {

using nlohmann::json;

std::string Cents(int64_t cents) {
  const char* sign = cents < 0 ? "-" : "";
  const int64_t a = cents < 0 ? -cents : cents;
  return fmt::format("{}{}.{:02d}", sign, a / 100, a % 100);
}

std::string Change(int64_t before, int64_t after) {
  if (before == 0) return "-";
  return fmt::format("{:+.1f}%", 100.0 * static_cast<double>(after - before) /
                                     static_cast<double>(before));
}

// Each figure rounded to the cent on its own (RoundUnits), the totals too: a team's "before" is
// the cents `gpucost report --by team` prints for it.
void Table(const std::string& title, const std::vector<CostRow>& rows, std::ostream& out) {
  std::vector<int64_t> b;
  std::vector<int64_t> a;
  CompensatedSum before;
  CompensatedSum after;
  for (const CostRow& r : rows) {
    b.push_back(RoundUnits(r.before_usd, 2));
    a.push_back(RoundUnits(r.after_usd, 2));
    before.Add(r.before_usd);
    after.Add(r.after_usd);
  }
  const int64_t before_total = RoundUnits(before.value(), 2);
  const int64_t after_total = RoundUnits(after.value(), 2);
  size_t width = title.size();
  for (const CostRow& r : rows) width = std::max(width, r.key.size());
  width = std::max<size_t>(width, 5);
  out << fmt::format("{:<{}}  {:>12}  {:>12}  {:>12}  {:>7}\n", title, width, "before_usd",
                     "after_usd", "change_usd", "change");
  for (size_t i = 0; i < rows.size(); ++i) {
    out << fmt::format("{:<{}}  {:>12}  {:>12}  {:>12}  {:>7}\n", rows[i].key, width, Cents(b[i]),
                       Cents(a[i]), Cents(a[i] - b[i]), Change(b[i], a[i]));
  }
  out << fmt::format("{:<{}}  {:>12}  {:>12}  {:>12}  {:>7}\n", "total", width,
                     Cents(before_total), Cents(after_total), Cents(after_total - before_total),
                     Change(before_total, after_total));
}

void RenderText(const Scenario& s, std::ostream& out) {
  std::string names;
  for (const PolicyEffect& p : s.policies) names += (names.empty() ? "" : ", ") + p.name;
  out << "What-if over " << FormatRfc3339(s.window.start) << " to " << FormatRfc3339(s.window.end)
      << ": " << names << "\n";
  if (s.unpriced_gpu_hours > 0) {
    out << fmt::format("{:.2f} GPU-hours had no known price and are in no figure below\n",
                       s.unpriced_gpu_hours);
  }
  out << "\n";
  Table("category", s.by_category, out);
  out << "\n";
  Table("team", s.by_team, out);
  out << "\n";
  std::vector<int64_t> cents;
  for (const PolicyEffect& p : s.policies) cents.push_back(RoundUnits(p.savings_usd, 2));
  size_t width = 6;
  for (const PolicyEffect& p : s.policies) width = std::max(width, p.name.size());
  out << fmt::format("{:<{}}  {:>12}  {:>9}  {}\n", "policy", width, "saves_usd", "workloads",
                     "assumes");
  for (size_t i = 0; i < s.policies.size(); ++i) {
    const PolicyEffect& p = s.policies[i];
    out << fmt::format("{:<{}}  {:>12}  {:>9}  {}\n", p.name, width, Cents(cents[i]), p.workloads,
                       p.note);
  }
}

json Rows(const std::vector<CostRow>& rows, const char* key) {
  json a = json::array();
  for (const CostRow& r : rows) {
    a.push_back({{key, r.key}, {"before_usd", r.before_usd}, {"after_usd", r.after_usd}});
  }
  return a;
}

void RenderJson(const Scenario& s, std::ostream& out) {
  json policies = json::array();
  for (const PolicyEffect& p : s.policies) {
    policies.push_back({{"policy", p.name},
                        {"savings_usd", p.savings_usd},
                        {"workloads", p.workloads},
                        {"note", p.note}});
  }
  json doc = {
      {"window", {{"start", FormatRfc3339(s.window.start)}, {"end", FormatRfc3339(s.window.end)}}},
      {"before_usd", s.before_usd},
      {"after_usd", s.after_usd},
      {"unpriced_gpu_hours", s.unpriced_gpu_hours},
      {"committed_gpus", s.committed_gpus},
      {"by_category", Rows(s.by_category, "category")},
      {"by_team", Rows(s.by_team, "team")},
      {"policies", std::move(policies)},
  };
  out << doc.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
}

}  // namespace

void RenderScenario(const Scenario& scenario, RecommendFormat format, std::ostream& out) {
  if (format == RecommendFormat::kJson) {
    RenderJson(scenario, out);
  } else {
    RenderText(scenario, out);
  }
}

}  // namespace gpucost::advise
