#include "serve/scrape_source.h"

#include <filesystem>

#include "core/byte_size.h"
#include "core/log.h"
#include "core/redact.h"
#include "core/strings.h"
#include "promsource/aws_credentials.h"

namespace gpucost::serve {

ScrapeSource::ScrapeSource(std::string spool_dir, scrape::ScraperOptions options)
    : spool_(std::move(spool_dir)), scraper_(std::move(options), spool_, clock_) {}

ScrapeSource::~ScrapeSource() { Stop(); }

Result<std::unique_ptr<ScrapeSource>> ScrapeSource::Create(const ScrapeOptions& f,
                                                           const KubeOptions& kube,
                                                           const std::string& ledger) {
  const auto positive = [](std::string_view flag, const std::string& text) -> Result<Duration> {
    Result<Duration> d = ParseDuration(text);
    if (!d.ok() || d->count() <= 0) {
      return Status::InvalidArgument(StrCat(flag, " \"", text, "\": a positive duration"));
    }
    return *d;
  };
  scrape::ScraperOptions options;
  GPUCOST_ASSIGN_OR_RETURN(options.timeout, positive("--scrape-timeout", f.timeout));
  options.ca_file = f.ca_file;
  if (f.cert_file.empty() != f.key_file.empty()) {
    return Status::InvalidArgument("--scrape-cert-file and --scrape-key-file go together");
  }
  options.cert_file = f.cert_file;
  options.key_file = f.key_file;
  GPUCOST_ASSIGN_OR_RETURN(options.authorize,
                           promsource::MakeAuthDecorator(f.auth, std::make_shared<SystemClock>(),
                                                         promsource::ProcessEnv()));
  if (f.spool.empty() &&
      (ledger.starts_with("postgres://") || ledger.starts_with("postgresql://"))) {
    return Status::InvalidArgument("--scrape-spool DIR: needed with a PostgreSQL ledger");
  }
  const std::string dir = f.spool.empty() ? ledger + ".scrape" : f.spool;
  std::unique_ptr<ScrapeSource> s(new ScrapeSource(dir, std::move(options)));
  GPUCOST_ASSIGN_OR_RETURN(s->interval_, positive("--scrape-interval", f.interval));
  GPUCOST_ASSIGN_OR_RETURN(s->retention_, positive("--scrape-retention", f.retention));
  Result<uint64_t> max_bytes = ParseByteSize(f.max_size);
  if (!max_bytes.ok()) {
    return Status::InvalidArgument(
        StrCat("--scrape-spool-max-size: ", max_bytes.status().message()));
  }
  s->max_bytes_ = *max_bytes;
  GPUCOST_ASSIGN_OR_RETURN(s->static_targets_, scrape::ParseStaticTargets(f.targets));
  for (const std::string& spec : f.endpoints) {
    GPUCOST_ASSIGN_OR_RETURN(scrape::EndpointsQuery q, scrape::ParseEndpointsSpec(spec));
    s->queries_.push_back(std::move(q));
  }
  s->discovered_.resize(s->queries_.size());
  if (!s->queries_.empty()) {
    GPUCOST_ASSIGN_OR_RETURN(s->connection_, ResolveKubeConnection(kube));
    s->credentials_ = std::make_unique<k8s::CredentialSource>(*s->connection_, s->clock_);
    s->client_ = std::make_unique<k8s::ApiClient>(*s->connection_, *s->credentials_);
  }
  GPUCOST_RETURN_IF_ERROR(s->spool_.Open());
  return s;
}

void ScrapeSource::Cycle() {
  std::vector<scrape::ScrapeTarget> targets = static_targets_;
  for (size_t i = 0; i < queries_.size(); ++i) {
    Result<std::vector<scrape::ScrapeTarget>> found =
        scrape::DiscoverEndpoints(*client_, queries_[i]);
    if (found.ok()) {
      discovered_[i] = std::move(*found);
    } else {
      // The last list found stays: a brief API outage does not stop the scrapes.
      LogError(
          StrCat("gpucost serve: discovering ", queries_[i].namespace_name, "/",
                 queries_[i].service.empty() ? queries_[i].label_selector : queries_[i].service,
                 ": ", found.status().ToString()));
      std::lock_guard<std::mutex> lock(mu_);
      ++discovery_errors_;
    }
    targets.insert(targets.end(), discovered_[i].begin(), discovered_[i].end());
  }
  const Instant now = clock_.Now();
  for (const scrape::ScrapeOutcome& o : scraper_.ScrapeAll(targets)) {
    NoteOutcome(o, now);
  }
  Result<scrape::PruneStats> pruned = spool_.Prune(now, retention_, max_bytes_);
  if (!pruned.ok()) {
    LogError(StrCat("gpucost serve: ", pruned.status().ToString()));
  } else if (pruned->files_over_size == 0) {
    size_warned_.reset();
  } else if (!size_warned_ || now - *size_warned_ >= std::chrono::hours(1)) {
    // Once when the bound starts to bite, then hourly while it does.
    size_warned_ = now;
    LogWarn(StrCat("gpucost serve: the scrape spool is over --scrape-spool-max-size (",
                   FormatByteSize(max_bytes_), "): removed ", pruned->files_over_size,
                   " files newer than --scrape-retention, from ",
                   FormatRfc3339(pruned->over_size_from),
                   "; a back-fill of that time (after a restart or a failed write) would lack "
                   "them: raise the bound, or lower the retention"));
  }
}

// A target that fails is logged when it starts failing, hourly while it goes on, and when it
// works again (OutageLog); gpucost_scrape_up and gpucost_scrape_errors_total tell every scrape.
// (The spool logs its own failures, once per target while they last.)
void ScrapeSource::NoteOutcome(const scrape::ScrapeOutcome& o, Instant now) {
  const std::string key = StrCat(RedactUri(o.target.url), " (job ", o.target.job, ")");
  if (o.store_failed) return;
  if (o.status.ok()) {
    failing_.Worked(key, now);
  } else {
    failing_.Failed(key, o.status.message(), now);
  }
}

void ScrapeSource::Start() {
  thread_ = std::thread([this] {
    while (true) {
      const auto next = std::chrono::steady_clock::now() + interval_;
      Cycle();
      std::unique_lock<std::mutex> lock(mu_);
      if (wake_.wait_until(lock, next, [this] { return stop_; })) return;
    }
  });
}

void ScrapeSource::Stop() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();
}

Result<std::vector<std::string>> ScrapeSource::Files(Window window, Duration staleness) const {
  return spool_.Files(window, staleness);
}

ScrapeHealth ScrapeSource::Health() const {
  ScrapeHealth h;
  h.targets = scraper_.Health();
  h.spool = spool_.Stats();
  std::error_code ec;
  const std::filesystem::space_info space = std::filesystem::space(spool_.dir(), ec);
  if (!ec) h.spool_free_bytes = space.available;
  std::lock_guard<std::mutex> lock(mu_);
  h.discovery_errors = discovery_errors_;
  return h;
}

}  // namespace gpucost::serve
