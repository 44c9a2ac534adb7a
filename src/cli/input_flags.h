// The input flags shared by the commands that attribute a cluster (`gpucost report`,
// `gpucost chargeback`, `gpucost serve`, ...): exposition files, a Prometheus-compatible store,
// the Kubernetes API and Slurm accounting, registered into an InputFlags (pipeline/input.h's
// InputOptions, which loads the timeline they name).
#pragma once

#include <CLI/CLI.hpp>

#include "cli/kube_flags.h"
#include "cli/progress_flags.h"
#include "pipeline/input.h"

namespace gpucost::cli {

using InputFlags = InputOptions;

// Registers the source flags (--input, --prometheus and its auth, --slurm*, the Kubernetes API).
// `flags` must outlive the command.
void AddInputFlags(CLI::App& cmd, InputFlags& flags);
// Registers the flags that shape the timeline (--label-allowlist, --cluster, --team-labels,
// --staleness, --max-warnings); they follow the command's own flags in --help.
void AddTimelineFlags(CLI::App& cmd, InputFlags& flags);

}  // namespace gpucost::cli
