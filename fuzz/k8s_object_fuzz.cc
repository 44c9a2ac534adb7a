// Feeds arbitrary bytes, as a watch event line, a bare object or a `kubectl get -o json` List, to
// the Kubernetes object decoders (pods, nodes, DRA slices and claims) and to a pod store, checking
// that decoding never crashes, that a decoded pod's active interval is well-formed, and that
// errors carry a message. A List's objects go on through the KubeState assembly and the inventory
// builder (every DRA driver's devices to units and holdings), whose fractions and shares must stay
// within [0, 1].
#include <cstdint>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "inventory/inventory_builder.h"
#include "k8s/dra_objects.h"
#include "k8s/kube_snapshot.h"
#include "k8s/object_store.h"
#include "k8s/objects.h"

namespace {

using gpucost::k8s::LabelFilter;

void Check(bool ok) {
  if (!ok) std::abort();
}

void Decode(const nlohmann::json& object) {
  LabelFilter filter;
  filter.annotation_keys = {"cost-center"};
  auto pod = gpucost::k8s::DecodePod(object, filter);
  if (pod.ok()) {
    const gpucost::Instant observed = gpucost::InstantFromUnixMs(1790812800000);
    const gpucost::KubePod k = gpucost::k8s::ToKubePod(*pod, observed);
    for (const gpucost::Interval& iv : k.active) Check(iv.start < iv.end && iv.end <= observed);
  } else {
    Check(!pod.status().message().empty());
  }
  auto node = gpucost::k8s::DecodeNode(object, filter);
  if (!node.ok()) Check(!node.status().message().empty());
  auto plain = gpucost::k8s::DecodePlain(object, filter);
  if (!plain.ok()) Check(!plain.status().message().empty());
  auto slice = gpucost::k8s::DecodeResourceSlice(object, filter);
  if (!slice.ok()) Check(!slice.status().message().empty());
  auto claim = gpucost::k8s::DecodeResourceClaim(object, filter);
  if (!claim.ok()) Check(!claim.status().message().empty());
  auto device_class = gpucost::k8s::DecodeDeviceClass(object, filter);
  if (!device_class.ok()) Check(!device_class.status().message().empty());
}

// A List's objects, by kind, through the assembly and the inventory builder over one hour.
void Inventory(const nlohmann::json& items) {
  gpucost::k8s::KubeObjects objects;
  const LabelFilter filter;
  for (const nlohmann::json& item : items) {
    if (!item.is_object()) continue;
    const auto kind = item.find("kind");
    if (kind == item.end() || !kind->is_string()) continue;
    const std::string& k = kind->get_ref<const std::string&>();
    if (k == "Pod") {
      if (auto pod = gpucost::k8s::DecodePod(item, filter); pod.ok()) objects.pods.push_back(*pod);
    } else if (k == "Node") {
      if (auto node = gpucost::k8s::DecodeNode(item, filter); node.ok()) {
        objects.nodes.push_back(*node);
      }
    } else if (k == "ResourceSlice") {
      if (auto slice = gpucost::k8s::DecodeResourceSlice(item, filter); slice.ok()) {
        objects.resourceslices.push_back(*slice);
      }
    } else if (k == "ResourceClaim") {
      if (auto claim = gpucost::k8s::DecodeResourceClaim(item, filter); claim.ok()) {
        objects.resourceclaims.push_back(*claim);
      }
    } else if (k == "DeviceClass") {
      if (auto c = gpucost::k8s::DecodeDeviceClass(item, filter); c.ok()) {
        objects.deviceclasses.push_back(*c);
      }
    }
  }
  const gpucost::Instant start = gpucost::InstantFromUnixMs(1790812800000);
  const gpucost::Instant end = gpucost::InstantFromUnixMs(1790816400000);
  gpucost::TimelineOptions options;
  options.window = gpucost::Window{start, end};
  options.kube_states.push_back(gpucost::k8s::AssembleKubeState(objects, "default", end));
  gpucost::InventoryBuilder builder(options);
  auto built = builder.Build();
  if (!built.ok()) {
    Check(!built.status().message().empty());
    return;
  }
  for (const gpucost::GpuUnit& u : built->inventory.units) {
    Check(u.fraction >= 0 && u.fraction <= 1);
  }
  for (const gpucost::Holding& h : built->inventory.holdings) {
    Check(h.unit_share >= 0 && h.unit_share <= 1);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const nlohmann::json j = nlohmann::json::parse(text, nullptr, false);
  if (j.is_discarded() || !j.is_object()) return 0;
  Decode(j);
  if (auto items = j.find("items"); items != j.end() && items->is_array() && items->size() <= 64) {
    Inventory(*items);
  }
  // As a watch event: the object inside, through a store's upsert and delete.
  if (auto it = j.find("object"); it != j.end() && it->is_object()) {
    Decode(*it);
    gpucost::k8s::TypedStore<gpucost::k8s::PodObject> store(&gpucost::k8s::DecodePod, LabelFilter{});
    store.BeginReplace();
    store.Upsert(*it);
    store.Delete(*it, gpucost::InstantFromUnixMs(0));
    store.EndReplace(gpucost::InstantFromUnixMs(0));
    Check(store.size() <= 1);
  }
  return 0;
}
