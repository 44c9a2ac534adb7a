// Loading the inventory and usage timelines from a Prometheus-compatible store over its HTTP API,
// one time chunk [t, t + chunk) of the window after the other, every metric the inventory reads
// (kInventoryMetricNames) in each, streamed into an InventoryBuilder. Two ways to ask:
//  - remote read (POST /api/v1/read): one request per chunk with one query per metric, answered
//    with streamed XOR chunks (or SAMPLES); memory beyond the timelines is one response;
//  - the query API: per chunk and metric, the range selector `name[<chunk>]` evaluated at the
//    chunk's end; memory is one response (one metric over one chunk) and its JSON document.
// Either way only samples with t <= timestamp < t + chunk are kept, so a sample on a chunk
// boundary is counted once whatever the store's range semantics. See docs/prometheus.md.
#pragma once

#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.h"
#include "core/time.h"
#include "inventory/inventory_builder.h"
#include "promsource/prometheus_client.h"

namespace gpucost::promsource {

enum class PrometheusApi {
  kAuto,        // remote read; the query API when the server does not offer remote read
  kRemoteRead,  // remote read only
  kQuery,       // the query API only
};
Result<PrometheusApi> ParsePrometheusApi(std::string_view text);  // auto | remote-read | query
std::string_view PrometheusApiName(PrometheusApi api);

struct PrometheusSourceOptions {
  std::string url;  // server root, e.g. "http://prometheus:9090"
  Duration chunk = std::chrono::hours(2);
  Duration max_chunk = std::chrono::hours(24);  // remote read's spans grow up to this
  PrometheusApi api = PrometheusApi::kAuto;
  PrometheusClientOptions client;
  bool progress = false;  // a progress line on stderr (callers enable it for terminals)
  // Remote read: the first request's span (0: `chunk`). A caller reading one window after
  // another passes the FetchStats::next_span of the read before, so that each read does not
  // start small again.
  Duration first_span{0};
};

struct FetchStats {
  uint64_t requests = 0;
  uint64_t series = 0;
  uint64_t samples = 0;  // handed to the handler
  PrometheusApi api = PrometheusApi::kQuery;  // the API that answered
  Duration next_span{0};  // remote read: the span the responses would have asked next
};

// [start, start + chunk), [start + chunk, start + 2 chunk), ... with the last one ending at
// range.end. Empty for an empty range or a non-positive chunk.
std::vector<Window> PlanChunks(Window range, Duration chunk);

// The PromQL for the raw samples of `metric` that may fall in `chunk`, evaluated at chunk.end:
// the range is one millisecond longer than the chunk so that a sample at chunk.start is returned
// by left-open stores too; the caller drops what lies outside [start, end).
std::string RawSamplesQuery(std::string_view metric, Window chunk);

// Streams the raw samples of `metrics` with timestamps in `range` into `handler` (normally an
// InventoryBuilder) through the query API, chunk by chunk (each chunk all metrics, so every
// series arrives in time order).
Status StreamRawSamples(PrometheusClient& client, Window range, Duration chunk,
                        std::span<const std::string_view> metrics, ExpositionHandler& handler,
                        FetchStats* stats = nullptr, bool progress = false);

// The same through remote read: one request per span of time, the first `chunk` long. Each
// response decides the next span (NextRemoteReadSpan): doubled after a small one up to
// `max_chunk`, halved after a large one down to `chunk`; a `max_chunk` not above `chunk` keeps it
// fixed; `first_span`, when positive, is the first request's span instead of `chunk`. The next
// span is fetched while the current one is decoded. Fails with kUnimplemented,
// before any sample reached the handler, when the server does not offer remote read (HTTP
// 404/405/406/415/501, or a 2xx answer that is neither streamed chunks nor a protobuf
// ReadResponse).
Status StreamRawSamplesRemoteRead(PrometheusClient& client, Window range, Duration chunk,
                                  std::span<const std::string_view> metrics,
                                  ExpositionHandler& handler, FetchStats* stats = nullptr,
                                  bool progress = false, Duration max_chunk = Duration(0),
                                  Duration first_span = Duration(0));

// The span after a remote-read response of `body_bytes` for `span`: each request costs the
// server a lookup of every series' chunks, so few large requests are much cheaper than many
// small ones (docs/perf.md, "Remote read"), while a response is held in memory whole.
inline constexpr size_t kGrowBelowBytes = size_t{16} << 20;
inline constexpr size_t kShrinkAboveBytes = size_t{64} << 20;
Duration NextRemoteReadSpan(Duration span, size_t body_bytes, Duration chunk, Duration max_chunk);

// Dispatches on `api`; kAuto tries remote read and falls back to the query API. `max_chunk`
// and `first_span`: see StreamRawSamplesRemoteRead (the query API always asks `chunk` at a
// time).
Status FetchRawSamples(PrometheusClient& client, PrometheusApi api, Window range, Duration chunk,
                       std::span<const std::string_view> metrics, ExpositionHandler& handler,
                       FetchStats* stats = nullptr, bool progress = false,
                       Duration max_chunk = Duration(0), Duration first_span = Duration(0));

// The Prometheus counterpart of LoadTimelineFromFiles. `timeline_options.window` is required;
// samples are fetched from window.start - SampleLookback(staleness) to window.end +
// SampleLookahead(staleness), as files hold them: a sample before the window stands for its
// series at the window's start, the samples before it give a sparse series' interval, and the
// next sample after the window tells how long the last one in it holds.
// Without `transport`, libcurl is used.
Result<LoadedTimeline> LoadTimelineFromPrometheus(
    const PrometheusSourceOptions& options, const TimelineOptions& timeline_options,
    std::unique_ptr<HttpTransport> transport = nullptr, FetchStats* stats = nullptr);

}  // namespace gpucost::promsource
