#include "chargeback/statement_text.h"

#include <algorithm>
#include <cmath>
#include <optional>

#include "chargeback/format.h"
#include "core/money.h"
#include "core/strings.h"
#include "core/utf8.h"

namespace gpucost::chargeback {
namespace {

// An unknown value (nothing measured) is not rated: it neither meets a target nor misses it.
std::string Target(double value, double target) {
  if (!std::isfinite(value)) return StrCat("(target > ", FormatTarget(target), ", not rated)");
  return StrCat("(target > ", FormatTarget(target), value > target ? ")" : ", missed)");
}

// Priced money, and a note when part of it has no price.
std::string Money(std::optional<int64_t> cents, bool some_unpriced) {
  if (!cents) return "unknown";
  return some_unpriced ? FormatCents(*cents) + " + unknown" : FormatCents(*cents);
}

}  // namespace

StatementText DescribeStatement(const StatementSet& set, const Statement& s) {
  const RoundedStatement r = RoundStatement(s);
  const ChargeTotals& t = s.totals;
  const ChargebackSettings& cfg = set.settings;
  const int hd = r.hours_decimals;
  StatementText out;
  // A statement of GPUs says GPU-hours; one with AWS Neuron devices says accelerator-hours.
  const HoursNoun noun = HoursNounOf(s);
  out.hours_heading = noun.HoursCapitalised();
  out.hrs = noun.Hrs();
  out.thing = noun.Thing();
  const std::string_view report =
      noun.accelerators ? (noun.gpus ? "GPU and Accelerator Report" : "Accelerator Report")
                        : "GPU Report";
  // Names are bytes from outside: they print as PrintableText (core/utf8.h), as in every format.
  out.title =
      StrCat(set.period.month.empty() ? "" : "Monthly ", report, " — ", PrintableText(s.team));
  out.period =
      StrCat(FormatRfc3339(set.period.window.start), " to ", FormatRfc3339(set.period.window.end));
  if (set.covered && !(*set.covered == set.period.window)) {
    const Window& c = *set.covered;
    out.period += c.empty() ? " (the input has no data in this period: nothing is charged)"
                            : StrCat(" (data covers ", FormatRfc3339(c.start), " to ",
                                     FormatRfc3339(c.end), " only; the rest is not charged)");
  }
  out.readable_period = FormatReadablePeriod(set.period.window);
  if (set.covered && !(*set.covered == set.period.window)) {
    const Window& c = *set.covered;
    out.readable_period += c.empty() ? " (no data in this period: nothing is charged)"
                                     : StrCat(" (data covers ", FormatReadablePeriod(c),
                                              " only; the rest is not charged)");
  }
  out.hours = FormatUnits(r.total_hours, hd) + " hrs";

  const std::vector<std::string> labels = LineLabels(s);
  const int rate_decimals = StatementRateDecimals(set);
  for (size_t i = 0; i < s.lines.size(); ++i) {
    out.lines.push_back({PrintableText(labels[i]),
                         FormatUnits(r.line_hours[i], r.line_hours_decimals[i]),
                         FormatRate(s.lines[i].rate_usd_per_gpu_hour, rate_decimals),
                         r.line_cents[i] ? FormatCents(*r.line_cents[i]) : "unknown"});
  }
  if (s.shared_idle_usd != 0 && set.cluster) {
    out.shared_idle = FormatCents(r.shared_idle_cents);
    out.shared_idle_label =
        StrCat("Idle shared (", set.cluster->idle_policy, ", by ", set.cluster->idle_scope, ")");
  }
  if (r.rounding_cents != 0) {
    out.rounding = StrCat(r.rounding_cents > 0 ? "+" : "", FormatCents(r.rounding_cents));
  }
  out.total = FormatCents(r.total_cents);
  if (!s.total_known()) {
    out.total = StrCat("unknown (no price for ", out.hours, ")");
  } else if (!t.prices_known()) {
    out.total +=
        StrCat(" + unknown (", FormatHours(t.unpriced_gpu_hours, hd), " hrs have no price)");
  }

  // No idle hours cost nothing; idle hours that all lack a price cost an unknown amount.
  const bool idle_all_unpriced =
      t.idle_gpu_hours > 0 && t.idle_unpriced_gpu_hours >= t.idle_gpu_hours;
  const std::string idle_cost =
      Money(idle_all_unpriced ? std::nullopt : std::optional<int64_t>(r.idle_cents),
            t.idle_unpriced_gpu_hours > 0);
  const double efficiency = t.efficiency();
  // Idle hours that round to zero print as "<0.01", never as a zero beside a share that is not.
  const std::string idle_hours = r.idle_hours == 0 && t.idle_gpu_hours > 0
                                     ? FormatSmallAmount(t.idle_gpu_hours, hd)
                                     : FormatUnits(r.idle_hours, hd);
  out.efficiency = StrCat(std::isfinite(efficiency) ? FormatPercent(efficiency) : "unknown", " ",
                          Target(efficiency, cfg.efficiency_target));
  // With no priced hour, efficiency comes from the hours (docs/chargeback.md): say so, so that
  // a percent beside "unknown" money reads for what it is.
  if (!t.any_priced() && std::isfinite(efficiency))
    out.efficiency += StrCat(", of ", noun.Hours(), ": no price");
  out.waste =
      StrCat("idle ", noun.Hours(), " ", idle_hours, " hrs (", FormatPercent(t.idle_ratio()),
             "), idle cost ", idle_cost, ", efficiency ", out.efficiency);
  out.waste_detail = StrCat("utilization-weighted waste ", Money(r.waste_cents, false),
                            ", effective cost ", Money(r.effective_cents, false),
                            " (idle: utilization under ", FormatTarget(cfg.idle_threshold), ")");
  out.waste_usd = Money(r.waste_cents, false);
  out.effective_usd = Money(r.effective_cents, false);
  out.idle_time = StrCat(idle_hours, " hrs (", FormatPercent(t.idle_ratio()), ") under ",
                         FormatTarget(cfg.idle_threshold), " utilization");
  // Hours on capacity of unknown type are neither spot nor not: with no other, the ratio is
  // unknown and not rated, never "0.0%, missed".
  out.spot = std::isfinite(t.spot_ratio())
                 ? StrCat(FormatPercent(t.spot_ratio()), " ",
                          Target(t.spot_ratio(), cfg.spot_ratio_target))
                 : "unknown: no capacity type (spot or on-demand) is known for its nodes";
  if (r.unmeasured_hours > 0) {
    out.unmeasured = StrCat(FormatUnits(r.unmeasured_hours, hd),
                            " hrs had no usage sample: their cost is neither effective nor "
                            "waste, and efficiency is a lower bound");
  }

  const std::vector<std::string> names = WorkloadLabels(s);
  const size_t top = std::min(s.workloads.size(), static_cast<size_t>(std::max(0, cfg.top)));
  for (size_t i = 0; i < top; ++i) {
    out.consumers.push_back({static_cast<int>(i + 1), PrintableText(names[i]),
                             FormatUnits(r.workload_hours[i], hd),
                             Money(r.workload_cents[i], !s.workloads[i].totals.prices_known())});
  }
  return out;
}

ClusterText DescribeCluster(const StatementSet& set) {
  ClusterText out;
  if (!set.cluster) return out;
  const ClusterSummary& c = *set.cluster;
  const HoursNoun noun = HoursNounOf(c.unit_kind_hours);
  const std::string hrs = noun.Hrs();
  if (noun.accelerators) {
    out.total_label = StrCat("Total ", noun.gpus ? "GPU and accelerator" : "accelerator", " cost");
  }
  const Window w = set.covered ? *set.covered : set.period.window;
  out.title = StrCat("Cluster — ", FormatRfc3339(w.start), " to ", FormatRfc3339(w.end));
  const size_t n = set.statements.size();
  int64_t parts = 0;
  const auto add = [&](std::string label, const ClusterPart& part) {
    const std::optional<double> usd = part.Known();
    const std::optional<int64_t> cents =
        usd ? std::optional<int64_t>(RoundUnits(*usd, 2)) : std::nullopt;
    parts = AddUnits(parts, cents.value_or(0));
    out.parts.push_back({std::move(label), Money(cents, part.some_unpriced)});
  };
  add(StrCat(n == 1 ? "1 team's statement" : StrCat(n, " teams' statements")), c.stated_teams);
  if (c.other_teams.usd != 0 || c.other_teams.some_unpriced) add("Other teams", c.other_teams);
  const int hd = HoursDecimals(c.idle_gpu_hours);
  add(c.idle_policy == "separate"
          ? StrCat("Idle, charged to no team (", FormatHours(c.idle_gpu_hours, hd), " ", hrs, ")")
          : StrCat("Idle with no team to share it to"),
      c.idle);
  const std::optional<double> cost = c.cost.Known();
  const int64_t total = cost ? RoundUnits(*cost, 2) : 0;
  if (cost && total != parts) {
    out.parts.push_back({"Rounding", StrCat(total > parts ? "+" : "", FormatCents(total - parts))});
  }
  out.total = Money(cost ? std::optional<int64_t>(total) : std::nullopt, c.cost.some_unpriced);
  for (const auto& [source, hours] : c.price_sources) {
    out.prices += StrCat(out.prices.empty() ? "" : ", ", source, " ",
                         FormatHours(hours, HoursDecimals(hours)), " ", hrs);
  }
  if (c.unpriced_gpu_hours > 0) {
    out.note = StrCat(FormatHours(c.unpriced_gpu_hours, HoursDecimals(c.unpriced_gpu_hours)), " ",
                      hrs, " have no price and are in no figure above");
  }
  return out;
}

void WriteEachStatement(const StatementSet& set, std::ostream& out,
                        void (*write)(const StatementText&, std::ostream&)) {
  for (size_t i = 0; i < set.statements.size(); ++i) {
    if (i > 0) out << "\n";
    write(DescribeStatement(set, set.statements[i]), out);
  }
}

}  // namespace gpucost::chargeback
