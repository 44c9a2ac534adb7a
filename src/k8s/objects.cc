#include "k8s/objects.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <set>

#include "core/strings.h"
#include "inventory/resource_names.h"

namespace gpucost::k8s {

using nlohmann::json;

const json* JsonField(const json& o, std::string_view key) {
  if (!o.is_object()) return nullptr;
  auto it = o.find(key);
  return it == o.end() || it->is_null() ? nullptr : &*it;
}

std::string JsonText(const json& o, std::string_view key) {
  const json* f = JsonField(o, key);
  return f != nullptr && f->is_string() ? f->get<std::string>() : std::string();
}

namespace {

const json* Field(const json& o, std::string_view key) { return JsonField(o, key); }
std::string Str(const json& o, std::string_view key) { return JsonText(o, key); }

// An RFC 3339 time field; absent is nullopt, malformed an error naming the field.
Result<std::optional<Instant>> Time(const json& o, std::string_view key, std::string_view where) {
  const json* f = Field(o, key);
  if (f == nullptr) return std::optional<Instant>();
  if (!f->is_string()) return Status::ParseError(StrCat(where, ".", key, ": not a string"));
  auto t = ParseInstant(f->get_ref<const std::string&>());
  if (!t.ok()) return Status::ParseError(StrCat(where, ".", key, ": ", t.status().message()));
  return std::optional<Instant>(*t);
}

std::string Describe(const json& object, std::string_view kind) {
  const json* meta = Field(object, "metadata");
  if (meta == nullptr) return StrCat(kind, " without metadata");
  const std::string ns = Str(*meta, "namespace");
  return ns.empty() ? StrCat(kind, " ", Str(*meta, "name"))
                    : StrCat(kind, " ", ns, "/", Str(*meta, "name"));
}

// Updates `latest` with the time in `o[key]` when later.
Status Later(const json& o, std::string_view key, std::string_view where,
             std::optional<Instant>& latest) {
  auto t = Time(o, key, where);
  if (!t.ok()) return t.status();
  if (*t && (!latest || **t > *latest)) latest = *t;
  return Status::Ok();
}

Status DecodeResources(const json& container, std::string_view where,
                       std::vector<KubeContainerResource>& out) {
  const json* res = Field(container, "resources");
  if (res == nullptr) return Status::Ok();
  const std::string name = Str(container, "name");
  std::map<std::string, std::pair<double, bool>> chosen;  // resource -> (quantity, from limits)
  for (const char* part : {"limits", "requests"}) {
    const json* m = Field(*res, part);
    if (m == nullptr) continue;
    if (!m->is_object()) return Status::ParseError(StrCat(where, ".resources.", part, ": not a map"));
    for (const auto& [k, v] : m->items()) {
      if (CanonicalResourceName(k).kind == ResourceKind::kNotGpu) continue;
      Result<double> q = v.is_string() ? ParseQuantity(v.get_ref<const std::string&>())
                         : v.is_number() ? Result<double>(v.get<double>())
                                         : Result<double>(Status::ParseError("not a quantity"));
      if (!q.ok()) {
        return Status::ParseError(
            StrCat(where, ".resources.", part, "[", k, "]: ", q.status().message()));
      }
      chosen[k] = {*q, std::string_view(part) == "limits"};  // requests, read second, win
    }
  }
  for (const auto& [k, q] : chosen) out.push_back({name, k, q.first, q.second, {}});
  return Status::Ok();
}

// The ResourceClaims a pod's containers use (docs/k8s.md "Dynamic Resource Allocation"), as
// resources spelled DraClaimResource(claim): a container's resources.claims[].name names one of
// spec.resourceClaims, whose claim is resourceClaimName, or for a claim made from a template the
// name status.resourceClaimStatuses gives it (none yet: nothing to attribute). A claim the
// scheduler made for DRA-backed extended resources (status.extendedResourceClaimStatus) replaces
// the extended resources it serves.
void DecodePodClaims(const json& spec, const json& status, PodObject& p) {
  std::map<std::string, std::string> claim_of;  // pod claim name -> ResourceClaim name
  if (const json* rc = Field(spec, "resourceClaims"); rc != nullptr && rc->is_array()) {
    for (const json& c : *rc) {
      if (const std::string n = Str(c, "resourceClaimName"); !n.empty())
        claim_of[Str(c, "name")] = n;
    }
  }
  if (const json* st = Field(status, "resourceClaimStatuses"); st != nullptr && st->is_array()) {
    for (const json& c : *st) {
      if (const std::string n = Str(c, "resourceClaimName"); !n.empty())
        claim_of[Str(c, "name")] = n;
    }
  }
  if (const json* cs = Field(spec, "containers"); cs != nullptr && cs->is_array()) {
    for (const json& c : *cs) {
      const json* res = Field(c, "resources");
      const json* claims = res != nullptr ? Field(*res, "claims") : nullptr;
      if (claims == nullptr || !claims->is_array()) continue;
      std::set<std::string> seen;
      for (const json& use : *claims) {
        auto it = claim_of.find(Str(use, "name"));
        if (it == claim_of.end() || !seen.insert(it->second).second) continue;
        p.resources.push_back({Str(c, "name"), DraClaimResource(it->second), 1, false, {}});
      }
    }
  }
  const json* ext = Field(status, "extendedResourceClaimStatus");
  if (ext == nullptr || !ext->is_object()) return;
  const std::string claim = Str(*ext, "resourceClaimName");
  const json* maps = Field(*ext, "requestMappings");
  if (claim.empty() || maps == nullptr || !maps->is_array()) return;
  const std::string claim_resource = DraClaimResource(claim);
  for (const json& m : *maps) {
    const std::string container = Str(m, "containerName");
    const std::string resource = Str(m, "resourceName");
    std::erase_if(p.resources, [&](const KubeContainerResource& r) {
      return r.container == container && r.resource == resource;
    });
    auto use = std::find_if(p.resources.begin(), p.resources.end(), [&](const auto& r) {
      return r.container == container && r.resource == claim_resource;
    });
    if (use == p.resources.end()) {
      p.resources.push_back({container, claim_resource, 1, false, {}});
      use = std::prev(p.resources.end());
    }
    use->replaces.push_back(resource);
  }
}

}  // namespace

bool LabelFilter::Keeps(std::string_view key) const {
  if (no_labels) return false;
  return keys.empty() || std::find(keys.begin(), keys.end(), key) != keys.end();
}

bool LabelFilter::KeepsAnnotation(std::string_view key) const {
  return std::find(annotation_keys.begin(), annotation_keys.end(), key) != annotation_keys.end();
}

std::map<std::string, std::string> ObjectMeta::LabelsAndAnnotations() const {
  std::map<std::string, std::string> out = labels;
  for (const auto& [k, v] : annotations) out.emplace(k, v);
  return out;
}

Result<double> ParseQuantity(std::string_view text) {
  const std::string_view t = Trim(text);
  if (t.empty()) return Status::ParseError("empty quantity");
  struct Suffix {
    std::string_view s;
    double mult;
  };
  static constexpr Suffix kSuffixes[] = {
      {"Ki", 1024.0}, {"Mi", 1048576.0}, {"Gi", 1073741824.0}, {"Ti", 1099511627776.0},
      {"Pi", 1125899906842624.0}, {"Ei", 1152921504606846976.0}, {"n", 1e-9}, {"u", 1e-6},
      {"m", 1e-3}, {"k", 1e3}, {"M", 1e6}, {"G", 1e9}, {"T", 1e12}, {"P", 1e15}, {"E", 1e18}};
  std::string_view number = t;
  double mult = 1;
  for (const Suffix& s : kSuffixes) {
    if (t.size() > s.s.size() && t.ends_with(s.s)) {
      number = t.substr(0, t.size() - s.s.size());
      mult = s.mult;
      break;
    }
  }
  const std::string n(number);
  char* end = nullptr;
  const double v = std::strtod(n.c_str(), &end);
  const bool digits = !n.empty() && (std::isdigit(static_cast<unsigned char>(n[0])) != 0 ||
                                     n[0] == '.' || n[0] == '+' || n[0] == '-');
  if (!digits || end != n.c_str() + n.size() || !std::isfinite(v)) {
    return Status::ParseError(StrCat("bad quantity \"", t, "\""));
  }
  return v * mult;
}

Result<ObjectMeta> DecodeMeta(const json& object, const LabelFilter& labels) {
  const json* meta = Field(object, "metadata");
  if (meta == nullptr || !meta->is_object()) {
    return Status::ParseError("object without metadata");
  }
  ObjectMeta m;
  m.namespace_name = Str(*meta, "namespace");
  m.name = Str(*meta, "name");
  m.uid = Str(*meta, "uid");
  m.resource_version = Str(*meta, "resourceVersion");
  if (m.name.empty()) return Status::ParseError("object without metadata.name");
  const std::string where = m.namespace_name.empty() ? m.name : StrCat(m.namespace_name, "/", m.name);
  auto created = Time(*meta, "creationTimestamp", StrCat(where, ": metadata"));
  if (!created.ok()) return created.status();
  if (*created) m.created = **created;
  auto deleted = Time(*meta, "deletionTimestamp", StrCat(where, ": metadata"));
  if (!deleted.ok()) return deleted.status();
  m.deleted = *deleted;
  if (const json* l = Field(*meta, "labels"); l != nullptr && l->is_object()) {
    for (const auto& [k, v] : l->items()) {
      if (v.is_string() && labels.Keeps(k)) m.labels.emplace(k, v.get<std::string>());
    }
  }
  if (!labels.annotation_keys.empty()) {
    if (const json* a = Field(*meta, "annotations"); a != nullptr && a->is_object()) {
      for (const auto& [k, v] : a->items()) {
        if (v.is_string() && labels.KeepsAnnotation(k)) m.annotations.emplace(k, v.get<std::string>());
      }
    }
  }
  if (const json* owners = Field(*meta, "ownerReferences"); owners != nullptr && owners->is_array()) {
    for (const json& o : *owners) {
      const json* c = Field(o, "controller");
      m.owners.push_back(OwnerRef{Str(o, "kind"), Str(o, "name"), c != nullptr && c->is_boolean() && c->get<bool>()});
    }
  }
  return m;
}

Result<PodObject> DecodePod(const json& object, const LabelFilter& labels) {
  auto meta = DecodeMeta(object, labels);
  if (!meta.ok()) return meta.status().WithContext("pod");
  PodObject p;
  p.meta = std::move(meta).value();
  const std::string where = StrCat("pod ", p.meta.namespace_name, "/", p.meta.name);
  static const json kEmpty = json::object();
  const json* spec = Field(object, "spec");
  const json* status = Field(object, "status");
  if (spec == nullptr) spec = &kEmpty;
  if (status == nullptr) status = &kEmpty;
  p.node = Str(*spec, "nodeName");
  p.phase = Str(*status, "phase");
  // Init containers run before the others and release their devices; the pod's GPUs are what
  // its regular containers hold (an init container asking for more is not modelled).
  if (const json* cs = Field(*spec, "containers"); cs != nullptr && cs->is_array()) {
    for (size_t i = 0; i < cs->size(); ++i) {
      Status s = DecodeResources((*cs)[i], StrCat(where, ": spec.containers[", i, "]"), p.resources);
      if (!s.ok()) return s;
    }
  }
  DecodePodClaims(*spec, *status, p);
  auto started = Time(*status, "startTime", StrCat(where, ": status"));
  if (!started.ok()) return started.status();
  p.started = *started;
  std::optional<Instant> last_transition;
  if (const json* conds = Field(*status, "conditions"); conds != nullptr && conds->is_array()) {
    for (const json& c : *conds) {
      auto t = Time(c, "lastTransitionTime", StrCat(where, ": status.conditions"));
      if (!t.ok()) return t.status();
      if (*t && (!last_transition || **t > *last_transition)) last_transition = *t;
      if (Str(c, "type") == "PodScheduled" && Str(c, "status") == "True") p.scheduled = *t;
    }
  }
  bool all_finished = true;
  bool any_status = false;
  if (const json* cs = Field(*status, "containerStatuses"); cs != nullptr && cs->is_array()) {
    for (const json& c : *cs) {
      any_status = true;
      p.container_names.push_back(Str(c, "name"));
      p.container_ids.push_back(Str(c, "containerID"));
      const json* state = Field(c, "state");
      const json* term = state != nullptr ? Field(*state, "terminated") : nullptr;
      if (term == nullptr) {
        all_finished = false;
        continue;
      }
      Status s = Later(*term, "finishedAt", StrCat(where, ": status.containerStatuses"), p.finished);
      if (!s.ok()) return s;
    }
  }
  const bool terminal = p.phase == "Succeeded" || p.phase == "Failed";
  if (!terminal && (!all_finished || !any_status)) p.finished.reset();
  if (terminal && !p.finished) p.finished = last_transition;
  return p;
}

Result<NodeObject> DecodeNode(const json& object, const LabelFilter& labels) {
  auto meta = DecodeMeta(object, labels);
  if (!meta.ok()) return meta.status().WithContext("node");
  NodeObject n;
  n.meta = std::move(meta).value();
  if (const json* spec = Field(object, "spec")) n.provider_id = Str(*spec, "providerID");
  const json* status = Field(object, "status");
  const json* cap = status != nullptr ? Field(*status, "capacity") : nullptr;
  if (cap != nullptr && cap->is_object()) {
    for (const auto& [k, v] : cap->items()) {
      if (CanonicalResourceName(k).kind == ResourceKind::kNotGpu || !v.is_string()) continue;
      auto q = ParseQuantity(v.get_ref<const std::string&>());
      if (!q.ok()) {
        return Status::ParseError(
            StrCat("node ", n.meta.name, ": status.capacity[", k, "]: ", q.status().message()));
      }
      n.capacity[k] = *q;
    }
  }
  return n;
}

Result<PlainObject> DecodePlain(const json& object, const LabelFilter& labels) {
  auto meta = DecodeMeta(object, labels);
  if (!meta.ok()) return meta.status().WithContext(Describe(object, Str(object, "kind")));
  return PlainObject{std::move(meta).value()};
}

KubePod ToKubePod(const PodObject& pod, Instant observed_at) {
  KubePod k;
  k.namespace_name = pod.meta.namespace_name;
  k.name = pod.meta.name;
  k.uid = pod.meta.uid;
  k.node = pod.node;
  k.phase = pod.phase;
  k.labels = pod.meta.LabelsAndAnnotations();
  k.owners = pod.meta.owners;
  k.resources = pod.resources;
  k.container_ids = pod.container_ids;
  k.container_names = pod.container_names;
  if (!pod.node.empty()) {
    const Instant start = pod.scheduled ? *pod.scheduled : pod.started ? *pod.started : pod.meta.created;
    Instant end = pod.finished ? *pod.finished : observed_at;
    end = std::min(end, observed_at);
    if (end > start) k.active.push_back(Interval{start, end});
  }
  return k;
}

KubeNode ToKubeNode(const NodeObject& node, Instant observed_at) {
  KubeNode k;
  k.name = node.meta.name;
  k.labels = node.meta.labels;
  k.capacity = node.capacity;
  k.provider_id = node.provider_id;
  if (observed_at > node.meta.created) k.present.push_back(Interval{node.meta.created, observed_at});
  return k;
}

}  // namespace gpucost::k8s
