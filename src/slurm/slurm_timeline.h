// Slurm jobs as an inventory piece: each GPU job (or array task, or het-job component) of a
// `sacct --parsable2` file becomes a Holder of kind kSlurmJob, each node in its NodeList a Node
// with synthesised GPU units, and each (job, node, resource) a Holding with a Request, clipped to
// the window. The piece can be attributed alone or appended to a Kubernetes LoadedTimeline.
// docs/slurm.md describes the rules. Not thread-safe (see slurm/local_time.h on time zones).
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/result.h"
#include "core/time.h"
#include "inventory/diagnostics.h"
#include "inventory/inventory_builder.h"
#include "inventory/mig_profiles.h"
#include "model/inventory.h"
#include "slurm/sacct_parser.h"

namespace gpucost::slurm {

struct SlurmOptions {
  SacctFormat format;                 // delimiter, header-less field list, time zone of the times
  std::string cluster = "default";    // for rows without a Cluster field
  // The attribution window. Running jobs (End=Unknown) are cut at its end. Unset: from the
  // earliest Start to the latest time in the file.
  std::optional<Window> window;
  // Physical GPUs per node: by node name, else `default_gpus_per_node`; 0 infers it as the most
  // GPUs (whole plus MIG-packed) the node's jobs held at one time. A configured count below what
  // jobs held at one time is raised to it, with a warning.
  std::map<std::string, int> gpus_per_node;
  int default_gpus_per_node = 0;
  // GPU model per node name, else `default_gpu_model`, else the GRES type jobs named ("a100").
  // Used for MIG fractions (inventory/mig_profiles.h) and the gpu_model dimension.
  std::map<std::string, std::string> gpu_models;
  std::string default_gpu_model;
  MigWeight mig_weight = MigWeight::kCompute;
  // Team by account; accounts not listed are their own team.
  std::map<std::string, std::string> account_teams;
};

struct SlurmStats {
  uint64_t lines = 0;            // data lines read
  uint64_t jobs = 0;             // GPU allocations that became holders
  uint64_t steps_skipped = 0;
  uint64_t pending_skipped = 0;
  uint64_t no_gpu_skipped = 0;
  uint64_t outside_window = 0;   // GPU jobs that did not overlap the window
  uint64_t malformed_lines = 0;
};

struct SlurmTimeline {
  Inventory inventory;
  Window span;    // earliest job start to latest job end (running jobs: the window end)
  Window window;  // what holdings and nodes are clipped to
  std::vector<InputWarning> warnings;
  SlurmStats stats;
};

// Builds the inventory piece from parsed rows. `source` names the input in warnings.
Result<SlurmTimeline> BuildSlurmTimeline(const SacctParse& parsed, const SlurmOptions& options,
                                         const std::string& source = "<string>");

// Parses sacct output in memory and builds the piece.
Result<SlurmTimeline> LoadSacctText(std::string_view text, const SlurmOptions& options,
                                    const std::string& source = "<string>");

// Reads a sacct output file ("-" is stdin) and builds the piece. Errors name the file.
Result<SlurmTimeline> LoadSacct(const std::string& path, const SlurmOptions& options);

// A LoadedTimeline holding only the Slurm piece (no usage: every step is unmeasured).
LoadedTimeline ToLoadedTimeline(SlurmTimeline slurm);

// Appends the Slurm piece to `target` (e.g. a Kubernetes timeline): nodes, units, holders and
// holdings with their indexes shifted, warnings appended; span and window become the hull of
// both. Usage is left as it is: the Slurm piece brings none yet.
void MergeSlurmTimeline(LoadedTimeline& target, SlurmTimeline slurm);

}  // namespace gpucost::slurm
