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
#include "model/usage.h"
#include "slurm/billing_weights.h"
#include "slurm/sacct_parser.h"

namespace gpucost::slurm {

struct SlurmOptions {
  SacctFormat format;                 // delimiter, header-less field list, time zone of the times
  std::string cluster = "default";    // for rows without a Cluster field
  // The attribution window. Running jobs (End=Unknown) are cut at its end. Unset: from the
  // earliest Start to the latest time in the file.
  std::optional<Window> window;
  // Where `window` came from when the user did not give it (the span of another input read beside
  // the jobs, say): running jobs held to its end past the file's latest time are then said.
  std::string window_origin;
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
  // Team by account; accounts not listed are their own team (with a warning naming
  // `account_teams_source`, the file, when the map is not empty).
  std::map<std::string, std::string> account_teams;
  std::string account_teams_source;
  // Partitions' TRESBillingWeights: each job's billing TRES is recomputed from its partition's
  // weights. Unset: the `billing=` value Slurm recorded in AllocTRES, where present.
  std::optional<BillingWeights> billing;
  // Spacing of the samples of a job's utilization series built from its steps' gres/gpuutil;
  // keep it at or below the engine's staleness limit.
  Duration usage_sample_interval = std::chrono::seconds(60);
};

struct SlurmStats {
  uint64_t lines = 0;            // data lines read
  uint64_t jobs = 0;             // GPU allocations that became holders
  uint64_t steps_skipped = 0;
  uint64_t pending_skipped = 0;
  uint64_t no_gpu_skipped = 0;
  uint64_t outside_window = 0;   // GPU jobs that did not overlap the window
  uint64_t malformed_lines = 0;
  uint64_t gpuutil_jobs = 0;     // jobs with a utilization series from gres/gpuutil
};

struct SlurmTimeline {
  Inventory inventory;
  // Per-job utilization from the steps' gres/gpuutil: one HolderDeviceSeries per job with an
  // empty gpu_uuid and no node, i.e. the job's activity on each whole GPU it holds.
  Usage usage;
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

// A LoadedTimeline holding only the Slurm piece (usage only from gres/gpuutil).
LoadedTimeline ToLoadedTimeline(SlurmTimeline slurm);

// Appends the Slurm piece to `target` (e.g. a timeline read from exposition files): nodes,
// units, holders, holdings and usage with their indexes shifted, warnings appended; span and
// window become the hull of both.
//
// A Slurm node that `target` already has from dcgm-exporter data alone (same name, same cluster
// or `unlabelled_cluster`, the cluster given to series without a cluster label; no Kubernetes
// holding on it) is taken over instead of added: the Slurm jobs draw from its real GPUs, which
// carry their measured activity, and the node joins the Slurm cluster. Where the node agent
// measured a job's processes on a GPU (`slurm_job`, target.agent_jobs), the job's holding is
// pinned to those GPUs and its utilization on each whole GPU is its own measured activity (a
// per-holder series; measured idle where the agent saw none of its processes). Else, where
// dcgm-exporter labelled a GPU with the job (`hpc_job`, target.device_jobs), the holding is pinned
// to exactly those GPUs and takes their activity. A job measured either way has its gres/gpuutil
// series dropped in favour of the measurement. Agent series naming no Slurm job on their node
// are warned about.
void MergeSlurmTimeline(LoadedTimeline& target, SlurmTimeline slurm,
                        const std::string& unlabelled_cluster = "");

}  // namespace gpucost::slurm
