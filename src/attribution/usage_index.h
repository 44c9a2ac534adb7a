// Usage lookup and integration: finds the series of a device (whole GPU or MIG instance) or of a
// holder on a GPU, and integrates a series over a span with a forward-only cursor. A sample holds
// from its timestamp until the next sample, for at most its series' hold limit
// (SampleHoldLimit of the series' median spacing and the staleness). Thread-compatible.
#pragma once

#include <algorithm>
#include <limits>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "attribution/engine_common.h"
#include "core/result.h"
#include "model/usage.h"

namespace gpucost::attribution {

// Integrates one series. Calls must come with non-decreasing span starts (the step loop walks
// time forward), which keeps the cost per call proportional to the samples it touches.
class SeriesCursor {
 public:
  SeriesCursor() = default;
  SeriesCursor(const std::vector<UsageSample>* samples, int64_t hold_ms)
      : s_(samples ? samples->data() : nullptr),
        n_(samples ? samples->size() : 0),
        hold_ms_(hold_ms) {}

  bool valid() const { return n_ > 0; }

  // Adds to `covered_ms` the part of [a, b) some fresh sample covers, and to `integral` the
  // value (clamped to 0..1) times that time. NaN samples cover nothing.
  void Integrate(int64_t a, int64_t b, int64_t& covered_ms, double& integral) {
    while (i_ + 1 < n_ && UnixMs(s_[i_ + 1].t) <= a) ++i_;
    // Each sample's timestamp is loaded once: the next sample's start ends the current one.
    size_t j = i_;
    int64_t t0 = UnixMs(s_[j].t);
    while (t0 < b) {
      const bool more = j + 1 < n_;
      const int64_t next = more ? UnixMs(s_[j + 1].t) : std::numeric_limits<int64_t>::max();
      const int64_t lo = std::max(t0, a);
      const int64_t hi = std::min(std::min(t0 + hold_ms_, next), b);
      const double v = s_[j].value;
      if (hi > lo && v == v) {
        covered_ms += hi - lo;
        integral += std::clamp(v, 0.0, 1.0) * static_cast<double>(hi - lo);
      }
      if (!more) break;
      ++j;
      t0 = next;
    }
  }

 private:
  const UsageSample* s_ = nullptr;
  size_t n_ = 0;
  size_t i_ = 0;
  int64_t hold_ms_ = 0;
};

class UsageIndex {
 public:
  // Checks that every series is sorted with unique timestamps (InvalidArgument naming it), and
  // learns each series' hold limit from its spacing and `staleness_ms`.
  static Result<UsageIndex> Build(const Usage& usage, int64_t staleness_ms);

  // How long a sample of usage.devices[i] / usage.holders[i] holds at most.
  int64_t DeviceHoldMs(int32_t i) const { return device_hold_ms_[static_cast<size_t>(i)]; }
  int64_t HolderHoldMs(int32_t i) const { return holder_hold_ms_[static_cast<size_t>(i)]; }

  // Index into usage.devices, or -1. A series with no node matches any node.
  int32_t FindDevice(NodeIndex node, std::string_view gpu_uuid, int gpu_instance_id) const;
  // Index into usage.holders of the holder's whole-GPU series on that GPU, else of its series
  // with no node and no GPU (its activity on every whole GPU it holds), or -1.
  int32_t FindHolder(HolderIndex holder, NodeIndex node, std::string_view gpu_uuid) const;

 private:
  std::unordered_map<std::string, int32_t> devices_;
  std::unordered_map<std::string, int32_t> holders_;
  bool any_gpu_holders_ = false;  // some holder series names no GPU
  std::vector<int64_t> device_hold_ms_;
  std::vector<int64_t> holder_hold_ms_;
};

}  // namespace gpucost::attribution
