// WorkloadProfile: one workload's GPU history over a window, step by step, as the engine's cost
// records tell it: GPU-equivalents held, measured, active, and the money, split by the kind of
// capacity held (whole GPUs, MIG slices, time-sliced or MPS replicas) and its capacity type. The
// ProfileSink builds them from an engine run. Recommendations and what-if scenarios read only
// these profiles, never the records. Plain value types; the sink is thread-compatible.
#pragma once

#include <cmath>
#include <cstdint>
#include <functional>
#include <map>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

#include "attribution/attributor.h"
#include "model/inventory.h"

namespace gpucost::advise {

// What a workload is for, which decides what may be done with it.
enum class Category : uint8_t { kBatch, kNotebook, kService, kOther };
std::string_view CategoryName(Category c);
// Notebook: a `notebook-name` label (Kubeflow), `component=singleuser-server` (JupyterHub),
// "notebook" or "jupyter" in the workload's name or `app.kubernetes.io/name`, or a container named
// "notebook" or "jupyter...". Batch: Job, CronJob, Slurm job. Service: Deployment, StatefulSet,
// DaemonSet. Other: bare pods.
Category Categorize(const Holder& holder);

// One step of one workload, summed over its pods and units.
struct StepStat {
  double usd = 0;        // allocated, known prices only
  float held = 0;        // GPU-equivalent hours held
  float measured = 0;    // of which had a usage sample
  float activity = 0;    // activity in GPU-equivalent hours over the measured part
  float on_demand = 0;   // GPU-equivalent hours held on on-demand capacity

  // Utilization in the step; NaN when unmeasured or not held.
  double utilization() const {
    return measured > 0 ? std::min(1.0, static_cast<double>(activity) / measured) : NAN;
  }
};

struct WorkloadProfile {
  std::string cluster;
  std::string namespace_name;
  std::string workload;
  std::string workload_kind;
  std::string team;
  Category category = Category::kOther;
  std::vector<std::string> pods;  // sorted, unique

  int64_t first_step = 0;         // steps[i] is step first_step + i of the window
  std::vector<StepStat> steps;

  double gpu_hours = 0;
  double allocated_usd = 0;       // known prices only
  // allocated_usd by the team of the pod that held it (a workload's pods may carry different
  // team labels): what `report --by team` gives each team.
  std::map<std::string, double> team_usd;
  double unpriced_gpu_hours = 0;  // held on capacity with no known price
  std::map<std::string, double> team_unpriced_hours;  // the same, by the team of the pod
  double measured_gpu_hours = 0;
  double activity_gpu_hours = 0;

  // By kind of capacity (GPU-equivalent hours and allocated $, known prices).
  double whole_gpu_hours = 0;     // whole GPUs of unshared nodes
  double whole_usd = 0;
  double mig_gpu_hours = 0;
  double replica_gpu_hours = 0;
  std::string mig_profile;        // the MIG profile held, "" when none or several
  double mig_fraction = 0;        // that profile's f
  std::string gpu_model;          // the model most of its hours were on

  // On on-demand capacity: hours, allocated $, and the same hours at the effective spot rate
  // (NaN when a node's spot rate is unknown).
  double on_demand_gpu_hours = 0;
  double on_demand_usd = 0;
  double on_demand_as_spot_usd = 0;

  // Multi-GPU pods: the most whole units one pod held at once, and the most units such a pod
  // kept busy (at or over the idle threshold, or unmeasured) in 99% of its steps holding them.
  int max_units_per_pod = 0;
  int busy_units_p99 = 0;
};

// The spot rate ($/GPU-hour) a node's GPU-hour would cost on spot capacity; NaN when unknown.
using SpotRateFn = std::function<double(const Node& node)>;

class ProfileSink final : public CostSink {
 public:
  // `inventory` must outlive the sink. `spot_rate` may be empty (spot cost unknown everywhere).
  // `idle_threshold` decides which units count as busy. `effective_spot` turns a spot rate into
  // its effective rate (interruptions included).
  ProfileSink(const Inventory& inventory, Duration step, double idle_threshold,
              SpotRateFn spot_rate, std::function<double(double)> effective_spot);

  void Consume(std::span<const CostRecord> records) override;

  // The profiles, sorted by cluster, namespace, workload kind and workload. Call once, after the
  // engine run.
  std::vector<WorkloadProfile> Finish();

 private:
  struct UnitInfo {
    uint32_t workload = 0;
    const std::string* team = nullptr;  // the holder's team (its namespace when it has none)
    bool whole = false;
    bool mig = false;
    bool on_demand = false;
    double spot_rate = NAN;  // effective
  };
  struct PodSteps {  // per holder: whole units held and busy per step, for multi-GPU pods
    uint32_t workload = 0;
    int64_t first_step = -1;
    std::vector<std::pair<uint16_t, uint16_t>> steps;  // (held, busy)
  };
  const UnitInfo& InfoFor(UnitIndex unit, HolderIndex holder);
  StepStat& StepOf(WorkloadProfile& w, int64_t step);

  const Inventory* inventory_;
  double step_hours_;
  double idle_threshold_;
  SpotRateFn spot_rate_;
  std::function<double(double)> effective_spot_;
  std::vector<WorkloadProfile> workloads_;
  std::unordered_map<std::string, uint32_t> workload_ids_;
  std::unordered_map<uint64_t, UnitInfo> infos_;  // unit << 32 | holder
  std::unordered_map<NodeIndex, double> node_spot_;
  std::unordered_map<HolderIndex, PodSteps> pods_;
  std::vector<std::unordered_map<std::string, double>> model_hours_;   // per workload
  std::vector<std::unordered_map<std::string, double>> profile_hours_; // per workload
};

// The steps a policy of "scale to zero after `min_hours` idle" would have freed: those of each
// run of idle steps (held, measured, utilization under `threshold`) past its first `min_hours`.
// Indexed like w.steps.
std::vector<bool> StepsIdleAfter(const WorkloadProfile& w, double step_hours, double threshold,
                                 double min_hours);

// Weighted percentile q (0..1) of the utilization of a profile's measured steps (each weighted by
// its measured hours); NaN when nothing was measured.
double UtilizationPercentile(const WorkloadProfile& w, double q);

}  // namespace gpucost::advise
