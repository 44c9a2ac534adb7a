// The DRA drivers' side of the simulated cluster, internal to src/simulate: each DRA node's
// ResourceSlices as its driver publishes them (NVIDIA's gpu.nvidia.com, with or without its
// DynamicMIG feature gate; AMD's gpu.amd.com; AWS's neuron.aws.com), the devices a claim is
// allocated, and the object metadata sim_kube_objects.cc writes for every object. Stateless.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "core/time.h"
#include "simulate/sim_model.h"

namespace gpucost::simulate {

// A stable UID for an object (RFC 4122 layout), from its kind, namespace and name.
std::string ObjectUid(std::string_view kind, std::string_view ns, std::string_view name);

// An object's metadata: namespace (none when empty), name, UID, creation time.
nlohmann::json KubeMeta(std::string_view kind, std::string_view ns, std::string_view name,
                        Instant created);

// The DRA driver of a `dra` model's devices, which is also the name of its DeviceClass.
std::string_view DraDriver(const GpuModelSpec& model);

// `node`'s ResourceSlices: its pool is the node, at generation 1.
std::vector<nlohmann::json> DraNodeSlices(const Node& node, Instant origin);

// The names of the devices claim `c` of `node` is allocated, in its allocation's order.
std::vector<std::string> DraClaimDevices(const Node& node, const DraClaim& c);

// A MIG profile's possible GPU instances on an H100 80GB (7 compute and 8 memory slices), as
// NVIDIA's DRA driver lists them under DynamicMIG: the GPU instance profile id, the memory slices
// an instance takes from each placement's first, and the capacity the device states.
struct MigPlacements {
  std::string_view profile;  // "3g.40gb"
  int profile_id = 0;
  int compute_slices = 0;
  int memory_slices = 0;
  std::vector<int> starts;
  int multiprocessors = 0;
  int memory_mib = 0;
};
const std::vector<MigPlacements>& H100MigPlacements();

// nullptr when the H100 has no such profile.
const MigPlacements* FindMigPlacements(std::string_view profile);

// The driver's name for the MIG device of `p` on GPU `gpu` from memory slice `start`
// ("gpu-0-mig-3g40gb-9-4": the profile without dots, its id, the placement's start).
std::string DynamicMigDeviceName(int gpu, const MigPlacements& p, int start);

}  // namespace gpucost::simulate
