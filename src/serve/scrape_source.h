// `gpucost serve --scrape TARGET` / `--scrape-endpoints NS/SERVICE`: serve scrapes dcgm-exporter,
// gpucost-agent and kube-state-metrics itself, without a Prometheus. A thread scrapes every target
// each --scrape-interval (src/scrape: a malformed or failed scrape is rejected whole, for its
// target alone) into a spool folder of gzip exposition files per target and minute, bounded by
// age and size; the attribution loop reads the spool's files for its window as it would read
// --input files.
#pragma once

#include <CLI/CLI.hpp>
#include <condition_variable>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <shared_mutex>
#include <string>
#include <thread>
#include <vector>

#include "core/result.h"
#include "core/time.h"
#include "k8s/api_client.h"
#include "k8s/credentials.h"
#include "pipeline/kube_input.h"
#include "promsource/auth.h"
#include "scrape/endpoints_discovery.h"
#include "scrape/scraper.h"
#include "scrape/spool.h"
#include "serve/outage_log.h"

namespace gpucost::serve {

struct ScrapeOptions {
  std::vector<std::string> targets;    // URL or JOB=URL
  std::vector<std::string> endpoints;  // [JOB=]NAMESPACE/SERVICE[:PORT]
  std::string interval = "30s";
  std::string timeout = "10s";
  std::string spool;  // default: LEDGER.scrape
  std::string retention = "26h";
  std::string max_size = "20GiB";  // 0: no bound
  std::string ca_file;
  std::string cert_file, key_file;
  promsource::AuthOptions auth;  // bearer token or basic auth (no SigV4)
  bool wanted() const { return !targets.empty() || !endpoints.empty(); }
};

struct ScrapeHealth {
  std::vector<scrape::TargetHealth> targets;
  int64_t discovery_errors = 0;
  scrape::SpoolStats spool;
  std::optional<uint64_t> spool_free_bytes;  // of the spool's filesystem; nullopt: unknown
};

class ScrapeSource {
 public:
  // Validates the flags (targets, endpoints specs, durations; a Kubernetes connection from
  // `kube` for --scrape-endpoints) and opens the spool; starts nothing.
  static Result<std::unique_ptr<ScrapeSource>> Create(const ScrapeOptions& flags,
                                                      const KubeOptions& kube,
                                                      const std::string& ledger);
  ~ScrapeSource();

  // Scrapes now and then every interval on a thread of its own, until Stop().
  void Start();
  void Stop();

  // The spool files for `window` (see Spool::Files); hold ReadLock() while loading them.
  Result<std::vector<std::string>> Files(Window window, Duration staleness) const;
  std::shared_lock<std::shared_mutex> ReadLock() const { return spool_.LockForReading(); }
  ScrapeHealth Health() const;
  const std::string& spool_dir() const { return spool_.dir(); }

 private:
  ScrapeSource(std::string spool_dir, scrape::ScraperOptions options);
  void Cycle();
  void NoteOutcome(const scrape::ScrapeOutcome& outcome, Instant now);

  SystemClock clock_;
  scrape::Spool spool_;
  scrape::Scraper scraper_;
  Duration interval_{0}, retention_{0};
  uint64_t max_bytes_ = 0;
  std::optional<Instant> size_warned_;  // the last warning about the size bound, in a burst
  std::vector<scrape::ScrapeTarget> static_targets_;
  std::vector<scrape::EndpointsQuery> queries_;
  std::vector<std::vector<scrape::ScrapeTarget>> discovered_;  // last good list per query
  std::optional<k8s::KubeConnection> connection_;
  std::unique_ptr<k8s::CredentialSource> credentials_;
  std::unique_ptr<k8s::ApiClient> client_;
  mutable std::mutex mu_;
  std::condition_variable wake_;
  bool stop_ = false;
  int64_t discovery_errors_ = 0;
  // The targets whose scrapes fail, by URL and job (the scrape thread's only).
  OutageLog failing_{"scrape", false};
  std::thread thread_;
};

}  // namespace gpucost::serve
