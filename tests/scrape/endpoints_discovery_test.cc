// Endpoints discovery against the fake Kubernetes API server (tests/k8s/fake_apiserver.h, the
// real wire protocol) with the real API client: EndpointSlices, readiness, ports, dual stack,
// paging, label selectors, and the fall-back to v1 Endpoints.
#include "scrape/endpoints_discovery.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "k8s/api_client.h"
#include "k8s/credentials.h"
#include "k8s/fake_apiserver.h"

namespace gpucost::scrape {
namespace {

using k8s::testing::FakeApiServer;
using nlohmann::json;
using ::testing::HasSubstr;

json Endpoint(const std::string& ip, const std::string& pod, const std::string& node,
              std::optional<bool> ready = true) {
  json e = {{"addresses", {ip}},
            {"nodeName", node},
            {"targetRef", {{"kind", "Pod"}, {"name", pod}, {"namespace", "gpu-operator"}}}};
  if (ready) e["conditions"] = {{"ready", *ready}};
  return e;
}

// The endpoints as a vector: a braced list of one json value would be that value, not an array of
// it, on some compilers.
json Slice(const std::string& name, const std::string& service, const std::string& type,
           std::vector<json> endpoints,
           json ports = json::array({{{"name", "gpu-metrics"}, {"port", 9400}}}),
           const std::string& ns = "gpu-operator") {
  return {{"metadata",
           {{"name", name},
            {"namespace", ns},
            {"labels", {{"kubernetes.io/service-name", service}, {"app", service}}}}},
          {"addressType", type},
          {"endpoints", json(std::move(endpoints))},
          {"ports", std::move(ports)}};
}

k8s::KubeConnection ConnectionTo(const std::string& url) {
  k8s::KubeConnection c;
  c.server = url;
  return c;
}

class DiscoveryTest : public ::testing::Test {
 protected:
  DiscoveryTest()
      : connection_(ConnectionTo(server_.url())),
        credentials_(connection_, clock_),
        client_(connection_, credentials_) {}

  Result<std::vector<ScrapeTarget>> Discover(const std::string& spec) {
    Result<EndpointsQuery> q = ParseEndpointsSpec(spec);
    EXPECT_TRUE(q.ok()) << q.status().ToString();
    return DiscoverEndpoints(client_, *q);
  }

  FakeApiServer server_;
  FakeClock clock_{InstantFromUnixMs(1790812800000)};
  k8s::KubeConnection connection_;
  k8s::CredentialSource credentials_;
  k8s::ApiClient client_;
};

TEST_F(DiscoveryTest, OneTargetPerReadyEndpointWithPodAndNodeLabels) {
  server_.Upsert("endpointslices",
                 Slice("dcgm-abc", "nvidia-dcgm-exporter", "IPv4",
                       {Endpoint("10.0.1.5", "dcgm-exporter-x1", "gpu-node-1"),
                        Endpoint("10.0.2.5", "dcgm-exporter-x2", "gpu-node-2", std::nullopt),
                        Endpoint("10.0.3.5", "dcgm-exporter-x3", "gpu-node-3", false)}));
  // Another service's slice, and the same service name in another namespace: not ours.
  server_.Upsert("endpointslices", Slice("ksm-1", "kube-state-metrics", "IPv4",
                                         {Endpoint("10.0.9.9", "ksm-0", "cpu-node")}));
  server_.Upsert(
      "endpointslices",
      Slice("dcgm-other", "nvidia-dcgm-exporter", "IPv4", {Endpoint("10.9.9.9", "elsewhere", "n")},
            json::array({{{"name", "gpu-metrics"}, {"port", 9400}}}), "other"));
  Result<std::vector<ScrapeTarget>> targets =
      Discover("gpu-operator/nvidia-dcgm-exporter:gpu-metrics");
  ASSERT_TRUE(targets.ok()) << targets.status().ToString();
  ASSERT_EQ(targets->size(), 2u) << "the not-ready endpoint is skipped; absent ready means ready";
  const ScrapeTarget& t = (*targets)[0];
  EXPECT_EQ(t.job, "nvidia-dcgm-exporter");
  EXPECT_EQ(t.url, "http://10.0.1.5:9400/metrics");
  EXPECT_EQ(t.labels,
            (std::map<std::string, std::string>{{"kubernetes_namespace", "gpu-operator"},
                                                {"kubernetes_node", "gpu-node-1"},
                                                {"kubernetes_pod_name", "dcgm-exporter-x1"},
                                                {"kubernetes_service", "nvidia-dcgm-exporter"}}));
  EXPECT_EQ((*targets)[1].url, "http://10.0.2.5:9400/metrics");
  // Least privilege: a namespaced list, selected by the service-name label.
  const std::vector<std::string> queries = server_.Queries("endpointslices");
  ASSERT_FALSE(queries.empty());
  EXPECT_THAT(queries.back(),
              HasSubstr("labelSelector=kubernetes.io%2Fservice-name%3Dnvidia-dcgm-exporter"));
  EXPECT_EQ(server_.Requests().back().path,
            "/apis/discovery.k8s.io/v1/namespaces/gpu-operator/endpointslices");

  // Re-discovered on every call: a new pod shows up, a deleted one goes.
  server_.Upsert("endpointslices", Slice("dcgm-abc", "nvidia-dcgm-exporter", "IPv4",
                                         {Endpoint("10.0.4.5", "dcgm-exporter-x4", "gpu-node-4")}));
  targets = Discover("dcgm=gpu-operator/nvidia-dcgm-exporter:9400");
  ASSERT_TRUE(targets.ok());
  ASSERT_EQ(targets->size(), 1u);
  EXPECT_EQ((*targets)[0].url, "http://10.0.4.5:9400/metrics");
  EXPECT_EQ((*targets)[0].job, "dcgm");
}

TEST_F(DiscoveryTest, DualStackPodsOnceIpv4Kept) {
  for (int i = 0; i < 3; ++i) {
    server_.Upsert("endpointslices",
                   Slice("agent-" + std::to_string(i), "gpucost-agent", "IPv4",
                         {Endpoint("10.1.0." + std::to_string(i), "agent-" + std::to_string(i),
                                   "n" + std::to_string(i))},
                         json::array({{{"name", "metrics"}, {"port", 9401}}})));
  }
  server_.Upsert("endpointslices",
                 Slice("agent-v6", "gpucost-agent", "IPv6", {Endpoint("fd00::1", "agent-1", "n1")},
                       json::array({{{"name", "metrics"}, {"port", 9401}}})));
  server_.Upsert("endpointslices", Slice("agent-v6only", "gpucost-agent", "IPv6",
                                         {Endpoint("fd00::9", "agent-9", "n9")},
                                         json::array({{{"name", "metrics"}, {"port", 9401}}})));
  Result<std::vector<ScrapeTarget>> targets = Discover("gpu-operator/gpucost-agent");
  ASSERT_TRUE(targets.ok()) << targets.status().ToString();
  std::vector<std::string> urls;
  for (const ScrapeTarget& t : *targets) urls.push_back(t.url);
  EXPECT_THAT(urls, ::testing::ElementsAre(
                        "http://10.1.0.0:9401/metrics", "http://10.1.0.1:9401/metrics",
                        "http://10.1.0.2:9401/metrics", "http://[fd00::9]:9401/metrics"));
}

TEST_F(DiscoveryTest, LabelSelectorSpansServicesAndJobIsEachService) {
  server_.Upsert("endpointslices",
                 Slice("a", "dcgm-a", "IPv4", {Endpoint("10.0.0.1", "p1", "n1")}));
  server_.Upsert("endpointslices",
                 Slice("b", "dcgm-b", "IPv4", {Endpoint("10.0.0.2", "p2", "n2")}));
  json other = Slice("c", "ksm", "IPv4", {Endpoint("10.0.0.3", "p3", "n3")});
  server_.Upsert("endpointslices", other);
  Result<std::vector<ScrapeTarget>> targets = Discover("gpu-operator/app!=ksm:gpu-metrics");
  ASSERT_TRUE(targets.ok()) << targets.status().ToString();
  ASSERT_EQ(targets->size(), 2u);
  EXPECT_EQ((*targets)[0].job, "dcgm-a");
  EXPECT_EQ((*targets)[1].job, "dcgm-b");
}

TEST_F(DiscoveryTest, PortErrorsNameWhatThereIs) {
  server_.Upsert("endpointslices", Slice("s", "svc", "IPv4", {Endpoint("10.0.0.1", "p", "n")},
                                         json::array({{{"name", "http"}, {"port", 80}},
                                                      {{"name", "metrics"}, {"port", 9400}}})));
  Result<std::vector<ScrapeTarget>> none = Discover("gpu-operator/svc");
  ASSERT_FALSE(none.ok());
  EXPECT_THAT(std::string(none.status().message()),
              HasSubstr("several ports; name one of: http, metrics"));
  Result<std::vector<ScrapeTarget>> wrong = Discover("gpu-operator/svc:grpc");
  ASSERT_FALSE(wrong.ok());
  EXPECT_THAT(std::string(wrong.status().message()), HasSubstr("no port \"grpc\""));
  Result<std::vector<ScrapeTarget>> empty = Discover("gpu-operator/absent:metrics");
  ASSERT_TRUE(empty.ok()) << "a service without endpoints has no targets, which is no error";
  EXPECT_TRUE(empty->empty());
}

TEST_F(DiscoveryTest, MalformedEntriesAreSkippedNotThrown) {
  // An endpoint that is not an object, a port written as a string, a port entry that is a
  // number: each is skipped, and the well-formed endpoint next to them is still found.
  server_.Upsert("endpointslices", Slice("s", "svc", "IPv4",
                                         {json("10.0.0.9"), json::array({"10.0.0.8"}),
                                          Endpoint("10.0.0.1", "p", "n")},
                                         json::array({json(9400),
                                                      {{"name", "metrics"}, {"port", "9400"}},
                                                      {{"name", "metrics"}, {"port", 9401}}})));
  Result<std::vector<ScrapeTarget>> targets = Discover("gpu-operator/svc:metrics");
  ASSERT_TRUE(targets.ok()) << targets.status().ToString();
  ASSERT_EQ(targets->size(), 1u);
  EXPECT_EQ((*targets)[0].url, "http://10.0.0.1:9401/metrics");
}

TEST_F(DiscoveryTest, FallsBackToV1EndpointsWithoutTheSliceApi) {
  server_.FailNext("/apis/discovery.k8s.io/", 404, 1);
  server_.Upsert(
      "endpoints",
      {{"metadata", {{"name", "kube-state-metrics"}, {"namespace", "gpu-operator"}}},
       {"subsets",
        {{{"addresses",
           {{{"ip", "10.0.5.5"},
             {"nodeName", "cpu-1"},
             {"targetRef", {{"kind", "Pod"}, {"name", "ksm-0"}, {"namespace", "gpu-operator"}}}}}},
          {"notReadyAddresses", {{{"ip", "10.0.5.6"}}}},
          {"ports",
           {{{"name", "http-metrics"}, {"port", 8080}},
            {{"name", "telemetry"}, {"port", 8081}}}}}}}});
  Result<std::vector<ScrapeTarget>> targets =
      Discover("ksm=gpu-operator/kube-state-metrics:http-metrics");
  ASSERT_TRUE(targets.ok()) << targets.status().ToString();
  ASSERT_EQ(targets->size(), 1u);
  EXPECT_EQ((*targets)[0].url, "http://10.0.5.5:8080/metrics");
  EXPECT_EQ((*targets)[0].labels.at("kubernetes_pod_name"), "ksm-0");
  EXPECT_EQ((*targets)[0].labels.at("kubernetes_node"), "cpu-1");
  EXPECT_EQ(server_.Requests().back().path, "/api/v1/namespaces/gpu-operator/endpoints");
}

TEST_F(DiscoveryTest, ApiErrorsNameTheServerAndRequest) {
  server_.FailNext("/apis/discovery.k8s.io/", 403, 1);
  Result<std::vector<ScrapeTarget>> t = Discover("gpu-operator/svc:metrics");
  ASSERT_FALSE(t.ok());
  EXPECT_THAT(std::string(t.status().message()), HasSubstr(server_.url()));
  EXPECT_THAT(std::string(t.status().message()), HasSubstr("endpointslices"));
  EXPECT_THAT(std::string(t.status().message()), HasSubstr("HTTP 403"));
}

}  // namespace
}  // namespace gpucost::scrape
