// The increase of a Prometheus counter over a window, computed exactly from its raw samples:
// every rise between consecutive samples counts, a fall is a counter reset (the process
// restarted and counted again from zero, so the new value is the increase), and nothing is
// extrapolated to the window's edges. Pure functions on value types; thread-safe.
#pragma once

#include <cstdint>
#include <span>

#include "core/time.h"

namespace gpucost::workcost {

struct CounterSample {
  int64_t t_ms = 0;
  double value = 0;
  friend bool operator==(const CounterSample&, const CounterSample&) = default;
};

struct CounterIncrease {
  double increase = 0;
  int64_t resets = 0;                   // falls counted as restarts from zero
  int64_t samples = 0;                  // samples used, the baseline included
  bool baseline_before_window = false;  // the first sample used lies before the window
};

// The increase over `window` of one counter series whose `samples` are sorted by time with
// distinct timestamps and finite, non-negative values. The samples used are those with
// timestamps in [window.start, window.end), preceded by the newest sample in
// [window.start - lookback, window.start) when there is one: that baseline makes the increases
// of adjacent windows add up to the increase of their union. Without a baseline the first
// sample in the window is the starting point (what the counter counted before it is not
// known). A single sample gives 0. Gaps need no special handling: the rise across a gap is
// counted once, and a fall across it is a reset.
CounterIncrease IncreaseOver(std::span<const CounterSample> samples, Window window,
                             Duration lookback);

}  // namespace gpucost::workcost
