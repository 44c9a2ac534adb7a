#include "attribution/usage_index.h"

#include "core/strings.h"

namespace gpucost::attribution {
namespace {

std::string DeviceKey(NodeIndex node, std::string_view uuid, int gi) {
  return StrCat(node, "|", gi, "|", uuid);
}

std::string HolderKey(HolderIndex holder, NodeIndex node, std::string_view uuid) {
  return StrCat(holder, "|", node, "|", uuid);
}

Status CheckSorted(const std::vector<UsageSample>& samples, std::string_view what) {
  for (size_t i = 1; i < samples.size(); ++i) {
    if (samples[i].t <= samples[i - 1].t) {
      return Status::InvalidArgument(StrCat(what, ": samples not sorted by time (sample ", i,
                                            " at ", FormatRfc3339(samples[i].t), ")"));
    }
  }
  return Status::Ok();
}

}  // namespace

Result<UsageIndex> UsageIndex::Build(const Usage& usage) {
  UsageIndex index;
  for (size_t i = 0; i < usage.devices.size(); ++i) {
    const DeviceSeries& d = usage.devices[i];
    GPUCOST_RETURN_IF_ERROR(CheckSorted(
        d.samples, StrCat("usage series of device ", d.gpu_uuid, " instance ", d.gpu_instance_id)));
    // The first series of a device wins; later duplicates are ignored.
    index.devices_.emplace(DeviceKey(d.node, d.gpu_uuid, d.gpu_instance_id),
                           static_cast<int32_t>(i));
  }
  for (size_t i = 0; i < usage.holders.size(); ++i) {
    const HolderDeviceSeries& h = usage.holders[i];
    GPUCOST_RETURN_IF_ERROR(CheckSorted(
        h.samples, StrCat("usage series of holder ", h.holder, " on device ", h.gpu_uuid)));
    if (h.gpu_instance_id != -1) continue;  // per-holder data is used on whole GPUs only
    index.holders_.emplace(HolderKey(h.holder, h.node, h.gpu_uuid), static_cast<int32_t>(i));
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
  return -1;
}

}  // namespace gpucost::attribution
