#include "scrape/endpoints_discovery.h"

#include <algorithm>
#include <map>
#include <nlohmann/json.hpp>
#include <set>

#include "core/redact.h"
#include "core/strings.h"
#include "promsource/prometheus_client.h"

namespace gpucost::scrape {
namespace {

using nlohmann::json;

constexpr std::string_view kServiceNameLabel = "kubernetes.io/service-name";
constexpr int kPageSize = 500;

bool IsDnsLabel(std::string_view s) {
  if (s.empty() || s.size() > 63) return false;
  for (const char c : s) {
    if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-')) return false;
  }
  return s.front() != '-' && s.back() != '-';
}

// One endpoint address and port, before it becomes a target.
struct Found {
  std::string service;
  std::string address;  // IP (IPv6 unbracketed) or FQDN
  bool ipv6 = false;
  int port = 0;
  std::string pod;
  std::string pod_namespace;
  std::string node;
};

std::string Str(const json& obj, std::string_view key) {
  const auto it = obj.find(key);
  return it != obj.end() && it->is_string() ? it->get<std::string>() : std::string();
}

// The port `wanted` names among `ports` (objects with "name" and "port"); 0 when absent.
// `names` collects what there was, for the error.
int PickPort(const json& ports, const std::string& wanted, std::set<std::string>& names) {
  if (!ports.is_array()) return 0;
  int only = 0;
  int usable = 0;
  for (const json& p : ports) {
    if (!p.is_object()) continue;
    const auto port = p.find("port");
    const int number = port != p.end() && port->is_number_integer() ? port->get<int>() : 0;
    if (number <= 0 || number > 65535) continue;  // no usable port number
    const std::string name = Str(p, "name");
    names.insert(name.empty() ? std::to_string(number) : name);
    if (!wanted.empty() && (name == wanted || std::to_string(number) == wanted)) return number;
    only = number;
    ++usable;
  }
  return wanted.empty() && usable == 1 ? only : 0;
}

// Lists a collection through every page; `what` names it in errors.
Result<std::vector<json>> ListAll(const k8s::ApiClient& client, const std::string& path_and_query,
                                  long* not_found_status) {
  std::vector<json> items;
  std::string cont;
  do {
    std::string request = StrCat(path_and_query, "&limit=", kPageSize);
    if (!cont.empty()) request += StrCat("&continue=", promsource::UrlEncode(cont));
    GPUCOST_ASSIGN_OR_RETURN(k8s::ApiResponse resp, client.Get(request));
    const std::string where = RedactUri(StrCat(client.connection().server, path_and_query));
    if (resp.status == 0) {
      return Status::Unavailable(StrCat("endpoints discovery: GET ", where, ": ", resp.error));
    }
    if (resp.status == 404 && not_found_status != nullptr && items.empty()) {
      *not_found_status = 404;
      return items;
    }
    if (resp.status != 200) {
      return Status::Unavailable(StrCat("endpoints discovery: GET ", where, ": HTTP ", resp.status,
                                        ": ", k8s::StatusMessage(resp.body)));
    }
    try {
      json doc = json::parse(resp.body);
      if (!doc.contains("items") || !doc["items"].is_array()) {
        return Status::ParseError(StrCat("endpoints discovery: GET ", where, ": no items array"));
      }
      for (json& item : doc["items"]) items.push_back(std::move(item));
      cont = doc.contains("metadata") ? Str(doc["metadata"], "continue") : std::string();
    } catch (const json::exception& e) {
      return Status::ParseError(
          StrCat("endpoints discovery: GET ", where, ": invalid JSON: ", e.what()));
    }
  } while (!cont.empty());
  return items;
}

void FromSlices(const std::vector<json>& slices, const EndpointsQuery& q, std::vector<Found>& out,
                std::set<std::string>& port_names, bool& port_found) {
  // IPv4 slices first, so a dual-stack pod keeps its IPv4 address.
  std::vector<const json*> order;
  for (const json& s : slices) order.push_back(&s);
  std::stable_sort(order.begin(), order.end(), [](const json* a, const json* b) {
    return Str(*a, "addressType") == "IPv4" && Str(*b, "addressType") != "IPv4";
  });
  for (const json* slice : order) {
    if (!slice->is_object()) continue;  // not an EndpointSlice: nothing to read
    const json& meta = slice->value("metadata", json::object());
    const std::string service =
        meta.contains("labels") ? Str(meta["labels"], kServiceNameLabel) : std::string();
    if (!q.service.empty() && service != q.service) continue;  // a server ignoring the selector
    if (!q.namespace_name.empty() && Str(meta, "namespace") != q.namespace_name) continue;
    const int port = PickPort(slice->value("ports", json::array()), q.port, port_names);
    if (port == 0) continue;
    port_found = true;
    const std::string type = Str(*slice, "addressType");
    for (const json& ep : slice->value("endpoints", json::array())) {
      if (!ep.is_object()) continue;
      const json cond = ep.value("conditions", json::object());
      if (cond.contains("ready") && cond["ready"].is_boolean() && !cond["ready"].get<bool>()) {
        continue;  // absent means ready (the API's rule)
      }
      const json addresses = ep.value("addresses", json::array());
      if (!addresses.is_array() || addresses.empty() || !addresses[0].is_string()) continue;
      Found f;
      f.service = service;
      f.address = addresses[0].get<std::string>();
      f.ipv6 = type == "IPv6";
      f.port = port;
      f.node = Str(ep, "nodeName");
      if (ep.contains("targetRef") && Str(ep["targetRef"], "kind") == "Pod") {
        f.pod = Str(ep["targetRef"], "name");
        f.pod_namespace = Str(ep["targetRef"], "namespace");
      }
      out.push_back(std::move(f));
    }
  }
}

void FromEndpoints(const std::vector<json>& objects, const EndpointsQuery& q,
                   std::vector<Found>& out, std::set<std::string>& port_names, bool& port_found) {
  for (const json& obj : objects) {
    if (!obj.is_object()) continue;  // not an Endpoints object: nothing to read
    const json& meta = obj.value("metadata", json::object());
    const std::string service = Str(meta, "name");
    if (!q.service.empty() && service != q.service) continue;
    for (const json& subset : obj.value("subsets", json::array())) {
      if (!subset.is_object()) continue;
      const int port = PickPort(subset.value("ports", json::array()), q.port, port_names);
      if (port == 0) continue;
      port_found = true;
      for (const json& a : subset.value("addresses", json::array())) {  // ready ones only
        Found f;
        f.service = service;
        f.address = Str(a, "ip");
        if (f.address.empty()) continue;
        f.ipv6 = f.address.find(':') != std::string::npos;
        f.port = port;
        f.node = Str(a, "nodeName");
        if (a.contains("targetRef") && Str(a["targetRef"], "kind") == "Pod") {
          f.pod = Str(a["targetRef"], "name");
          f.pod_namespace = Str(a["targetRef"], "namespace");
        }
        out.push_back(std::move(f));
      }
    }
  }
}

}  // namespace

Result<EndpointsQuery> ParseEndpointsSpec(std::string_view spec) {
  const std::string_view s = Trim(spec);
  const auto bad = [&](std::string_view why) {
    return Status::InvalidArgument(StrCat("endpoints \"", s, "\": ", why,
                                          " (expected [JOB=]NAMESPACE/SERVICE[:PORT] or "
                                          "[JOB=]NAMESPACE/SELECTOR[:PORT])"));
  };
  const size_t slash = s.find('/');
  if (slash == std::string_view::npos) return bad("no NAMESPACE/");
  EndpointsQuery q;
  std::string_view head = s.substr(0, slash);
  if (const size_t eq = head.find('='); eq != std::string_view::npos) {
    q.job = std::string(Trim(head.substr(0, eq)));
    head = head.substr(eq + 1);
    if (q.job.empty()) return bad("empty job name");
  }
  q.namespace_name = std::string(Trim(head));
  if (!IsDnsLabel(q.namespace_name)) return bad("namespace is not a valid name");
  std::string_view rest = s.substr(slash + 1);
  if (const size_t colon = rest.rfind(':'); colon != std::string_view::npos) {
    q.port = std::string(Trim(rest.substr(colon + 1)));
    rest = rest.substr(0, colon);
    if (q.port.empty()) return bad("empty port after ':'");
  }
  rest = Trim(rest);
  if (rest.empty()) return bad("no service or selector");
  if (IsDnsLabel(rest)) {
    q.service = std::string(rest);
  } else if (rest.find_first_of("=!") != std::string_view::npos ||
             rest.find(" in ") != std::string_view::npos ||
             rest.find(" notin ") != std::string_view::npos) {
    q.label_selector = std::string(rest);
  } else {
    return bad(StrCat("\"", rest, "\" is neither a service name nor a label selector"));
  }
  return q;
}

Result<std::vector<ScrapeTarget>> DiscoverEndpoints(const k8s::ApiClient& client,
                                                    const EndpointsQuery& q) {
  if (q.namespace_name.empty()) {
    return Status::InvalidArgument("endpoints discovery needs a namespace");
  }
  if (q.service.empty() == q.label_selector.empty()) {
    return Status::InvalidArgument("endpoints discovery needs a service name or a label selector");
  }
  const std::string ns = promsource::UrlEncode(q.namespace_name);
  const std::string selector =
      q.service.empty() ? q.label_selector : StrCat(kServiceNameLabel, "=", q.service);
  long not_found = 0;
  GPUCOST_ASSIGN_OR_RETURN(
      std::vector<json> slices,
      ListAll(client,
              StrCat("/apis/discovery.k8s.io/v1/namespaces/", ns,
                     "/endpointslices?labelSelector=", promsource::UrlEncode(selector)),
              &not_found));
  std::vector<Found> found;
  std::set<std::string> port_names;
  bool port_found = false;
  bool any = !slices.empty();
  if (not_found == 0) {
    FromSlices(slices, q, found, port_names, port_found);
  } else {  // the EndpointSlice API is not served: v1 Endpoints
    const std::string query =
        q.service.empty()
            ? StrCat("labelSelector=", promsource::UrlEncode(q.label_selector))
            : StrCat("fieldSelector=", promsource::UrlEncode(StrCat("metadata.name=", q.service)));
    GPUCOST_ASSIGN_OR_RETURN(
        std::vector<json> objects,
        ListAll(client, StrCat("/api/v1/namespaces/", ns, "/endpoints?", query), nullptr));
    any = !objects.empty();
    FromEndpoints(objects, q, found, port_names, port_found);
  }
  if (any && !port_found && !port_names.empty()) {
    std::vector<std::string> names(port_names.begin(), port_names.end());
    return Status::InvalidArgument(StrCat(
        "endpoints of ", q.namespace_name, "/", q.service.empty() ? q.label_selector : q.service,
        q.port.empty() ? std::string(" have several ports; name one of: ")
                       : StrCat(" have no port \"", q.port, "\"; ports: "),
        Join(names, ", ")));
  }

  std::vector<ScrapeTarget> out;
  std::set<std::string> seen;  // pod (or address) + port
  for (const Found& f : found) {
    const std::string key = f.pod.empty() ? StrCat(f.address, "|", f.port)
                                          : StrCat(f.pod_namespace, "/", f.pod, "|", f.port);
    if (!seen.insert(key).second) continue;
    ScrapeTarget t;
    t.job = !q.job.empty() ? q.job : !f.service.empty() ? f.service : "kubernetes";
    const std::string host = f.ipv6 ? StrCat("[", f.address, "]") : f.address;
    t.url = StrCat(q.scheme, "://", host, ":", f.port, q.path);
    t.labels["kubernetes_namespace"] = q.namespace_name;
    if (!f.service.empty()) t.labels["kubernetes_service"] = f.service;
    if (!f.pod.empty()) t.labels["kubernetes_pod_name"] = f.pod;
    if (!f.node.empty()) t.labels["kubernetes_node"] = f.node;
    out.push_back(std::move(t));
  }
  std::sort(out.begin(), out.end(),
            [](const ScrapeTarget& a, const ScrapeTarget& b) { return a.url < b.url; });
  return out;
}

}  // namespace gpucost::scrape
