// Dynamic Resource Allocation in the inventory: each allocated ResourceClaim's devices as units,
// and the part of each device a pod the claim is reserved for holds (docs/k8s.md "Dynamic
// Resource Allocation"). The units themselves come from node_assembly.cc.
#include <algorithm>
#include <cmath>
#include <set>

#include "core/strings.h"
#include "inventory/assembly.h"
#include "inventory/mig_profiles.h"

namespace gpucost {
namespace {

struct DraDeviceUnit {
  std::vector<UnitIndex> units;  // one, or a Neuron device's cores; none when no unit matches
  const KubeDraDevice* device = nullptr;
  double part = 1.0;  // of each unit: a DynamicMIG device's profile's fraction of its GPU
};

std::string NormalizedProfile(std::string_view profile) {
  const auto parsed = ParseMigProfileName(profile);
  return parsed ? NormalizeMigProfileName(*parsed) : std::string(profile);
}

// The part of its GPU a DynamicMIG device of `profile` is: the profile's fraction as for a MIG
// unit (docs/engine.md), 0 when the profile is not known at all (warned).
double DynamicMigPart(Assembly& a, const std::string& model, const std::string& profile) {
  const MigModel* mm = DetectMigModel(model);
  const MigProfile* p = mm != nullptr ? FindMigProfile(*mm, profile) : nullptr;
  if (p != nullptr) return MigFraction(*mm, *p, a.options.mig_weight);
  const std::optional<double> f = MigFractionWithoutModel(profile, a.options.mig_weight);
  a.diag.Warn(StrCat("mig-unknown:", model, ":", profile), "", 0,
              StrCat("DynamicMIG profile \"", profile, "\" on GPU model \"", model,
                     "\" is not in the profile table; ",
                     f ? StrCat("fraction taken as ", *f) : std::string("fraction 0")));
  return f.value_or(0);
}

// Every DRA device to its unit: a GPU device to its GPU's whole unit; a MIG device to a MIG unit
// of its parent GPU with its profile, each unit to one device (in the order of device names).
std::map<DraDeviceKey, DraDeviceUnit> DeviceUnits(Assembly& a) {
  std::map<DraDeviceKey, DraDeviceUnit> out;
  std::vector<const std::pair<std::string, KubeDraDevice>*> devices;
  for (const auto& cd : a.dra.devices) devices.push_back(&cd);
  std::sort(devices.begin(), devices.end(), [](const auto* x, const auto* y) {
    return std::tie(x->first, x->second.node, x->second.name) <
           std::tie(y->first, y->second.node, y->second.name);
  });
  std::set<UnitIndex> taken;
  for (const auto* cd : devices) {
    const KubeDraDevice& d = cd->second;
    DraDeviceUnit& du = out[{cd->first, d.driver, d.pool, d.name}];
    du.device = &d;
    if (auto made = a.dra_device_units.find({cd->first, d.driver, d.pool, d.name});
        made != a.dra_device_units.end()) {
      du.units = made->second;
      continue;
    }
    auto node = a.node_index.find({cd->first, d.node});
    if (node == a.node_index.end()) continue;
    if (d.type == "gpu") {
      auto it = a.unit_by_device.find({node->second, d.uuid, -1});
      if (it != a.unit_by_device.end()) du.units = {it->second};
      continue;
    }
    if (d.type != "mig") continue;
    if (d.uuid.empty()) {
      // DynamicMIG: the device is a part of its GPU's whole unit (known_gpus.cc), its profile's
      // fraction of it, for as long as a claim holds it.
      auto it = a.unit_by_device.find({node->second, d.parent_uuid, -1});
      if (it == a.unit_by_device.end()) continue;
      du.units = {it->second};
      du.part = DynamicMigPart(a, a.inventory.units[it->second].gpu_model, d.profile);
      continue;
    }
    const std::string profile = NormalizedProfile(d.profile);
    for (UnitIndex u = 0; u < a.inventory.units.size(); ++u) {
      const GpuUnit& unit = a.inventory.units[u];
      if (unit.node == node->second && unit.gpu_uuid == d.parent_uuid &&
          unit.partition.kind == PartitionKind::kMig && unit.mig_profile == profile &&
          !taken.contains(u)) {
        du.units = {u};
        taken.insert(u);
        break;
      }
    }
  }
  return out;
}

// The part of a device one allocation holds: all of it, or with consumable capacity the consumed
// amount over the device's capacity, by memory where the device has it, else by the first
// capacity both name.
double ConsumedShare(const KubeDraDevice& d, const KubeDraAllocation& x, Assembly& a,
                     const std::string& what) {
  if (x.consumed.empty()) return 1.0;
  const auto part = [&](const std::string& key) -> double {
    auto c = x.consumed.find(key);
    auto cap = d.capacity.find(key);
    if (c == x.consumed.end() || cap == d.capacity.end() || cap->second <= 0) return -1;
    const double share = c->second / cap->second;
    // The scheduler never allocates more than a device has, nor less than none: a claim that
    // says so is said, and held to the device.
    if (!(share >= 0 && share <= 1)) {
      a.diag.Warn(StrCat("dra-consumed:", x.namespace_name, "/", x.claim, ":", key), "", 0,
                  StrCat(what, " consumes ", c->second, " of its ", key, " capacity ", cap->second,
                         "; taken as ", share > 1 ? "all of it" : "none of it"));
    }
    return std::isnan(share) ? 0.0 : std::clamp(share, 0.0, 1.0);
  };
  if (const double m = part("memory"); m >= 0) return m;
  for (const auto& [key, v] : x.consumed) {
    if (const double p = part(key); p >= 0) return p;
  }
  return 1.0;
}

}  // namespace

std::map<DraClaimKey, DraClaimUnits> ResolveDraClaims(Assembly& a) {
  std::map<DraClaimKey, DraClaimUnits> out;
  if (a.dra.allocations.empty()) return out;
  const auto units = DeviceUnits(a);
  for (const auto& [cluster, x] : a.dra.allocations) {
    DraClaimUnits& claim = out[{cluster, x.namespace_name, x.claim}];
    auto it = units.find({cluster, x.driver, x.pool, x.device});
    const std::string what = StrCat("DRA claim ", x.namespace_name, "/", x.claim, ": device ",
                                    x.device, " of driver ", x.driver, " pool ", x.pool);
    if (it == units.end()) {
      a.diag.Warn(StrCat("dra-device-unknown:", x.driver, "/", x.pool, "/", x.device), "", 0,
                  StrCat(what, " is in no ResourceSlice; its pods' use of it is not attributed"));
      continue;
    }
    if (it->second.units.empty()) {
      // Not an accelerator (another driver's device, an IMEX channel): nothing to attribute. A
      // driver that names itself a GPU driver but whose devices gpucost does not know (Intel's
      // gpu.intel.com) is told once: its GPUs would otherwise be silently unattributed.
      if (!IsDraAccelerator(*it->second.device)) {
        if (x.driver.find("gpu") != std::string::npos) {
          a.diag.Warn(
              StrCat("dra-driver-unknown:", x.driver), "", 0,
              StrCat("DRA driver ", x.driver, ": claims on its devices (", x.namespace_name, "/",
                     x.claim, " holds ", x.device, ", type \"", it->second.device->type,
                     "\") are not attributed; gpucost reads NVIDIA's, AMD's and AWS "
                     "Neuron's DRA devices (docs/k8s.md)"));
        }
        continue;
      }
      a.diag.Warn(StrCat("dra-device-no-unit:", x.driver, "/", x.pool, "/", x.device), "", 0,
                  StrCat(what, " matches no unit of node ", it->second.device->node,
                         "; its pods' use of it is not attributed"));
      continue;
    }
    // The pods using the claim share each device equally, as they come and go
    // (holding_assembly.cc).
    const double share = ConsumedShare(*it->second.device, x, a, what) * it->second.part;
    for (const UnitIndex u : it->second.units) claim.units.emplace_back(u, share);
  }
  return out;
}

void WarnUnusedDraClaims(Assembly& a, const std::map<DraClaimKey, DraClaimUnits>& claims,
                         const DraClaimUse& uses) {
  for (const auto& [key, claim] : claims) {
    // Used: a pod holds it in the window (a pod that only waited, or ran before, holds nothing).
    if (auto u = uses.find(key);
        claim.units.empty() ||
        (u != uses.end() && std::any_of(u->second.begin(), u->second.end(),
                                        [](const auto& when) { return !when.empty(); }))) {
      continue;
    }
    const auto& [cluster, namespace_name, name] = key;
    std::set<std::string> nodes;
    for (const auto& [u, share] : claim.units) {
      nodes.insert(a.inventory.nodes[a.inventory.units[u].node].name);
    }
    a.diag.Warn(
        StrCat("dra-claim-unused:", cluster, ":", namespace_name, "/", name), "", 0,
        StrCat("DRA claim ", namespace_name, "/", name, " is allocated ",
               claim.units.size() == 1 ? "a device" : "devices", " on node ",
               Join({nodes.begin(), nodes.end()}, ", "),
               " but no pod uses it over the window; what it holds is counted as idle, in no "
               "namespace's money"));
  }
}

}  // namespace gpucost
