#include "advise/whatif_render.h"

#include <fmt/format.h>

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "core/money.h"
#include "core/strings.h"

namespace gpucost::advise {
namespace {

using nlohmann::json;

// Grouped like every figure for people (FormatGroupedUnits); "-" for money that is unknown.
std::string Cents(std::optional<int64_t> cents) {
  return cents ? FormatGroupedUnits(*cents, 2) : "-";
}

std::string Change(std::optional<int64_t> before, std::optional<int64_t> after) {
  if (!before || !after || *before == 0) return "-";
  return fmt::format("{:+.1f}%",
                     100.0 * static_cast<double>(*after - *before) / static_cast<double>(*before));
}

std::optional<int64_t> Diff(std::optional<int64_t> a, std::optional<int64_t> b) {
  if (!a || !b) return std::nullopt;
  return *a - *b;
}

// Each figure rounded to the cent on its own (RoundUnits), the totals too: a team's "before" is
// the cents `gpucost report --by team` prints for it. A row whose hours have no price at all is
// unknown ("-"), never 0.00; one with some priced is its priced part "+ unknown", as chargeback
// prints it.
void Table(const std::string& title, const std::vector<CostRow>& rows, bool any_priced,
           std::ostream& out) {
  std::vector<std::optional<int64_t>> b;
  std::vector<std::optional<int64_t>> a;
  CompensatedSum before;
  CompensatedSum after;
  bool some_unpriced = false;
  for (const CostRow& r : rows) {
    const bool known = r.known();
    b.push_back(known ? std::optional<int64_t>(RoundUnits(r.before_usd, 2)) : std::nullopt);
    a.push_back(known ? std::optional<int64_t>(RoundUnits(r.after_usd, 2)) : std::nullopt);
    before.Add(r.before_usd);
    after.Add(r.after_usd);
    some_unpriced |= r.some_unpriced;
  }
  const bool total_known = any_priced || !some_unpriced;
  const std::optional<int64_t> before_total =
      total_known ? std::optional<int64_t>(RoundUnits(before.value(), 2)) : std::nullopt;
  const std::optional<int64_t> after_total =
      total_known ? std::optional<int64_t>(RoundUnits(after.value(), 2)) : std::nullopt;
  size_t width = title.size();
  for (const CostRow& r : rows) width = std::max(width, r.key.size());
  width = std::max<size_t>(width, 5);
  out << fmt::format("{:<{}}  {:>12}  {:>12}  {:>12}  {:>7}\n", title, width, "before_usd",
                     "after_usd", "change_usd", "change");
  const auto part = [](bool partly) { return partly ? "  + unknown" : ""; };
  for (size_t i = 0; i < rows.size(); ++i) {
    out << fmt::format("{:<{}}  {:>12}  {:>12}  {:>12}  {:>7}{}\n", rows[i].key, width, Cents(b[i]),
                       Cents(a[i]), Cents(Diff(a[i], b[i])), Change(b[i], a[i]),
                       part(b[i] && rows[i].some_unpriced));
  }
  out << fmt::format("{:<{}}  {:>12}  {:>12}  {:>12}  {:>7}{}\n", "total", width,
                     Cents(before_total), Cents(after_total),
                     Cents(Diff(after_total, before_total)), Change(before_total, after_total),
                     part(before_total && some_unpriced));
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
  Table("category", s.by_category, s.any_priced, out);
  out << "\n";
  Table("team", s.by_team, s.any_priced, out);
  out << "\n";
  std::vector<std::optional<int64_t>> cents;
  for (const PolicyEffect& p : s.policies) {
    // Nothing priced it could change, only unpriced work: its savings are unknown, not 0.
    const bool unknown = p.workloads == 0 && p.unpriced_workloads > 0;
    cents.push_back(unknown ? std::nullopt : std::optional<int64_t>(RoundUnits(p.savings_usd, 2)));
  }
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
    const bool known = r.known();
    a.push_back({{key, r.key},
                 {"before_usd", known ? json(r.before_usd) : json(nullptr)},
                 {"after_usd", known ? json(r.after_usd) : json(nullptr)},
                 {"prices_known", !r.some_unpriced}});
  }
  return a;
}

void RenderJson(const Scenario& s, std::ostream& out) {
  const bool total_known = s.any_priced || s.unpriced_gpu_hours <= 0;
  json policies = json::array();
  for (const PolicyEffect& p : s.policies) {
    policies.push_back(
        {{"policy", p.name},
         {"savings_usd",
          p.workloads == 0 && p.unpriced_workloads > 0 ? json(nullptr) : json(p.savings_usd)},
         {"workloads", p.workloads},
         {"unpriced_workloads", p.unpriced_workloads},
         {"note", p.note}});
  }
  json doc = {
      {"window", {{"start", FormatRfc3339(s.window.start)}, {"end", FormatRfc3339(s.window.end)}}},
      {"before_usd", total_known ? json(s.before_usd) : json(nullptr)},
      {"after_usd", total_known ? json(s.after_usd) : json(nullptr)},
      {"prices_known", s.unpriced_gpu_hours <= 0},
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
