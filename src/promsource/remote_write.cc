#include "promsource/remote_write.h"

#include <snappy.h>

#include <algorithm>
#include <cstddef>
#include <numeric>

#include "core/log.h"
#include "core/redact.h"
#include "core/strings.h"
#include "core/utf8.h"
#include "promsource/proto/remote.pb.h"

namespace gpucost::promsource {
namespace {

constexpr size_t kMaxErrorBodyBytes = 512;

// Positions of `items` in stable order of `key`, without moving the items.
template <typename T, typename Key>
std::vector<size_t> StableOrder(const std::vector<T>& items, Key key) {
  std::vector<size_t> order(items.size());
  std::iota(order.begin(), order.end(), size_t{0});
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return key(items[a]) < key(items[b]); });
  return order;
}

// Sorts labels by name (dropping empty values) and samples by time, and checks the labels.
Status Normalize(WriteSeries& s) {
  std::erase_if(s.labels, [](const auto& l) { return l.second.empty(); });
  std::stable_sort(s.labels.begin(), s.labels.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  std::stable_sort(s.samples.begin(), s.samples.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  bool has_name = false;
  for (size_t i = 0; i < s.labels.size(); ++i) {
    const std::string& name = s.labels[i].first;
    if (name.empty()) return Status::InvalidArgument("a label has an empty name");
    if (i > 0 && name == s.labels[i - 1].first) {
      return Status::InvalidArgument(StrCat("label ", name, " appears twice"));
    }
    has_name = has_name || name == "__name__";
  }
  if (!has_name) return Status::InvalidArgument("no __name__ label");
  return Status::Ok();
}

// "HTTP 400: out of order sample", the body trimmed and cut short.
std::string HttpError(const HttpResponse& r) {
  std::string_view body = Trim(r.body);
  std::string out = StrCat("HTTP ", r.status);
  if (!body.empty()) out += StrCat(": ", body.substr(0, kMaxErrorBodyBytes));
  if (body.size() > kMaxErrorBodyBytes) out += "...";
  return out;
}

}  // namespace

std::string EncodeWriteRequest(std::span<const WriteSeries> series) {
  prompb::WriteRequest request;
  for (const WriteSeries& s : series) {
    prompb::TimeSeries* ts = request.add_timeseries();
    for (const size_t i :
         StableOrder(s.labels, [](const auto& l) -> const std::string& { return l.first; })) {
      if (s.labels[i].second.empty()) continue;
      prompb::Label* label = ts->add_labels();
      // Protobuf strings are UTF-8: what is not goes as U+FFFD, as serve's /metrics shows it.
      label->set_name(ValidUtf8(s.labels[i].first));
      label->set_value(ValidUtf8(s.labels[i].second));
    }
    for (const size_t i : StableOrder(s.samples, [](const auto& p) { return p.first; })) {
      prompb::Sample* sample = ts->add_samples();
      sample->set_timestamp(s.samples[i].first);
      sample->set_value(s.samples[i].second);
    }
  }
  const std::string raw = request.SerializeAsString();
  std::string compressed;
  snappy::Compress(raw.data(), raw.size(), &compressed);
  return compressed;
}

Result<std::unique_ptr<RemoteWriter>> RemoteWriter::Create(
    RemoteWriterOptions options, std::unique_ptr<HttpTransport> transport) {
  if (!options.url.starts_with("http://") && !options.url.starts_with("https://")) {
    return Status::InvalidArgument(
        StrCat("remote write URL ", RedactUri(options.url), " is not http:// or https://"));
  }
  if (options.max_queue_samples == 0 || options.max_batch_series == 0) {
    return Status::InvalidArgument("remote write queue and batch sizes must be positive");
  }
  if (options.min_backoff <= Duration::zero() || options.max_backoff < options.min_backoff) {
    return Status::InvalidArgument("remote write backoff: need 0 < min_backoff <= max_backoff");
  }
  if (options.clock == nullptr) options.clock = std::make_shared<SystemClock>();
  if (!options.env) options.env = ProcessEnv();
  GPUCOST_ASSIGN_OR_RETURN(RequestDecorator decorate,
                           MakeAuthDecorator(options.auth, options.clock, options.env));
  if (transport == nullptr) transport = MakeCurlTransport(options.http);
  return std::unique_ptr<RemoteWriter>(
      new RemoteWriter(std::move(options), std::move(transport), std::move(decorate)));
}

RemoteWriter::RemoteWriter(RemoteWriterOptions options, std::unique_ptr<HttpTransport> transport,
                           RequestDecorator decorate)
    : options_(std::move(options)),
      transport_(std::move(transport)),
      decorate_(std::move(decorate)) {
  sender_ = std::thread([this] { Run(); });
}

RemoteWriter::~RemoteWriter() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  wake_.notify_all();
  sender_.join();
}

Status RemoteWriter::Enqueue(std::vector<WriteSeries> series) {
  for (size_t i = 0; i < series.size(); ++i) {
    const Status s = Normalize(series[i]);
    if (!s.ok()) return s.WithContext(StrCat("remote write: series ", i));
  }
  {
    std::lock_guard<std::mutex> lock(mu_);
    const size_t bound = options_.max_queue_samples;
    for (WriteSeries& s : series) {
      if (s.samples.empty()) continue;
      if (s.samples.size() > bound) {
        const size_t excess = s.samples.size() - bound;
        s.samples.erase(s.samples.begin(), s.samples.begin() + static_cast<std::ptrdiff_t>(excess));
        stats_.samples_dropped_queue_full += excess;
      }
      while (queued_samples_ + s.samples.size() > bound) {
        const size_t n = queue_.front().samples.size();
        stats_.samples_dropped_queue_full += n;
        queued_samples_ -= n;
        queue_.pop_front();
      }
      queued_samples_ += s.samples.size();
      queue_.push_back(std::move(s));
    }
  }
  wake_.notify_all();
  return Status::Ok();
}

bool RemoteWriter::Flush(Duration timeout) {
  std::unique_lock<std::mutex> lock(mu_);
  return drained_.wait_for(lock, timeout,
                           [&] { return queue_.empty() && stats_.in_flight_samples == 0; });
}

RemoteWriteStats RemoteWriter::Stats() const {
  std::lock_guard<std::mutex> lock(mu_);
  RemoteWriteStats s = stats_;
  s.queued_series = queue_.size();
  s.queued_samples = queued_samples_;
  return s;
}

void RemoteWriter::Run() {
  std::unique_lock<std::mutex> lock(mu_);
  while (true) {
    wake_.wait(lock, [&] { return stop_ || !queue_.empty(); });
    if (stop_) return;
    std::vector<WriteSeries> batch;
    size_t samples = 0;
    while (!queue_.empty() && batch.size() < options_.max_batch_series) {
      samples += queue_.front().samples.size();
      batch.push_back(std::move(queue_.front()));
      queue_.pop_front();
    }
    queued_samples_ -= samples;
    stats_.in_flight_samples = samples;
    lock.unlock();
    const bool finished = SendBatch(batch, samples);
    lock.lock();
    stats_.in_flight_samples = 0;
    drained_.notify_all();
    if (!finished) return;
  }
}

bool RemoteWriter::SendBatch(const std::vector<WriteSeries>& batch, size_t samples) {
  const std::string body = EncodeWriteRequest(batch);
  Duration backoff = options_.min_backoff;
  while (true) {
    HttpRequest request;
    request.method = "POST";
    request.url = options_.url;
    request.headers = {{"Content-Encoding", "snappy"},
                       {"Content-Type", "application/x-protobuf"},
                       {"X-Prometheus-Remote-Write-Version", "0.1.0"},
                       {"User-Agent", options_.http.user_agent}};
    request.headers.insert(request.headers.end(), options_.headers.begin(), options_.headers.end());
    request.body = body;
    std::string error;
    bool permanent = false;
    // A failing decorator (a token file being rotated, credentials not yet there) may recover.
    const Status auth = decorate_ ? decorate_(request) : Status::Ok();
    if (!auth.ok()) {
      error = auth.ToString();
    } else {
      const TransportResult result = transport_->Send(request);
      std::lock_guard<std::mutex> lock(mu_);
      ++stats_.requests;
      if (!result.response) {
        error = result.error;
      } else if (result.response->status >= 200 && result.response->status < 300) {
        stats_.samples_sent += samples;
        stats_.series_sent += batch.size();
        stats_.last_success = options_.clock->Now();
        if (failing_ > 0) {
          LogInfo(StrCat("remote write to ", RedactUri(options_.url), " delivers again, after ",
                         failing_, " failed attempts"));
          failing_ = 0;
        }
        return true;
      } else {
        const long status = result.response->status;
        error = HttpError(*result.response);
        permanent = status != 429 && status < 500;
      }
    }
    {
      std::lock_guard<std::mutex> lock(mu_);
      stats_.last_error = StrCat("remote write to ", RedactUri(options_.url), ": ", error);
      if (failing_++ == 0) {
        LogWarn(StrCat(stats_.last_error,
                       permanent ? "; the batch is dropped (the endpoint refused it for good)"
                                 : "; retrying with back-off",
                       " (logged once until a batch is delivered again)"));
      }
      if (permanent) {
        stats_.samples_rejected += samples;
        ++stats_.batches_rejected;
        return true;
      }
      ++stats_.retries;
    }
    if (!Backoff(backoff)) return false;
    backoff = std::min(backoff * 2, options_.max_backoff);
  }
}

bool RemoteWriter::Backoff(Duration d) {
  if (options_.sleep) {
    options_.sleep(d);
    std::lock_guard<std::mutex> lock(mu_);
    return !stop_;
  }
  std::unique_lock<std::mutex> lock(mu_);
  return !wake_.wait_for(lock, d, [&] { return stop_; });
}

}  // namespace gpucost::promsource
