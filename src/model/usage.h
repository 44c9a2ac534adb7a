// Usage timelines: activity samples per device (a whole GPU or a MIG instance) and, where the
// node agent or per-process data measures it, per holder on a device. Values are ratios 0..1 of
// the device's capacity, already unit-normalised by the source. Plain value types.
#pragma once

#include <string>
#include <vector>

#include "model/capacity.h"

namespace gpucost {

struct UsageSample {
  Instant t;
  double value;  // ratio 0..1
};

// Activity of one device. A sample holds from its timestamp until the next sample, for at most
// the staleness limit (a setting of the engine).
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
