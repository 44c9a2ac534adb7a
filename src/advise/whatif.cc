#include "advise/whatif.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>

#include "core/money.h"
#include "core/strings.h"
#include "core/time.h"

namespace gpucost::advise {
namespace {

// One workload after the policies: its cost and its on-demand use, step by step.
struct After {
  double usd = 0;
  double on_demand_usd = 0;
  std::vector<double> on_demand_hours;  // indexed like the profile's steps
};

}  // namespace

Result<Policies> ParsePolicies(std::string_view list) {
  Policies p;
  for (const std::string& item : SplitList(list)) {
    if (item == "spot-batch") {
      p.spot_batch = true;
    } else if (item == "cull-notebooks") {
      p.cull_notebooks = true;
    } else if (item == "commit-base") {
      p.commit_base = true;
    } else if (item.rfind("time-slice", 0) == 0) {
      const std::string_view rest = std::string_view(item).substr(10);
      int replicas = 4;
      if (!rest.empty()) {
        const std::string digits(rest.substr(1));
        char* end = nullptr;
        const long v = std::strtol(digits.c_str(), &end, 10);
        if (rest[0] != '=' || digits.empty() || *end != '\0' || v < 2 || v > 64) {
          return Status::InvalidArgument(
              StrCat("--policy \"", item, "\": time-slice takes replicas from 2 to 64 "
                     "(time-slice=4)"));
        }
        replicas = static_cast<int>(v);
      }
      p.time_slice = replicas;
    } else {
      return Status::InvalidArgument(
          StrCat("--policy \"", item,
                 "\": expected spot-batch, time-slice[=N], cull-notebooks or commit-base"));
    }
  }
  if (!p.any()) return Status::InvalidArgument("--policy: name at least one policy");
  return p;
}

Scenario RunScenario(const std::vector<WorkloadProfile>& profiles, Window window, Duration step,
                     const AdviseSettings& s, const Policies& policies) {
  Scenario out;
  out.window = window;
  const double step_hours = Hours(step);
  PolicyEffect spot{"spot-batch", 0, 0, ""};
  PolicyEffect slice{StrCat("time-slice=", policies.time_slice), 0, 0, ""};
  PolicyEffect cull{"cull-notebooks", 0, 0, ""};
  PolicyEffect commit{"commit-base", 0, 0, ""};
  int spot_unknown = 0;

  std::vector<After> after(profiles.size());
  for (size_t k = 0; k < profiles.size(); ++k) {
    const WorkloadProfile& w = profiles[k];
    After& a = after[k];
    a.usd = w.allocated_usd;
    a.on_demand_usd = w.on_demand_usd;
    a.on_demand_hours.resize(w.steps.size());
    for (size_t i = 0; i < w.steps.size(); ++i) a.on_demand_hours[i] = w.steps[i].on_demand;
    out.unpriced_gpu_hours += w.unpriced_gpu_hours;

    if (policies.cull_notebooks && w.category == Category::kNotebook) {
      const std::vector<bool> freed =
          StepsIdleAfter(w, step_hours, s.idle_threshold, s.notebook_idle_hours);
      double saved = 0;
      double saved_on_demand = 0;
      for (size_t i = 0; i < freed.size(); ++i) {
        if (!freed[i]) continue;
        saved += w.steps[i].usd;
        if (w.steps[i].held > 0)
          saved_on_demand += w.steps[i].usd * w.steps[i].on_demand / w.steps[i].held;
        a.on_demand_hours[i] = 0;
      }
      if (saved > 0) {
        a.usd -= saved;
        a.on_demand_usd = std::max(0.0, a.on_demand_usd - saved_on_demand);
        cull.savings_usd += saved;
        ++cull.workloads;
      } else if (w.unpriced_gpu_hours > 0 &&
                 std::find(freed.begin(), freed.end(), true) != freed.end()) {
        ++cull.unpriced_workloads;
      }
    }
    if (policies.spot_batch && w.category == Category::kBatch && w.on_demand_gpu_hours > 0) {
      if (std::isnan(w.on_demand_as_spot_usd)) {
        ++spot_unknown;
      } else if (w.on_demand_as_spot_usd < a.on_demand_usd) {
        const double saved = a.on_demand_usd - w.on_demand_as_spot_usd;
        a.usd -= saved;
        a.on_demand_usd = 0;
        std::fill(a.on_demand_hours.begin(), a.on_demand_hours.end(), 0.0);
        spot.savings_usd += saved;
        ++spot.workloads;
      }
    }
    if (policies.time_slice > 0 && w.category == Category::kService && w.whole_usd > 0 &&
        w.max_units_per_pod <= 1) {
      const double p99 = UtilizationPercentile(w, 0.99);
      if (!std::isnan(p99) && p99 * policies.time_slice <= s.target_utilization + 1e-12) {
        const double keep = 1.0 / policies.time_slice;
        const double whole_share = w.gpu_hours > 0 ? w.whole_gpu_hours / w.gpu_hours : 0;
        const double saved = w.whole_usd * (1 - keep);
        a.usd -= saved;
        const double od_factor = 1 - whole_share * (1 - keep);
        a.on_demand_usd *= od_factor;
        for (double& h : a.on_demand_hours) h *= od_factor;
        slice.savings_usd += saved;
        ++slice.workloads;
      }
    }
  }

  if (policies.commit_base && step_hours > 0) {
    // The steady base: the least on-demand GPU-equivalents held in any step of the window.
    const int64_t n_steps = (window.end - window.start + step - Duration(1)) / step;
    std::vector<double> total(static_cast<size_t>(std::max<int64_t>(n_steps, 0)), 0.0);
    double od_usd = 0;
    double od_priced_hours = 0;  // the rate is of the priced hours' money over those hours
    int unpriced = 0;
    for (size_t k = 0; k < profiles.size(); ++k) {
      const WorkloadProfile& w = profiles[k];
      double hours = 0;
      for (size_t i = 0; i < after[k].on_demand_hours.size(); ++i) {
        const int64_t g = w.first_step + static_cast<int64_t>(i);
        if (g >= 0 && g < n_steps) total[static_cast<size_t>(g)] += after[k].on_demand_hours[i];
        hours += after[k].on_demand_hours[i];
      }
      if (w.unpriced_gpu_hours <= 0) {
        od_usd += after[k].on_demand_usd;
        od_priced_hours += hours;
      } else if (hours > 0) {
        ++unpriced;
      }
    }
    // A partial last step holds less by its length alone: leave it out of the minimum.
    const double last_len = Hours(window.end - (window.start + step * (n_steps - 1)));
    double base_hours = total.empty() ? 0 : *std::min_element(total.begin(), total.end());
    if (total.size() > 1 && last_len < step_hours - 1e-9) {
      base_hours = *std::min_element(total.begin(), total.end() - 1);
    }
    out.committed_gpus = base_hours / step_hours;
    const double committed_hours = out.committed_gpus * Hours(window.end - window.start);
    if (od_priced_hours > 0) {
      const double rate = od_usd / od_priced_hours;
      commit.savings_usd = committed_hours * rate * s.commitment_discount;
      commit.note =
          fmt::format("{:.2f} GPUs held on demand in every step, {:.0f}% off at ${:.4f}/GPU-hour",
                      out.committed_gpus, s.commitment_discount * 100, rate);
    } else if (committed_hours > 0) {
      // A base with no priced hour: what a commitment saves is unknown, not $0 at $0/GPU-hour.
      commit.unpriced_workloads = unpriced;
      commit.note = fmt::format(
          "{:.2f} GPUs held on demand in every step, {:.0f}% off an unknown rate: none of the "
          "on-demand hours has a price",
          out.committed_gpus, s.commitment_discount * 100);
    } else {
      commit.note = "no GPU held on demand in every step: nothing to commit to";
    }
    // Shared among workloads by their on-demand cost after the other policies.
    for (size_t k = 0; k < profiles.size(); ++k) {
      if (od_usd <= 0 || after[k].on_demand_usd <= 0 || profiles[k].unpriced_gpu_hours > 0) {
        continue;
      }
      after[k].usd -= commit.savings_usd * after[k].on_demand_usd / od_usd;
      ++commit.workloads;
    }
  }
  if (spot_unknown > 0) {
    // What moving them would save is unknown: not zero (whatif_render prints "-" when it is all).
    spot.unpriced_workloads = spot_unknown;
    spot.note = StrCat(spot_unknown, " batch workload", spot_unknown == 1 ? "" : "s",
                       " left on demand: no spot price (give --spot-discount or spot prices)");
  } else {
    spot.note = fmt::format("effective spot rate = rate x (1 + {} interruptions/h x {} h / 2)",
                            s.spot_interruptions_per_hour, s.checkpoint_interval_hours);
  }
  if (policies.cull_notebooks) {
    cull.note = StrCat("after ", s.notebook_idle_hours, " h idle");
    if (cull.unpriced_workloads > 0) {
      cull.note += StrCat("; ", cull.unpriced_workloads, " more notebook",
                          cull.unpriced_workloads == 1 ? "" : "s",
                          " idle that long, with no price: savings unknown");
    }
  }
  if (policies.time_slice > 0) {
    slice.note = StrCat("services on whole GPUs whose p99 utilization x ", policies.time_slice,
                        " stays under ", s.target_utilization * 100, "%");
  }

  std::map<std::string, CostRow> categories;
  std::map<std::string, CostRow> teams;
  CompensatedSum before_total;
  CompensatedSum after_total;
  for (size_t k = 0; k < profiles.size(); ++k) {
    const WorkloadProfile& w = profiles[k];
    CostRow& c = categories[std::string(CategoryName(w.category))];
    c.before_usd += w.allocated_usd;
    c.after_usd += after[k].usd;
    c.some_unpriced |= w.unpriced_gpu_hours > 0;
    c.any_priced |= w.gpu_hours > w.unpriced_gpu_hours;
    out.any_priced |= w.gpu_hours > w.unpriced_gpu_hours;
    for (const auto& [team, hours] : w.team_unpriced_hours) teams[team].some_unpriced = true;
    // "Before" per team is the report's: each pod's money to its own team; "after" is shared
    // among a workload's teams as its money was.
    if (w.team_usd.empty() || !(w.allocated_usd > 0)) {
      teams[w.team].after_usd += after[k].usd;
    }
    for (const auto& [team, usd] : w.team_usd) {
      CostRow& t = teams[team];
      t.any_priced = true;
      t.before_usd += usd;
      if (w.allocated_usd > 0) t.after_usd += after[k].usd * (usd / w.allocated_usd);
    }
    before_total.Add(w.allocated_usd);
    after_total.Add(after[k].usd);
  }
  for (const char* name : {"batch", "notebook", "service", "other"}) {
    auto it = categories.find(name);
    if (it == categories.end()) continue;
    it->second.key = name;
    out.by_category.push_back(it->second);
  }
  for (auto& [team, row] : teams) {
    row.key = team;
    out.by_team.push_back(row);
  }
  out.before_usd = before_total.value();
  out.after_usd = after_total.value();
  if (policies.spot_batch) out.policies.push_back(spot);
  if (policies.time_slice > 0) out.policies.push_back(slice);
  if (policies.cull_notebooks) out.policies.push_back(cull);
  if (policies.commit_base) out.policies.push_back(commit);
  return out;
}

}  // namespace gpucost::advise
