// Usage timelines: activity samples per device (a whole GPU or a MIG instance) and, where the
// node agent or per-process data measures it, per holder on a device. Values are ratios 0..1 of
// the device's capacity, already unit-normalised by the source. Plain value types.
#pragma once

#include <algorithm>
#include <string>
#include <vector>

#include "model/capacity.h"

namespace gpucost {

// How long one sample of a series stands for, given the series' own sampling interval (the median
// spacing of its samples) and the staleness setting: the staleness, or one and a half intervals
// where the series is sampled more sparsely than the staleness allows (10-minute scrapes under a
// 5-minute staleness hold 15 minutes, so a sparse scrape does not halve the time it evidences).
inline Duration SampleHoldLimit(Duration interval, Duration staleness) {
  return std::max(staleness, interval * 3 / 2);
}

// How far before a window samples are read (from a store, and kept from files): the staleness, and
// at least half an hour, so that a series sampled as sparsely as every 20 minutes has the sample
// that stands for the window's start, and samples enough to learn its interval.
inline Duration SampleLookback(Duration staleness) {
  return std::max(staleness, Duration(std::chrono::minutes(30)));
}

// How far after a window samples are read from a store: as far as before it. A file holds the
// scrapes after a window, and a series' next sample tells how long its last one in the window
// holds; a fetch cut at the window's end would leave a series seen once there (a pod that starts
// just before the end, a segment that holds one scrape of a sparse series) to a default interval
// instead, and a store would give other money than the same samples in files.
inline Duration SampleLookahead(Duration staleness) { return SampleLookback(staleness); }

// The longest sampling interval learned from a series' spacing: a series whose samples lie further
// apart than this is taken as sampled this often (gaps stay gaps).
inline constexpr Duration kLongestLearnedInterval = std::chrono::hours(1);

struct UsageSample {
  Instant t;
  double value;  // ratio 0..1
};

// Activity of one device. A sample holds from its timestamp until the next sample, for at most
// SampleHoldLimit(the series' median spacing, the engine's staleness).
struct DeviceSeries {
  NodeIndex node = kNoIndex;
  std::string gpu_uuid;
  int gpu_instance_id = -1;  // -1: the whole GPU
  std::vector<UsageSample> samples;  // sorted by t, unique t
};

// A holder's own part of a device's activity, in units of the whole device (0..1), measured per
// process. Preferred over the even split of a shared GPU's activity. A series with no node and
// an empty gpu_uuid is the holder's activity on each whole GPU it holds (a job-level measure such
// as Slurm's gres/gpuutil).
struct HolderDeviceSeries {
  HolderIndex holder = kNoIndex;
  NodeIndex node = kNoIndex;
  std::string gpu_uuid;
  int gpu_instance_id = -1;
  std::vector<UsageSample> samples;
};

struct Usage {
  std::vector<DeviceSeries> devices;
  std::vector<HolderDeviceSeries> holders;
};

}  // namespace gpucost
