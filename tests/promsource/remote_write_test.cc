// Remote write: the WriteRequest encoding (decoded again with snappy and the generated protobuf),
// the writer's queue, batching, retries and rejections against a fake transport, the headers on
// the wire through libcurl, and delivery to a real Prometheus started with its remote-write
// receiver, read back through the query API.
#include "promsource/remote_write.h"

#include <gtest/gtest.h>
#include <snappy.h>

#include <chrono>
#include <cmath>
#include <condition_variable>
#include <deque>
#include <filesystem>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

#include "cli/cli_test_util.h"
#include "common/child_process.h"
#include "core/strings.h"
#include "promsource/fake_http_server.h"
#include "promsource/prometheus_client.h"
#include "promsource/promsource_test_util.h"
#include "promsource/proto/remote.pb.h"

namespace gpucost::promsource {
namespace {

using std::chrono::milliseconds;
using testing::Answer;

// A decoded request body, one line per series: `name{a="1",b="2"} t:v t:v`, labels in wire
// order (so sorting is checked too), __name__ shown as the name.
std::vector<std::string> Decode(const std::string& body) {
  std::string raw;
  EXPECT_TRUE(snappy::Uncompress(body.data(), body.size(), &raw));
  prompb::WriteRequest request;
  EXPECT_TRUE(request.ParseFromString(raw));
  std::vector<std::string> out;
  for (const prompb::TimeSeries& ts : request.timeseries()) {
    std::string name, labels;
    for (const prompb::Label& l : ts.labels()) {
      if (l.name() == "__name__") {
        name = l.value();
      } else {
        labels += StrCat(labels.empty() ? "" : ",", l.name(), "=\"", l.value(), "\"");
      }
    }
    std::string line = StrCat(name, "{", labels, "}");
    for (const prompb::Sample& s : ts.samples()) {
      line += StrCat(" ", s.timestamp(), ":", FormatDouble(s.value()));
    }
    out.push_back(line);
  }
  return out;
}

WriteSeries Series(const std::string& name, std::vector<std::pair<int64_t, double>> samples,
                   std::vector<std::pair<std::string, std::string>> labels = {}) {
  labels.emplace_back("__name__", name);
  return WriteSeries{std::move(labels), std::move(samples)};
}

// The server side of FakeTransport: answers from a script (then 200), records every request,
// and can hold requests at a gate so that the queue fills behind them.
struct FakeRemote {
  std::mutex mu;
  std::condition_variable cv;
  std::deque<TransportResult> script;
  std::vector<HttpRequest> requests;
  bool gate_open = true;
  std::vector<Duration> backoffs;  // what the writer asked to sleep

  // Waits until `n` requests have arrived (held ones included).
  bool WaitForRequests(size_t n) {
    std::unique_lock<std::mutex> lock(mu);
    return cv.wait_for(lock, std::chrono::seconds(10), [&] { return requests.size() >= n; });
  }
  void OpenGate() {
    std::lock_guard<std::mutex> lock(mu);
    gate_open = true;
    cv.notify_all();
  }
  std::vector<std::vector<std::string>> Bodies() {
    std::lock_guard<std::mutex> lock(mu);
    std::vector<std::vector<std::string>> out;
    for (const HttpRequest& r : requests) out.push_back(Decode(r.body));
    return out;
  }
};

class FakeTransport final : public HttpTransport {
 public:
  explicit FakeTransport(std::shared_ptr<FakeRemote> remote) : remote_(std::move(remote)) {}
  TransportResult Send(const HttpRequest& request) override {
    std::unique_lock<std::mutex> lock(remote_->mu);
    remote_->requests.push_back(request);
    remote_->cv.notify_all();
    remote_->cv.wait(lock, [&] { return remote_->gate_open; });
    if (remote_->script.empty()) return Answer(200, "");
    TransportResult r = std::move(remote_->script.front());
    remote_->script.pop_front();
    return r;
  }

 private:
  std::shared_ptr<FakeRemote> remote_;
};

class RemoteWriteTest : public ::testing::Test {
 protected:
  // A writer on the fake transport whose backoff sleeps are recorded, not slept.
  std::unique_ptr<RemoteWriter> Writer(RemoteWriterOptions options = {}) {
    options.url = "http://mimir.test/api/v1/push";
    options.sleep = [remote = remote_](Duration d) {
      std::lock_guard<std::mutex> lock(remote->mu);
      remote->backoffs.push_back(d);
    };
    auto w = RemoteWriter::Create(std::move(options), std::make_unique<FakeTransport>(remote_));
    EXPECT_TRUE(w.ok()) << w.status().ToString();
    return w.ok() ? std::move(w).value() : nullptr;
  }

  std::shared_ptr<FakeRemote> remote_ = std::make_shared<FakeRemote>();
};

TEST(RemoteWriteEncoding, RoundTripSortsLabelsAndSamples) {
  const std::vector<WriteSeries> series = {
      WriteSeries{{{"zone", "us-east-1a"},
                   {"__name__", "gpucost_cost_usd"},
                   {"empty", ""},
                   {"namespace", "team-a"}},
                  {{1790812860000, 2.5}, {1790812800000, 1.25}, {1790812920000, 1e-12}}},
      Series("gpucost_idle_usd", {{1790812800123, -0.0}, {1790812800124, 12345678.875}}),
  };
  const std::string body = EncodeWriteRequest(series);
  std::string raw;
  ASSERT_TRUE(snappy::Uncompress(body.data(), body.size(), &raw));
  prompb::WriteRequest request;
  ASSERT_TRUE(request.ParseFromString(raw));
  ASSERT_EQ(request.timeseries_size(), 2);

  const prompb::TimeSeries& a = request.timeseries(0);
  ASSERT_EQ(a.labels_size(), 3);  // the empty-valued label is not sent
  EXPECT_EQ(a.labels(0).name(), "__name__");
  EXPECT_EQ(a.labels(0).value(), "gpucost_cost_usd");
  EXPECT_EQ(a.labels(1).name(), "namespace");
  EXPECT_EQ(a.labels(1).value(), "team-a");
  EXPECT_EQ(a.labels(2).name(), "zone");
  EXPECT_EQ(a.labels(2).value(), "us-east-1a");
  ASSERT_EQ(a.samples_size(), 3);
  EXPECT_EQ(a.samples(0).timestamp(), 1790812800000);
  EXPECT_EQ(a.samples(0).value(), 1.25);
  EXPECT_EQ(a.samples(1).timestamp(), 1790812860000);
  EXPECT_EQ(a.samples(1).value(), 2.5);
  EXPECT_EQ(a.samples(2).timestamp(), 1790812920000);
  EXPECT_EQ(a.samples(2).value(), 1e-12);

  const prompb::TimeSeries& b = request.timeseries(1);
  ASSERT_EQ(b.labels_size(), 1);
  EXPECT_EQ(b.labels(0).value(), "gpucost_idle_usd");
  ASSERT_EQ(b.samples_size(), 2);
  EXPECT_EQ(b.samples(0).timestamp(), 1790812800123);
  EXPECT_TRUE(std::signbit(b.samples(0).value()));
  EXPECT_EQ(b.samples(1).value(), 12345678.875);

  // Field numbers are the wire contract: timeseries is field 1 (tag 0x0a), labels field 1 and
  // samples field 2 of TimeSeries.
  ASSERT_FALSE(raw.empty());
  EXPECT_EQ(static_cast<unsigned char>(raw[0]), 0x0a);
  EXPECT_TRUE(EncodeWriteRequest({}).size() < 4);
}

// Protobuf strings are UTF-8 (a proto3 parser refuses a request with one that is not): a label
// value that is not goes as U+FFFD, as serve's /metrics shows it.
TEST(RemoteWriteEncoding, LabelValuesThatAreNotUtf8GoAsReplacementCharacters) {
  const std::vector<WriteSeries> series = {
      WriteSeries{{{"__name__", "gpucost_allocated_usd_total"}, {"namespace", "research-\xff\xfe"}},
                  {{1790812800000, 1.0}}}};
  const std::string body = EncodeWriteRequest(series);
  std::string raw;
  ASSERT_TRUE(snappy::Uncompress(body.data(), body.size(), &raw));
  prompb::WriteRequest request;
  ASSERT_TRUE(request.ParseFromString(raw));
  ASSERT_EQ(request.timeseries_size(), 1);
  ASSERT_EQ(request.timeseries(0).labels_size(), 2);
  EXPECT_EQ(request.timeseries(0).labels(1).value(), "research-\xEF\xBF\xBD\xEF\xBF\xBD");
}

TEST_F(RemoteWriteTest, RetriesServerErrorsInOrderThenDelivers) {
  remote_->script = {Answer(503, "overloaded"), Answer(503, "overloaded")};
  RemoteWriterOptions o;
  o.max_batch_series = 1;
  auto w = Writer(o);
  ASSERT_TRUE(w->Enqueue({Series("a", {{1000, 1}}), Series("b", {{1000, 2}}),
                          Series("c", {{1000, 3}, {2000, 4}})})
                  .ok());
  ASSERT_TRUE(w->Flush(std::chrono::seconds(10)));

  const auto bodies = remote_->Bodies();
  ASSERT_EQ(bodies.size(), 5u);  // a three times, then b, then c
  for (size_t i = 0; i < 3; ++i) EXPECT_EQ(bodies[i], std::vector<std::string>{"a{} 1000:1"});
  EXPECT_EQ(bodies[3], std::vector<std::string>{"b{} 1000:2"});
  EXPECT_EQ(bodies[4], std::vector<std::string>{"c{} 1000:3 2000:4"});
  EXPECT_EQ(remote_->backoffs, (std::vector<Duration>{milliseconds(100), milliseconds(200)}));

  const RemoteWriteStats s = w->Stats();
  EXPECT_EQ(s.samples_sent, 4u);
  EXPECT_EQ(s.series_sent, 3u);
  EXPECT_EQ(s.requests, 5u);
  EXPECT_EQ(s.retries, 2u);
  EXPECT_EQ(s.samples_rejected, 0u);
  EXPECT_EQ(s.samples_dropped_queue_full, 0u);
  EXPECT_EQ(s.queued_samples, 0u);
  EXPECT_EQ(s.in_flight_samples, 0u);
  EXPECT_EQ(s.last_error, "remote write to http://mimir.test/api/v1/push: HTTP 503: overloaded");
  EXPECT_TRUE(s.last_success.has_value());
}

TEST_F(RemoteWriteTest, RetriesTooManyRequestsAndTransportFailuresWithCappedBackoff) {
  remote_->script = {TransportResult{std::nullopt, TransportFailure::kConnect, "refused"},
                     Answer(429, "slow down"),
                     TransportResult{std::nullopt, TransportFailure::kTimeout, "timed out"},
                     Answer(500, "")};
  RemoteWriterOptions o;
  o.min_backoff = milliseconds(100);
  o.max_backoff = milliseconds(300);
  auto w = Writer(o);
  ASSERT_TRUE(w->Enqueue({Series("a", {{1000, 1}})}).ok());
  ASSERT_TRUE(w->Flush(std::chrono::seconds(10)));
  EXPECT_EQ(remote_->backoffs, (std::vector<Duration>{milliseconds(100), milliseconds(200),
                                                      milliseconds(300), milliseconds(300)}));
  const RemoteWriteStats s = w->Stats();
  EXPECT_EQ(s.retries, 4u);
  EXPECT_EQ(s.samples_sent, 1u);
  EXPECT_EQ(s.samples_rejected, 0u);
  EXPECT_EQ(s.last_error, "remote write to http://mimir.test/api/v1/push: HTTP 500");
}

TEST_F(RemoteWriteTest, RejectedBatchIsDroppedWithTheServersMessageAndTheNextIsSent) {
  remote_->script = {Answer(400, "out of order sample\n")};
  RemoteWriterOptions o;
  o.max_batch_series = 2;
  auto w = Writer(o);
  ASSERT_TRUE(w->Enqueue({Series("a", {{1000, 1}, {2000, 2}}), Series("b", {{1000, 3}}),
                          Series("c", {{1000, 4}})})
                  .ok());
  ASSERT_TRUE(w->Flush(std::chrono::seconds(10)));
  const auto bodies = remote_->Bodies();
  ASSERT_EQ(bodies.size(), 2u);
  EXPECT_EQ(bodies[0], (std::vector<std::string>{"a{} 1000:1 2000:2", "b{} 1000:3"}));
  EXPECT_EQ(bodies[1], std::vector<std::string>{"c{} 1000:4"});
  EXPECT_TRUE(remote_->backoffs.empty());

  const RemoteWriteStats s = w->Stats();
  EXPECT_EQ(s.samples_rejected, 3u);
  EXPECT_EQ(s.batches_rejected, 1u);
  EXPECT_EQ(s.samples_sent, 1u);
  EXPECT_EQ(s.retries, 0u);
  EXPECT_EQ(s.last_error,
            "remote write to http://mimir.test/api/v1/push: HTTP 400: out of order sample");
}

TEST_F(RemoteWriteTest, AnOutageIsLoggedOnceWhenItStartsAndOnceWhenItEnds) {
  // Three failed attempts of one batch, a delivery, then a batch refused for good.
  remote_->script = {Answer(503, "overloaded"), Answer(503, "overloaded"),
                     TransportResult{std::nullopt, TransportFailure::kConnect, "no route"},
                     Answer(200, ""), Answer(400, "out of order sample")};
  RemoteWriterOptions o;
  o.max_batch_series = 1;
  ::testing::internal::CaptureStderr();
  auto w = Writer(o);
  ASSERT_TRUE(w->Enqueue({Series("a", {{1000, 1}}), Series("b", {{1000, 2}})}).ok());
  ASSERT_TRUE(w->Flush(std::chrono::seconds(10)));
  const std::string log = ::testing::internal::GetCapturedStderr();
  const auto count = [&log](std::string_view what) {
    size_t n = 0;
    for (size_t at = log.find(what); at != std::string::npos; at = log.find(what, at + 1)) ++n;
    return n;
  };
  EXPECT_EQ(count("remote write to http://mimir.test/api/v1/push: HTTP 503: overloaded; "
                  "retrying with back-off"),
            1u)
      << log;
  EXPECT_EQ(count("no route"), 0u) << "a retry of the same outage is not logged again:\n" << log;
  EXPECT_EQ(count("delivers again, after 3 failed attempts"), 1u) << log;
  EXPECT_EQ(count("HTTP 400: out of order sample; the batch is dropped"), 1u) << log;
}

TEST_F(RemoteWriteTest, FullQueueDropsTheOldestData) {
  remote_->gate_open = false;
  RemoteWriterOptions o;
  o.max_queue_samples = 4;
  auto w = Writer(o);
  ASSERT_TRUE(w->Enqueue({Series("s0", {{1000, 0}})}).ok());
  ASSERT_TRUE(remote_->WaitForRequests(1));  // s0 is in flight, held at the gate

  ASSERT_TRUE(w->Enqueue({Series("s1", {{1000, 1}, {2000, 1}}),
                          Series("s2", {{1000, 2}, {2000, 2}}), Series("s3", {{1000, 3}})})
                  .ok());
  RemoteWriteStats s = w->Stats();
  EXPECT_EQ(s.samples_dropped_queue_full, 2u);  // s1 made room for s3
  EXPECT_EQ(s.queued_series, 2u);
  EXPECT_EQ(s.queued_samples, 3u);
  EXPECT_EQ(s.in_flight_samples, 1u);

  // Longer than the whole bound: the queue empties and the series keeps its newest samples.
  ASSERT_TRUE(
      w->Enqueue({Series("s4", {{5000, 5}, {1000, 1}, {2000, 2}, {3000, 3}, {4000, 4}, {6000, 6}})})
          .ok());
  s = w->Stats();
  EXPECT_EQ(s.samples_dropped_queue_full, 2u + 2u + 3u);
  EXPECT_EQ(s.queued_series, 1u);
  EXPECT_EQ(s.queued_samples, 4u);
  EXPECT_FALSE(w->Flush(milliseconds(1)));

  remote_->OpenGate();
  ASSERT_TRUE(w->Flush(std::chrono::seconds(10)));
  const auto bodies = remote_->Bodies();
  ASSERT_EQ(bodies.size(), 2u);
  EXPECT_EQ(bodies[0], std::vector<std::string>{"s0{} 1000:0"});
  EXPECT_EQ(bodies[1], std::vector<std::string>{"s4{} 3000:3 4000:4 5000:5 6000:6"});
  s = w->Stats();
  EXPECT_EQ(s.samples_sent, 5u);
  EXPECT_EQ(s.queued_samples, 0u);
}

TEST_F(RemoteWriteTest, InvalidSeriesAreRefusedAndNothingIsQueued) {
  auto w = Writer();
  const Status no_name = w->Enqueue({Series("ok", {{1, 1}}), WriteSeries{{{"a", "b"}}, {{1, 1}}}});
  EXPECT_EQ(no_name.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(no_name.message(), "remote write: series 1: no __name__ label");
  const Status twice = w->Enqueue({Series("x", {{1, 1}}, {{"pod", "p"}, {"pod", "q"}})});
  EXPECT_EQ(twice.message(), "remote write: series 0: label pod appears twice");
  const Status empty = w->Enqueue({Series("x", {{1, 1}}, {{"", "v"}})});
  EXPECT_EQ(empty.message(), "remote write: series 0: a label has an empty name");
  EXPECT_TRUE(w->Enqueue({Series("no_samples", {})}).ok());
  ASSERT_TRUE(w->Flush(std::chrono::seconds(10)));
  EXPECT_TRUE(remote_->Bodies().empty());
  EXPECT_EQ(w->Stats().requests, 0u);
}

TEST(RemoteWriteOptions, BadSettingsFailAtCreate) {
  RemoteWriterOptions o;
  o.url = "prometheus:9090/api/v1/write";
  EXPECT_EQ(RemoteWriter::Create(o).status().code(), StatusCode::kInvalidArgument);
  o.url = "http://prometheus:9090/api/v1/write";
  o.max_batch_series = 0;
  EXPECT_FALSE(RemoteWriter::Create(o).ok());
  o.max_batch_series = 10;
  o.max_backoff = milliseconds(10);
  EXPECT_FALSE(RemoteWriter::Create(o).ok());
  o.max_backoff = std::chrono::seconds(30);
  o.auth.bearer_token_env = "TOKEN";
  o.env = [](std::string_view) { return std::optional<std::string>(); };
  EXPECT_FALSE(RemoteWriter::Create(o).ok());  // the variable is not set
}

// The destructor does not wait out a long backoff.
TEST(RemoteWriteShutdown, DestructorInterruptsTheBackoff) {
  auto remote = std::make_shared<FakeRemote>();
  for (int i = 0; i < 10; ++i) remote->script.push_back(Answer(503, ""));
  RemoteWriterOptions o;
  o.url = "http://127.0.0.1:1/api/v1/write";
  o.min_backoff = std::chrono::minutes(10);
  o.max_backoff = std::chrono::minutes(10);
  auto w = RemoteWriter::Create(o, std::make_unique<FakeTransport>(remote));
  ASSERT_TRUE(w.ok());
  ASSERT_TRUE((*w)->Enqueue({Series("a", {{1, 1}})}).ok());
  ASSERT_TRUE(remote->WaitForRequests(1));
  const auto start = std::chrono::steady_clock::now();
  w->reset();
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5));
}

// Through libcurl to a real socket: the protocol's headers, the tenant header and auth.
TEST(RemoteWriteHttp, HeadersAndBodyOnTheWire) {
  testing::FakeHttpServer server([](const testing::ReceivedRequest&) {
    return testing::FakeAnswer{204, "", "text/plain"};
  });
  RemoteWriterOptions o;
  o.url = server.url() + "/api/v1/write";
  o.headers = {{"X-Scope-OrgID", "tenant-7"}};
  o.auth.bearer_token_env = "GPUCOST_TEST_TOKEN";
  o.env = [](std::string_view name) {
    return name == "GPUCOST_TEST_TOKEN" ? std::optional<std::string>("s3cret") : std::nullopt;
  };
  auto w = RemoteWriter::Create(o);
  ASSERT_TRUE(w.ok()) << w.status().ToString();
  ASSERT_TRUE(
      (*w)->Enqueue({Series("gpucost_cost_usd", {{1790812800000, 0.5}}, {{"namespace", "ml"}})})
          .ok());
  ASSERT_TRUE((*w)->Flush(std::chrono::seconds(10)));
  EXPECT_EQ((*w)->Stats().samples_sent, 1u) << (*w)->Stats().last_error;

  const auto requests = server.requests();
  ASSERT_EQ(requests.size(), 1u);
  const testing::ReceivedRequest& r = requests[0];
  EXPECT_EQ(r.method, "POST");
  EXPECT_EQ(r.target, "/api/v1/write");
  const std::map<std::string, std::string> want = {
      {"Content-Encoding", "snappy"},
      {"Content-Type", "application/x-protobuf"},
      {"X-Prometheus-Remote-Write-Version", "0.1.0"},
      {"User-Agent", "gpucost"},
      {"X-Scope-OrgID", "tenant-7"},
      {"Authorization", "Bearer s3cret"},
  };
  for (const auto& [name, value] : want) {
    ASSERT_NE(r.Header(name), nullptr) << name;
    EXPECT_EQ(*r.Header(name), value) << name;
  }
  EXPECT_EQ(Decode(r.body),
            std::vector<std::string>{"gpucost_cost_usd{namespace=\"ml\"} 1790812800000:0.5"});
}

// A real Prometheus (Debian's 2.42) with its remote-write receiver: what is written comes back
// exactly through the query API, and a sample it refuses is a permanent rejection.
TEST(RemoteWritePrometheus, WrittenSamplesComeBackFromTheQueryApi) {
  const char kPrometheusBinary[] = "/usr/bin/prometheus";
  if (!std::filesystem::exists(kPrometheusBinary)) {
    GTEST_SKIP() << "prometheus is not installed (scripts/install-deps.sh)";
  }
  testing_util::TempDir tmp;
  const std::string config = tmp.Write("prometheus.yml", "global:\n  scrape_interval: 1h\n");
  const int port = testing_util::FreePort();
  const std::string url = StrCat("http://127.0.0.1:", port);
  testing_util::ChildProcess prometheus(
      {kPrometheusBinary, "--config.file=" + config,
       "--storage.tsdb.path=" + (tmp.path() / "tsdb").string(),
       StrCat("--web.listen-address=127.0.0.1:", port), "--web.enable-remote-write-receiver"},
      (tmp.path() / "prometheus.log").string());
  {
    auto probe = MakeCurlTransport();
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    bool ready = false;
    while (!ready && std::chrono::steady_clock::now() < deadline && !prometheus.Exited()) {
      const TransportResult r = probe->Send(HttpRequest{"GET", url + "/-/ready", {}, ""});
      ready = r.response && r.response->status == 200;
      if (!ready) std::this_thread::sleep_for(milliseconds(100));
    }
    ASSERT_TRUE(ready) << prometheus.Log();
  }

  // Recent timestamps: Prometheus refuses samples far behind its head.
  const Instant now = SystemClock().Now();
  const int64_t t0 = UnixMs(now) - 60'000;
  RemoteWriterOptions o;
  o.url = url + "/api/v1/write";
  auto w = RemoteWriter::Create(o);
  ASSERT_TRUE(w.ok()) << w.status().ToString();
  ASSERT_TRUE(
      (*w)->Enqueue(
              {Series("gpucost_rw_test_usd", {{t0 + 30'000, 2.25}, {t0, 1.5}, {t0 + 45'001, 1e-9}},
                      {{"team", "x"}, {"namespace", "a"}}),
               Series("gpucost_rw_test_usd", {{t0 + 10, 42.125}}, {{"namespace", "b"}})})
          .ok());
  ASSERT_TRUE((*w)->Flush(std::chrono::seconds(30)));
  RemoteWriteStats s = (*w)->Stats();
  EXPECT_EQ(s.samples_sent, 4u) << s.last_error;
  EXPECT_EQ(s.samples_rejected, 0u) << s.last_error;

  PrometheusClient client(url, PrometheusClientOptions{});
  const Result<std::string> body = client.Query("gpucost_rw_test_usd[5m]", now + milliseconds(1));
  ASSERT_TRUE(body.ok()) << body.status().ToString();
  const nlohmann::json j = nlohmann::json::parse(*body);
  std::map<std::string, std::vector<std::pair<int64_t, double>>> got;
  for (const auto& series : j["data"]["result"]) {
    std::string key;
    for (const auto& [k, v] : series["metric"].items())
      key += StrCat(k, "=", v.get<std::string>(), ";");
    for (const auto& p : series["values"]) {
      const int64_t t_ms = std::llround(p[0].get<double>() * 1000);
      got[key].emplace_back(t_ms, std::stod(p[1].get<std::string>()));
    }
  }
  const std::map<std::string, std::vector<std::pair<int64_t, double>>> want = {
      {"__name__=gpucost_rw_test_usd;namespace=a;team=x;",
       {{t0, 1.5}, {t0 + 30'000, 2.25}, {t0 + 45'001, 1e-9}}},
      {"__name__=gpucost_rw_test_usd;namespace=b;", {{t0 + 10, 42.125}}},
  };
  EXPECT_EQ(got, want) << *body;

  // Older than what the series already holds: Prometheus answers 400, which is not retried.
  ASSERT_TRUE(
      (*w)->Enqueue({Series("gpucost_rw_test_usd", {{t0 - 1000, 7}}, {{"namespace", "b"}})}).ok());
  ASSERT_TRUE((*w)->Flush(std::chrono::seconds(30)));
  s = (*w)->Stats();
  EXPECT_EQ(s.samples_rejected, 1u);
  EXPECT_EQ(s.batches_rejected, 1u);
  EXPECT_EQ(s.retries, 0u);
  EXPECT_NE(s.last_error.find("HTTP 400"), std::string::npos) << s.last_error;
  EXPECT_NE(s.last_error.find("out of order"), std::string::npos) << s.last_error;
  w->reset();
  EXPECT_EQ(prometheus.Terminate(), 0) << prometheus.Log();
}

}  // namespace
}  // namespace gpucost::promsource
