// The Kubernetes objects gpucost reads, decoded from API JSON into compact values that keep only
// the fields gpucost uses: identity, owners and allow-listed labels for every kind; GPU requests,
// node and lifecycle times for pods; labels, GPU capacity and provider ID for nodes. Resource
// quantities ("1", "500m", "8Gi") are parsed here. Stateless functions; thread-safe.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "core/result.h"
#include "core/time.h"
#include "inventory/kube_state.h"

namespace gpucost::k8s {

struct ObjectMeta {
  std::string namespace_name;
  std::string name;
  std::string uid;
  std::string resource_version;
  Instant created{};
  std::optional<Instant> deleted;  // metadata.deletionTimestamp
  std::map<std::string, std::string> labels;  // allow-listed, original keys
  // Allow-listed annotations; they join the labels (a label of the same key wins).
  std::map<std::string, std::string> annotations;
  std::vector<OwnerRef> owners;
  // Labels, with the kept annotations under keys no label uses.
  std::map<std::string, std::string> LabelsAndAnnotations() const;
};

struct PodObject {
  ObjectMeta meta;
  std::string node;
  std::string phase;
  std::optional<Instant> scheduled;  // PodScheduled condition turned True
  std::optional<Instant> started;    // status.startTime
  std::optional<Instant> finished;   // the last container's finish, once every one finished
  std::optional<Instant> removed;    // when the store saw the pod go from the API
  std::vector<KubeContainerResource> resources;  // GPU resources of regular containers
  std::vector<std::string> container_ids;
  std::vector<std::string> container_names;
  bool HoldsGpus() const { return !resources.empty(); }
};

struct NodeObject {
  ObjectMeta meta;
  std::map<std::string, double> capacity;  // GPU resources only
  std::string provider_id;
};

// Namespaces, ReplicaSets, Jobs, CronJobs, StatefulSets and DaemonSets: identity, labels, owners.
struct PlainObject {
  ObjectMeta meta;
};

// Which labels to keep (empty `keys`: all of them) and which annotations (empty: none). Keys
// compare in their original spelling.
struct LabelFilter {
  std::vector<std::string> keys;
  std::vector<std::string> annotation_keys;
  bool no_labels = false;  // keep no label at all
  static LabelFilter None() {
    LabelFilter f;
    f.no_labels = true;
    return f;
  }
  bool Keeps(std::string_view key) const;
  bool KeepsAnnotation(std::string_view key) const;
};

// The decoders' field look-ups: a member of an object, null when absent or JSON null; a member's
// string, "" when absent or not a string.
const nlohmann::json* JsonField(const nlohmann::json& object, std::string_view key);
std::string JsonText(const nlohmann::json& object, std::string_view key);

// "1" -> 1, "500m" -> 0.5, "8Gi" -> 8589934592, "1e3" -> 1000. Errors name the text.
Result<double> ParseQuantity(std::string_view text);

// Decoders. `what` names the object in errors ("pod gpu/train-0: spec.containers[1].resources:
// ..."); a decoding error loses only that object.
Result<ObjectMeta> DecodeMeta(const nlohmann::json& object, const LabelFilter& labels);
Result<PodObject> DecodePod(const nlohmann::json& object, const LabelFilter& labels);
Result<NodeObject> DecodeNode(const nlohmann::json& object, const LabelFilter& labels);
Result<PlainObject> DecodePlain(const nlohmann::json& object, const LabelFilter& labels);

// A pod in the inventory's terms at `observed_at`: active from its scheduling (else start, else
// creation) to its finish, its deletion, or `observed_at`.
KubePod ToKubePod(const PodObject& pod, Instant observed_at);
KubeNode ToKubeNode(const NodeObject& node, Instant observed_at);

}  // namespace gpucost::k8s
