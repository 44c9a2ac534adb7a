// Remote read without a server: the request we send (decoded back with protobuf and snappy),
// streamed responses (a real Prometheus' body, frames we build: CRC, split series, overlapping
// chunks, staleness markers, the keep window, bad frames), SAMPLES responses, and the choice
// between remote read and the query API (auto falls back on 404/405/unsupported answers only).
#include "promsource/remote_read.h"

#include <gtest/gtest.h>
#include <snappy.h>

#include <bit>
#include <fstream>
#include <sstream>

#include "promsource/prometheus_source.h"
#include "promsource/promsource_test_util.h"
#include "promsource/proto/remote.pb.h"
#include "promsource/xor_chunk.h"

namespace gpucost::promsource {
namespace {

using testing::Answer;
using testing::FromHex;
using testing::ReadData;
using testing::RecordingHandler;
using testing::ScriptedTransport;

constexpr int64_t kT0 = 1790812800000;  // 2026-10-01T00:00:00Z
const Window kAllTime{InstantFromUnixMs(0), InstantFromUnixMs(int64_t{1} << 50)};

void AddLabels(google::protobuf::RepeatedPtrField<prompb::Label>* out,
               std::vector<std::pair<std::string, std::string>> labels) {
  for (auto& [k, v] : labels) {
    prompb::Label* l = out->Add();
    l->set_name(k);
    l->set_value(v);
  }
}

void AddChunk(prompb::ChunkedSeries* s, const std::vector<XorSample>& samples) {
  prompb::Chunk* c = s->add_chunks();
  c->set_type(prompb::Chunk::XOR);
  c->set_min_time_ms(samples.front().t_ms);
  c->set_max_time_ms(samples.back().t_ms);
  c->set_data(EncodeXorChunk(samples));
}

std::string Frame(const prompb::ChunkedReadResponse& msg) {
  const std::string body = msg.SerializeAsString();
  std::string out;
  uint64_t n = body.size();
  while (n >= 0x80) {
    out.push_back(static_cast<char>(n | 0x80));
    n >>= 7;
  }
  out.push_back(static_cast<char>(n));
  const uint32_t crc = Crc32c(body);
  for (int shift = 24; shift >= 0; shift -= 8) out.push_back(static_cast<char>(crc >> shift));
  return out + body;
}

TEST(RemoteRead, Crc32cKnownValue) {
  EXPECT_EQ(Crc32c("123456789"), 0xE3069283u);  // the CRC-32C check value
  EXPECT_EQ(Crc32c(""), 0u);
}

TEST(RemoteRead, RequestAsksForEachMetricOverTheChunkInclusiveEnds) {
  const std::string_view metrics[] = {"kube_pod_info", "DCGM_FI_DEV_GPU_UTIL"};
  const RemoteReadResponseType accepted[] = {RemoteReadResponseType::kStreamedXorChunks,
                                             RemoteReadResponseType::kSamples};
  const Window chunk{InstantFromUnixMs(kT0), InstantFromUnixMs(kT0 + 7200000)};
  const std::string compressed = BuildReadRequest(metrics, chunk, accepted);
  std::string raw;
  ASSERT_TRUE(snappy::Uncompress(compressed.data(), compressed.size(), &raw));
  prompb::ReadRequest req;
  ASSERT_TRUE(req.ParseFromString(raw));
  ASSERT_EQ(req.queries_size(), 2);
  for (int i = 0; i < 2; ++i) {
    const prompb::Query& q = req.queries(i);
    EXPECT_EQ(q.start_timestamp_ms(), kT0);
    EXPECT_EQ(q.end_timestamp_ms(), kT0 + 7200000 - 1);
    ASSERT_EQ(q.matchers_size(), 1);
    EXPECT_EQ(q.matchers(0).type(), prompb::LabelMatcher::EQ);
    EXPECT_EQ(q.matchers(0).name(), "__name__");
    EXPECT_EQ(q.matchers(0).value(), metrics[i]);
  }
  ASSERT_EQ(req.accepted_response_types_size(), 2);
  EXPECT_EQ(req.accepted_response_types(0), prompb::ReadRequest::STREAMED_XOR_CHUNKS);
  EXPECT_EQ(req.accepted_response_types(1), prompb::ReadRequest::SAMPLES);
  // The wire numbers themselves: field 1 (queries) is length-delimited, tag 0x0a; field 2
  // packed enums, tag 0x12.
  EXPECT_EQ(static_cast<uint8_t>(raw[0]), 0x0a);
  EXPECT_NE(raw.find("\x12\x02\x01\x00", 0, 4), std::string::npos);
}

TEST(RemoteRead, RealPrometheusStreamedBody) {
  const std::string body = FromHex(ReadData("streamed_response_edges.hex"));
  const std::string_view metrics[] = {"gpucost_xor_test"};
  RecordingHandler h;
  auto r = StreamChunkedReadResponse(body, kAllTime, metrics, h);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->frames, 1u);
  EXPECT_EQ(r->series, 1u);
  EXPECT_EQ(r->chunks, 1u);
  ASSERT_EQ(h.samples.size(), 12u);
  EXPECT_EQ(h.samples[0].name, "gpucost_xor_test");
  ASSERT_EQ(h.samples[0].labels.size(), 1u);  // __name__ became the name
  EXPECT_EQ(h.samples[0].labels[0], (std::pair<std::string, std::string>("case", "edges")));
  EXPECT_EQ(h.samples[0].t_ms, kT0);
  EXPECT_EQ(h.samples[11].t_ms, 1790814835388);
  EXPECT_EQ(h.samples[11].value, 1e-300);

  // Every flipped byte is caught (by the CRC, or by the frame length), never a crash.
  for (size_t i = 0; i < body.size(); ++i) {
    std::string bad = body;
    bad[i] = static_cast<char>(bad[i] ^ 0x40);
    RecordingHandler h2;
    auto b = StreamChunkedReadResponse(bad, kAllTime, metrics, h2);
    EXPECT_FALSE(b.ok()) << "byte " << i;
  }
  // A truncated body names the frame.
  RecordingHandler h3;
  auto t = StreamChunkedReadResponse(body.substr(0, body.size() - 3), kAllTime, metrics, h3);
  ASSERT_FALSE(t.ok());
  EXPECT_NE(t.status().ToString().find("remote-read frame 0 at byte 0"), std::string::npos)
      << t.status().ToString();
}

TEST(RemoteRead, SplitSeriesOverlapsStaleMarkersAndTheKeepWindow) {
  const double stale = std::bit_cast<double>(kStaleNaNBits);
  prompb::ChunkedReadResponse f1;
  f1.set_query_index(1);
  prompb::ChunkedSeries* a = f1.add_chunked_series();
  AddLabels(a->mutable_labels(), {{"__name__", "m1"}, {"pod", "a"}});
  AddChunk(a, {{kT0 - 1000, 9}, {kT0, 1}, {kT0 + 1000, 2}});
  // An overlapping chunk repeating kT0 + 1000 and adding kT0 + 2000.
  AddChunk(a, {{kT0 + 1000, 2}, {kT0 + 2000, 3}});
  prompb::ChunkedReadResponse f2;  // the same series continues in the next frame
  f2.set_query_index(1);
  prompb::ChunkedSeries* a2 = f2.add_chunked_series();
  AddLabels(a2->mutable_labels(), {{"__name__", "m1"}, {"pod", "a"}});
  AddChunk(a2, {{kT0 + 1500, 99}, {kT0 + 3000, stale}, {kT0 + 4000, 4}, {kT0 + 10000, 5}});
  prompb::ChunkedSeries* b = f2.add_chunked_series();  // no __name__: named by its query
  AddLabels(b->mutable_labels(), {{"pod", "b"}});
  AddChunk(b, {{kT0, 7}});
  const std::string body = Frame(f1) + Frame(f2);

  const std::string_view metrics[] = {"m0", "m1"};
  RecordingHandler h;
  const Window keep{InstantFromUnixMs(kT0), InstantFromUnixMs(kT0 + 10000)};
  auto r = StreamChunkedReadResponse(body, keep, metrics, h);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->frames, 2u);
  EXPECT_EQ(r->stale, 1u);
  std::vector<std::pair<int64_t, double>> a_samples;
  for (const auto& s : h.samples) {
    if (s.labels[0].second == "a") a_samples.emplace_back(s.t_ms - kT0, s.value);
  }
  const std::vector<std::pair<int64_t, double>> want = {{0, 1}, {1000, 2}, {2000, 3}, {4000, 4}};
  EXPECT_EQ(a_samples, want);
  ASSERT_EQ(h.samples.back().labels[0].second, "b");
  EXPECT_EQ(h.samples.back().name, "m1");
  EXPECT_EQ(h.samples.back().value, 7);
}

TEST(RemoteRead, BadFramesNameWhatIsWrong) {
  const std::string_view metrics[] = {"m"};
  RecordingHandler h;
  prompb::ChunkedReadResponse f;
  f.set_query_index(3);
  AddLabels(f.add_chunked_series()->mutable_labels(), {{"__name__", "m"}});
  auto r = StreamChunkedReadResponse(Frame(f), kAllTime, metrics, h);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().ToString().find("query_index 3 but the request had 1"), std::string::npos)
      << r.status().ToString();

  prompb::ChunkedReadResponse g;
  prompb::ChunkedSeries* s = g.add_chunked_series();
  AddLabels(s->mutable_labels(), {{"__name__", "m"}, {"pod", "p"}});
  prompb::Chunk* c = s->add_chunks();
  c->set_type(prompb::Chunk::XOR);
  c->set_data(std::string("\x00\x05\x01", 3));  // announces 5 samples, holds none
  r = StreamChunkedReadResponse(Frame(g), kAllTime, metrics, h);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().ToString().find("series m"), std::string::npos) << r.status().ToString();
  EXPECT_NE(r.status().ToString().find("XOR chunk sample 0 of 5"), std::string::npos)
      << r.status().ToString();

  const std::string huge_length = "\xff\xff\xff\xff\x0f" + std::string(8, '\0');
  r = StreamChunkedReadResponse(huge_length, kAllTime, metrics, h);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().ToString().find("runs past"), std::string::npos) << r.status().ToString();
}

TEST(RemoteRead, HistogramChunksAreSkippedNotMisread) {
  prompb::ChunkedReadResponse f;
  prompb::ChunkedSeries* s = f.add_chunked_series();
  AddLabels(s->mutable_labels(), {{"__name__", "m"}});
  prompb::Chunk* c = s->add_chunks();
  c->set_type(prompb::Chunk::HISTOGRAM);
  c->set_data("not xor");
  const std::string_view metrics[] = {"m"};
  RecordingHandler h;
  auto r = StreamChunkedReadResponse(Frame(f), kAllTime, metrics, h);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->skipped_chunks, 1u);
  EXPECT_TRUE(h.samples.empty());
}

std::string SamplesResponse() {
  prompb::ReadResponse resp;
  resp.add_results();  // query 0: nothing
  prompb::TimeSeries* ts = resp.add_results()->add_timeseries();
  AddLabels(ts->mutable_labels(), {{"__name__", "m1"}, {"gpu", "0"}});
  for (int i = 0; i < 3; ++i) {
    prompb::Sample* s = ts->add_samples();
    s->set_timestamp(kT0 + i * 15000);
    s->set_value(0.5 * i);
  }
  prompb::Sample* st = ts->add_samples();
  st->set_timestamp(kT0 + 45000);
  st->set_value(std::bit_cast<double>(kStaleNaNBits));
  const std::string raw = resp.SerializeAsString();
  std::string out;
  snappy::Compress(raw.data(), raw.size(), &out);
  return out;
}

TEST(RemoteRead, SamplesResponse) {
  const std::string_view metrics[] = {"m0", "m1"};
  RecordingHandler h;
  auto r = StreamSamplesReadResponse(SamplesResponse(), kAllTime, metrics, h);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ASSERT_EQ(h.samples.size(), 3u);
  EXPECT_EQ(h.samples[2].t_ms, kT0 + 30000);
  EXPECT_EQ(h.samples[2].value, 1.0);
  EXPECT_EQ(h.samples[0].name, "m1");
  EXPECT_EQ(r->stale, 1u);
  auto bad = StreamSamplesReadResponse("definitely not snappy", kAllTime, metrics, h);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().ToString().find("snappy"), std::string::npos);
}

// --- choosing the API -----------------------------------------------------------------------

const std::string_view kMetrics[] = {"m0", "m1"};
const Window kRange{InstantFromUnixMs(kT0), InstantFromUnixMs(kT0 + 3600000)};
const char kEmptyMatrix[] = R"({"status":"success","data":{"resultType":"matrix","result":[]}})";

PrometheusClientOptions NoWait() {
  PrometheusClientOptions o;
  o.sleep = [](Duration) {};
  return o;
}

TEST(ApiChoice, SamplesAnswerIsReadAndRequestHeadersAreRemoteReadOnes) {
  std::vector<HttpRequest> sent;
  auto t = std::make_unique<ScriptedTransport>(
      std::deque<TransportResult>{
          Answer(200, SamplesResponse(), "application/x-protobuf", "snappy")},
      nullptr, &sent);
  PrometheusClient client("http://p:9090/", NoWait(), std::move(t));
  RecordingHandler h;
  FetchStats stats;
  ASSERT_TRUE(FetchRawSamples(client, PrometheusApi::kAuto, kRange, std::chrono::hours(1),
                              kMetrics, h, &stats)
                  .ok());
  EXPECT_EQ(stats.api, PrometheusApi::kRemoteRead);
  EXPECT_EQ(h.samples.size(), 3u);
  ASSERT_EQ(sent.size(), 1u);
  EXPECT_EQ(sent[0].method, "POST");
  EXPECT_EQ(sent[0].url, "http://p:9090/api/v1/read");
  EXPECT_EQ(*FindHeader(sent[0], "content-encoding"), "snappy");
  EXPECT_EQ(*FindHeader(sent[0], "Content-Type"), "application/x-protobuf");
  EXPECT_EQ(*FindHeader(sent[0], "X-Prometheus-Remote-Read-Version"), "0.1.0");
}

TEST(ApiChoice, AutoFallsBackToTheQueryApiOn404And405AndHtml) {
  for (TransportResult first : {Answer(404, "404 page not found", "text/plain"),
                                Answer(405, "", "text/plain"),
                                Answer(200, "<html>login</html>", "text/html")}) {
    std::vector<std::string> urls;
    auto t = std::make_unique<ScriptedTransport>(
        std::deque<TransportResult>{first, Answer(200, kEmptyMatrix), Answer(200, kEmptyMatrix)},
        &urls);
    PrometheusClient client("http://p:9090", NoWait(), std::move(t));
    RecordingHandler h;
    FetchStats stats;
    const Status s = FetchRawSamples(client, PrometheusApi::kAuto, kRange,
                                     std::chrono::hours(1), kMetrics, h, &stats);
    ASSERT_TRUE(s.ok()) << s.ToString();
    EXPECT_EQ(stats.api, PrometheusApi::kQuery);
    ASSERT_EQ(urls.size(), 3u);
    EXPECT_EQ(urls[0], "http://p:9090/api/v1/read");
    EXPECT_NE(urls[1].find("/api/v1/query?query=m0"), std::string::npos) << urls[1];
  }
}

TEST(ApiChoice, ForcedRemoteReadFailsInsteadOfFallingBack) {
  auto t = std::make_unique<ScriptedTransport>(
      std::deque<TransportResult>{Answer(404, "404 page not found", "text/plain")}, nullptr);
  PrometheusClient client("http://p:9090", NoWait(), std::move(t));
  RecordingHandler h;
  const Status s =
      FetchRawSamples(client, PrometheusApi::kRemoteRead, kRange, std::chrono::hours(1), kMetrics, h);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.code(), StatusCode::kUnimplemented);
  EXPECT_NE(s.ToString().find("POST http://p:9090/api/v1/read: HTTP 404 (404 page not found)"),
            std::string::npos)
      << s.ToString();
}

TEST(ApiChoice, AuthFailureIsNotMaskedByFallingBack) {
  std::vector<std::string> urls;
  auto t = std::make_unique<ScriptedTransport>(
      std::deque<TransportResult>{Answer(401, "Unauthorized", "text/plain")}, &urls);
  PrometheusClient client("http://p:9090", NoWait(), std::move(t));
  RecordingHandler h;
  const Status s =
      FetchRawSamples(client, PrometheusApi::kAuto, kRange, std::chrono::hours(1), kMetrics, h);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.ToString().find("HTTP 401 (Unauthorized)"), std::string::npos) << s.ToString();
  EXPECT_EQ(urls.size(), 1u);
}

TEST(ApiChoice, ServerErrorsAreRetriedThenTheStreamIsRead) {
  const std::string body = FromHex(ReadData("streamed_response_edges.hex"));
  std::vector<HttpRequest> sent;
  int prepared = 0;
  PrometheusClientOptions o = NoWait();
  o.prepare_request = [&prepared](HttpRequest& r) {
    r.headers.emplace_back("X-Attempt", std::to_string(++prepared));
    return Status::Ok();
  };
  auto t = std::make_unique<ScriptedTransport>(
      std::deque<TransportResult>{Answer(503, "busy"),
                                  Answer(200, body, std::string(kStreamedChunksContentType))},
      nullptr, &sent);
  PrometheusClient client("http://p:9090", o, std::move(t));
  RecordingHandler h;
  const std::string_view metrics[] = {"gpucost_xor_test"};
  const Window range{InstantFromUnixMs(kT0), InstantFromUnixMs(kT0 + 7200000)};
  FetchStats stats;
  ASSERT_TRUE(FetchRawSamples(client, PrometheusApi::kRemoteRead, range, std::chrono::hours(2),
                              metrics, h, &stats)
                  .ok());
  EXPECT_EQ(h.samples.size(), 12u);
  ASSERT_EQ(sent.size(), 2u);
  EXPECT_EQ(*FindHeader(sent[1], "X-Attempt"), "2");  // prepared afresh for the retry
  EXPECT_EQ(sent[1].body, sent[0].body);
}

// The [start, end] of a sent remote-read request's first query.
std::pair<int64_t, int64_t> AskedRange(const HttpRequest& r) {
  std::string raw;
  EXPECT_TRUE(snappy::Uncompress(r.body.data(), r.body.size(), &raw));
  prompb::ReadRequest req;
  EXPECT_TRUE(req.ParseFromString(raw));
  if (req.queries_size() == 0) return {0, 0};
  return {req.queries(0).start_timestamp_ms(), req.queries(0).end_timestamp_ms()};
}

TEST(ApiChoice, RemoteReadSpansGrowWhileResponsesAreSmallAndShrinkWhenLarge) {
  using std::chrono::hours;
  EXPECT_EQ(NextRemoteReadSpan(hours(2), 1000, hours(2), hours(24)), hours(4));
  EXPECT_EQ(NextRemoteReadSpan(hours(16), 1000, hours(2), hours(24)), hours(24));
  EXPECT_EQ(NextRemoteReadSpan(hours(8), kGrowBelowBytes, hours(2), hours(24)), hours(8));
  EXPECT_EQ(NextRemoteReadSpan(hours(8), kShrinkAboveBytes + 1, hours(2), hours(24)), hours(4));
  EXPECT_EQ(NextRemoteReadSpan(hours(2), kShrinkAboveBytes + 1, hours(2), hours(24)), hours(2));
  EXPECT_EQ(NextRemoteReadSpan(hours(2), 1000, hours(2), hours(2)), hours(2));  // fixed

  // Three days from 1 h spans up to 24 h: 1, 2, 4, 8, 16, 24 and the last 17 hours.
  const Window days{InstantFromUnixMs(kT0), InstantFromUnixMs(kT0 + 72 * 3600000LL)};
  for (const Duration max : {Duration(hours(24)), Duration(hours(1))}) {
    std::deque<TransportResult> answers;
    for (int i = 0; i < 80; ++i) {
      answers.push_back(Answer(200, SamplesResponse(), "application/x-protobuf", "snappy"));
    }
    std::vector<HttpRequest> sent;
    PrometheusClient client("http://p:9090", NoWait(),
                            std::make_unique<ScriptedTransport>(answers, nullptr, &sent));
    RecordingHandler h;
    FetchStats stats;
    ASSERT_TRUE(FetchRawSamples(client, PrometheusApi::kRemoteRead, days, hours(1), kMetrics, h,
                                &stats, false, max)
                    .ok());
    const size_t want = max == Duration(hours(24)) ? 7 : 72;
    ASSERT_EQ(sent.size(), want);
    EXPECT_EQ(stats.requests, want);
    // The spans follow one another without gap or overlap and cover the range.
    int64_t next = kT0;
    for (const HttpRequest& r : sent) {
      const auto [lo, hi] = AskedRange(r);
      EXPECT_EQ(lo, next);
      next = hi + 1;  // inclusive end
    }
    EXPECT_EQ(next, kT0 + 72 * 3600000LL);
    if (want == 7) {
      EXPECT_EQ(AskedRange(sent[4]).second + 1 - AskedRange(sent[4]).first, 16 * 3600000LL);
      EXPECT_EQ(AskedRange(sent[5]).second + 1 - AskedRange(sent[5]).first, 24 * 3600000LL);
    }
  }
}

TEST(ApiChoice, ParsesTheFlag) {
  EXPECT_EQ(*ParsePrometheusApi("remote-read"), PrometheusApi::kRemoteRead);
  EXPECT_EQ(*ParsePrometheusApi("query"), PrometheusApi::kQuery);
  EXPECT_EQ(*ParsePrometheusApi("auto"), PrometheusApi::kAuto);
  EXPECT_FALSE(ParsePrometheusApi("grpc").ok());
}

}  // namespace
}  // namespace gpucost::promsource
