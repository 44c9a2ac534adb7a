// /metrics says which of the Kubernetes API's optional kinds serve's account may not read
// (gpucost_kube_api_forbidden, docs/serve.md): 1 for a kind refused, 0 for one read, and nothing
// when serve does not read the API. The end-to-end case, through the fake API server, is
// DraKubeTest.ServeExportsTheKindsItMayNotRead (tests/k8s/dra_kube_test.cc).
#include <gtest/gtest.h>

#include <string>

#include "serve/serve_metrics.h"

namespace gpucost::serve {
namespace {

TEST(KubeForbiddenMetrics, EachOptionalKindIsOneWhenRefusedAndZeroWhenRead) {
  ServeHealth health;
  health.kube_kinds = {{"resourceclaims", "HTTP 403: resourceclaims is forbidden"},
                       {"resourceslices", ""}};
  const std::string text = ServeMetricsText({}, {}, {}, health);
  EXPECT_NE(text.find("# HELP gpucost_kube_api_forbidden "), std::string::npos) << text;
  EXPECT_NE(text.find("\n# TYPE gpucost_kube_api_forbidden gauge\n"), std::string::npos) << text;
  EXPECT_NE(text.find("\ngpucost_kube_api_forbidden{resource=\"resourceclaims\"} 1\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("\ngpucost_kube_api_forbidden{resource=\"resourceslices\"} 0\n"),
            std::string::npos)
      << text;
  // The server's message is the log's, not a label.
  EXPECT_EQ(text.find("is forbidden"), std::string::npos) << text;
}

TEST(KubeForbiddenMetrics, NoneWithoutTheKubernetesApi) {
  const std::string text = ServeMetricsText({}, {}, {}, ServeHealth{});
  EXPECT_EQ(text.find("gpucost_kube_api_forbidden"), std::string::npos) << text;
}

}  // namespace
}  // namespace gpucost::serve
