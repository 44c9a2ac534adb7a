// Savings recommendations from workload profiles (docs/recommend.md): idle allocations to scale
// to zero, whole-GPU workloads to consolidate by time-slicing or MPS, MIG slices larger than the
// use, multi-GPU pods that leave GPUs unused, and batch work on on-demand capacity that can move
// to spot. Each comes with its monthly savings (unknown when a price is), the evidence over the
// window and the risk. Pure: profiles and settings in, recommendations out.
#pragma once

#include <cmath>
#include <string>
#include <vector>

#include "advise/advise_settings.h"
#include "advise/workload_profile.h"
#include "core/time.h"

namespace gpucost::advise {

enum class RecommendationKind : uint8_t {
  kScaleToZero,
  kConsolidate,
  kMigRightSize,
  kMultiGpuUnused,
  kSpot,
};
std::string_view RecommendationKindName(RecommendationKind k);  // "scale-to-zero", ...

enum class Risk : uint8_t { kLow, kMedium, kHigh };
std::string_view RiskName(Risk r);

// What the window showed about the workload.
struct Evidence {
  double window_hours = 0;
  double gpu_hours = 0;
  double measured_fraction = NAN;  // measured / held GPU-hours
  double utilization_mean = NAN;   // activity / measured
  double p50 = NAN, p90 = NAN, p95 = NAN, p99 = NAN, max = NAN;  // of step utilization
  double idle_gpu_hours = 0;       // GPU-hours held in idle steps (utilization under the threshold)
  double idle_wall_hours = 0;      // hours of idle steps
  double longest_idle_run_hours = 0;
  bool idle_at_end = false;        // the window ended in an idle run
};

struct Recommendation {
  RecommendationKind kind = RecommendationKind::kScaleToZero;
  std::string cluster;
  std::string namespace_name;
  std::string workload_kind;
  std::string workload;           // "" for one-off Jobs grouped per namespace (`jobs`)
  std::vector<std::string> jobs;  // those Jobs' names, sorted
  std::string team;
  Category category = Category::kOther;
  std::string action;               // what to do, with the numbers
  double monthly_cost_usd = NAN;    // the workload's allocated cost at the window's rate
  double monthly_savings_usd = NAN; // NaN: unknown (a price is unknown)
  std::string savings_note;         // why the savings are unknown, or how they were computed
  Evidence evidence;
  Risk risk = Risk::kMedium;
  std::string risk_note;
};

struct Recommendations {
  Window window;
  double idle_threshold = 0;
  std::vector<Recommendation> items;  // known savings, largest first, then unknown savings
  double monthly_savings_usd = 0;     // sum of the known savings
  int unknown_savings = 0;            // items whose savings are unknown
  int workloads = 0;                  // profiles examined
  double unmeasured_gpu_hours = 0;    // hours no recommendation could look at
  // The window is shorter than AdviseSettings::min_window_hours: no recommendation was made.
  bool window_too_short = false;
  double min_window_hours = 0;
};

// Every recommendation the profiles support under `settings` (which must be valid).
Recommendations Recommend(const std::vector<WorkloadProfile>& profiles, Window window,
                          Duration step, const AdviseSettings& settings);

// The evidence of a profile (percentiles, idle hours and runs).
Evidence EvidenceOf(const WorkloadProfile& w, Window window, Duration step,
                    double idle_threshold);

}  // namespace gpucost::advise
