// Scraper: scrapes a list of targets (plain HTTP GETs of exposition text over libcurl), each on
// its own: a target that is down, times out, answers non-200, sends more than the size or sample
// limit or an exposition that does not parse strictly is rejected as a whole for that scrape,
// counted against that target, and affects no other. A good scrape is stamped with the scrape
// time (samples without their own timestamp), given the target's labels and appended to the
// Spool. Health per target (an `up` with counters) is kept for /metrics. Targets are scraped in
// parallel by up to `concurrency` threads, each with its own transport. ScrapeAll() may not run
// twice at once; Health() may be called from any thread.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "core/result.h"
#include "core/time.h"
#include "promsource/http_transport.h"
#include "scrape/spool.h"
#include "scrape/target.h"

namespace gpucost::scrape {

struct ScraperOptions {
  Duration timeout = std::chrono::seconds(10);  // per target: connect, request and body
  size_t max_body_bytes = size_t{64} << 20;     // decoded (after gzip)
  uint64_t max_samples = 0;                     // a scrape with more is rejected; 0: no limit
  int concurrency = 8;
  bool verify_tls = true;
  std::string ca_file;  // PEM bundle for https targets; empty: the system's
  std::string cert_file, key_file;  // a client certificate for targets that ask for one
  // Adds credentials to each request (bearer token re-read, basic auth); none when empty. A
  // failure (a token file gone) fails that scrape, named by the target.
  std::function<Status(promsource::HttpRequest&)> authorize;
  std::string user_agent = "gpucost-scrape";
};

// What one scrape of one target came to.
struct ScrapeOutcome {
  ScrapeTarget target;
  Status status;  // OK, or why the whole scrape was rejected (names the URL, and line for parse)
  Instant time{};
  Duration duration{0};
  uint64_t samples = 0;  // written to the spool (0 when rejected)
  size_t body_bytes = 0;  // as received, and as rendered for the spool: the next scrape's sizes
  size_t text_bytes = 0;
  // The scrape was good but the spool could not keep it (a full disk): the Spool logged it.
  bool store_failed = false;
};

// Health of one target, as Prometheus's `up` and scrape_* series describe theirs.
struct TargetHealth {
  std::string job;
  std::string url;  // as RedactUri shows it (password and tokens ***)
  std::map<std::string, std::string> labels;
  bool up = false;        // the last scrape was accepted
  Instant last_scrape{};  // start of the last attempt
  Duration last_duration{0};
  uint64_t last_samples = 0;  // of the last accepted scrape
  Instant last_success{};     // epoch when never
  uint64_t scrapes_total = 0;
  uint64_t failures_total = 0;
  uint64_t consecutive_failures = 0;
  std::string last_error;  // of the last failed scrape; kept after a success
  size_t last_body_bytes = 0, last_text_bytes = 0;  // of the last accepted scrape
};

class Scraper {
 public:
  // `make_transport` null: the libcurl transport. `spool` and `clock` must outlive the scraper.
  using TransportFactory =
      std::function<std::unique_ptr<promsource::HttpTransport>(const promsource::HttpOptions&)>;
  Scraper(ScraperOptions options, Spool& spool, const Clock& clock,
          TransportFactory make_transport = nullptr);

  // Scrapes every target once (duplicates by job+URL once) and appends the accepted scrapes to
  // the spool. Outcomes are in the targets' order. Health then holds exactly these targets:
  // ones no longer listed are forgotten, as Prometheus drops a vanished target's series.
  std::vector<ScrapeOutcome> ScrapeAll(const std::vector<ScrapeTarget>& targets);

  // Per target of the last ScrapeAll, sorted by job then URL.
  std::vector<TargetHealth> Health() const;

 private:
  // `last` (may be null): the target's health before, whose sizes are reserved up front.
  ScrapeOutcome ScrapeOne(const ScrapeTarget& target, const TargetHealth* last,
                          promsource::HttpTransport& transport);

  ScraperOptions options_;
  Spool& spool_;
  const Clock& clock_;
  TransportFactory make_transport_;
  mutable std::mutex mu_;
  std::map<std::pair<std::string, std::string>, TargetHealth> health_;  // by (job, url)
};

}  // namespace gpucost::scrape
