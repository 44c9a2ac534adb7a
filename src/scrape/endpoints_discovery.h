// Kubernetes endpoints discovery: the scrape targets behind a Service (or the Services matching
// a label selector) in one namespace, one per ready endpoint address and port, listed through
// the API client (src/k8s) each time it is called, so that serve re-discovers every cycle.
// Reads discovery.k8s.io/v1 EndpointSlices; on a 404 for that API (clusters before 1.21) it reads
// v1 Endpoints instead. Needs only namespaced list on endpointslices (or endpoints). Stateless;
// thread-safe as ApiClient is.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "core/result.h"
#include "k8s/api_client.h"
#include "scrape/target.h"

namespace gpucost::scrape {

struct EndpointsQuery {
  std::string job;             // "" : the service name, or "kubernetes" with a selector
  std::string namespace_name;  // required
  std::string service;         // the Service's name, or
  std::string label_selector;  // a selector on the Services' labels (EndpointSlices carry them)
  std::string port;            // port name or number; "" : the endpoints' only port
  std::string scheme = "http";
  std::string path = "/metrics";
};

// "[JOB=]NAMESPACE/SERVICE[:PORT]" or "[JOB=]NAMESPACE/SELECTOR[:PORT]", where SELECTOR holds
// '=' or '!' ("app.kubernetes.io/name=dcgm-exporter"); e.g. "gpu-operator/nvidia-dcgm-exporter:
// gpu-metrics". Errors name the spec.
Result<EndpointsQuery> ParseEndpointsSpec(std::string_view spec);

// Targets "scheme://IP:PORT/path", sorted by URL, with labels kubernetes_namespace, kubernetes_
// service, kubernetes_pod_name and kubernetes_node (when the endpoint names them; the dcgm-exporter
// reader takes kubernetes_node as the host when a series has no Hostname). Not-ready endpoints are
// skipped; an address seen in several slices (or a pod in both an IPv4 and an IPv6 slice, IPv4
// kept) yields one target. An API failure is an error naming the server and the request.
Result<std::vector<ScrapeTarget>> DiscoverEndpoints(const k8s::ApiClient& client,
                                                    const EndpointsQuery& query);

}  // namespace gpucost::scrape
