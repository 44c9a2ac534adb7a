// --segment and --segment-samples, shared by the commands that attribute a window from a
// Prometheus-compatible store (`report`, `chargeback`): whether the window is read in segments
// (RunSegmentedReport) and the loader that reads each one. docs/prometheus.md, "Segments".
#pragma once

#include <CLI/CLI.hpp>
#include <cstdint>
#include <optional>
#include <string>

#include "cli/input_flags.h"
#include "core/result.h"
#include "pipeline/segmented_report.h"

namespace gpucost::cli {

struct SegmentFlags {
  std::string first = "1d";
  uint64_t samples = SegmentSizing{}.target_samples;
  const CLI::Option* first_option = nullptr;  // to tell a --segment given from the default
};

// Registers the two flags; `flags` must outlive the command.
void AddSegmentFlags(CLI::App& cmd, SegmentFlags& flags);

// The segments `input` is read in over `window`, or nullopt when it is read at once: segments
// apply to --prometheus (without --kube, whose API is asked once) over a window longer than the
// first segment. InvalidArgument for a negative --segment, and for --segment given without
// --prometheus.
Result<std::optional<SegmentSizing>> SegmentsFor(const SegmentFlags& flags, const InputFlags& input,
                                                 const std::optional<Window>& window);

// Reads what `input` names for one segment's window (LoadInput), with Prometheus' progress line
// off (the segments say their own), the remote-read span carried from one segment to the next,
// and a segment without samples no error.
SegmentLoader MakeSegmentLoader(InputFlags input, Duration step);

}  // namespace gpucost::cli
