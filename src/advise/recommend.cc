#include "advise/recommend.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <map>
#include <string>
#include <tuple>

#include "core/money.h"
#include "core/strings.h"
#include "core/time.h"
#include "inventory/mig_profiles.h"

namespace gpucost::advise {
namespace {

std::string Pct(double ratio) {
  return std::isnan(ratio) ? "unknown" : fmt::format("{:.1f}%", ratio * 100);
}
std::string Num(double v, int digits = 1) { return fmt::format("{:.{}f}", v, digits); }
// 0.25 -> "15 min", 1 -> "1 h", 2.5 -> "2.5 h".
std::string Span(double hours) {
  if (hours < 1) return fmt::format("{:.0f} min", hours * 60);
  if (std::abs(hours - std::round(hours)) < 1e-9) return fmt::format("{:.0f} h", hours);
  return fmt::format("{:.1f} h", hours);
}

// Idle hours a scale-to-zero after `min_hours` idle would have freed, and their allocated cost.
struct IdleRuns {
  double hours = 0;
  double usd = 0;
};

IdleRuns FreedByScaleToZero(const WorkloadProfile& w, double step_hours, double threshold,
                            double min_hours) {
  IdleRuns out;
  const std::vector<bool> freed = StepsIdleAfter(w, step_hours, threshold, min_hours);
  for (size_t i = 0; i < freed.size(); ++i) {
    if (!freed[i]) continue;
    out.hours += step_hours;
    out.usd += w.steps[i].usd;
  }
  return out;
}

class Advisor {
 public:
  Advisor(Window window, Duration step, const AdviseSettings& s)
      : window_(window), step_(step), s_(s), window_hours_(Hours(window.end - window.start)),
        scale_(window_hours_ > 0 ? s.hours_per_month / window_hours_ : 0) {}

  void Examine(const WorkloadProfile& w) {
    const Evidence ev = EvidenceOf(w, window_, step_, s_.idle_threshold);
    const bool scaled_to_zero = ScaleToZero(w, ev);
    if (!scaled_to_zero) Consolidate(w, ev);
    MigRightSize(w, ev);
    MultiGpu(w, ev);
    if (w.workload_kind == "Job" && w.category == Category::kBatch) {
      // Jobs are one-off runs with unique names: their spot advice is per namespace.
      if (w.on_demand_gpu_hours > 0) AddTo(jobs_[{w.cluster, w.namespace_name, w.team}], w);
    } else {
      Spot(w, ev);
    }
  }

  std::vector<Recommendation> Take() {
    for (auto& [key, group] : jobs_) {
      std::ranges::sort(group.pods);
      const size_t before = out_.size();
      Spot(group, EvidenceOf(group, window_, step_, s_.idle_threshold));
      for (size_t i = before; i < out_.size(); ++i) out_[i].jobs = group.pods;
    }
    jobs_.clear();
    return std::move(out_);
  }

 private:
  Recommendation Base(const WorkloadProfile& w, RecommendationKind kind, const Evidence& ev) {
    Recommendation r;
    r.kind = kind;
    r.cluster = w.cluster;
    r.namespace_name = w.namespace_name;
    r.workload_kind = w.workload_kind;
    r.workload = w.workload;
    r.team = w.team;
    r.category = w.category;
    r.evidence = ev;
    r.monthly_cost_usd = w.unpriced_gpu_hours > 0 ? NAN : w.allocated_usd * scale_;
    return r;
  }

  // Keeps `r` when its savings are unknown or worth listing.
  void Add(Recommendation r, double savings, const WorkloadProfile& w) {
    if (w.unpriced_gpu_hours > 0) {
      r.monthly_savings_usd = NAN;
      r.savings_note = w.unpriced_gpu_hours >= w.gpu_hours
                           ? StrCat("the GPU price is unknown for all of its ", Num(w.gpu_hours, 2),
                                    " GPU-hours")
                           : StrCat("the GPU price is unknown for ", Num(w.unpriced_gpu_hours, 2),
                                    " of its ", Num(w.gpu_hours, 2), " GPU-hours");
    } else {
      r.monthly_savings_usd = savings;
    }
    if (!std::isnan(r.monthly_savings_usd) && r.monthly_savings_usd < s_.min_monthly_savings_usd) {
      return;
    }
    out_.push_back(std::move(r));
  }

  bool ScaleToZero(const WorkloadProfile& w, const Evidence& ev) {
    const bool notebook = w.category == Category::kNotebook;
    const double min_hours = notebook ? s_.notebook_idle_hours : s_.idle_hours;
    const IdleRuns runs = FreedByScaleToZero(w, Hours(step_), s_.idle_threshold, min_hours);
    if (runs.hours <= 0) return false;
    Recommendation r = Base(w, RecommendationKind::kScaleToZero, ev);
    const std::string idle =
        StrCat("it was idle (under ", Pct(s_.idle_threshold), ") ", Span(ev.idle_wall_hours),
               ", ", Span(runs.hours), " of it past the first ", Span(min_hours),
               " of a run, the longest run ",
               Span(ev.longest_idle_run_hours),
               ev.idle_at_end ? ", and still is at the window's end" : "");
    if (notebook) {
      r.action = StrCat("cull it after ", Span(min_hours), " idle: ", idle);
      r.risk = Risk::kLow;
      r.risk_note = "a culled notebook loses its kernel state; the notebook controller restarts it "
                    "on the next visit";
    } else if (w.category == Category::kService) {
      r.action = StrCat("scale it to zero while idle: ", idle);
      r.risk = Risk::kMedium;
      r.risk_note = "a service with no GPU work may still answer requests; scale it to zero with "
                    "an event-driven autoscaler rather than deleting it";
    } else {
      r.action = StrCat("stop or delete it: ", idle);
      r.risk = Risk::kMedium;
      r.risk_note =
          "a pod or job idle this long is usually stuck or forgotten; check with its owner";
    }
    r.savings_note = StrCat("the allocated cost of the ", Span(runs.hours),
                            " it would have been down, at the window's rate");
    Add(std::move(r), runs.usd * scale_, w);
    return true;
  }

  void Consolidate(const WorkloadProfile& w, const Evidence& ev) {
    if (w.whole_gpu_hours < 0.9 * w.gpu_hours || w.max_units_per_pod > 1) return;
    if (std::isnan(ev.p95) || ev.measured_fraction < 0.5 || ev.p95 >= s_.consolidate_below) return;
    int replicas = s_.max_replicas;
    if (ev.p99 > 0) {
      replicas = std::min<int>(s_.max_replicas,
                               static_cast<int>(std::floor(s_.target_utilization / ev.p99 + 1e-9)));
    }
    if (replicas < 2) return;
    const double gpus = window_hours_ > 0 ? w.whole_gpu_hours / window_hours_ : 0;
    Recommendation r = Base(w, RecommendationKind::kConsolidate, ev);
    r.action = StrCat("share its GPUs by time-slicing or MPS with replicas: ", replicas,
                      " (each pod gets 1/", replicas, " of a GPU; its p99 use, ", Pct(ev.p99),
                      " of a GPU, stays under ", Pct(s_.target_utilization), " of that); ",
                      Num(gpus, 2), " GPUs held on average would need ",
                      Num(gpus / replicas, 2));
    r.risk = Risk::kMedium;
    r.risk_note = "time-slicing has no memory or fault isolation and MPS caps memory per client; "
                  "GPU memory use is not measured here, so check each pod fits in 1/" +
                  std::to_string(replicas) + " of the GPU's memory; latency-sensitive work sees "
                  "contention at peaks";
    r.savings_note = StrCat("(1 - 1/", replicas, ") of its whole-GPU cost at the window's rate");
    Add(std::move(r), w.whole_usd * (1 - 1.0 / replicas) * scale_, w);
  }

  void MigRightSize(const WorkloadProfile& w, const Evidence& ev) {
    if (w.mig_profile.empty() || std::isnan(ev.p99) || ev.measured_fraction < 0.5) return;
    const MigModel* model = DetectMigModel(w.gpu_model);
    if (model == nullptr) return;
    const MigProfile* current = FindMigProfile(*model, w.mig_profile);
    if (current == nullptr) return;
    const int needed = std::max(
        1, static_cast<int>(std::ceil(ev.p99 * current->compute_slices / s_.target_utilization -
                                      1e-9)));
    const MigProfile* best = nullptr;
    for (const MigProfile& p : model->profiles) {
      if (p.name.find('+') != std::string::npos || p.name.find('-') != std::string::npos) continue;
      if (p.compute_slices < needed || p.compute_slices >= current->compute_slices) continue;
      if (best == nullptr || p.compute_slices < best->compute_slices ||
          (p.compute_slices == best->compute_slices && p.memory_slices > best->memory_slices)) {
        best = &p;
      }
    }
    if (best == nullptr) return;
    const double f_now = MigFraction(*model, *current, MigWeight::kCompute);
    const double f_new = MigFraction(*model, *best, MigWeight::kCompute);
    Recommendation r = Base(w, RecommendationKind::kMigRightSize, ev);
    r.action = StrCat("request nvidia.com/mig-", best->name, " instead of nvidia.com/mig-",
                      current->name, ": its p99 use, ", Pct(ev.p99), " of ",
                      current->compute_slices, " compute slices, fits in ", best->compute_slices,
                      " at ", Pct(s_.target_utilization));
    r.risk = best->memory_slices < current->memory_slices ? Risk::kHigh : Risk::kMedium;
    r.risk_note = StrCat("GPU memory use is not measured here: the smaller profile has ",
                         best->name.substr(best->name.find('.') + 1), " of memory against ",
                         current->name.substr(current->name.find('.') + 1),
                         "; the node's MIG layout must offer the profile");
    r.savings_note = StrCat("GPU share ", Num(f_now, 4), " -> ", Num(f_new, 4),
                            " (compute slices) at the window's rate");
    Add(std::move(r), w.allocated_usd * (1 - f_new / f_now) * scale_, w);
  }

  void MultiGpu(const WorkloadProfile& w, const Evidence& ev) {
    if (w.max_units_per_pod < 2 || w.busy_units_p99 >= w.max_units_per_pod) return;
    const int keep = std::max(1, w.busy_units_p99);
    const int most = w.max_units_per_pod;
    Recommendation r = Base(w, RecommendationKind::kMultiGpuUnused, ev);
    r.action = StrCat("request ", keep, " GPU", keep == 1 ? "" : "s", " per pod instead of ", most,
                      ": in 99% of its steps its pods kept at most ", w.busy_units_p99, " of ",
                      most, " GPUs busy (at or over ", Pct(s_.idle_threshold), ")");
    r.risk = Risk::kMedium;
    r.risk_note =
        "the idle GPUs may be held for their memory or NVLink topology, or by a job whose "
        "parallelism is misconfigured; check the job's world size";
    r.savings_note = StrCat(most - keep, "/", most, " of its whole-GPU cost at the window's rate");
    Add(std::move(r), w.whole_usd * (most - keep) / most * scale_, w);
  }

  void Spot(const WorkloadProfile& w, const Evidence& ev) {
    if (w.category != Category::kBatch || w.on_demand_gpu_hours <= 0) return;
    Recommendation r = Base(w, RecommendationKind::kSpot, ev);
    r.action = StrCat("run ", w.workload_kind == "Job" ? "its Jobs" : "it", " on spot capacity: ",
                      Num(w.on_demand_gpu_hours), " GPU-hours ran on on-demand nodes");
    r.risk = Risk::kMedium;
    r.risk_note = StrCat("assumes ", Num(s_.spot_interruptions_per_hour, 3),
                         " interruptions per hour, each losing half a ",
                         Num(s_.checkpoint_interval_hours, 2),
                         " h checkpoint interval (in the savings); without checkpoints an "
                         "interruption loses all work since the start");
    const double spot_usd = w.on_demand_as_spot_usd;
    if (std::isnan(spot_usd)) {
      if (w.unpriced_gpu_hours > 0) {
        Add(std::move(r), NAN, w);
        return;
      }
      r.savings_note = "no spot price for its nodes: give spot prices in --prices or "
                       "--spot-discount";
      out_.push_back(std::move(r));
      return;
    }
    const double savings = (w.on_demand_usd - spot_usd) * scale_;
    if (savings <= 0 && w.unpriced_gpu_hours <= 0) return;
    r.savings_note = StrCat("on-demand ", FormatUsd(w.on_demand_usd), " against ",
                            FormatUsd(spot_usd), " at the effective spot rate over the window");
    Add(std::move(r), savings, w);
  }

  // Adds `w` to the group `into` (the steps appended, not aligned: for percentiles only).
  static void AddTo(WorkloadProfile& into, const WorkloadProfile& w) {
    if (into.pods.empty()) {
      into.cluster = w.cluster;
      into.namespace_name = w.namespace_name;
      into.workload_kind = w.workload_kind;
      into.team = w.team;
      into.category = w.category;
    }
    into.pods.push_back(w.workload);
    into.steps.insert(into.steps.end(), w.steps.begin(), w.steps.end());
    into.gpu_hours += w.gpu_hours;
    into.allocated_usd += w.allocated_usd;
    into.unpriced_gpu_hours += w.unpriced_gpu_hours;
    into.measured_gpu_hours += w.measured_gpu_hours;
    into.activity_gpu_hours += w.activity_gpu_hours;
    into.whole_gpu_hours += w.whole_gpu_hours;
    into.whole_usd += w.whole_usd;
    into.mig_gpu_hours += w.mig_gpu_hours;
    into.replica_gpu_hours += w.replica_gpu_hours;
    into.on_demand_gpu_hours += w.on_demand_gpu_hours;
    into.on_demand_usd += w.on_demand_usd;
    into.on_demand_as_spot_usd += w.on_demand_as_spot_usd;
  }

  Window window_;
  Duration step_;
  const AdviseSettings& s_;
  std::map<std::tuple<std::string, std::string, std::string>, WorkloadProfile> jobs_;
  double window_hours_;
  double scale_;
  std::vector<Recommendation> out_;
};

}  // namespace

std::string_view RecommendationKindName(RecommendationKind k) {
  switch (k) {
    case RecommendationKind::kScaleToZero: return "scale-to-zero";
    case RecommendationKind::kConsolidate: return "consolidate";
    case RecommendationKind::kMigRightSize: return "mig-right-size";
    case RecommendationKind::kMultiGpuUnused: return "multi-gpu-unused";
    case RecommendationKind::kSpot: return "spot";
  }
  return "unknown";
}

std::string_view RiskName(Risk r) {
  switch (r) {
    case Risk::kLow: return "low";
    case Risk::kMedium: return "medium";
    case Risk::kHigh: return "high";
  }
  return "medium";
}

Evidence EvidenceOf(const WorkloadProfile& w, Window window, Duration step,
                    double idle_threshold) {
  Evidence ev;
  ev.window_hours = Hours(window.end - window.start);
  ev.gpu_hours = w.gpu_hours;
  if (w.gpu_hours > 0) ev.measured_fraction = w.measured_gpu_hours / w.gpu_hours;
  if (w.measured_gpu_hours > 0) {
    ev.utilization_mean = std::min(1.0, w.activity_gpu_hours / w.measured_gpu_hours);
  }
  ev.p50 = UtilizationPercentile(w, 0.50);
  ev.p90 = UtilizationPercentile(w, 0.90);
  ev.p95 = UtilizationPercentile(w, 0.95);
  ev.p99 = UtilizationPercentile(w, 0.99);
  ev.max = UtilizationPercentile(w, 1.0);
  const double step_hours = Hours(step);
  double run = 0;
  for (const StepStat& s : w.steps) {
    const double u = s.utilization();
    const bool idle = s.held > 0 && !std::isnan(u) && u < idle_threshold;
    if (idle) {
      ev.idle_gpu_hours += s.held;
      ev.idle_wall_hours += step_hours;
      run += step_hours;
      ev.longest_idle_run_hours = std::max(ev.longest_idle_run_hours, run);
    } else {
      run = 0;
    }
  }
  // Idle at the end: the last step the workload held was idle and lies at the window's end.
  const int64_t window_steps =
      step.count() > 0 ? (window.end - window.start + step - Duration(1)) / step : 0;
  const int64_t last = w.first_step + static_cast<int64_t>(w.steps.size()) - 1;
  ev.idle_at_end = run > 0 && last == window_steps - 1;
  return ev;
}

Recommendations Recommend(const std::vector<WorkloadProfile>& profiles, Window window,
                          Duration step, const AdviseSettings& settings) {
  Recommendations out;
  out.window = window;
  out.idle_threshold = settings.idle_threshold;
  Advisor advisor(window, step, settings);
  for (const WorkloadProfile& w : profiles) {
    advisor.Examine(w);
    out.unmeasured_gpu_hours += std::max(0.0, w.gpu_hours - w.measured_gpu_hours);
  }
  out.workloads = static_cast<int>(profiles.size());
  out.items = advisor.Take();
  out.min_window_hours = settings.min_window_hours;
  const double window_hours =
      std::chrono::duration<double, std::ratio<3600>>(window.end - window.start).count();
  if (window_hours < settings.min_window_hours) {
    out.window_too_short = true;
    out.items.clear();
  }
  std::stable_sort(out.items.begin(), out.items.end(),
                   [](const Recommendation& a, const Recommendation& b) {
                     const bool ak = !std::isnan(a.monthly_savings_usd);
                     const bool bk = !std::isnan(b.monthly_savings_usd);
                     if (ak != bk) return ak;
                     if (ak) return a.monthly_savings_usd > b.monthly_savings_usd;
                     return a.workload < b.workload;
                   });
  for (const Recommendation& r : out.items) {
    if (std::isnan(r.monthly_savings_usd)) {
      ++out.unknown_savings;
    } else {
      out.monthly_savings_usd += r.monthly_savings_usd;
    }
  }
  return out;
}

}  // namespace gpucost::advise
