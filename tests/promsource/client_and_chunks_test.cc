// The client's retries and errors, and chunking against a simulated store whose range selectors
// are left-closed (Prometheus 2.x) or left-open (Prometheus 3): every sample counted once.
#include <gtest/gtest.h>

#include <cmath>
#include <map>

#include "core/strings.h"
#include "inventory/input_metrics.h"
#include "promsource/prometheus_client.h"
#include "promsource/prometheus_source.h"
#include "promsource/promsource_test_util.h"

namespace gpucost::promsource {
namespace {

using testing::Answer;
using testing::RecordingHandler;
using testing::ScriptedTransport;

const char kOkEmpty[] = R"({"status":"success","data":{"resultType":"matrix","result":[]}})";

PrometheusClientOptions NoSleep(std::vector<Duration>* slept) {
  PrometheusClientOptions o;
  o.sleep = [slept](Duration d) { slept->push_back(d); };
  return o;
}

TEST(Helpers, UrlEncodeAndTime) {
  EXPECT_EQ(UrlEncode("up[5m]"), "up%5B5m%5D");
  EXPECT_EQ(UrlEncode("a b{c=\"d\"}"), "a%20b%7Bc%3D%22d%22%7D");
  EXPECT_EQ(UrlEncode("A-z_0.9~"), "A-z_0.9~");
  EXPECT_EQ(FormatApiTime(InstantFromUnixMs(1790812800000)), "1790812800");
  EXPECT_EQ(FormatApiTime(InstantFromUnixMs(1790812800050)), "1790812800.050");
}

TEST(PrometheusClient, BuildsTheQueryUrl) {
  std::vector<std::string> urls;
  std::vector<Duration> slept;
  PrometheusClient c("http://prom:9090/", NoSleep(&slept),
                     std::make_unique<ScriptedTransport>(
                         std::deque<TransportResult>{Answer(200, kOkEmpty)}, &urls));
  ASSERT_TRUE(c.Query("up[5m]", InstantFromUnixMs(1000500)).ok());
  ASSERT_EQ(urls.size(), 1u);
  EXPECT_EQ(urls[0], "http://prom:9090/api/v1/query?query=up%5B5m%5D&time=1000.500");
}

TEST(PrometheusClient, Retries5xxAndTimeoutsWithExponentialBackoff) {
  std::vector<Duration> slept;
  std::deque<TransportResult> script;
  script.push_back(Answer(503, "Service Unavailable"));
  script.push_back(
      TransportResult{std::nullopt, TransportFailure::kTimeout, "Timeout was reached"});
  script.push_back(Answer(429, "slow down"));
  script.push_back(Answer(200, kOkEmpty));
  PrometheusClientOptions o = NoSleep(&slept);
  o.retry.max_attempts = 4;
  o.retry.initial_backoff = std::chrono::milliseconds(100);
  PrometheusClient c("http://prom:9090", o,
                     std::make_unique<ScriptedTransport>(std::move(script), nullptr));
  auto r = c.Query("up", InstantFromUnixMs(0));
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(*r, kOkEmpty);
  EXPECT_EQ(c.requests(), 4u);
  EXPECT_EQ(slept,
            (std::vector<Duration>{std::chrono::milliseconds(100), std::chrono::milliseconds(200),
                                   std::chrono::milliseconds(400)}));
}

TEST(PrometheusClient, GivesUpAfterMaxAttemptsNamingUrlAndStatus) {
  std::vector<Duration> slept;
  std::deque<TransportResult> script;
  for (int i = 0; i < 3; ++i) {
    script.push_back(Answer(502, R"({"status":"error","errorType":"internal","error":"boom"})"));
  }
  PrometheusClientOptions o = NoSleep(&slept);
  o.retry.max_attempts = 3;
  PrometheusClient c("http://prom:9090", o,
                     std::make_unique<ScriptedTransport>(std::move(script), nullptr));
  auto r = c.Query("up", InstantFromUnixMs(0));
  ASSERT_FALSE(r.ok());
  const std::string m = r.status().ToString();
  EXPECT_NE(m.find("http://prom:9090/api/v1/query?query=up&time=0"), std::string::npos) << m;
  EXPECT_NE(m.find("HTTP 502 (internal: boom)"), std::string::npos) << m;
  EXPECT_NE(m.find("gave up after 3 attempts"), std::string::npos) << m;
  EXPECT_EQ(slept.size(), 2u);
}

TEST(PrometheusClient, FourXxFailsAtOnceWithTheApiError) {
  std::vector<Duration> slept;
  std::deque<TransportResult> script;
  script.push_back(Answer(
      400, R"({"status":"error","errorType":"bad_data","error":"1:3: parse error: unexpected"})"));
  PrometheusClient c("https://u:pw@prom", NoSleep(&slept),
                     std::make_unique<ScriptedTransport>(std::move(script), nullptr));
  auto r = c.Query("up[", InstantFromUnixMs(0));
  ASSERT_FALSE(r.ok());
  const std::string m = r.status().ToString();
  EXPECT_NE(
      m.find("GET https://u:***@prom/api/v1/query?query=up%5B&time=0: HTTP 400 (bad_data: 1:3: "
             "parse error: unexpected)"),
      std::string::npos)
      << m;
  EXPECT_EQ(m.find("pw"), std::string::npos) << m;
  EXPECT_TRUE(slept.empty());
}

TEST(PrometheusClient, ErrorBodyWith200AndPlain404) {
  std::vector<Duration> slept;
  std::deque<TransportResult> script;
  script.push_back(
      Answer(200, R"({"status":"error","errorType":"timeout","error":"query timed out"})"));
  script.push_back(Answer(404, "404 page not found\n"));
  script.push_back(
      TransportResult{std::nullopt, TransportFailure::kOther, "SSL certificate problem"});
  PrometheusClient c("http://prom", NoSleep(&slept),
                     std::make_unique<ScriptedTransport>(std::move(script), nullptr));
  auto a = c.Query("up", InstantFromUnixMs(0));
  ASSERT_FALSE(a.ok());
  EXPECT_NE(a.status().ToString().find("timeout: query timed out"), std::string::npos);
  auto b = c.Query("up", InstantFromUnixMs(0));
  ASSERT_FALSE(b.ok());
  EXPECT_NE(b.status().ToString().find("HTTP 404 (404 page not found)"), std::string::npos)
      << b.status().ToString();
  auto tls = c.Query("up", InstantFromUnixMs(0));  // not retried
  ASSERT_FALSE(tls.ok());
  EXPECT_NE(tls.status().ToString().find("SSL certificate problem"), std::string::npos);
  EXPECT_TRUE(slept.empty());
}

TEST(PrometheusClient, PrepareRequestSeesEveryAttempt) {
  std::vector<Duration> slept;
  std::deque<TransportResult> script{Answer(500, ""), Answer(200, kOkEmpty)};
  PrometheusClientOptions o = NoSleep(&slept);
  int calls = 0;
  o.headers.emplace_back("X-Scope-OrgID", "tenant");
  o.prepare_request = [&calls](HttpRequest& r) {
    ++calls;
    EXPECT_EQ(r.headers.front().second, "tenant");
    return Status::Ok();
  };
  PrometheusClient c("http://prom", o,
                     std::make_unique<ScriptedTransport>(std::move(script), nullptr));
  ASSERT_TRUE(c.Query("up", InstantFromUnixMs(0)).ok());
  EXPECT_EQ(calls, 2);
}

TEST(Chunks, PlanAndQuery) {
  const Window w{InstantFromUnixMs(0), InstantFromUnixMs(3'600'000)};
  const auto chunks = PlanChunks(w, std::chrono::minutes(25));
  ASSERT_EQ(chunks.size(), 3u);
  EXPECT_EQ(chunks[1].start, InstantFromUnixMs(1'500'000));
  EXPECT_EQ(chunks[2].end, w.end);
  EXPECT_EQ(chunks[2].length(), std::chrono::minutes(10));
  EXPECT_TRUE(PlanChunks(w, Duration(0)).empty());
  EXPECT_TRUE(PlanChunks(Window{w.end, w.start}, std::chrono::minutes(1)).empty());
  EXPECT_EQ(RawSamplesQuery("kube_pod_info", chunks[0]), "kube_pod_info[1500001ms]");
}

// A store holding samples of one metric every 30 s; answers `name[Nms]` at `time` with the
// samples in [time - N, time] (left-closed, Prometheus 2.x) or (time - N, time] (left-open, 3.x).
class SimulatedStore final : public HttpTransport {
 public:
  SimulatedStore(bool left_open, std::vector<int64_t> times_ms)
      : left_open_(left_open), times_(std::move(times_ms)) {}
  TransportResult Send(const HttpRequest& request) override {
    const std::string& u = request.url;
    const size_t q = u.find("query=") + 6;
    const size_t amp = u.find('&', q);
    const std::string query = u.substr(q, amp - q);  // e.g. name%5B1200001ms%5D
    const size_t open = query.find("%5B");
    const std::string name = query.substr(0, open);
    const int64_t range = std::stoll(query.substr(open + 3));
    const int64_t at = std::llround(std::stod(u.substr(u.find("time=") + 5)) * 1000);
    std::string values;
    for (const int64_t t : times_) {
      const bool after_start = left_open_ ? t > at - range : t >= at - range;
      if (after_start && t <= at) {
        if (!values.empty()) values += ",";
        values += StrCat("[", FormatApiTime(InstantFromUnixMs(t)), ",\"", t / 1000, "\"]");
      }
    }
    return Answer(200,
                  StrCat(R"({"status":"success","data":{"resultType":"matrix","result":[)",
                         R"({"metric":{"__name__":")", name, R"("},"values":[)", values, "]}]}}"));
  }

 private:
  bool left_open_;
  std::vector<int64_t> times_;
};

void ExpectEachSampleOnce(bool left_open) {
  std::vector<int64_t> times;
  for (int64_t t = 0; t <= 7'200'000; t += 30'000) times.push_back(t);  // on every boundary too
  const Window range{InstantFromUnixMs(0), InstantFromUnixMs(3'600'000)};
  for (const Duration chunk :
       {Duration(std::chrono::minutes(20)), Duration(std::chrono::seconds(30)),
        Duration(std::chrono::minutes(7)), Duration(std::chrono::hours(2))}) {
    std::vector<Duration> slept;
    PrometheusClient c("http://store", NoSleep(&slept),
                       std::make_unique<SimulatedStore>(left_open, times));
    RecordingHandler h;
    const std::string_view metrics[] = {"m"};
    FetchStats stats;
    ASSERT_TRUE(StreamRawSamples(c, range, chunk, metrics, h, &stats).ok());
    std::map<int64_t, int> seen;
    for (const auto& s : h.samples) {
      EXPECT_EQ(s.name, "m");
      ++seen[s.t_ms];
    }
    EXPECT_EQ(seen.size(), 120u) << "chunk " << chunk.count();
    for (const auto& [t, n] : seen) {
      EXPECT_EQ(n, 1) << "t=" << t << " chunk " << chunk.count();
      EXPECT_LT(t, 3'600'000);
    }
    EXPECT_EQ(stats.samples, 120u);
    EXPECT_EQ(stats.requests, PlanChunks(range, chunk).size());
  }
}

TEST(Chunks, LeftClosedStoreCountsBoundarySamplesOnce) { ExpectEachSampleOnce(false); }
TEST(Chunks, LeftOpenStoreCountsBoundarySamplesOnce) { ExpectEachSampleOnce(true); }

TEST(LoadTimelineFromPrometheus, AsksForEveryInventoryMetricAndNeedsAWindow) {
  std::vector<std::string> urls;
  std::deque<TransportResult> script;
  for (size_t i = 0; i < kInventoryMetricNames.size() * 13; ++i)
    script.push_back(Answer(200, kOkEmpty));
  PrometheusSourceOptions o;
  o.url = "http://store";
  o.api = PrometheusApi::kQuery;  // remote read is covered in remote_read_test.cc
  o.chunk = std::chrono::minutes(5);
  TimelineOptions t;
  EXPECT_FALSE(LoadTimelineFromPrometheus(o, t).ok());
  t.window = Window{InstantFromUnixMs(3'600'000), InstantFromUnixMs(3'900'000)};
  t.staleness = std::chrono::minutes(5);
  auto r = LoadTimelineFromPrometheus(o, t, std::make_unique<ScriptedTransport>(script, &urls));
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->samples, 0u);
  // From the lookback (30 minutes, more than the staleness) before the window to as far after
  // its end, [1800 s, 5700 s): thirteen 5-minute chunks, each for every metric.
  ASSERT_EQ(urls.size(), kInventoryMetricNames.size() * 13);
  EXPECT_EQ(urls[0],
            "http://store/api/v1/"
            "query?query=kube_pod_container_resource_requests%5B300001ms%5D&time=2100");
  EXPECT_NE(urls.back().find("time=5700"), std::string::npos);
}

}  // namespace
}  // namespace gpucost::promsource
