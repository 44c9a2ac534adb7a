#include "advise/workload_profile.h"

#include <algorithm>
#include <utility>

#include "core/strings.h"

namespace gpucost::advise {
namespace {

// The entry of `hours` with the most hours; "" when there are none.
std::string MostHours(const std::unordered_map<std::string, double>& hours) {
  const std::pair<const std::string, double>* best = nullptr;
  for (const auto& entry : hours) {
    if (best == nullptr || entry.second > best->second ||
        (entry.second == best->second && entry.first < best->first)) {
      best = &entry;
    }
  }
  return best != nullptr ? best->first : std::string();
}

// Nearest-rank percentile q of integer samples (sorted in place); 0 when empty.
int IntPercentile(std::vector<uint16_t>& v, double q) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  size_t rank = static_cast<size_t>(std::ceil(q * static_cast<double>(v.size())));
  rank = std::clamp<size_t>(rank, 1, v.size());
  return v[rank - 1];
}

}  // namespace

std::string_view CategoryName(Category c) {
  switch (c) {
    case Category::kBatch: return "batch";
    case Category::kNotebook: return "notebook";
    case Category::kService: return "service";
    case Category::kOther: return "other";
  }
  return "other";
}

Category Categorize(const Holder& holder) {
  if (IsNotebook(holder)) return Category::kNotebook;
  const std::string_view kind = holder.workload_kind;
  if (kind == "Job" || kind == "CronJob" || kind == "SlurmJob" ||
      holder.kind == HolderKind::kSlurmJob) {
    return Category::kBatch;
  }
  if (kind == "Deployment" || kind == "StatefulSet" || kind == "DaemonSet" ||
      kind == "ReplicaSet") {
    return Category::kService;
  }
  return Category::kOther;
}

ProfileSink::ProfileSink(const Inventory& inventory, Duration step, double idle_threshold,
                         SpotRateFn spot_rate, std::function<double(double)> effective_spot)
    : inventory_(&inventory),
      step_hours_(std::chrono::duration<double, std::ratio<3600>>(step).count()),
      idle_threshold_(idle_threshold),
      spot_rate_(std::move(spot_rate)),
      effective_spot_(std::move(effective_spot)) {}

const ProfileSink::UnitInfo& ProfileSink::InfoFor(UnitIndex unit, HolderIndex holder) {
  const uint64_t pair = (static_cast<uint64_t>(unit) << 32) | holder;
  if (auto it = infos_.find(pair); it != infos_.end()) return it->second;
  const Holder& h = inventory_->holders[holder];
  const std::string workload = h.workload.empty() ? h.pod : h.workload;
  const std::string key = StrCat(h.cluster, '\x1f', h.namespace_name, '\x1f', h.workload_kind,
                                 '\x1f', workload);
  auto [wit, added] = workload_ids_.try_emplace(key, static_cast<uint32_t>(workloads_.size()));
  if (added) {
    WorkloadProfile w;
    w.cluster = h.cluster;
    w.namespace_name = h.namespace_name;
    w.workload = workload;
    w.workload_kind = h.workload_kind;
    w.team = h.team.empty() ? h.namespace_name : h.team;
    w.category = Categorize(h);
    w.first_step = -1;
    workloads_.push_back(std::move(w));
    model_hours_.emplace_back();
    profile_hours_.emplace_back();
  }
  WorkloadProfile& w = workloads_[wit->second];
  if (std::find(w.pods.begin(), w.pods.end(), h.pod) == w.pods.end()) w.pods.push_back(h.pod);

  UnitInfo info;
  info.workload = wit->second;
  info.team = h.team.empty() ? &h.namespace_name : &h.team;
  if (unit < inventory_->units.size()) {
    const GpuUnit& u = inventory_->units[unit];
    const Node* node = u.node < inventory_->nodes.size() ? &inventory_->nodes[u.node] : nullptr;
    info.mig = u.partition.kind == PartitionKind::kMig;
    info.whole = u.partition.kind == PartitionKind::kWhole &&
                 (node == nullptr || !NodeDividesGpus(node->sharing));
    if (node != nullptr) {
      info.on_demand = node->capacity_type == "on_demand";
      if (info.on_demand) {
        auto [sit, fresh] = node_spot_.try_emplace(u.node, NAN);
        if (fresh && spot_rate_) {
          const double rate = spot_rate_(*node);
          sit->second = std::isfinite(rate) ? effective_spot_(rate) : NAN;
        }
        info.spot_rate = sit->second;
      }
    }
  }
  return infos_.emplace(pair, info).first->second;
}

StepStat& ProfileSink::StepOf(WorkloadProfile& w, int64_t step) {
  if (w.first_step < 0) {
    w.first_step = step;
  } else if (step < w.first_step) {
    w.steps.insert(w.steps.begin(), static_cast<size_t>(w.first_step - step), StepStat{});
    w.first_step = step;
  }
  const size_t i = static_cast<size_t>(step - w.first_step);
  if (i >= w.steps.size()) w.steps.resize(i + 1);
  return w.steps[i];
}

void ProfileSink::Consume(std::span<const CostRecord> records) {
  for (const CostRecord& r : records) {
    if (r.is_idle() || r.gpu_hours <= 0) continue;
    const UnitInfo& info = InfoFor(r.unit, r.holder);
    WorkloadProfile& w = workloads_[info.workload];
    StepStat& s = StepOf(w, r.step);
    const double measured = std::max(0.0, r.gpu_hours - r.unmeasured_gpu_hours);
    const bool has_activity = measured > 0 && std::isfinite(r.activity_gpu_hours);
    s.held += static_cast<float>(r.gpu_hours);
    w.gpu_hours += r.gpu_hours;
    if (has_activity) {
      s.measured += static_cast<float>(measured);
      s.activity += static_cast<float>(r.activity_gpu_hours);
      w.measured_gpu_hours += measured;
      w.activity_gpu_hours += r.activity_gpu_hours;
    }
    const bool priced = r.price_known && std::isfinite(r.allocated_usd);
    if (priced) {
      s.usd += r.allocated_usd;
      w.allocated_usd += r.allocated_usd;
      w.team_usd[*info.team] += r.allocated_usd;
    } else {
      w.unpriced_gpu_hours += r.gpu_hours;
      w.team_unpriced_hours[*info.team] += r.gpu_hours;
    }
    if (info.whole) {
      w.whole_gpu_hours += r.gpu_hours;
      if (priced) w.whole_usd += r.allocated_usd;
    } else if (info.mig) {
      w.mig_gpu_hours += r.gpu_hours;
    } else {
      w.replica_gpu_hours += r.gpu_hours;
    }
    if (info.on_demand) {
      s.on_demand += static_cast<float>(r.gpu_hours);
      w.on_demand_gpu_hours += r.gpu_hours;
      if (priced) w.on_demand_usd += r.allocated_usd;
      w.on_demand_as_spot_usd += r.gpu_hours * info.spot_rate;  // NaN stays NaN
    }
    if (r.unit < inventory_->units.size()) {
      const GpuUnit& u = inventory_->units[r.unit];
      std::string model = u.gpu_model;
      if (model.empty() && u.node < inventory_->nodes.size()) {
        model = inventory_->nodes[u.node].gpu_model;
      }
      model_hours_[info.workload][model] += r.gpu_hours;
      if (info.mig) profile_hours_[info.workload][u.mig_profile] += r.gpu_hours;
    }
    if (info.whole) {
      PodSteps& pod = pods_[r.holder];
      pod.workload = info.workload;
      if (pod.first_step < 0) pod.first_step = r.step;
      if (r.step >= pod.first_step) {
        const size_t i = static_cast<size_t>(r.step - pod.first_step);
        if (i >= pod.steps.size()) pod.steps.resize(i + 1);
        auto& [held, busy] = pod.steps[i];
        ++held;
        const bool idle = has_activity && r.activity_gpu_hours < idle_threshold_ * measured;
        if (!idle) ++busy;
      }
    }
  }
}

std::vector<WorkloadProfile> ProfileSink::Finish() {
  for (size_t i = 0; i < workloads_.size(); ++i) {
    WorkloadProfile& w = workloads_[i];
    w.gpu_model = MostHours(model_hours_[i]);
    if (profile_hours_[i].size() == 1 && w.whole_gpu_hours == 0 && w.replica_gpu_hours == 0) {
      w.mig_profile = profile_hours_[i].begin()->first;
    }
    std::sort(w.pods.begin(), w.pods.end());
    if (w.first_step < 0) w.first_step = 0;
  }
  // Multi-GPU pods: the busy units in the steps each held its most units.
  for (auto& [holder, pod] : pods_) {
    uint16_t most = 0;
    for (const auto& [held, busy] : pod.steps) most = std::max(most, held);
    if (most < 2) continue;
    std::vector<uint16_t> busy_at_most;
    for (const auto& [held, busy] : pod.steps) {
      if (held == most) busy_at_most.push_back(busy);
    }
    WorkloadProfile& w = workloads_[pod.workload];
    w.max_units_per_pod = std::max<int>(w.max_units_per_pod, most);
    w.busy_units_p99 = std::max(w.busy_units_p99, IntPercentile(busy_at_most, 0.99));
  }
  std::vector<WorkloadProfile> out = std::move(workloads_);
  std::sort(out.begin(), out.end(), [](const WorkloadProfile& a, const WorkloadProfile& b) {
    return std::tie(a.cluster, a.namespace_name, a.workload_kind, a.workload) <
           std::tie(b.cluster, b.namespace_name, b.workload_kind, b.workload);
  });
  workloads_.clear();
  workload_ids_.clear();
  return out;
}

std::vector<bool> StepsIdleAfter(const WorkloadProfile& w, double step_hours, double threshold,
                                 double min_hours) {
  std::vector<bool> freed(w.steps.size(), false);
  const size_t grace =
      step_hours > 0 ? static_cast<size_t>(std::ceil(min_hours / step_hours - 1e-9)) : 0;
  size_t run = 0;
  for (size_t i = 0; i < w.steps.size(); ++i) {
    const double u = w.steps[i].utilization();
    if (w.steps[i].held > 0 && !std::isnan(u) && u < threshold) {
      if (run >= grace) freed[i] = true;
      ++run;
    } else {
      run = 0;
    }
  }
  return freed;
}

double UtilizationPercentile(const WorkloadProfile& w, double q) {
  std::vector<std::pair<double, double>> points;  // (u, weight)
  double total = 0;
  for (const StepStat& s : w.steps) {
    const double u = s.utilization();
    if (std::isnan(u)) continue;
    points.emplace_back(u, s.measured);
    total += s.measured;
  }
  if (points.empty() || total <= 0) return NAN;
  std::sort(points.begin(), points.end());
  const double target = q * total;
  double seen = 0;
  for (const auto& [u, weight] : points) {
    seen += weight;
    if (seen >= target - 1e-12 * total) return u;
  }
  return points.back().first;
}

}  // namespace gpucost::advise
