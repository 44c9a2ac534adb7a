// The Scraper against real HTTP exporters on loopback: a good dcgm-exporter, one serving a
// malformed exposition, one down and one too slow. Each is judged on its own; only the good one
// reaches the spool, and the spool loads through the CLI's input path.
#include "scrape/scraper.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>

#include "cli/cli_test_util.h"
#include "ingest/exposition.h"
#include "pipeline/input.h"
#include "promsource/auth.h"
#include "promsource/fake_http_server.h"
#include "scrape/scrape_test_util.h"

namespace gpucost::scrape {
namespace {

using std::chrono::milliseconds;
using std::chrono::seconds;
using testing::ClosedPort;
using testing::DcgmBody;
using testing::Exporter;
using ::testing::HasSubstr;
using testing::MalformedBody;
using ::testing::Not;
using testing_util::TempDir;

constexpr int64_t kStartMs = 1790812800000;  // 2026-10-01T00:00:00Z

class ScraperTest : public ::testing::Test {
 protected:
  ScraperTest() : clock_(InstantFromUnixMs(kStartMs)), spool_(dir_.path().string()) {
    EXPECT_TRUE(spool_.Open().ok());
    options_.timeout = milliseconds(400);
  }

  // What the spool's files hold, inflated.
  std::string SpoolText() const {
    std::string all;
    for (const auto& e : std::filesystem::directory_iterator(dir_.path())) {
      Result<std::unique_ptr<ByteSource>> src = OpenByteSource(e.path().string());
      if (!src.ok()) return src.status().ToString();
      char buf[4096];
      for (Result<size_t> got = (*src)->Read(buf, sizeof buf); got.ok() && *got > 0;
           got = (*src)->Read(buf, sizeof buf)) {
        all.append(buf, *got);
      }
    }
    return all;
  }

  TempDir dir_;
  FakeClock clock_;
  Spool spool_;
  ScraperOptions options_;
};

const TargetHealth* Find(const std::vector<TargetHealth>& health, const std::string& url) {
  for (const TargetHealth& h : health) {
    if (h.url == url) return &h;
  }
  return nullptr;
}

TEST_F(ScraperTest, SendsItsCredentialsAndClientCertificate) {
  // An exporter behind TLS that wants a client certificate, and a bearer token on every request
  // (as kube-rbac-proxy does); the token file is re-read for each scrape.
  TempDir pki;
  const std::string err = promsource::testing::MakeTestPki(pki.path());
  if (!err.empty()) GTEST_SKIP() << "cannot make test certificates: " << err;
  const auto path = [&pki](const char* leaf) { return (pki.path() / leaf).string(); };
  promsource::testing::FakeHttpServer server(
      [](const promsource::testing::ReceivedRequest& r) {
        const std::string* auth = r.Header("Authorization");
        if (auth == nullptr || *auth != "Bearer rbac-token")
          return promsource::testing::FakeAnswer{401, "no", "text/plain"};
        return promsource::testing::FakeAnswer{200, DcgmBody(0.5), "text/plain"};
      },
      promsource::testing::TlsFiles{path("server.crt"), path("server.key"), path("ca.crt")});
  const std::string token = pki.Write("token", "rbac-token\n");
  promsource::AuthOptions auth;
  auth.bearer_token_file = token;
  options_.authorize = *promsource::MakeAuthDecorator(auth, std::make_shared<SystemClock>(),
                                                      promsource::ProcessEnv());
  options_.ca_file = path("ca.crt");
  options_.cert_file = path("client.crt");
  options_.key_file = path("client.key");
  options_.timeout = std::chrono::seconds(5);
  const std::vector<ScrapeTarget> targets = {{"dcgm", server.url() + "/metrics", {}}};
  {
    Scraper scraper(options_, spool_, clock_);
    const auto out = scraper.ScrapeAll(targets);
    ASSERT_EQ(out.size(), 1u);
    EXPECT_TRUE(out[0].status.ok()) << out[0].status.ToString();
    EXPECT_GT(out[0].samples, 0u);
    ASSERT_EQ(server.requests().size(), 1u);
    EXPECT_NE(server.requests()[0].client_subject.find("CN=gpucost-client"), std::string::npos);
  }
  // Without the client certificate the exporter refuses the connection: that scrape fails.
  ScraperOptions anonymous = options_;
  anonymous.cert_file.clear();
  anonymous.key_file.clear();
  {
    Scraper scraper(anonymous, spool_, clock_);
    const auto out = scraper.ScrapeAll(targets);
    ASSERT_EQ(out.size(), 1u);
    EXPECT_FALSE(out[0].status.ok());
  }
  // The token file gone: the scrape fails, naming the target, before anything is sent.
  std::filesystem::remove(token);
  const size_t sent = server.requests().size();
  Scraper scraper(options_, spool_, clock_);
  const auto out = scraper.ScrapeAll(targets);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_FALSE(out[0].status.ok());
  EXPECT_NE(out[0].status.message().find(server.url()), std::string::npos)
      << out[0].status.ToString();
  EXPECT_EQ(server.requests().size(), sent);
}

TEST_F(ScraperTest, EachTargetIsJudgedAlone) {
  Exporter good(DcgmBody(0.75));
  Exporter malformed(MalformedBody());
  Exporter slow(DcgmBody(0.5), 200, seconds(5));
  const std::string down = "http://127.0.0.1:" + std::to_string(ClosedPort()) + "/metrics";
  const std::vector<ScrapeTarget> targets = {
      {"dcgm", good.url(), {{"kubernetes_node", "node-a"}}},
      {"dcgm", malformed.url(), {}},
      {"dcgm", down, {}},
      {"dcgm", slow.url(), {}},
  };
  Scraper scraper(options_, spool_, clock_);
  const std::vector<ScrapeOutcome> first = scraper.ScrapeAll(targets);
  ASSERT_EQ(first.size(), 4u);
  EXPECT_TRUE(first[0].status.ok()) << first[0].status.ToString();
  EXPECT_EQ(first[0].samples, 3u);
  EXPECT_THAT(good.accept(), ::testing::StartsWith("text/plain;version=0.0.4"));
  EXPECT_THAT(good.accept_encoding(), HasSubstr("gzip")) << "so the body came gzipped";
  EXPECT_EQ(first[1].status.code(), StatusCode::kParseError);
  EXPECT_THAT(std::string(first[1].status.message()), HasSubstr(malformed.url() + ":4:"));
  EXPECT_EQ(first[2].status.code(), StatusCode::kUnavailable);
  EXPECT_THAT(std::string(first[2].status.message()), HasSubstr(down));
  EXPECT_THAT(std::string(first[3].status.message()), HasSubstr("timed out"));
  EXPECT_THAT(std::string(first[3].status.message()), HasSubstr(slow.url()));

  clock_.Advance(seconds(30));
  const std::vector<ScrapeOutcome> second = scraper.ScrapeAll(targets);
  EXPECT_TRUE(second[0].status.ok());

  // Only the good target's samples, stamped with each scrape's time, with job and instance.
  const std::string text = SpoolText();
  EXPECT_THAT(text, HasSubstr("# TYPE DCGM_FI_PROF_GR_ENGINE_ACTIVE gauge\n"));
  const std::string instance = good.url().substr(7, good.url().size() - 7 - 8);
  EXPECT_THAT(text, HasSubstr(",pod=\"trainer-0\",job=\"dcgm\",instance=\"" + instance +
                              "\",kubernetes_node=\"node-a\"} 0.75 1790812800000\n"));
  EXPECT_THAT(text, HasSubstr("} 0.75 1790812830000\n"));
  EXPECT_THAT(text, Not(HasSubstr("GPU-bad0"))) << "a rejected scrape leaves nothing behind";
  EXPECT_THAT(text, Not(HasSubstr("} 0.5 "))) << "nor does a timed-out one";

  const std::vector<TargetHealth> health = scraper.Health();
  ASSERT_EQ(health.size(), 4u);
  const TargetHealth* g = Find(health, good.url());
  ASSERT_NE(g, nullptr);
  EXPECT_TRUE(g->up);
  EXPECT_EQ(g->job, "dcgm");
  EXPECT_EQ(g->scrapes_total, 2u);
  EXPECT_EQ(g->failures_total, 0u);
  EXPECT_EQ(g->consecutive_failures, 0u);
  EXPECT_EQ(g->last_samples, 3u);
  EXPECT_EQ(UnixMs(g->last_success), kStartMs + 30000);
  EXPECT_EQ(g->last_error, "");
  for (const std::string& url : {malformed.url(), down, slow.url()}) {
    const TargetHealth* h = Find(health, url);
    ASSERT_NE(h, nullptr) << url;
    EXPECT_FALSE(h->up) << url;
    EXPECT_EQ(h->scrapes_total, 2u) << url;
    EXPECT_EQ(h->failures_total, 2u) << url;
    EXPECT_EQ(h->consecutive_failures, 2u) << url;
    EXPECT_EQ(UnixMs(h->last_scrape), kStartMs + 30000) << url;
    EXPECT_EQ(UnixMs(h->last_success), 0) << url;
    EXPECT_THAT(h->last_error, HasSubstr(url));
  }
  EXPECT_LT(Find(health, slow.url())->last_duration, seconds(3)) << "the timeout cut it short";

  // The spool loads through the same path as `--input`.
  InputOptions flags;
  Result<std::vector<std::string>> files =
      spool_.Files({InstantFromUnixMs(kStartMs), InstantFromUnixMs(kStartMs + 60000)}, seconds(0));
  ASSERT_TRUE(files.ok());
  ASSERT_EQ(files->size(), 1u);
  flags.inputs = *files;
  Result<LoadedInput> input = LoadInput(flags, std::nullopt, seconds(60));
  ASSERT_TRUE(input.ok()) << input.status().ToString();
  EXPECT_EQ(input->timeline.samples, 6u);
  EXPECT_EQ(input->timeline.parse_errors, 0u);
  EXPECT_EQ(UnixMs(input->timeline.span.start), kStartMs);
}

TEST_F(ScraperTest, RecoveryResetsConsecutiveFailuresAndKeepsTheLastError) {
  Exporter target(MalformedBody());
  Scraper scraper(options_, spool_, clock_);
  const std::vector<ScrapeTarget> targets = {{"dcgm", target.url(), {}}};
  (void)scraper.ScrapeAll(targets);
  target.set_body(DcgmBody());
  clock_.Advance(seconds(30));
  const std::vector<ScrapeOutcome> ok = scraper.ScrapeAll(targets);
  EXPECT_TRUE(ok[0].status.ok()) << ok[0].status.ToString();
  const TargetHealth h = scraper.Health().at(0);
  EXPECT_TRUE(h.up);
  EXPECT_EQ(h.failures_total, 1u);
  EXPECT_EQ(h.consecutive_failures, 0u);
  EXPECT_THAT(h.last_error, HasSubstr(":4:"));
}

TEST_F(ScraperTest, RejectsNon200OversizedAndTooManySamples) {
  Exporter missing("gone", 503);
  Exporter big(DcgmBody());
  options_.max_body_bytes = 100;
  Scraper small_body(options_, spool_, clock_);
  std::vector<ScrapeOutcome> out =
      small_body.ScrapeAll({{"a", missing.url(), {}}, {"b", big.url(), {}}});
  EXPECT_THAT(std::string(out[0].status.message()), HasSubstr("answered HTTP 503: gone"));
  EXPECT_THAT(std::string(out[1].status.message()), HasSubstr("body larger than the 100-byte"));
  EXPECT_THAT(std::string(out[1].status.message()), HasSubstr(big.url()));

  options_.max_body_bytes = 1 << 20;
  options_.max_samples = 2;
  Scraper few_samples(options_, spool_, clock_);
  out = few_samples.ScrapeAll({{"b", big.url(), {}}});
  EXPECT_THAT(std::string(out[0].status.message()), HasSubstr("3 samples, over the limit of 2"));
  EXPECT_EQ(SpoolText(), "");
}

TEST_F(ScraperTest, ForgetsTargetsNoLongerListedAndScrapesDuplicatesOnce) {
  Exporter a(DcgmBody());
  Exporter b(DcgmBody());
  Scraper scraper(options_, spool_, clock_);
  (void)scraper.ScrapeAll({{"j", a.url(), {}}, {"j", b.url(), {}}, {"j", a.url(), {}}});
  EXPECT_EQ(a.requests(), 1);
  EXPECT_EQ(scraper.Health().size(), 2u);
  (void)scraper.ScrapeAll({{"j", b.url(), {}}});
  ASSERT_EQ(scraper.Health().size(), 1u);
  EXPECT_EQ(scraper.Health()[0].url, b.url());
  EXPECT_EQ(scraper.Health()[0].scrapes_total, 2u);
}

}  // namespace
}  // namespace gpucost::scrape
