// Feeds arbitrary bytes, as a watch event line or a bare object, to the Kubernetes object
// decoders and to a pod store, checking that decoding never crashes, that a decoded pod's active
// interval is well-formed, and that errors carry a message.
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include <nlohmann/json.hpp>

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
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const nlohmann::json j = nlohmann::json::parse(text, nullptr, false);
  if (j.is_discarded() || !j.is_object()) return 0;
  Decode(j);
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
