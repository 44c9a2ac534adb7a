#include "cli/segment_flags.h"

#include <memory>
#include <utility>

namespace gpucost::cli {

void AddSegmentFlags(CLI::App& cmd, SegmentFlags& flags) {
  flags.first_option =
      cmd.add_option("--segment", flags.first,
                     "With --prometheus: attribute the window in segments, each fetched, "
                     "attributed and released in turn (memory for two segments, not the window), "
                     "the first this long; 0: the whole window at once")
          ->capture_default_str();
  cmd.add_option("--segment-samples", flags.samples,
                 "With --segment: size each segment after the first to hold about this many "
                 "samples (0: every segment --segment long)")
      ->capture_default_str();
}

Result<std::optional<SegmentSizing>> SegmentsFor(const SegmentFlags& flags, const InputFlags& input,
                                                 const std::optional<Window>& window) {
  GPUCOST_ASSIGN_OR_RETURN(const Duration first, ParseDuration(flags.first));
  if (first < Duration(0)) return Status::InvalidArgument("--segment must not be negative");
  const bool given = flags.first_option != nullptr && flags.first_option->count() > 0;
  if (given && first > Duration(0) && input.prometheus.empty()) {
    return Status::InvalidArgument("--segment applies to --prometheus only");
  }
  if (input.prometheus.empty() || input.kube.any() || !input.ledger.empty() || !window ||
      first <= Duration(0) || window->length() <= first) {
    return std::optional<SegmentSizing>();
  }
  return std::optional<SegmentSizing>(SegmentSizing{first, flags.samples});
}

SegmentLoader MakeSegmentLoader(InputFlags input, Duration step) {
  input.prometheus_progress = false;
  input.prometheus_span = std::make_shared<Duration>(0);
  input.prometheus_empty_ok = true;
  input.warn_beyond_data = false;  // said once by the segmented run
  return [input = std::move(input), step](Window w) -> Result<LoadedTimeline> {
    GPUCOST_ASSIGN_OR_RETURN(LoadedInput loaded, LoadInput(input, w, step));
    return std::move(loaded.timeline);
  };
}

}  // namespace gpucost::cli
