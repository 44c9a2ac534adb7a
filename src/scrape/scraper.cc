#include "scrape/scraper.h"

#include <algorithm>
#include <atomic>
#include <optional>
#include <set>
#include <thread>

#include "core/redact.h"
#include "core/strings.h"
#include "ingest/exposition.h"
#include "scrape/scrape_text.h"

namespace gpucost::scrape {
namespace {

// Prometheus text first; OpenMetrics is parsed too if that is all a target offers.
constexpr std::string_view kAccept =
    "text/plain;version=0.0.4;q=1,application/openmetrics-text;version=1.0.0;q=0.5,*/*;q=0.1";

std::string Clip(std::string_view s, size_t n = 200) {
  std::string out(s.substr(0, n));
  for (char& c : out) {
    if (c == '\n' || c == '\r') c = ' ';
  }
  return s.size() > n ? StrCat(out, "...") : out;
}

// job, instance, then the target's own labels, each added where a sample lacks it.
std::vector<std::pair<std::string, std::string>> ExtraLabels(const ScrapeTarget& t) {
  std::vector<std::pair<std::string, std::string>> out = {{"job", t.job},
                                                          {"instance", InstanceOf(t.url)}};
  for (const auto& [name, value] : t.labels) {
    if (name == "job" || name == "instance" || value.empty()) continue;
    out.emplace_back(name, value);
  }
  return out;
}

}  // namespace

Scraper::Scraper(ScraperOptions options, Spool& spool, const Clock& clock,
                 TransportFactory make_transport)
    : options_(std::move(options)),
      spool_(spool),
      clock_(clock),
      make_transport_(std::move(make_transport)) {
  if (!make_transport_) make_transport_ = promsource::MakeCurlTransport;
}

ScrapeOutcome Scraper::ScrapeOne(const ScrapeTarget& target, const TargetHealth* last,
                                 promsource::HttpTransport& transport) {
  ScrapeOutcome out;
  out.target = target;
  out.time = clock_.Now();
  const std::string url = RedactUri(target.url);
  const auto started = std::chrono::steady_clock::now();
  const auto finish = [&](Status status) {
    out.duration = std::chrono::duration_cast<Duration>(std::chrono::steady_clock::now() - started);
    out.status = std::move(status);
    return std::move(out);
  };

  promsource::HttpRequest request;
  request.url = target.url;
  // A scrape is about the size of the one before: reserved, a body of megabytes is not copied
  // as it grows (a tenth more for a cluster that grew).
  if (last != nullptr) request.response_bytes_hint = last->last_body_bytes / 10 * 11;
  request.headers.emplace_back("Accept", std::string(kAccept));
  request.headers.emplace_back("X-Prometheus-Scrape-Timeout-Seconds",
                               FormatDouble(Seconds(options_.timeout)));
  if (options_.authorize) {
    if (Status s = options_.authorize(request); !s.ok()) {
      return finish(Status(s.code(), StrCat(url, ": ", s.message())));
    }
  }
  promsource::TransportResult sent = transport.Send(request);
  if (!sent.response) {
    using promsource::TransportFailure;
    if (sent.error.starts_with("response larger than")) {
      return finish(
          Status::Unavailable(StrCat("scrape of ", url, " rejected: body larger than the ",
                                     options_.max_body_bytes, "-byte limit")));
    }
    const std::string_view why =
        sent.failure == TransportFailure::kTimeout   ? std::string_view("timed out")
        : sent.failure == TransportFailure::kConnect ? std::string_view("connection failed")
                                                     : std::string_view("failed");
    return finish(Status::Unavailable(StrCat("scrape of ", url, " ", why, " (limit ",
                                             FormatDuration(options_.timeout), "): ", sent.error)));
  }
  const promsource::HttpResponse& resp = *sent.response;
  if (resp.status != 200) {
    return finish(Status::Unavailable(
        StrCat("scrape of ", url, " answered HTTP ", resp.status, ": ", Clip(resp.body))));
  }

  ScrapeText text(UnixMs(out.time), ExtraLabels(target));
  if (last != nullptr) text.text().reserve(last->last_text_bytes / 10 * 11);
  ParseOptions po;
  po.format = ExpositionFormat::kAuto;
  po.strict = true;  // one bad line rejects the whole scrape
  po.source_name = url;
  std::unique_ptr<ByteSource> body = StringByteSource(resp.body, url);
  Result<ParseStats> parsed = ParseExposition(*body, po, text);
  if (!parsed.ok()) {
    // The parser's message is "<url>:<line>: <what>".
    return finish(
        Status::ParseError(StrCat("malformed exposition rejected: ", parsed.status().message())));
  }
  if (options_.max_samples > 0 && text.samples() > options_.max_samples) {
    return finish(
        Status::Unavailable(StrCat("scrape of ", url, " rejected: ", text.samples(),
                                   " samples, over the limit of ", options_.max_samples)));
  }
  if (Status s = spool_.Append(target, out.time, text.text()); !s.ok()) {
    out.store_failed = true;
    return finish(s.WithContext(StrCat("scrape of ", url, " not stored")));
  }
  out.samples = text.samples();
  out.body_bytes = resp.body.size();
  out.text_bytes = text.text().size();
  return finish(Status::Ok());
}

std::vector<ScrapeOutcome> Scraper::ScrapeAll(const std::vector<ScrapeTarget>& targets) {
  std::vector<const ScrapeTarget*> todo;
  std::set<std::pair<std::string, std::string>> seen;
  for (const ScrapeTarget& t : targets) {
    if (seen.insert({t.job, t.url}).second) todo.push_back(&t);
  }
  std::vector<ScrapeOutcome> outcomes(todo.size());
  promsource::HttpOptions http;
  http.connect_timeout = options_.timeout;
  http.request_timeout = options_.timeout;
  http.verify_tls = options_.verify_tls;
  http.ca_file = options_.ca_file;
  http.cert_file = options_.cert_file;
  http.key_file = options_.key_file;
  http.max_response_bytes = options_.max_body_bytes;
  http.user_agent = options_.user_agent;

  std::vector<std::optional<TargetHealth>> last(todo.size());
  {
    std::lock_guard<std::mutex> lock(mu_);
    for (size_t i = 0; i < todo.size(); ++i) {
      if (auto it = health_.find({todo[i]->job, todo[i]->url}); it != health_.end()) {
        last[i] = it->second;
      }
    }
  }
  std::atomic<size_t> next{0};
  const auto work = [&] {
    std::unique_ptr<promsource::HttpTransport> transport = make_transport_(http);
    for (size_t i = next++; i < todo.size(); i = next++) {
      outcomes[i] = ScrapeOne(*todo[i], last[i] ? &*last[i] : nullptr, *transport);
    }
  };
  const size_t threads =
      std::min(todo.size(), static_cast<size_t>(std::max(1, options_.concurrency)));
  if (threads <= 1) {
    if (!todo.empty()) work();
  } else {
    std::vector<std::thread> pool;
    pool.reserve(threads);
    for (size_t i = 0; i < threads; ++i) pool.emplace_back(work);
    for (std::thread& t : pool) t.join();
  }

  std::lock_guard<std::mutex> lock(mu_);
  std::map<std::pair<std::string, std::string>, TargetHealth> health;
  for (const ScrapeOutcome& o : outcomes) {
    const std::pair<std::string, std::string> key{o.target.job, o.target.url};
    TargetHealth h;
    if (auto it = health_.find(key); it != health_.end()) h = std::move(it->second);
    h.job = o.target.job;
    h.url = RedactUri(o.target.url);
    h.labels = o.target.labels;
    h.up = o.status.ok();
    h.last_scrape = o.time;
    h.last_duration = o.duration;
    ++h.scrapes_total;
    if (h.up) {
      h.last_samples = o.samples;
      h.last_body_bytes = o.body_bytes;
      h.last_text_bytes = o.text_bytes;
      h.last_success = o.time;
      h.consecutive_failures = 0;
    } else {
      ++h.failures_total;
      ++h.consecutive_failures;
      h.last_error = std::string(o.status.message());
    }
    health[key] = std::move(h);
  }
  health_ = std::move(health);
  return outcomes;
}

std::vector<TargetHealth> Scraper::Health() const {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<TargetHealth> out;
  out.reserve(health_.size());
  for (const auto& [key, h] : health_) out.push_back(h);
  return out;
}

}  // namespace gpucost::scrape
