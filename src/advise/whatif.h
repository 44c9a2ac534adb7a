// What-if scenarios (docs/whatif.md): chosen policies — spot for batch work, time-slicing for
// services on whole GPUs, culling idle notebooks, a commitment on the steady on-demand base —
// applied to a past window's workload profiles, with the cost before and after by category and
// team, and what each policy saved. Pure: profiles, settings and policies in, a scenario out.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "advise/advise_settings.h"
#include "advise/workload_profile.h"
#include "core/result.h"
#include "core/time.h"

namespace gpucost::advise {

struct Policies {
  bool spot_batch = false;      // batch work on on-demand capacity runs on spot instead
  int time_slice = 0;           // services on whole GPUs share them with this many replicas; 0: off
  bool cull_notebooks = false;  // notebooks scale to zero after AdviseSettings::notebook_idle_hours
  bool commit_base = false;     // the steady on-demand base is committed at commitment_discount
  bool any() const { return spot_batch || time_slice > 0 || cull_notebooks || commit_base; }
};

// "spot-batch,time-slice=4,cull-notebooks,commit-base" (any subset, any order).
Result<Policies> ParsePolicies(std::string_view list);

// Money of the priced hours only; a row whose hours all lack a price is unknown, never 0.
struct CostRow {
  std::string key;
  double before_usd = 0;
  double after_usd = 0;
  bool some_unpriced = false;  // some of its hours have no price
  bool any_priced = false;     // some of its hours have a price
  bool known() const { return any_priced || !some_unpriced; }
};

struct PolicyEffect {
  std::string name;       // "spot-batch", "time-slice=4", ...
  double savings_usd = 0;
  int workloads = 0;      // workloads it changed
  std::string note;       // what it assumed, or what it could not price
  int unpriced_workloads = 0;  // workloads it would change whose hours have no price
};

struct Scenario {
  Window window;
  std::vector<CostRow> by_category;  // batch, notebook, service, other (those with cost)
  std::vector<CostRow> by_team;      // sorted by team
  std::vector<PolicyEffect> policies;
  double before_usd = 0;
  double after_usd = 0;
  double unpriced_gpu_hours = 0;     // hours with no known price: in no money figure
  bool any_priced = false;           // some hours have a price (else every figure is unknown)
  double committed_gpus = 0;         // the steady on-demand base committed (GPU-equivalents)
};

// Applies `policies` to `profiles` over `window` cut in `step`s. Money is over the window.
Scenario RunScenario(const std::vector<WorkloadProfile>& profiles, Window window, Duration step,
                     const AdviseSettings& settings, const Policies& policies);

}  // namespace gpucost::advise
