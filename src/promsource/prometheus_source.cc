#include "promsource/prometheus_source.h"

#include <algorithm>
#include <cstdio>

#include "core/log.h"
#include "core/strings.h"
#include "inventory/input_metrics.h"
#include "promsource/matrix_parser.h"

namespace gpucost::promsource {

std::vector<Window> PlanChunks(Window range, Duration chunk) {
  std::vector<Window> out;
  if (range.empty() || chunk <= Duration(0)) return out;
  for (Instant t = range.start; t < range.end; t += chunk) {
    out.push_back(Window{t, std::min(t + chunk, range.end)});
  }
  return out;
}

std::string RawSamplesQuery(std::string_view metric, Window chunk) {
  return StrCat(metric, "[", chunk.length().count() + 1, "ms]");
}

Status StreamRawSamples(PrometheusClient& client, Window range, Duration chunk,
                        std::span<const std::string_view> metrics, ExpositionHandler& handler,
                        FetchStats* stats, bool progress) {
  FetchStats local;
  FetchStats& st = stats != nullptr ? *stats : local;
  const std::vector<Window> chunks = PlanChunks(range, chunk);
  const size_t total = chunks.size() * metrics.size();
  size_t done = 0;
  for (const Window& c : chunks) {
    for (const std::string_view metric : metrics) {
      const std::string query = RawSamplesQuery(metric, c);
      auto body = client.Query(query, c.end);
      ++st.requests;
      if (!body.ok()) return body.status();
      auto parsed = StreamMatrix(*body, c, metric, handler);
      if (!parsed.ok()) {
        return Status(parsed.status().code(),
                      StrCat(client.base_url(), " query ", query, " at ", FormatRfc3339(c.end),
                             ": ", parsed.status().message()));
      }
      for (const std::string& w : parsed->warnings) {
        LogWarn(StrCat("prometheus: ", query, ": ", w));
      }
      st.series += parsed->series;
      st.samples += parsed->kept;
      ++done;
      if (progress) {
        std::fprintf(stderr, "\rprometheus: %zu/%zu queries, %llu samples", done, total,
                     static_cast<unsigned long long>(st.samples));
        std::fflush(stderr);
      }
    }
  }
  if (progress && total > 0) std::fputc('\n', stderr);
  return Status::Ok();
}

Result<LoadedTimeline> LoadTimelineFromPrometheus(const PrometheusSourceOptions& options,
                                                  const TimelineOptions& timeline_options,
                                                  std::unique_ptr<HttpTransport> transport) {
  if (!timeline_options.window) {
    return Status::InvalidArgument("reading from Prometheus needs a window");
  }
  if (options.chunk <= Duration(0)) {
    return Status::InvalidArgument("the Prometheus chunk must be positive");
  }
  if (options.url.empty()) return Status::InvalidArgument("no Prometheus URL");
  const Window window = *timeline_options.window;
  const Window range{window.start - timeline_options.staleness, window.end};
  PrometheusClient client(options.url, options.client, std::move(transport));
  InventoryBuilder builder(timeline_options);
  builder.BeginSource(StrCat("prometheus:", RedactUrl(client.base_url())));
  GPUCOST_RETURN_IF_ERROR(StreamRawSamples(client, range, options.chunk, kInventoryMetricNames,
                                           builder, nullptr, options.progress));
  return builder.Build();
}

}  // namespace gpucost::promsource
