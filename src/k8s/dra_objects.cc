#include "k8s/dra_objects.h"

#include <algorithm>
#include <charconv>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>

#include "core/strings.h"

namespace gpucost::k8s {
namespace {

using json = nlohmann::json;

// An attribute's value as text: {"string": s} | {"int": n} | {"bool": b} | {"version": v}.
// Driver-local keys are unqualified ("uuid"); a key qualified with the driver's domain
// ("gpu.nvidia.com/uuid") is the same attribute.
std::string AttributeText(const json& attributes, const std::string& driver, std::string_view key) {
  const json* a = JsonField(attributes, key);
  if (a == nullptr) a = JsonField(attributes, StrCat(driver, "/", key));
  if (a == nullptr || !a->is_object()) return "";
  for (const char* kind : {"string", "version"}) {
    if (const json* v = JsonField(*a, kind); v != nullptr && v->is_string())
      return v->get<std::string>();
  }
  if (const json* v = JsonField(*a, "int"); v != nullptr && v->is_number_integer()) {
    return std::to_string(v->get<int64_t>());
  }
  if (const json* v = JsonField(*a, "bool"); v != nullptr && v->is_boolean()) {
    return v->get<bool>() ? "true" : "false";
  }
  return "";
}

// {name: {"value": quantity}} (v1) or {name: quantity} (v1beta1's capacity was a map of
// quantities in its first releases).
Status DecodeCapacity(const json& capacity, const std::string& where,
                      std::map<std::string, double>& out) {
  if (!capacity.is_object()) return Status::ParseError(StrCat(where, ": not a map"));
  for (const auto& [k, v] : capacity.items()) {
    const json* q = v.is_object() ? JsonField(v, "value") : &v;
    if (q == nullptr || !q->is_string()) continue;
    Result<double> parsed = ParseQuantity(q->get_ref<const std::string&>());
    if (!parsed.ok())
      return Status::ParseError(StrCat(where, "[", k, "]: ", parsed.status().message()));
    out[k] = *parsed;
  }
  return Status::Ok();
}

// "'text'" or "\"text\"" -> text; nullopt for anything else.
std::optional<std::string> QuotedText(std::string_view s) {
  s = Trim(s);
  if (s.size() < 2 || (s.front() != '\'' && s.front() != '"') || s.back() != s.front()) {
    return std::nullopt;
  }
  const std::string_view inner = s.substr(1, s.size() - 2);
  if (inner.find(s.front()) != std::string_view::npos) return std::nullopt;
  return std::string(inner);
}

// The field one side of an equality names: "driver" for `device.driver`, the attribute name for
// `device.attributes['<domain>'].<name>` (either quote), else "".
std::string SelectorField(std::string_view s) {
  s = Trim(s);
  if (s == "device.driver") return "driver";
  constexpr std::string_view kAttributes = "device.attributes[";
  if (!s.starts_with(kAttributes)) return "";
  const size_t close = s.find("].");
  if (close == std::string_view::npos ||
      !QuotedText(s.substr(kAttributes.size(), close - kAttributes.size()))) {
    return "";
  }
  return std::string(s.substr(close + 2));
}

}  // namespace

void ReadDeviceSelector(std::string_view expression, KubeDeviceClass& into) {
  if (expression.find("||") != std::string_view::npos) return;
  for (size_t from = 0; from <= expression.size();) {
    const size_t to = std::min(expression.find("&&", from), expression.size());
    std::string_view clause = Trim(expression.substr(from, to - from));
    from = to + 2;
    while (clause.size() >= 2 && clause.front() == '(' && clause.back() == ')') {
      clause = Trim(clause.substr(1, clause.size() - 2));
    }
    const size_t eq = clause.find("==");
    if (eq == std::string_view::npos) continue;
    std::string_view lhs = clause.substr(0, eq), rhs = clause.substr(eq + 2);
    std::optional<std::string> value = QuotedText(rhs);
    if (!value) {
      value = QuotedText(lhs);
      lhs = rhs;
    }
    if (!value) continue;
    const std::string field = SelectorField(lhs);
    std::string* slot = field == "driver"                                   ? &into.driver
                        : field == "type"                                   ? &into.type
                        : field == "profile" || field == "partitionProfile" ? &into.profile
                                                                            : nullptr;
    if (slot != nullptr && slot->empty()) *slot = std::move(*value);
  }
}

Result<DeviceClassObject> DecodeDeviceClass(const json& object, const LabelFilter& labels) {
  auto meta = DecodeMeta(object, labels);
  if (!meta.ok()) return meta.status().WithContext("deviceclass");
  DeviceClassObject d;
  d.meta = std::move(meta).value();
  d.device_class.name = d.meta.name;
  d.device_class.created = d.meta.created;
  const std::string where = StrCat("deviceclass ", d.meta.name);
  const json* spec = JsonField(object, "spec");
  if (spec == nullptr) return d;
  d.device_class.extended_resource_name = JsonText(*spec, "extendedResourceName");
  const json* selectors = JsonField(*spec, "selectors");
  if (selectors == nullptr) return d;
  if (!selectors->is_array())
    return Status::ParseError(StrCat(where, ": spec.selectors: not a list"));
  for (size_t i = 0; i < selectors->size(); ++i) {
    const json* cel = JsonField((*selectors)[i], "cel");
    if (cel == nullptr) continue;
    const json* expression = JsonField(*cel, "expression");
    if (expression == nullptr || !expression->is_string()) {
      return Status::ParseError(
          StrCat(where, ": spec.selectors[", i, "].cel.expression: not a string"));
    }
    ReadDeviceSelector(expression->get_ref<const std::string&>(), d.device_class);
  }
  return d;
}

Result<ResourceSliceObject> DecodeResourceSlice(const json& object, const LabelFilter& labels) {
  auto meta = DecodeMeta(object, labels);
  if (!meta.ok()) return meta.status().WithContext("resourceslice");
  ResourceSliceObject s;
  s.meta = std::move(meta).value();
  const std::string where = StrCat("resourceslice ", s.meta.name);
  const json* spec = JsonField(object, "spec");
  if (spec == nullptr) return Status::ParseError(StrCat(where, ": no spec"));
  s.driver = JsonText(*spec, "driver");
  const std::string node = JsonText(*spec, "nodeName");
  if (const json* pool = JsonField(*spec, "pool")) {
    s.pool = JsonText(*pool, "name");
    if (const json* g = JsonField(*pool, "generation"); g != nullptr && g->is_number_integer()) {
      s.generation = g->get<int64_t>();
    }
  }
  const json* devices = JsonField(*spec, "devices");
  if (devices == nullptr) return s;  // a slice of shared counters only (1.35+)
  if (!devices->is_array()) return Status::ParseError(StrCat(where, ": spec.devices: not a list"));
  for (size_t i = 0; i < devices->size(); ++i) {
    const json& dj = (*devices)[i];
    // v1beta1 put attributes and capacity under "basic"; v1 and v1beta2 on the device.
    const json* basic = JsonField(dj, "basic");
    const json& body = basic != nullptr ? *basic : dj;
    KubeDraDevice d;
    d.driver = s.driver;
    d.pool = s.pool;
    d.name = JsonText(dj, "name");
    d.node = JsonText(dj, "nodeName");  // perDeviceNodeSelection
    if (d.node.empty()) d.node = node;
    static const json kNone = json::object();
    const json* attributes = JsonField(body, "attributes");
    const json& attrs = attributes != nullptr ? *attributes : kNone;
    d.type = AttributeText(attrs, s.driver, "type");
    d.uuid = AttributeText(attrs, s.driver, "uuid");
    d.parent_uuid = AttributeText(attrs, s.driver, "parentUUID");
    d.product = AttributeText(attrs, s.driver, "productName");
    d.profile = AttributeText(attrs, s.driver, "profile");
    // AMD's driver (gpu.amd.com): no UUID; a GPU is named by its PCI address, a partition by its
    // parent's ("parentPciAddr"; its documentation says "pciAddr").
    if (d.profile.empty()) d.profile = AttributeText(attrs, s.driver, "partitionProfile");
    d.pci_address = AttributeText(attrs, s.driver, "parentPciAddr");
    if (d.pci_address.empty()) d.pci_address = AttributeText(attrs, s.driver, "pciAddr");
    if (const std::string r = AttributeText(attrs, s.driver, "renderIndex"); !r.empty()) {
      int v = -1;
      if (std::from_chars(r.data(), r.data() + r.size(), v).ec == std::errc()) d.render_index = v;
    }
    if (const json* cap = JsonField(body, "capacity")) {
      Status st =
          DecodeCapacity(*cap, StrCat(where, ": spec.devices[", i, "].capacity"), d.capacity);
      if (!st.ok()) return st;
    }
    if (const json* m = JsonField(body, "allowMultipleAllocations");
        m != nullptr && m->is_boolean()) {
      d.multiple_allocations = m->get<bool>();
    }
    s.devices.push_back(std::move(d));
  }
  return s;
}

Result<ResourceClaimObject> DecodeResourceClaim(const json& object, const LabelFilter& labels) {
  auto meta = DecodeMeta(object, labels);
  if (!meta.ok()) return meta.status().WithContext("resourceclaim");
  ResourceClaimObject c;
  c.meta = std::move(meta).value();
  const std::string where = StrCat("resourceclaim ", c.meta.namespace_name, "/", c.meta.name);
  const json* status = JsonField(object, "status");
  const json* allocation = status != nullptr ? JsonField(*status, "allocation") : nullptr;
  const json* devices = allocation != nullptr ? JsonField(*allocation, "devices") : nullptr;
  const json* results = devices != nullptr ? JsonField(*devices, "results") : nullptr;
  if (results == nullptr) return c;  // not allocated
  if (!results->is_array()) {
    return Status::ParseError(StrCat(where, ": status.allocation.devices.results: not a list"));
  }
  std::vector<std::string> pods;
  if (const json* rf = JsonField(*status, "reservedFor"); rf != nullptr && rf->is_array()) {
    for (const json& r : *rf) {
      if (JsonText(r, "resource") == "pods" && JsonText(r, "apiGroup").empty()) {
        pods.push_back(JsonText(r, "name"));
      }
    }
  }
  for (size_t i = 0; i < results->size(); ++i) {
    const json& r = (*results)[i];
    if (const json* admin = JsonField(r, "adminAccess");
        admin != nullptr && admin->is_boolean() && admin->get<bool>()) {
      continue;  // monitoring access to a device another claim holds: not a holding
    }
    KubeDraAllocation x;
    x.namespace_name = c.meta.namespace_name;
    x.claim = c.meta.name;
    x.driver = JsonText(r, "driver");
    x.pool = JsonText(r, "pool");
    x.device = JsonText(r, "device");
    x.share_id = JsonText(r, "shareID");
    if (const json* consumed = JsonField(r, "consumedCapacity")) {
      if (!consumed->is_object()) {
        return Status::ParseError(StrCat(where, ": status.allocation.devices.results[", i,
                                         "].consumedCapacity: not a map"));
      }
      for (const auto& [k, v] : consumed->items()) {
        if (!v.is_string()) continue;
        Result<double> q = ParseQuantity(v.get_ref<const std::string&>());
        if (!q.ok()) {
          return Status::ParseError(StrCat(where, ": status.allocation.devices.results[", i,
                                           "].consumedCapacity[", k, "]: ", q.status().message()));
        }
        x.consumed[k] = *q;
      }
    }
    x.reserved_for = pods;
    c.allocations.push_back(std::move(x));
  }
  return c;
}

std::vector<KubeDraDevice> LatestPoolDevices(
    const std::vector<const ResourceSliceObject*>& slices) {
  std::map<std::pair<std::string, std::string>, int64_t> latest;  // (driver, pool) -> generation
  for (const ResourceSliceObject* s : slices) {
    auto [it, fresh] = latest.try_emplace({s->driver, s->pool}, s->generation);
    if (!fresh) it->second = std::max(it->second, s->generation);
  }
  std::vector<KubeDraDevice> out;
  for (const ResourceSliceObject* s : slices) {
    if (s->generation != latest[{s->driver, s->pool}]) continue;
    out.insert(out.end(), s->devices.begin(), s->devices.end());
  }
  return out;
}

}  // namespace gpucost::k8s
