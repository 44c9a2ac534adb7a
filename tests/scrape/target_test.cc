// Static target specs, endpoints specs and the re-rendering of a scrape into spool text.
#include "scrape/target.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <map>
#include <string>

#include "ingest/exposition.h"
#include "scrape/endpoints_discovery.h"
#include "scrape/scrape_text.h"

namespace gpucost::scrape {
namespace {

using ::testing::HasSubstr;

TEST(StaticTarget, ParsesUrlAndJobForms) {
  Result<ScrapeTarget> plain = ParseStaticTarget("http://10.0.0.7:9400/metrics");
  ASSERT_TRUE(plain.ok()) << plain.status().ToString();
  EXPECT_EQ(plain->job, "static");
  EXPECT_EQ(plain->url, "http://10.0.0.7:9400/metrics");

  Result<ScrapeTarget> job = ParseStaticTarget(" dcgm = http://gpu-1:9400 ");
  ASSERT_TRUE(job.ok()) << job.status().ToString();
  EXPECT_EQ(job->job, "dcgm");
  EXPECT_EQ(job->url, "http://gpu-1:9400/metrics") << "a URL without a path gets /metrics";

  Result<ScrapeTarget> query = ParseStaticTarget("ksm=https://ksm:8443?x=1");
  ASSERT_TRUE(query.ok());
  EXPECT_EQ(query->url, "https://ksm:8443/metrics?x=1");

  Result<ScrapeTarget> v6 = ParseStaticTarget("http://[fd00::7]:9400/metrics/dcgm");
  ASSERT_TRUE(v6.ok()) << v6.status().ToString();
  EXPECT_EQ(InstanceOf(v6->url), "[fd00::7]:9400");
}

TEST(StaticTarget, RejectsBadSpecsWithClearErrors) {
  const std::map<std::string, std::string> cases = {
      {"gpu-1:9400", "expected URL or JOB=URL"},
      {"ftp://gpu-1/metrics", "scheme \"ftp\""},
      {"http://:9400/metrics", "no host"},
      {"http://gpu-1:99999/metrics", "port \"99999\""},
      {"http://gpu-1:/metrics", "empty port"},
      {"=http://gpu-1/metrics", "empty job name"},
      {"my job=http://gpu-1/metrics", "job name \"my job\""},
      {"dcgm=http://gpu 1/metrics", "white space"},
  };
  for (const auto& [spec, want] : cases) {
    Result<ScrapeTarget> t = ParseStaticTarget(spec);
    ASSERT_FALSE(t.ok()) << spec;
    EXPECT_EQ(t.status().code(), StatusCode::kInvalidArgument);
    EXPECT_THAT(std::string(t.status().message()), HasSubstr(want)) << spec;
  }
  Result<ScrapeTarget> secret = ParseStaticTarget("http://user:hunter2@:80/metrics");
  ASSERT_FALSE(secret.ok());
  EXPECT_THAT(std::string(secret.status().message()), ::testing::Not(HasSubstr("hunter2")));

  Result<std::vector<ScrapeTarget>> twice =
      ParseStaticTargets({"http://a:1/metrics", "x=http://a:1/metrics"});
  ASSERT_FALSE(twice.ok());
  EXPECT_THAT(std::string(twice.status().message()), HasSubstr("given twice"));
}

TEST(StaticTarget, FileKeysAreSafeStableAndDistinct) {
  const ScrapeTarget a{"dcgm", "http://10.0.0.7:9400/metrics", {}};
  const ScrapeTarget b{"dcgm", "http://10.0.0.7:9400/metrics/other", {}};
  EXPECT_EQ(TargetFileKey(a), TargetFileKey(a));
  EXPECT_NE(TargetFileKey(a), TargetFileKey(b));
  EXPECT_THAT(TargetFileKey(a), ::testing::StartsWith("dcgm_10.0.0.7-9400_"));
  for (const char c : TargetFileKey(ScrapeTarget{"j", "http://[fd00::1]:80/m", {}})) {
    EXPECT_TRUE(std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == '.')
        << c;
  }
}

TEST(EndpointsSpec, ParsesServiceAndSelectorForms) {
  Result<EndpointsQuery> svc = ParseEndpointsSpec("gpu-operator/nvidia-dcgm-exporter:gpu-metrics");
  ASSERT_TRUE(svc.ok()) << svc.status().ToString();
  EXPECT_EQ(svc->namespace_name, "gpu-operator");
  EXPECT_EQ(svc->service, "nvidia-dcgm-exporter");
  EXPECT_EQ(svc->port, "gpu-metrics");
  EXPECT_EQ(svc->job, "");

  Result<EndpointsQuery> sel =
      ParseEndpointsSpec("ksm=monitoring/app.kubernetes.io/name=kube-state-metrics:8080");
  ASSERT_TRUE(sel.ok()) << sel.status().ToString();
  EXPECT_EQ(sel->job, "ksm");
  EXPECT_EQ(sel->namespace_name, "monitoring");
  EXPECT_EQ(sel->label_selector, "app.kubernetes.io/name=kube-state-metrics");
  EXPECT_EQ(sel->port, "8080");

  Result<EndpointsQuery> noport = ParseEndpointsSpec("gpucost/gpucost-agent");
  ASSERT_TRUE(noport.ok());
  EXPECT_EQ(noport->port, "");

  for (const char* bad :
       {"dcgm-exporter", "Bad_NS/svc", "ns/", "ns/Svc Name", "ns/svc:", "=ns/svc"}) {
    Result<EndpointsQuery> q = ParseEndpointsSpec(bad);
    EXPECT_FALSE(q.ok()) << bad;
    EXPECT_THAT(std::string(q.status().message()), HasSubstr(bad));
  }
}

// Parses `text` as exposition into a ScrapeText.
std::string Render(const std::string& text, int64_t scrape_ms,
                   std::vector<std::pair<std::string, std::string>> extra) {
  ScrapeText out(scrape_ms, std::move(extra));
  std::unique_ptr<ByteSource> in = StringByteSource(text);
  ParseOptions po;
  po.strict = true;
  Result<ParseStats> stats = ParseExposition(*in, po, out);
  EXPECT_TRUE(stats.ok()) << stats.status().ToString();
  return out.text();
}

TEST(ScrapeText, StampsSamplesAndAddsMissingTargetLabels) {
  const std::string text = Render(
      "# HELP m A \\\\ help\\nline\n"
      "# TYPE m gauge\n"
      "m{a=\"x\\\"y\",job=\"own\",instance=\"\"} 1.5\n"
      "m{a=\"z\"} 2 1700000000000\n"
      "n NaN\n",
      1790812800000, {{"job", "dcgm"}, {"instance", "10.0.0.7:9400"}, {"kubernetes_node", "n1"}});
  EXPECT_EQ(
      text,
      "# HELP m A \\\\ help\\nline\n"
      "# TYPE m gauge\n"
      "m{a=\"x\\\"y\",job=\"own\",instance=\"10.0.0.7:9400\",kubernetes_node=\"n1\"} 1.5 "
      "1790812800000\n"
      "m{a=\"z\",job=\"dcgm\",instance=\"10.0.0.7:9400\",kubernetes_node=\"n1\"} 2 "
      "1700000000000\n"
      "n{job=\"dcgm\",instance=\"10.0.0.7:9400\",kubernetes_node=\"n1\"} NaN 1790812800000\n");
  // What was written parses back strictly, to the same values.
  EXPECT_EQ(Render(text, 1, {}), text);
}

TEST(ScrapeText, ConvertsOpenMetricsAndDropsCreatedSamples) {
  const std::string text = Render(
      "# TYPE c counter\n"
      "# UNIT c seconds\n"
      "c_total 3 1790812800.5 # {trace=\"a\"} 1\n"
      "c_created 1790000000\n"
      "# EOF\n",
      1790812860000, {{"job", "j"}});
  EXPECT_EQ(text,
            "# TYPE c counter\n"
            "# UNIT c seconds\n"
            "c_total{job=\"j\"} 3 1790812800500\n");
}

}  // namespace
}  // namespace gpucost::scrape
