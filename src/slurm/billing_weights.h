// Slurm's billing TRES, recomputed from partitions' TRESBillingWeights so that reports can show
// Slurm billing units beside dollars. Reads the partition records of `scontrol show partition`
// (multi-line or -o), slurm.conf PartitionName lines, and the PriorityFlags line of
// `scontrol show config`. Plain values; stateless functions, thread-safe.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "core/result.h"

namespace gpucost::slurm {

struct TresWeight {
  double weight = 0;   // per base unit: one CPU, node, GRES, ... ; one MB for mem and bb
};

struct BillingWeights {
  // Partition name -> TRES name in lower case ("cpu", "mem", "gres/gpu", "gres/gpu:a100") ->
  // weight. A partition listed without TRESBillingWeights maps to an empty table.
  std::map<std::string, std::map<std::string, TresWeight>> partitions;
  bool max_tres = false;  // PriorityFlags=MAX_TRES
};

// Parses one TRESBillingWeights value ("CPU=1.0,Mem=0.25G,GRES/gpu=2.0"). A K/M/G/T/P suffix
// on a weight makes it per that unit: for mem (base unit MB) "0.25G" is 0.25 per GB. Errors name
// the item.
Result<std::map<std::string, TresWeight>> ParseTresBillingWeights(std::string_view text);

// Parses `scontrol show partition` output (or slurm.conf lines) and an optional
// `PriorityFlags = ...` line. `source` names the input in errors (with the line).
Result<BillingWeights> ParseBillingWeights(std::string_view text, const std::string& source);

// Reads a file of the above. Errors name the file.
Result<BillingWeights> LoadBillingWeights(const std::string& path);

// The billing TRES of one allocation (AllocTRES "billing=11,cpu=8,gres/gpu=1,mem=64G,node=1")
// under `weights`: Σ weight × count, or with MAX_TRES the largest weighted node TRES (cpu, mem,
// node, gres/*) plus the sum of the others. Empty weights bill the allocated CPUs, as Slurm
// does. Slurm stores the result as an integer, so it is truncated. Errors name the item.
Result<double> BillingOf(std::string_view alloc_tres, const std::map<std::string, TresWeight>& weights,
                         bool max_tres);

// The `billing=` value Slurm recorded in AllocTRES, if any.
std::optional<double> RecordedBilling(std::string_view alloc_tres);

}  // namespace gpucost::slurm
