#include "k8s/kube_object_files.h"

#include <algorithm>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>

#include "core/files.h"
#include "core/strings.h"

namespace gpucost::k8s {
namespace {

using json = nlohmann::json;

// The decoded objects of each kind by namespace/name, so a repeated object replaces the earlier.
struct ObjectsByKey {
  std::map<std::string, PodObject> pods;
  std::map<std::string, NodeObject> nodes;
  std::map<std::string, PlainObject> namespaces, replicasets, jobs;
  std::map<std::string, ResourceSliceObject> resourceslices;
  std::map<std::string, ResourceClaimObject> resourceclaims;
  std::map<std::string, DeviceClassObject> deviceclasses;
};

std::string ItemName(const json& item) {
  const json* meta = JsonField(item, "metadata");
  if (meta == nullptr) return "(no metadata)";
  const std::string ns = JsonText(*meta, "namespace");
  const std::string name = JsonText(*meta, "name");
  return ns.empty() ? name : StrCat(ns, "/", name);
}

template <class T>
Status Put(Result<T> decoded, bool keep_all, bool (*keeps)(const T&),
           std::map<std::string, T>& into) {
  if (!decoded.ok()) return decoded.status();
  std::string key = StrCat(decoded->meta.namespace_name, "/", decoded->meta.name);
  if (!keep_all && !keeps(*decoded)) {
    into.erase(key);
    return Status::Ok();
  }
  into.insert_or_assign(std::move(key), std::move(decoded).value());
  return Status::Ok();
}

template <class T>
bool KeepsAll(const T&) {
  return true;
}

class FileReader {
 public:
  explicit FileReader(const KubeSourceOptions& options)
      : pod_labels_(PodLabelFilter(options.label_allowlist, options.team_label_keys,
                                   options.annotation_allowlist)) {}

  // One item; its error (for the caller's warning) when it cannot be decoded.
  Status Item(const json& item) {
    if (!item.is_object()) return Status::ParseError("not an object");
    const std::string kind = JsonText(item, "kind");
    if (kind == "Pod") {
      // The API always writes a pod's spec; a file without one was edited or cut, and its
      // requests are unknown: said, rather than a pod with no GPUs.
      if (JsonField(item, "spec") == nullptr) return Status::ParseError("a Pod without its spec");
      return Put(DecodePod(item, pod_labels_), false, &KeepsPod, objects_.pods);
    }
    if (kind == "Node") {
      return Put(DecodeNode(item, LabelFilter{}), true, &KeepsAll<NodeObject>, objects_.nodes);
    }
    if (kind == "Namespace") {
      return Put(DecodePlain(item, pod_labels_), true, &KeepsAll<PlainObject>, objects_.namespaces);
    }
    if (kind == "ReplicaSet") {
      return Put(DecodePlain(item, LabelFilter::None()), true, &KeepsAll<PlainObject>,
                 objects_.replicasets);
    }
    if (kind == "Job") {
      return Put(DecodePlain(item, LabelFilter::None()), true, &KeepsAll<PlainObject>,
                 objects_.jobs);
    }
    if (kind == "ResourceSlice") {
      return Put(DecodeResourceSlice(item, LabelFilter::None()), true,
                 &KeepsAll<ResourceSliceObject>, objects_.resourceslices);
    }
    if (kind == "ResourceClaim") {
      return Put(DecodeResourceClaim(item, LabelFilter::None()), false, &KeepsClaim,
                 objects_.resourceclaims);
    }
    if (kind == "DeviceClass") {
      return Put(DecodeDeviceClass(item, LabelFilter::None()), true, &KeepsAll<DeviceClassObject>,
                 objects_.deviceclasses);
    }
    if (kind.empty()) return Status::ParseError("no kind");
    // Kinds are case-sensitive: "pod" is no Pod, and would be passed over as an unread kind.
    for (std::string_view known : {"Pod", "Node", "Namespace", "ReplicaSet", "Job", "ResourceSlice",
                                   "ResourceClaim", "DeviceClass"}) {
      if (ToLower(kind) == ToLower(known)) {
        return Status::ParseError(
            StrCat("kind \"", kind, "\" is not \"", known, "\" (kinds are case-sensitive)"));
      }
    }
    return Status::Ok();  // a kind gpucost does not read (CronJob, Service, ...)
  }

  KubeObjects Objects() const {
    KubeObjects out;
    auto values = [](const auto& by_key, auto& into) {
      for (const auto& [k, v] : by_key) into.push_back(v);
    };
    values(objects_.pods, out.pods);
    values(objects_.nodes, out.nodes);
    values(objects_.namespaces, out.namespaces);
    values(objects_.replicasets, out.replicasets);
    values(objects_.jobs, out.jobs);
    values(objects_.resourceslices, out.resourceslices);
    values(objects_.resourceclaims, out.resourceclaims);
    values(objects_.deviceclasses, out.deviceclasses);
    return out;
  }

 private:
  LabelFilter pod_labels_;
  ObjectsByKey objects_;
};

Result<Instant> ModificationTime(const std::string& path) {
  std::error_code ec;
  const auto t = std::filesystem::last_write_time(path, ec);
  if (ec) return Status::NotFound(StrCat(path, ": ", ec.message()));
  return std::chrono::floor<Duration>(std::chrono::file_clock::to_sys(t));
}

}  // namespace

Result<KubeObjectFilesResult> ReadKubeObjectFiles(const std::vector<std::string>& paths,
                                                  const KubeSourceOptions& options,
                                                  std::optional<Instant> observed_at) {
  KubeObjectFilesResult out;
  FileReader reader(options);
  std::optional<Instant> latest;
  for (const std::string& path : paths) {
    Result<std::string> text = ReadWholeFile(path);
    if (!text.ok()) return text.status().WithContext(StrCat("Kubernetes objects ", path));
    json doc;
    try {
      doc = json::parse(*text);
    } catch (const json::parse_error& e) {
      // Where it stops: line and column of the byte the parser gave up at (a file cut short
      // stops at its end).
      const size_t at = std::min(e.byte > 0 ? e.byte - 1 : 0, text->size());
      const size_t line = 1 + static_cast<size_t>(std::count(
                                  text->begin(), text->begin() + static_cast<ptrdiff_t>(at), '\n'));
      const size_t line_start = text->rfind('\n', at == 0 ? 0 : at - 1);
      const size_t column = line_start == std::string::npos || at == 0 ? at + 1 : at - line_start;
      return Status::ParseError(StrCat("Kubernetes objects ", path, ":", line, ":", column,
                                       ": not JSON",
                                       at >= text->size() ? " (it ends early: cut short?)" : "",
                                       " (kubectl get ... -o json writes it)"));
    }
    if (!doc.is_object()) {
      return Status::ParseError(StrCat("Kubernetes objects ", path,
                                       ": not an object or a List of them (kubectl get ... -o "
                                       "json writes one)"));
    }
    const json* items = JsonField(doc, "items");
    if (items != nullptr && !items->is_array()) {
      return Status::ParseError(StrCat("Kubernetes objects ", path, ": items: not a list"));
    }
    const std::string doc_kind = JsonText(doc, "kind");
    const bool list = items != nullptr || doc_kind == "List" || doc_kind.ends_with("List");
    const size_t n = items != nullptr ? items->size() : list ? 0 : 1;
    // An empty file of objects is no cluster: every claim and pod it should have held would be
    // idle capacity without a word.
    if (n == 0) {
      out.warnings.push_back(StrCat("Kubernetes objects ", path,
                                    ": holds no objects (an empty List); nothing is read from it"));
    }
    for (size_t i = 0; i < n; ++i) {
      const json& item = items != nullptr ? (*items)[i] : doc;
      ++out.items;
      Status st = reader.Item(item);
      if (!st.ok()) {
        const std::string kind = JsonText(item, "kind");
        out.warnings.push_back(StrCat("Kubernetes objects ", path, ": item ", i, " (",
                                      kind.empty() ? "no kind" : kind, " ", ItemName(item),
                                      "): ", st.message(), "; skipped"));
      }
    }
    if (!observed_at) {
      GPUCOST_ASSIGN_OR_RETURN(Instant t, ModificationTime(path));
      if (!latest || t > *latest) latest = t;
    }
  }
  const Instant at = observed_at ? *observed_at : latest.value_or(Instant{});
  out.state = AssembleKubeState(reader.Objects(), options.cluster, at);
  return out;
}

}  // namespace gpucost::k8s
