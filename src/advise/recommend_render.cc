#include "advise/recommend_render.h"

#include <fmt/format.h>

#include <chrono>
#include <cmath>
#include <nlohmann/json.hpp>
#include <string>

#include "core/money.h"
#include "core/strings.h"

namespace gpucost::advise {
namespace {

using nlohmann::json;

std::string UsdText(double v) { return FormatUsd(v); }
std::string PctText(double v) { return std::isnan(v) ? "-" : fmt::format("{:.1f}%", v * 100); }
json JsonNum(double v) { return std::isfinite(v) ? json(v) : json(nullptr); }

// A workload's name, or how many one-off Jobs a group holds.
std::string WorkloadText(const Recommendation& r) {
  if (r.jobs.empty()) return r.workload;
  return StrCat(r.jobs.size(), " Job", r.jobs.size() == 1 ? "" : "s");
}

void RenderText(const Recommendations& recs, std::ostream& out) {
  out << "Recommendations over " << FormatRfc3339(recs.window.start) << " to "
      << FormatRfc3339(recs.window.end) << " (" << recs.workloads
      << " workloads; idle: utilization under " << PctText(recs.idle_threshold) << ")\n";
  const size_t known = recs.items.size() - static_cast<size_t>(recs.unknown_savings);
  if (known == 0 && recs.unknown_savings > 0) {
    // Only unpriced advice: what it saves is unknown, not $0.00.
    out << "Potential savings: unknown/month from " << recs.unknown_savings << " recommendation"
        << (recs.unknown_savings == 1 ? "" : "s") << " whose GPUs have no price";
  } else {
    out << "Potential savings: " << UsdText(recs.monthly_savings_usd) << "/month from " << known
        << " recommendation" << (known == 1 ? "" : "s");
    if (recs.unknown_savings > 0) {
      out << " (" << recs.unknown_savings << " more with unknown savings)";
    }
  }
  out << "\n";
  if (recs.window_too_short) {
    out << "No recommendation: the window holds "
        << FormatDuration(recs.window.end - recs.window.start)
        << ", and monthly savings need at least "
        << FormatDuration(std::chrono::duration_cast<Duration>(
               std::chrono::duration<double, std::ratio<3600>>(recs.min_window_hours)))
        << " of evidence (--min-window)\n";
  }
  if (recs.unmeasured_gpu_hours > 0) {
    out << fmt::format("Unmeasured: {:.1f} GPU-hours had no usage sample and back no advice\n",
                       recs.unmeasured_gpu_hours);
  }
  int n = 0;
  for (const Recommendation& r : recs.items) {
    const Evidence& e = r.evidence;
    out << "\n"
        << ++n << ". " << RecommendationKindName(r.kind) << "  " << r.namespace_name << "/"
        << WorkloadText(r) << " (" << r.workload_kind << ", " << CategoryName(r.category)
        << ", team " << r.team << ")\n";
    out << "   saves " << UsdText(r.monthly_savings_usd) << "/month of "
        << UsdText(r.monthly_cost_usd) << "/month";
    if (!r.savings_note.empty()) out << " (" << r.savings_note << ")";
    out << "\n   do: " << r.action << "\n";
    out << fmt::format(
        "   evidence: utilization p50 {} p90 {} p95 {} p99 {} max {}, mean {}; {} GPU-hours "
        "held, {} measured, {} idle\n",
        PctText(e.p50), PctText(e.p90), PctText(e.p95), PctText(e.p99), PctText(e.max),
        PctText(e.utilization_mean), FormatSmallAmount(e.gpu_hours, 2),
        PctText(e.measured_fraction), FormatSmallAmount(e.idle_gpu_hours, 2));
    out << "   risk: " << RiskName(r.risk) << " - " << r.risk_note << "\n";
  }
}

void RenderJson(const Recommendations& recs, std::ostream& out) {
  json items = json::array();
  for (const Recommendation& r : recs.items) {
    const Evidence& e = r.evidence;
    items.push_back({
        {"kind", RecommendationKindName(r.kind)},
        {"cluster", r.cluster},
        {"namespace", r.namespace_name},
        {"workload_kind", r.workload_kind},
        {"workload", r.jobs.empty() ? json(r.workload) : json(nullptr)},
        {"jobs", r.jobs},
        {"team", r.team},
        {"category", CategoryName(r.category)},
        {"action", r.action},
        {"monthly_cost_usd", JsonNum(r.monthly_cost_usd)},
        {"monthly_savings_usd", JsonNum(r.monthly_savings_usd)},
        {"savings_note", r.savings_note},
        {"risk", RiskName(r.risk)},
        {"risk_note", r.risk_note},
        {"evidence",
         {{"window_hours", e.window_hours},
          {"gpu_hours", e.gpu_hours},
          {"measured_fraction", JsonNum(e.measured_fraction)},
          {"utilization_mean", JsonNum(e.utilization_mean)},
          {"utilization_p50", JsonNum(e.p50)},
          {"utilization_p90", JsonNum(e.p90)},
          {"utilization_p95", JsonNum(e.p95)},
          {"utilization_p99", JsonNum(e.p99)},
          {"utilization_max", JsonNum(e.max)},
          {"idle_gpu_hours", e.idle_gpu_hours},
          {"idle_hours", e.idle_wall_hours},
          {"longest_idle_run_hours", e.longest_idle_run_hours},
          {"idle_at_end", e.idle_at_end}}},
    });
  }
  json doc = {
      {"window",
       {{"start", FormatRfc3339(recs.window.start)}, {"end", FormatRfc3339(recs.window.end)}}},
      {"idle_threshold", recs.idle_threshold},
      {"workloads", recs.workloads},
      // null when every recommendation's savings are unknown (no price), never 0
      {"monthly_savings_usd",
       recs.unknown_savings > 0 && recs.items.size() == static_cast<size_t>(recs.unknown_savings)
           ? json(nullptr)
           : json(recs.monthly_savings_usd)},
      {"unknown_savings", recs.unknown_savings},
      {"unmeasured_gpu_hours", recs.unmeasured_gpu_hours},
      {"min_window_hours", recs.min_window_hours},
      {"window_too_short", recs.window_too_short},
      {"recommendations", std::move(items)},
  };
  out << doc.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
}

}  // namespace

Result<RecommendFormat> ParseRecommendFormat(std::string_view text) {
  if (text == "text") return RecommendFormat::kText;
  if (text == "json") return RecommendFormat::kJson;
  return Status::InvalidArgument(StrCat("--format \"", text, "\": expected text or json"));
}

void RenderRecommendations(const Recommendations& recs, RecommendFormat format,
                           std::ostream& out) {
  if (format == RecommendFormat::kJson) {
    RenderJson(recs, out);
  } else {
    RenderText(recs, out);
  }
}

}  // namespace gpucost::advise
