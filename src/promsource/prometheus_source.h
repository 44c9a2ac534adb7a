// Loading the inventory and usage timelines from a Prometheus-compatible store over its HTTP API.
// For each time chunk [t, t + chunk) of the window and each metric the inventory reads
// (kInventoryMetricNames), it asks for the raw samples with the range selector `name[<chunk>]`
// evaluated at the chunk's end, keeps those with t <= timestamp < t + chunk (so a sample on a
// chunk boundary is counted once whether the store's ranges are left-open, as in Prometheus 3,
// or left-closed, as in 2.x) and streams them into an InventoryBuilder. Memory beyond the
// timelines is one response (one metric over one chunk). See docs/prometheus.md.
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

struct PrometheusSourceOptions {
  std::string url;  // server root, e.g. "http://prometheus:9090"
  Duration chunk = std::chrono::hours(2);
  PrometheusClientOptions client;
  bool progress = false;  // a progress line on stderr (callers enable it for terminals)
};

struct FetchStats {
  uint64_t requests = 0;
  uint64_t series = 0;
  uint64_t samples = 0;  // handed to the handler
};

// [start, start + chunk), [start + chunk, start + 2 chunk), ... with the last one ending at
// range.end. Empty for an empty range or a non-positive chunk.
std::vector<Window> PlanChunks(Window range, Duration chunk);

// The PromQL for the raw samples of `metric` that may fall in `chunk`, evaluated at chunk.end:
// the range is one millisecond longer than the chunk so that a sample at chunk.start is returned
// by left-open stores too; the caller drops what lies outside [start, end).
std::string RawSamplesQuery(std::string_view metric, Window chunk);

// Streams the raw samples of `metrics` with timestamps in `range` into `handler` (normally an
// InventoryBuilder), chunk by chunk
// (each chunk all metrics, so every series arrives in time order).
Status StreamRawSamples(PrometheusClient& client, Window range, Duration chunk,
                        std::span<const std::string_view> metrics, ExpositionHandler& handler,
                        FetchStats* stats = nullptr, bool progress = false);

// The Prometheus counterpart of LoadTimelineFromFiles. `timeline_options.window` is required;
// samples are fetched from window.start - staleness (a sample shortly before the window stands
// for its series at the window's start, as it does when read from files) to window.end.
// Without `transport`, libcurl is used.
Result<LoadedTimeline> LoadTimelineFromPrometheus(
    const PrometheusSourceOptions& options, const TimelineOptions& timeline_options,
    std::unique_ptr<HttpTransport> transport = nullptr);

}  // namespace gpucost::promsource
