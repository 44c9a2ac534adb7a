// Charge: what a statement is built from, independent of where it came from (an engine run over
// input files or Prometheus, Slurm accounting, or a stored ledger): who held which kind of GPU
// capacity (labels), and for one span of time how many GPU-hours, at what money, and how much of
// it was used (amounts). One engine CostRecord of a holder is one Charge. Plain value types.
#pragma once

#include <cmath>
#include <string>

#include "core/time.h"
#include "model/capacity.h"

namespace gpucost::chargeback {

// The dimensions a statement groups by. A Slurm job's team is its account.
struct ChargeLabels {
  std::string team;
  std::string namespace_name;  // Slurm: account
  std::string workload;        // top controller name (Slurm: job name)
  std::string workload_kind;   // Job, Deployment, ..., SlurmJob
  std::string gpu_model;       // e.g. "NVIDIA A100-SXM4-80GB"
  std::string capacity_type;   // "on_demand", "spot", "reserved" or "" when unknown
  // What the hours are hours of: GPU-hours, or accelerator-hours of an AWS Neuron device.
  UnitKind unit_kind = UnitKind::kGpu;
};

struct ChargeAmounts {
  Instant start;                // when the charged time began (places it in the daily series)
  double gpu_hours = 0;         // GPU-equivalent hours held
  double allocated_usd = NAN;   // gpu_hours x price; NaN: the price is unknown
  double effective_usd = NAN;   // allocated x utilization; NaN: unmeasured or unpriced
  double used_gpu_hours = NAN;  // utilization x gpu_hours; NaN: no usage sample (unmeasured)

  bool priced() const { return std::isfinite(allocated_usd); }
  bool measured() const { return std::isfinite(used_gpu_hours); }
  // used / held, in [0, 1]; NaN when unmeasured.
  double utilization() const { return gpu_hours > 0 ? used_gpu_hours / gpu_hours : NAN; }
};

}  // namespace gpucost::chargeback
