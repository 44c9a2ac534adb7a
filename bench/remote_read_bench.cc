// Decoding cost per sample: our XOR chunk decoder on realistic chunks, a whole streamed
// remote-read body (frames, CRC32C, protobuf, XOR chunks) into a handler, and, as the peer in
// the same run, the query API's JSON (StreamMatrix) carrying the same samples. Each benchmark
// checks once that it saw every sample. docs/perf.md ("Remote read") records results.
#include <benchmark/benchmark.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "core/strings.h"
#include "promsource/matrix_parser.h"
#include "promsource/remote_read.h"
#include "promsource/xor_chunk.h"
#include "promsource/proto/remote.pb.h"

namespace gpucost::promsource {
namespace {

constexpr int64_t kT0 = 1790812800000;

// A dcgm-exporter-like series: 30 s scrapes with a few ms of jitter, ratios that wander.
std::vector<XorSample> ActivitySeries(int n, uint64_t seed) {
  std::vector<XorSample> out;
  uint64_t x = seed * 2654435761u + 1;
  double v = 0.5;
  for (int i = 0; i < n; ++i) {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    v = std::clamp(v + static_cast<double>(static_cast<int64_t>(x % 2001) - 1000) / 10000.0, 0.0,
                   1.0);
    out.push_back({kT0 + i * 30000 + static_cast<int64_t>(x % 7), std::round(v * 1e6) / 1e6});
  }
  return out;
}

// A kube-state-metrics-like series: exact 30 s scrapes, constant 1.
std::vector<XorSample> ConstantSeries(int n) {
  std::vector<XorSample> out;
  for (int i = 0; i < n; ++i) out.push_back({kT0 + i * 30000, 1.0});
  return out;
}

void Check(bool ok, const char* what) {
  if (!ok) {
    std::fprintf(stderr, "benchmark check failed: %s\n", what);
    std::abort();
  }
}

void BM_XorDecode(benchmark::State& state, std::vector<XorSample> samples) {
  const std::string chunk = EncodeXorChunk(samples);
  int64_t n = 0;
  for (auto _ : state) {
    XorChunkIterator it(chunk);
    double sum = 0;
    int64_t count = 0;
    while (it.Next()) {
      sum += it.v();
      ++count;
    }
    benchmark::DoNotOptimize(sum);
    n += count;
    Check(count == static_cast<int64_t>(samples.size()), "all samples decoded");
  }
  state.SetItemsProcessed(n);
  state.counters["bytes/sample"] =
      static_cast<double>(chunk.size()) / static_cast<double>(samples.size());
}
BENCHMARK_CAPTURE(BM_XorDecode, activity_120, ActivitySeries(120, 1));
BENCHMARK_CAPTURE(BM_XorDecode, constant_120, ConstantSeries(120));

class CountingHandler final : public ExpositionHandler {
 public:
  void OnSample(const SampleView& s) override {
    ++samples;
    sum += s.value;
  }
  int64_t samples = 0;
  double sum = 0;
};

constexpr int kSeries = 1000;
constexpr int kPerSeries = 240;  // 2 h of 30 s scrapes, two chunks of 120

std::vector<std::string> Labels(int i) {
  return {"DCGM_FI_PROF_GR_ENGINE_ACTIVE", StrCat("GPU-", i), StrCat("gpu-node-", i / 8),
          StrCat("pod-", i)};
}

std::string StreamedBody() {
  std::string body;
  prompb::ChunkedReadResponse frame;
  for (int i = 0; i < kSeries; ++i) {
    prompb::ChunkedSeries* s = frame.add_chunked_series();
    const std::vector<std::string> l = Labels(i);
    const char* names[] = {"__name__", "UUID", "Hostname", "pod"};
    for (int k = 0; k < 4; ++k) {
      prompb::Label* lab = s->add_labels();
      lab->set_name(names[k]);
      lab->set_value(l[static_cast<size_t>(k)]);
    }
    const std::vector<XorSample> all = ActivitySeries(kPerSeries, static_cast<uint64_t>(i) + 7);
    for (int c = 0; c < kPerSeries; c += 120) {
      const std::vector<XorSample> part(all.begin() + c, all.begin() + c + 120);
      prompb::Chunk* ch = s->add_chunks();
      ch->set_type(prompb::Chunk::XOR);
      ch->set_min_time_ms(part.front().t_ms);
      ch->set_max_time_ms(part.back().t_ms);
      ch->set_data(EncodeXorChunk(part));
    }
    if (frame.ByteSizeLong() > 1000000 || i + 1 == kSeries) {  // Prometheus' 1 MB frames
      const std::string msg = frame.SerializeAsString();
      uint64_t n = msg.size();
      while (n >= 0x80) {
        body.push_back(static_cast<char>(n | 0x80));
        n >>= 7;
      }
      body.push_back(static_cast<char>(n));
      const uint32_t crc = Crc32c(msg);
      for (int sh = 24; sh >= 0; sh -= 8) body.push_back(static_cast<char>(crc >> sh));
      body += msg;
      frame.Clear();
    }
  }
  return body;
}

// The same samples as the query API writes them (Prometheus formats values with %g-like
// shortest representations and timestamps as seconds with milliseconds).
std::string MatrixBody() {
  std::string body = R"({"status":"success","data":{"resultType":"matrix","result":[)";
  for (int i = 0; i < kSeries; ++i) {
    const std::vector<std::string> l = Labels(i);
    body += StrCat(i ? "," : "", R"({"metric":{"__name__":")", l[0], R"(","UUID":")", l[1],
                   R"(","Hostname":")", l[2], R"(","pod":")", l[3], R"("},"values":[)");
    const std::vector<XorSample> all = ActivitySeries(kPerSeries, static_cast<uint64_t>(i) + 7);
    for (size_t k = 0; k < all.size(); ++k) {
      char buf[96];
      std::snprintf(buf, sizeof buf, "%s[%lld.%03lld,\"%.15g\"]", k ? "," : "",
                    static_cast<long long>(all[k].t_ms / 1000),
                    static_cast<long long>(all[k].t_ms % 1000), all[k].value);
      body += buf;
    }
    body += "]}";
  }
  return body + "]}}";
}

const Window kKeep{InstantFromUnixMs(kT0), InstantFromUnixMs(kT0 + 86400000)};

void BM_RemoteReadStreamedBody(benchmark::State& state) {
  const std::string body = StreamedBody();
  const std::string_view metrics[] = {"DCGM_FI_PROF_GR_ENGINE_ACTIVE"};
  int64_t n = 0;
  for (auto _ : state) {
    CountingHandler h;
    auto r = StreamChunkedReadResponse(body, kKeep, metrics, h);
    Check(r.ok() && h.samples == int64_t{kSeries} * kPerSeries, "streamed body decoded");
    n += h.samples;
  }
  state.SetItemsProcessed(n);
  state.counters["bytes/sample"] =
      static_cast<double>(body.size()) / (double{kSeries} * kPerSeries);
}
BENCHMARK(BM_RemoteReadStreamedBody)->Unit(benchmark::kMillisecond);

void BM_QueryApiJsonBody(benchmark::State& state) {
  const std::string body = MatrixBody();
  int64_t n = 0;
  for (auto _ : state) {
    CountingHandler h;
    auto r = StreamMatrix(body, kKeep, "x", h);
    Check(r.ok() && h.samples == int64_t{kSeries} * kPerSeries, "JSON body parsed");
    n += h.samples;
  }
  state.SetItemsProcessed(n);
  state.counters["bytes/sample"] =
      static_cast<double>(body.size()) / (double{kSeries} * kPerSeries);
}
BENCHMARK(BM_QueryApiJsonBody)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace gpucost::promsource

BENCHMARK_MAIN();
