// The scrape spool at the scale: the kube-state-metrics and dcgm-exporter scrapes of a
// simulated 1,000-node x 8-GPU cluster (scripts/bench-serve.sh's cluster, 30 s scrapes), rendered
// as the spool holds them (ScrapeText: timestamps, job and instance), appended through
// Spool::Append (zstd frame, write, fsync) at several zstd levels, against the appends of earlier
// versions (a gzip member at zlib level 6; the text). Reports bytes per scrape, the spool's growth
// per day and the CPU per scrape as a share of a 30 s interval; and the read side: decompressing
// and parsing one scrape as serve's loop does. Each run first checks that the spool reads back the
// text it was given.
//
//   build/dev/bench/spool_bench --benchmark_counters_tabular=true
#include <benchmark/benchmark.h>
#include <fcntl.h>
#include <unistd.h>
#include <zlib.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <string>
#include <tuple>

#include "ingest/exposition.h"
#include "scrape/scrape_text.h"
#include "scrape/spool.h"
#include "simulate/cluster_simulator.h"
#include "simulate/exposition_writer.h"

namespace gpucost {
namespace {

constexpr int64_t kStartMs = 1'790'812'800'000;  // 2026-10-01T00:00:00Z
constexpr double kScrapesPerDay = 86'400.0 / 30;

const scrape::ScrapeTarget kKsm{"kube-state-metrics", "http://10.0.0.9:8080/metrics", {}};
const scrape::ScrapeTarget kDcgm{"dcgm-exporter", "http://10.0.0.7:9400/metrics", {}};

// One scrape of each exporter, as the spool gets it.
struct Scrape {
  std::string ksm, dcgm;
  size_t bytes() const { return ksm.size() + dcgm.size(); }
};

std::string AsSpooled(const std::string& body, const scrape::ScrapeTarget& target,
                      int64_t scrape_ms) {
  scrape::ScrapeText text(scrape_ms,
                          {{"job", target.job}, {"instance", scrape::InstanceOf(target.url)}});
  std::unique_ptr<ByteSource> in = StringByteSource(body);
  ParseOptions po;
  po.strict = true;
  if (!ParseExposition(*in, po, text).ok()) std::abort();
  return std::move(text.text());
}

const Scrape& TheScrape() {
  static const Scrape scrape = [] {
    simulate::SimOptions o;
    o.nodes = 1000;
    o.gpus_per_node = 8;
    o.scrape_interval = std::chrono::seconds(30);
    const Instant t = InstantFromUnixMs(kStartMs);
    auto sim = simulate::ClusterSimulator::Create(o, t);
    if (!sim.ok()) std::abort();
    Scrape s;
    for (const auto& [part, out, target] : {std::tuple{simulate::kKubeStateMetrics, &s.ksm, &kKsm},
                                            std::tuple{simulate::kDcgmExporter, &s.dcgm, &kDcgm}}) {
      simulate::ExpositionWriter w(simulate::TextFormat::kUntimestamped);
      (*sim)->Scrape(t, w, part);
      *out = AsSpooled(w.text(), *target, kStartMs);
    }
    return s;
  }();
  return scrape;
}

std::string TempFolder() {
  std::string pattern = (std::filesystem::temp_directory_path() / "spool-bench-XXXXXX").string();
  return ::mkdtemp(pattern.data());
}

std::string ReadBack(const std::string& path) {
  auto src = OpenByteSource(path);
  if (!src.ok()) return "";
  std::string out;
  char buf[1 << 16];
  for (Result<size_t> got = (*src)->Read(buf, sizeof buf); got.ok() && *got > 0;
       got = (*src)->Read(buf, sizeof buf)) {
    out.append(buf, *got);
  }
  return out;
}

void Report(benchmark::State& state, uint64_t stored, const Scrape& s) {
  const double per_scrape = static_cast<double>(stored) / static_cast<double>(state.iterations());
  state.counters["text_MB"] = static_cast<double>(s.bytes()) / 1e6;
  state.counters["stored_MB"] = per_scrape / 1e6;
  state.counters["ratio"] = static_cast<double>(s.bytes()) / per_scrape;
  state.counters["GB_per_day"] = per_scrape * kScrapesPerDay / 1e9;
  state.SetBytesProcessed(static_cast<int64_t>(s.bytes()) * state.iterations());
}

// Both exporters' scrape through Spool::Append at zstd level range(0): what serve does every 30 s.
void BM_SpoolAppend(benchmark::State& state) {
  const Scrape& s = TheScrape();
  const std::string dir = TempFolder();
  scrape::Spool spool(dir, static_cast<int>(state.range(0)));
  if (!spool.Open().ok()) return state.SkipWithError("cannot open the spool");
  {
    const Instant t = InstantFromUnixMs(kStartMs - 3'600'000);
    if (!spool.Append(kKsm, t, s.ksm).ok() ||
        ReadBack(dir + "/" + scrape::Spool::FileName(kKsm, t)) != s.ksm) {
      return state.SkipWithError("the spool does not read back what it was given");
    }
    (void)spool.Prune(t + std::chrono::hours(1), std::chrono::minutes(1));
  }
  int64_t i = 0;
  for (auto _ : state) {
    const Instant t = InstantFromUnixMs(kStartMs + 30'000 * i++);
    if (!spool.Append(kKsm, t, s.ksm).ok() || !spool.Append(kDcgm, t, s.dcgm).ok()) {
      return state.SkipWithError("append failed");
    }
  }
  Report(state, spool.Stats().bytes, s);
  std::filesystem::remove_all(dir);
}
BENCHMARK(BM_SpoolAppend)->Arg(1)->Arg(3)->Arg(6)->Unit(benchmark::kMillisecond)->UseRealTime();

// One gzip member at zlib level 6, as the spool of the version before compressed each scrape.
std::string GzipMember(const std::string& text) {
  z_stream zs{};
  if (deflateInit2(&zs, 6, Z_DEFLATED, 15 + 16, 9, Z_DEFAULT_STRATEGY) != Z_OK) std::abort();
  std::string out(deflateBound(&zs, static_cast<uLong>(text.size())), '\0');
  zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(text.data()));
  zs.avail_in = static_cast<uInt>(text.size());
  zs.next_out = reinterpret_cast<Bytef*>(out.data());
  zs.avail_out = static_cast<uInt>(out.size());
  if (deflate(&zs, Z_FINISH) != Z_STREAM_END) std::abort();
  out.resize(zs.total_out);
  deflateEnd(&zs);
  return out;
}

// The appends of earlier versions: one write and fsync per exporter's scrape, of the text
// (range(0) = 0) or of a gzip member (1).
void BM_SpoolAppendBefore(benchmark::State& state) {
  const Scrape& s = TheScrape();
  const std::string dir = TempFolder();
  const std::string path = dir + "/spool.prom";
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (fd < 0) return state.SkipWithError("cannot open");
  for (auto _ : state) {
    for (const std::string* text : {&s.ksm, &s.dcgm}) {
      const std::string stored = state.range(0) == 1 ? GzipMember(*text) : *text;
      if (::write(fd, stored.data(), stored.size()) != static_cast<ssize_t>(stored.size()) ||
          ::fsync(fd) != 0) {
        return state.SkipWithError("write failed");
      }
    }
  }
  ::close(fd);
  Report(state, std::filesystem::file_size(path), s);
  std::filesystem::remove_all(dir);
}
BENCHMARK(BM_SpoolAppendBefore)->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond)->UseRealTime();

// Parses what counts nothing: the reading cost alone.
struct Discard final : ExpositionHandler {
  uint64_t samples = 0;
  void OnSample(const SampleView&) override { ++samples; }
};

// Reading one scrape of both exporters back, as serve's loop does every cycle for each scrape in
// its window: from the zstd file (range(0) = 1), the gzip file of the version before (2), or the
// text (0).
void BM_SpoolRead(benchmark::State& state) {
  const Scrape& s = TheScrape();
  const std::string dir = TempFolder();
  scrape::Spool spool(dir);
  const Instant t = InstantFromUnixMs(kStartMs);
  std::string path;
  if (state.range(0) == 1) {
    if (!spool.Open().ok() || !spool.Append(kKsm, t, s.ksm).ok() ||
        !spool.Append(kKsm, t, s.dcgm).ok()) {
      return state.SkipWithError("append failed");
    }
    path = dir + "/" + scrape::Spool::FileName(kKsm, t);
  } else if (state.range(0) == 2) {
    path = dir + "/spool.prom.gz";
    std::FILE* f = std::fopen(path.c_str(), "wb");
    for (const std::string* text : {&s.ksm, &s.dcgm}) {
      const std::string member = GzipMember(*text);
      std::fwrite(member.data(), 1, member.size(), f);
    }
    std::fclose(f);
  } else {
    path = dir + "/spool.prom";
    std::FILE* f = std::fopen(path.c_str(), "wb");
    std::fwrite(s.ksm.data(), 1, s.ksm.size(), f);
    std::fwrite(s.dcgm.data(), 1, s.dcgm.size(), f);
    std::fclose(f);
  }
  if (ReadBack(path) != s.ksm + s.dcgm) return state.SkipWithError("reads back other text");
  for (auto _ : state) {
    auto src = OpenByteSource(path);
    Discard d;
    ParseOptions po;
    po.remember_series = true;  // as the loader parses
    if (!src.ok() || !ParseExposition(**src, po, d).ok()) return state.SkipWithError("parse");
    benchmark::DoNotOptimize(d.samples);
  }
  state.SetBytesProcessed(static_cast<int64_t>(s.bytes()) * state.iterations());
  std::filesystem::remove_all(dir);
}
BENCHMARK(BM_SpoolRead)->Arg(0)->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace gpucost

BENCHMARK_MAIN();
