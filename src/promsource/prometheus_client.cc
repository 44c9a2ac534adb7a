#include "promsource/prometheus_client.h"

#include <algorithm>
#include <nlohmann/json.hpp>
#include <thread>

#include "core/log.h"
#include "core/redact.h"
#include "core/strings.h"

namespace gpucost::promsource {

std::string UrlEncode(std::string_view s) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  out.reserve(s.size() * 3);
  for (const char ch : s) {
    const auto c = static_cast<unsigned char>(ch);
    if ((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' ||
        c == '_' || c == '.' || c == '~') {
      out.push_back(ch);
    } else {
      out.push_back('%');
      out.push_back(kHex[c >> 4]);
      out.push_back(kHex[c & 15]);
    }
  }
  return out;
}

std::string FormatApiTime(Instant t) {
  const int64_t ms = UnixMs(t);
  const int64_t s = ms >= 0 ? ms / 1000 : -((-ms + 999) / 1000);
  const int64_t frac = ms - s * 1000;
  if (frac == 0) return StrCat(s);
  std::string f = std::to_string(frac);
  f.insert(0, 3 - f.size(), '0');
  return StrCat(s, ".", f);
}

std::string ApiErrorOf(std::string_view body) {
  const nlohmann::json doc = nlohmann::json::parse(body, nullptr, /*allow_exceptions=*/false);
  if (!doc.is_object()) return "";
  const auto status = doc.find("status");
  if (status == doc.end() || !status->is_string() || *status != "error") return "";
  std::string type, error;
  if (const auto it = doc.find("errorType"); it != doc.end() && it->is_string()) type = *it;
  if (const auto it = doc.find("error"); it != doc.end() && it->is_string()) error = *it;
  if (type.empty()) return error.empty() ? "unspecified error" : error;
  return error.empty() ? type : StrCat(type, ": ", error);
}

PrometheusClient::PrometheusClient(std::string base_url, PrometheusClientOptions options,
                                   std::unique_ptr<HttpTransport> transport)
    : base_url_(std::move(base_url)),
      options_(std::move(options)),
      transport_(std::move(transport)) {
  while (!base_url_.empty() && base_url_.back() == '/') base_url_.pop_back();
  display_url_ = RedactUri(base_url_);
  if (!transport_) transport_ = MakeCurlTransport(options_.http);
  if (!options_.sleep) options_.sleep = [](Duration d) { std::this_thread::sleep_for(d); };
}

PrometheusClient::~PrometheusClient() = default;

namespace {

std::string HttpFailure(const HttpRequest& request, const HttpResponse& resp) {
  std::string detail = ApiErrorOf(resp.body);
  if (detail.empty()) detail = std::string(Trim(std::string_view(resp.body).substr(0, 200)));
  return StrCat(request.method, " ", RedactUri(request.url), ": HTTP ", resp.status,
                detail.empty() ? "" : " (", detail, detail.empty() ? "" : ")");
}

}  // namespace

Result<std::string> PrometheusClient::Query(std::string_view promql, Instant time) {
  HttpRequest request;
  request.url =
      StrCat(base_url_, "/api/v1/query?query=", UrlEncode(promql), "&time=", FormatApiTime(time));
  request.headers.emplace_back("Accept", "application/json");
  GPUCOST_ASSIGN_OR_RETURN(HttpResponse resp, Execute(request));
  if (resp.status < 200 || resp.status >= 300) {
    return Status::InvalidArgument(HttpFailure(request, resp));
  }
  if (const std::string api_error = ApiErrorOf(resp.body); !api_error.empty()) {
    return Status::InvalidArgument(
        StrCat("GET ", RedactUri(request.url), ": Prometheus error (", api_error, ")"));
  }
  return std::move(resp.body);
}

Result<HttpResponse> PrometheusClient::RemoteRead(std::string_view compressed_request) {
  HttpRequest request;
  request.method = "POST";
  request.url = StrCat(base_url_, "/api/v1/read");
  request.headers = {{"Content-Type", "application/x-protobuf"},
                     {"Content-Encoding", "snappy"},
                     {"Accept-Encoding", "snappy"},
                     {"X-Prometheus-Remote-Read-Version", "0.1.0"}};
  request.body = std::string(compressed_request);
  GPUCOST_ASSIGN_OR_RETURN(HttpResponse resp, Execute(request));
  if (resp.status >= 200 && resp.status < 300) return resp;
  const bool not_offered = resp.status == 404 || resp.status == 405 || resp.status == 406 ||
                           resp.status == 415 || resp.status == 501;
  return Status(not_offered ? StatusCode::kUnimplemented : StatusCode::kInvalidArgument,
                HttpFailure(request, resp));
}

Result<HttpResponse> PrometheusClient::Execute(const HttpRequest& base) {
  const std::string shown = StrCat(base.method, " ", RedactUri(base.url));
  const int attempts = std::max(1, options_.retry.max_attempts);
  Duration backoff = options_.retry.initial_backoff;
  std::string last_error;
  for (int attempt = 1; attempt <= attempts; ++attempt) {
    if (attempt > 1) {
      LogWarn(StrCat("prometheus: ", last_error, "; retrying in ", FormatDuration(backoff),
                     " (attempt ", attempt, " of ", attempts, ")"));
      options_.sleep(backoff);
      backoff = std::min(backoff * 2, options_.retry.max_backoff);
    }
    // A fresh copy each attempt: authentication (a re-read token, a signature carrying the
    // time) is applied again.
    HttpRequest request = base;
    request.headers.insert(request.headers.begin(), options_.headers.begin(),
                           options_.headers.end());
    if (options_.prepare_request) GPUCOST_RETURN_IF_ERROR(options_.prepare_request(request));
    ++requests_;
    TransportResult r = transport_->Send(request);
    if (!r.response) {
      last_error = StrCat(shown, ": ", r.error);
      const bool retryable =
          r.failure == TransportFailure::kTimeout || r.failure == TransportFailure::kConnect;
      if (!retryable) return Status::Unavailable(last_error);
      continue;
    }
    HttpResponse& resp = *r.response;
    if (resp.status >= 500 || resp.status == 429) {
      last_error = HttpFailure(request, resp);
      continue;
    }
    return std::move(resp);
  }
  return Status::Unavailable(StrCat(last_error, "; gave up after ", attempts, " attempts"));
}

}  // namespace gpucost::promsource
