#include "promsource/prometheus_source.h"

#include <algorithm>
#include <cstdio>
#include <future>

#include "core/log.h"
#include "core/strings.h"
#include "inventory/input_metrics.h"
#include "model/usage.h"
#include "promsource/matrix_parser.h"
#include "promsource/remote_read.h"

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

Result<PrometheusApi> ParsePrometheusApi(std::string_view text) {
  if (text == "auto") return PrometheusApi::kAuto;
  if (text == "remote-read") return PrometheusApi::kRemoteRead;
  if (text == "query") return PrometheusApi::kQuery;
  return Status::InvalidArgument(
      StrCat("unknown Prometheus API \"", text, "\" (auto, remote-read or query)"));
}

std::string_view PrometheusApiName(PrometheusApi api) {
  switch (api) {
    case PrometheusApi::kAuto: return "auto";
    case PrometheusApi::kRemoteRead: return "remote-read";
    case PrometheusApi::kQuery: return "query";
  }
  return "?";
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
                      StrCat(client.display_url(), " query ", query, " at ", FormatRfc3339(c.end),
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

Duration NextRemoteReadSpan(Duration span, size_t body_bytes, Duration chunk, Duration max_chunk) {
  if (max_chunk <= chunk) return chunk;
  if (body_bytes < kGrowBelowBytes) return std::min(span * 2, max_chunk);
  if (body_bytes > kShrinkAboveBytes) return std::max(span / 2, chunk);
  return span;
}

Status StreamRawSamplesRemoteRead(PrometheusClient& client, Window range, Duration chunk,
                                  std::span<const std::string_view> metrics,
                                  ExpositionHandler& handler, FetchStats* stats, bool progress,
                                  Duration max_chunk, Duration first_span) {
  FetchStats local;
  FetchStats& st = stats != nullptr ? *stats : local;
  st.api = PrometheusApi::kRemoteRead;
  if (range.empty() || chunk <= Duration(0)) return Status::Ok();
  static constexpr RemoteReadResponseType kAccepted[] = {
      RemoteReadResponseType::kStreamedXorChunks, RemoteReadResponseType::kSamples};
  const auto fetch = [&client, &metrics](Window c) {
    return client.RemoteRead(BuildReadRequest(metrics, c, kAccepted));
  };
  const auto span_at = [&range](Instant t, Duration span) {
    return Window{t, std::min(range.end, t + span)};
  };
  // The next span is fetched while this one is decoded (the server and the decoding overlap;
  // two responses at most are held). The client is used by one thread at a time.
  std::future<Result<HttpResponse>> next;
  Duration span = first_span > Duration(0) ? std::clamp(first_span, chunk, std::max(chunk, max_chunk))
                                           : chunk;
  Window c = span_at(range.start, span);
  while (c.start < range.end) {
    Result<HttpResponse> resp = next.valid() ? next.get() : fetch(c);
    ++st.requests;
    if (!resp.ok()) return resp.status();
    const std::string where = StrCat(client.display_url(), "/api/v1/read for ",
                                     FormatRfc3339(c.start), " to ", FormatRfc3339(c.end));
    const std::string type = ToLower(resp->content_type);
    const bool streamed = type.starts_with("application/x-streamed-protobuf");
    if (!streamed && !type.starts_with("application/x-protobuf")) {
      return Status::Unimplemented(StrCat(where, ": answered with \"", resp->content_type,
                                          "\", not a remote-read response"));
    }
    span = NextRemoteReadSpan(span, resp->body.size(), chunk, max_chunk);
    st.next_span = span;
    const Window following = span_at(c.end, span);
    if (following.start < range.end) next = std::async(std::launch::async, fetch, following);
    Result<RemoteReadStats> parsed = Status::Internal("unset");
    if (streamed) {
      if (type.find("proto=prometheus.chunkedreadresponse") == std::string::npos) {
        return Status::Unimplemented(
            StrCat(where, ": unsupported stream type \"", resp->content_type, "\""));
      }
      parsed = StreamChunkedReadResponse(resp->body, c, metrics, handler);
    } else {
      const std::string encoding = ToLower(resp->content_encoding);
      if (!encoding.empty() && encoding != "snappy") {
        return Status::Unimplemented(
            StrCat(where, ": unsupported content encoding \"", resp->content_encoding, "\""));
      }
      parsed = StreamSamplesReadResponse(resp->body, c, metrics, handler);
    }
    if (!parsed.ok()) {
      return Status(parsed.status().code(), StrCat(where, ": ", parsed.status().message()));
    }
    st.series += parsed->series;
    st.samples += parsed->kept;
    if (progress) {
      const double done = std::chrono::duration<double>(c.end - range.start).count() /
                          std::chrono::duration<double>(range.end - range.start).count();
      std::fprintf(stderr,
                   "\rprometheus: %llu remote-read requests, %3.0f%% of the window, %llu samples",
                   static_cast<unsigned long long>(st.requests), 100 * done,
                   static_cast<unsigned long long>(st.samples));
      std::fflush(stderr);
    }
    c = following;
  }
  if (progress) std::fputc('\n', stderr);
  return Status::Ok();
}

Status FetchRawSamples(PrometheusClient& client, PrometheusApi api, Window range, Duration chunk,
                       std::span<const std::string_view> metrics, ExpositionHandler& handler,
                       FetchStats* stats, bool progress, Duration max_chunk,
                       Duration first_span) {
  if (api == PrometheusApi::kQuery) {
    if (stats != nullptr) stats->api = PrometheusApi::kQuery;
    return StreamRawSamples(client, range, chunk, metrics, handler, stats, progress);
  }
  FetchStats local;
  FetchStats& st = stats != nullptr ? *stats : local;
  Status s = StreamRawSamplesRemoteRead(client, range, chunk, metrics, handler, &st, progress,
                                        max_chunk, first_span);
  // kUnimplemented comes only before the first sample was handed over (it is decided by the
  // first request), so falling back cannot feed a sample twice.
  if (api == PrometheusApi::kAuto && s.code() == StatusCode::kUnimplemented && st.samples == 0) {
    LogInfo(StrCat("prometheus: remote read not available (", s.message(),
                   "); using the query API"));
    st.api = PrometheusApi::kQuery;
    return StreamRawSamples(client, range, chunk, metrics, handler, &st, progress);
  }
  return s;
}

Result<LoadedTimeline> LoadTimelineFromPrometheus(const PrometheusSourceOptions& options,
                                                  const TimelineOptions& timeline_options,
                                                  std::unique_ptr<HttpTransport> transport,
                                                  FetchStats* stats) {
  if (!timeline_options.window) {
    return Status::InvalidArgument("reading from Prometheus needs a window");
  }
  if (options.chunk <= Duration(0)) {
    return Status::InvalidArgument("the Prometheus chunk must be positive");
  }
  if (options.url.empty()) return Status::InvalidArgument("no Prometheus URL");
  const Window window = *timeline_options.window;
  const Window range{window.start - SampleLookback(timeline_options.staleness),
                     window.end + SampleLookahead(timeline_options.staleness)};
  PrometheusClient client(options.url, options.client, std::move(transport));
  InventoryBuilder builder(timeline_options);
  builder.BeginSource(StrCat("prometheus:", client.display_url()));
  GPUCOST_RETURN_IF_ERROR(FetchRawSamples(client, options.api, range, options.chunk,
                                          kInventoryMetricNames, builder, stats, options.progress,
                                          options.max_chunk, options.first_span));
  return builder.Build();
}

}  // namespace gpucost::promsource
