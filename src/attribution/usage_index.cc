#include "attribution/usage_index.h"

#include <algorithm>

#include "core/strings.h"

namespace gpucost::attribution {
namespace {

std::string DeviceKey(NodeIndex node, std::string_view uuid, int gi) {
  return StrCat(node, "|", gi, "|", uuid);
}

std::string HolderKey(HolderIndex holder, NodeIndex node, std::string_view uuid) {
  return StrCat(holder, "|", node, "|", uuid);
}

// The index of the first sample not after the one before it, or 0 if the series is sorted with
// unique timestamps; adds to `wide` the spacings longer than `wide_ms`. Blocks without an early
// exit, so the comparison loop vectorises; the offending sample is looked for only in a block
// that has one.
size_t FirstUnsorted(const std::vector<UsageSample>& samples, int64_t wide_ms, size_t& wide) {
  constexpr size_t kBlock = 256;
  const size_t n = samples.size();
  for (size_t base = 1; base < n; base += kBlock) {
    const size_t end = std::min(n, base + kBlock);
    bool unsorted = false;
    size_t wide_here = 0;
    for (size_t i = base; i < end; ++i) {
      const int64_t gap = UnixMs(samples[i].t) - UnixMs(samples[i - 1].t);
      unsorted |= gap <= 0;
      wide_here += gap > wide_ms ? 1 : 0;
    }
    wide += wide_here;
    if (!unsorted) continue;
    for (size_t i = base; i < end; ++i) {
      if (samples[i].t <= samples[i - 1].t) return i;
    }
  }
  return 0;
}

Status Unsorted(const std::vector<UsageSample>& samples, size_t i, std::string_view what) {
  return Status::InvalidArgument(StrCat(what, ": samples not sorted by time (sample ", i, " at ",
                                        FormatRfc3339(samples[i].t), ")"));
}

// The median spacing of a sorted series' samples (at most kLongestLearnedInterval), or 0 with
// fewer than two samples. `gaps` is scratch space.
int64_t MedianSpacingMs(const std::vector<UsageSample>& samples, std::vector<int64_t>& gaps) {
  if (samples.size() < 2) return 0;
  gaps.clear();
  gaps.reserve(samples.size() - 1);
  for (size_t i = 1; i < samples.size(); ++i) {
    gaps.push_back(UnixMs(samples[i].t) - UnixMs(samples[i - 1].t));
  }
  auto mid = gaps.begin() + static_cast<ptrdiff_t>(gaps.size() / 2);
  std::nth_element(gaps.begin(), mid, gaps.end());
  return std::min(*mid, kLongestLearnedInterval.count());
}

}  // namespace

Result<UsageIndex> UsageIndex::Build(const Usage& usage, int64_t staleness_ms) {
  UsageIndex index;
  std::vector<int64_t> gaps;
  // A series whose median spacing is at most 2/3 of the staleness holds for the staleness: the
  // median is only looked for when at least half of the spacings are longer than that (rare;
  // the count comes from the sortedness pass, so dense series cost nothing more).
  const int64_t dense_ms = staleness_ms * 2 / 3;
  size_t wide = 0;
  auto check = [&](const std::vector<UsageSample>& samples) {
    wide = 0;
    return FirstUnsorted(samples, dense_ms, wide);
  };
  auto hold = [&](const std::vector<UsageSample>& samples) {
    const size_t spacings = samples.size() < 2 ? 0 : samples.size() - 1;
    if (spacings == 0 || wide < spacings - spacings / 2) return staleness_ms;
    const int64_t interval = MedianSpacingMs(samples, gaps);
    return SampleHoldLimit(Duration(interval), Duration(staleness_ms)).count();
  };
  index.device_hold_ms_.reserve(usage.devices.size());
  index.holder_hold_ms_.reserve(usage.holders.size());
  for (size_t i = 0; i < usage.devices.size(); ++i) {
    const DeviceSeries& d = usage.devices[i];
    if (const size_t bad = check(d.samples); bad != 0) {
      return Unsorted(
          d.samples, bad,
          StrCat("usage series of device ", d.gpu_uuid, " instance ", d.gpu_instance_id));
    }
    index.device_hold_ms_.push_back(hold(d.samples));
    // The first series of a device wins; later duplicates are ignored.
    index.devices_.emplace(DeviceKey(d.node, d.gpu_uuid, d.gpu_instance_id),
                           static_cast<int32_t>(i));
  }
  for (size_t i = 0; i < usage.holders.size(); ++i) {
    const HolderDeviceSeries& h = usage.holders[i];
    if (const size_t bad = check(h.samples); bad != 0) {
      return Unsorted(h.samples, bad,
                      StrCat("usage series of holder ", h.holder, " on device ", h.gpu_uuid));
    }
    index.holder_hold_ms_.push_back(hold(h.samples));
    if (h.gpu_instance_id != -1) continue;  // per-holder data is used on whole GPUs only
    index.holders_.emplace(HolderKey(h.holder, h.node, h.gpu_uuid), static_cast<int32_t>(i));
    index.any_gpu_holders_ |= h.gpu_uuid.empty() && h.node == kNoIndex;
  }
  return index;
}

int32_t UsageIndex::FindDevice(NodeIndex node, std::string_view gpu_uuid, int gi) const {
  if (auto it = devices_.find(DeviceKey(node, gpu_uuid, gi)); it != devices_.end()) {
    return it->second;
  }
  if (auto it = devices_.find(DeviceKey(kNoIndex, gpu_uuid, gi)); it != devices_.end()) {
    return it->second;
  }
  return -1;
}

int32_t UsageIndex::FindHolder(HolderIndex holder, NodeIndex node,
                               std::string_view gpu_uuid) const {
  if (auto it = holders_.find(HolderKey(holder, node, gpu_uuid)); it != holders_.end()) {
    return it->second;
  }
  if (auto it = holders_.find(HolderKey(holder, kNoIndex, gpu_uuid)); it != holders_.end()) {
    return it->second;
  }
  if (any_gpu_holders_) {
    if (auto it = holders_.find(HolderKey(holder, kNoIndex, "")); it != holders_.end()) {
      return it->second;
    }
  }
  return -1;
}

}  // namespace gpucost::attribution
