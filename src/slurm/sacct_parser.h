// Reading `sacct --parsable2` (or `-p`) output into job allocation rows, one per job, array task
// or heterogeneous-job component that held GPUs. Steps, pending jobs and jobs without GPUs are
// counted and dropped; every malformed line becomes a warning naming file:line and the field, and
// the rest of the file is kept (docs/slurm.md lists the rules). Not thread-safe.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.h"
#include "core/time.h"
#include "inventory/diagnostics.h"
#include "slurm/gpu_tres.h"

namespace gpucost::slurm {

struct SacctFormat {
  char delimiter = '|';                 // sacct --delimiter
  // Field names for output printed without a header (sacct -n), in --format order. Empty: the
  // first line that is not blank or a "#" comment is the header.
  std::vector<std::string> fields;
  std::string time_zone = "local";      // LocalTimeZone setting the Start/End times are read in
  // Accounting records what happened: a Start or End after this is a corrupt row (End=2096 for
  // 2026 billed 70 years of every node). Unset: the system clock's now plus a day.
  std::optional<Instant> not_after;
};

// One step's GPU utilization as Slurm accounting reports it (gres/gpuutil, gpu/nvml plugin).
struct StepGpuUtil {
  std::string step_id;         // "123.0", "123.batch"
  Instant start;
  std::optional<Instant> end;  // nullopt: still running
  // Percent summed over the step's tasks: TRESUsageInTot, else TRESUsageInAve x NTasks (or
  // TRESUsageInAve alone without NTasks). 100 = one GPU fully busy.
  double percent_total = 0;
};

struct SacctJob {
  uint64_t line = 0;
  std::string job_id;        // as written: "123", "2736118_0", "77+1"
  std::string job_id_raw;    // JobIDRaw; job_id when the field is absent
  std::string array_job_id;  // "2736118" of "2736118_0", else ""
  std::string array_task_id; // "0" of "2736118_0", else ""
  std::string het_job_id;    // "77" of "77+1", else ""
  int het_job_offset = -1;   // 1 of "77+1", else -1
  std::string cluster, user, account, partition, qos, job_name;
  std::string state;         // first word, upper case, "+" dropped: "CANCELLED by 132794" -> "CANCELLED"
  Instant start;
  std::optional<Instant> end;  // nullopt: still running (End=Unknown)
  std::optional<Duration> elapsed;
  std::vector<std::string> nodes;  // NodeList expanded
  GpuTres gpus;
  std::string alloc_tres;          // AllocTRES as written (billing weights read it)
  std::vector<StepGpuUtil> step_gpu_util;  // from the job's step rows, in file order
};

struct SacctParse {
  std::vector<SacctJob> jobs;
  uint64_t lines = 0;           // data lines read (header, blanks and comments excluded)
  uint64_t steps_skipped = 0;
  uint64_t pending_skipped = 0;
  uint64_t no_gpu_skipped = 0;
  uint64_t malformed_lines = 0;
  std::vector<InputWarning> warnings;
};

// Parses sacct output held in memory; `source` names it in warnings. Errors only for a missing
// header or a missing required field (JobID, Start, End, AllocTRES, NodeList), named.
Result<SacctParse> ParseSacct(std::string_view text, const SacctFormat& format,
                              std::string source = "<string>");

// "[DD-[HH:]]MM:SS" -> duration; nullopt when malformed.
std::optional<Duration> ParseSlurmElapsed(std::string_view text);

}  // namespace gpucost::slurm
