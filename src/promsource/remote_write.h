// Prometheus remote write (protocol 1.0) for pushing gpucost's series to Prometheus, Thanos,
// Mimir, Cortex or Amazon Managed Service for Prometheus. RemoteWriter owns a bounded in-memory
// queue and one background thread that POSTs snappy-compressed WriteRequests to the endpoint.
// All public methods are thread-safe; Enqueue never blocks on the network.
//
// Semantics:
// - Queue bound. At most `max_queue_samples` samples wait in the queue. When an Enqueue would
//   exceed it, the OLDEST waiting series are dropped (whole series, front of the queue first) and
//   counted in `samples_dropped_queue_full`: during an outage the newest data survives. A single
//   series longer than the bound keeps only its newest samples. The batch being sent is not part
//   of the queue and is never dropped for room.
// - Batches. The sender takes up to `max_batch_series` series from the front of the queue per
//   request, so data reaches the server in the order it was enqueued; the next batch is sent only
//   when the previous one is done (delivered or rejected).
// - Retries. Transport failures (refused, timed out), HTTP 5xx and HTTP 429 are retried with the
//   same batch, without limit, waiting `min_backoff` doubling up to `max_backoff` between
//   attempts; each retry is counted. Authentication is re-applied on every attempt (rotated
//   tokens, fresh SigV4 signatures); an authentication error is retried too.
// - Permanent failures. Any other non-2xx answer (400 for out-of-order or malformed samples, 401,
//   403, 404, 413, ...) rejects the batch: its samples are counted in `samples_rejected`, the
//   server's message is kept in `last_error`, and the next batch is sent. The first failure of a
//   run of them is logged (warning), and so is the delivery that ends the run.
// - Shutdown. The destructor wakes the sender and joins it: it waits for at most the request in
//   flight (bounded by HttpOptions::request_timeout, 30 s by default here) and discards what is
//   still queued. Call Flush first to deliver it.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "core/result.h"
#include "core/time.h"
#include "promsource/auth.h"
#include "promsource/http_transport.h"

namespace gpucost::promsource {

// One series and its samples. Labels may come in any order (they are sent sorted by name) and
// include __name__; a label with an empty value is the same as no label and is not sent.
struct WriteSeries {
  std::vector<std::pair<std::string, std::string>> labels;
  std::vector<std::pair<int64_t, double>> samples;  // (unix milliseconds, value)
};

// The body of a remote-write POST: the serialized WriteRequest, snappy block-compressed. Labels
// are sorted by name and samples by time (stable, so equal timestamps keep their order), as the
// protocol requires; what is not UTF-8 in them is sent as U+FFFD (core/utf8.h).
std::string EncodeWriteRequest(std::span<const WriteSeries> series);

struct RemoteWriterOptions {
  std::string url;  // the endpoint, e.g. "http://prometheus:9090/api/v1/write"
  AuthOptions auth;
  HttpOptions http = [] {
    HttpOptions h;
    h.request_timeout = std::chrono::seconds(30);  // bounds shutdown; Prometheus' remote_timeout
    return h;
  }();
  // Extra request headers, e.g. {"X-Scope-OrgID", "team-a"} for a Mimir or Cortex tenant.
  std::vector<std::pair<std::string, std::string>> headers;
  size_t max_queue_samples = 100'000;
  size_t max_batch_series = 2'000;
  Duration min_backoff = std::chrono::milliseconds(100);
  Duration max_backoff = std::chrono::seconds(30);
  std::shared_ptr<const Clock> clock;  // for last_success (and SigV4); null: the system clock
  EnvLookup env;                       // for auth; null: the process environment
  // How the sender waits between retries; null: an interruptible wait. Tests record the backoffs.
  std::function<void(Duration)> sleep;
};

struct RemoteWriteStats {
  uint64_t samples_sent = 0;  // delivered (2xx)
  uint64_t series_sent = 0;
  uint64_t requests = 0;  // attempts, retries included
  uint64_t retries = 0;
  uint64_t samples_dropped_queue_full = 0;  // oldest data dropped to keep the queue bound
  uint64_t samples_rejected = 0;            // in batches the server refused for good
  uint64_t batches_rejected = 0;
  size_t queued_series = 0;  // waiting, the batch in flight excluded
  size_t queued_samples = 0;
  size_t in_flight_samples = 0;
  std::string last_error;  // the latest failure, retried or not; "" if none yet
  std::optional<Instant> last_success;
};

class RemoteWriter {
 public:
  // Checks the options (URL scheme, positive bounds, auth settings) and starts the sender.
  // Without `transport`, libcurl is used with options.http.
  static Result<std::unique_ptr<RemoteWriter>> Create(
      RemoteWriterOptions options, std::unique_ptr<HttpTransport> transport = nullptr);
  ~RemoteWriter();
  RemoteWriter(const RemoteWriter&) = delete;
  RemoteWriter& operator=(const RemoteWriter&) = delete;

  // Queues `series` (series without samples are ignored). Fails, queueing nothing, when a series
  // has a label with an empty name, two labels of one name, or no __name__.
  Status Enqueue(std::vector<WriteSeries> series);

  // Waits until the queue is empty and nothing is in flight; false if `timeout` passed first.
  bool Flush(Duration timeout);

  RemoteWriteStats Stats() const;

 private:
  RemoteWriter(RemoteWriterOptions options, std::unique_ptr<HttpTransport> transport,
               RequestDecorator decorate);
  void Run();
  // Delivers or rejects `batch`, retrying as the header says; false if stopped first.
  bool SendBatch(const std::vector<WriteSeries>& batch, size_t samples);
  // Waits `d` unless stopped; false if stopped.
  bool Backoff(Duration d);

  const RemoteWriterOptions options_;
  const std::unique_ptr<HttpTransport> transport_;  // used by the sender thread only
  const RequestDecorator decorate_;

  mutable std::mutex mu_;
  std::condition_variable wake_;     // the sender: data queued, or stop
  std::condition_variable drained_;  // Flush: queue empty and nothing in flight
  // Attempts that failed since the last delivery: the first of a run is logged, and so is the
  // delivery that ends it (not every retry of an outage).
  uint64_t failing_ = 0;
  std::deque<WriteSeries> queue_;
  size_t queued_samples_ = 0;
  RemoteWriteStats stats_;  // the counters; queue sizes are filled in by Stats()
  bool stop_ = false;
  std::thread sender_;
};

}  // namespace gpucost::promsource
