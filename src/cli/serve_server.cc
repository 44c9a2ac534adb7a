#include "cli/serve_server.h"

#include <httplib.h>
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <mutex>
#include <random>
#include <set>
#include <sstream>
#include <thread>

#include "attribution/inventory_union.h"
#include "cli/opencost_api.h"
#include "cli/remote_write_flags.h"
#include "cli/report_pipeline.h"
#include "cli/serve_metrics.h"
#include "core/log.h"
#include "core/strings.h"
#include "ledger/rollup_cache.h"
#include "report/render.h"
#include "report/report_query.h"

namespace gpucost::cli {
namespace {

Instant AlignDown(Instant t, Duration step) {
  const int64_t ms = UnixMs(t);
  const int64_t s = step.count();
  return InstantFromUnixMs(ms - ((ms % s) + s) % s);
}

bool NoData(const Status& s) {
  const std::string_view m = s.message();
  return m.find("no timestamped samples") != std::string_view::npos ||
         m.find("no samples") != std::string_view::npos ||
         m.find("covers no time") != std::string_view::npos;
}

// Steps without data in a chunk [start, start + data.size() x step), and a hole left open
// by the chunks before (`pending`): see Server::Impl::Attribute.
struct HoleScan {
  std::vector<ledger::GapRun> keep;  // runs of steps without data: their records are kept
  std::vector<Window> carry;         // holes closed by data after them, to carry over
  std::optional<Instant> pending;    // a hole still open at the chunk's end
};

HoleScan ScanHoles(Instant start, Duration step, const std::vector<bool>& data,
                   std::optional<Instant> pending, std::optional<Instant> unwatched_from) {
  HoleScan out;
  out.pending = pending;
  for (size_t i = 0; i < data.size(); ++i) {
    const Instant s = start + static_cast<int64_t>(i) * step;
    if (!data[i]) {
      if (!out.keep.empty() && out.keep.back().window.end == s) {
        out.keep.back().window.end = s + step;
      } else {
        out.keep.push_back({{s, s + step}, false});
      }
      if (!out.pending && unwatched_from && s >= *unwatched_from) out.pending = s;
    } else if (out.pending && s >= *out.pending) {
      if (s > *out.pending) out.carry.push_back({*out.pending, s});
      out.pending.reset();
    }
  }
  return out;
}

// This process's name as a writer of the ledger: host, process and a random part, so that a
// restarted serve is a new writer and a lease names where its holder runs.
std::string WriterName() {
  char host[256] = {};
  if (gethostname(host, sizeof(host) - 1) != 0) host[0] = '\0';
  std::random_device random;
  char tag[9];
  std::snprintf(tag, sizeof(tag), "%08x", static_cast<unsigned>(random()));
  return StrCat(host[0] != '\0' ? host : "serve", ":", getpid(), ":", tag);
}

// Whether the writer `name` (WriterName) was a process of this host that is no longer running:
// a serve that was killed and started again on the same machine, or in the same container
// (where the new process may have the old one's pid).
bool GoneFromThisHost(const std::string& name) {
  const size_t tag = name.rfind(':');
  const size_t pid_at =
      tag == std::string::npos || tag == 0 ? std::string::npos : name.rfind(':', tag - 1);
  if (pid_at == std::string::npos) return false;
  char host[256] = {};
  if (gethostname(host, sizeof(host) - 1) != 0 || name.substr(0, pid_at) != host) return false;
  const std::string pid_text = name.substr(pid_at + 1, tag - pid_at - 1);
  char* end = nullptr;
  const long pid = std::strtol(pid_text.c_str(), &end, 10);
  if (pid_text.empty() || *end != '\0' || pid <= 0) return false;
  if (pid == getpid()) return true;
  return kill(static_cast<pid_t>(pid), 0) != 0 && errno == ESRCH;
}

// The clusters an inventory's nodes belong to, sorted.
std::vector<std::string> ClustersOf(const Inventory& inventory) {
  std::set<std::string> names;
  for (const Node& n : inventory.nodes) names.insert(n.cluster);
  return {names.begin(), names.end()};
}

}  // namespace

struct Server::Impl {
  Impl(ServeOptions options, std::unique_ptr<ledger::Ledger> l,
       std::unique_ptr<httplib::Server> http, std::unique_ptr<promsource::RemoteWriter> remote)
      : s_(std::move(options)),
        ledger_(std::move(l)),
        http_(std::move(http)),
        remote_(std::move(remote)) {
    source_ = s_.source;
    source_.ledger.clear();
    http_->new_task_queue = [] { return new httplib::ThreadPool(2); };
    http_->Get("/healthz", [](const httplib::Request&, httplib::Response& res) {
      res.set_content("ok\n", "text/plain");
    });
    http_->Get("/readyz", [this](const httplib::Request&, httplib::Response& res) {
      std::lock_guard<std::mutex> lock(mu_);
      res.status = ready_ ? 200 : 503;
      // A standby serves the ledger's reads as the writer does.
      res.set_content(!ready_           ? "catching up\n"
                      : health_.writing ? "ready\n"
                                        : "ready (standby)\n",
                      "text/plain");
    });
    http_->Get("/metrics", [this](const httplib::Request& req, httplib::Response& res) {
      if (!Authorized(req, res)) return;
      std::lock_guard<std::mutex> lock(mu_);
      res.set_content(metrics_, "text/plain; version=0.0.4; charset=utf-8");
    });
    http_->Get("/api/v1/report", [this](const httplib::Request& req, httplib::Response& res) {
      if (!Authorized(req, res)) return;
      Report(req, res);
    });
    for (const char* path : {"/allocation", "/allocation/compute", "/model/allocation",
                             "/model/allocation/compute"}) {
      http_->Get(path, [this](const httplib::Request& req, httplib::Response& res) {
        if (!Authorized(req, res)) return;
        const ApiResponse r = OpenCostAllocation(
            s_.ledger,
            [&req](const char* name) {
              return req.has_param(name) ? req.get_param_value(name) : std::string();
            },
            std::chrono::time_point_cast<Duration>(std::chrono::system_clock::now()));
        res.status = r.status;
        res.set_content(r.body, "application/json");
      });
    }
  }

  Result<int> Bind(const std::string& host, int port) {
    const int bound = port == 0 ? http_->bind_to_any_port(host)
                                : (http_->bind_to_port(host, port) ? port : -1);
    if (bound <= 0) return Status::Unavailable(StrCat("cannot listen on ", host, ":", port));
    return bound;
  }

  Status Run() {
    if (s_.scrape) s_.scrape->Start();
    std::thread loop([this] { Loop(); });
    const bool ok = http_->listen_after_bind();
    stopping_http_ = true;
    StopLoop();
    loop.join();
    // A standby of the same clusters takes over at its next cycle rather than when the lease
    // runs out.
    if (writing_ && !clusters_.empty()) {
      const Status released = ledger_->ReleaseLease(Scope(Now()));
      if (!released.ok()) LogError(StrCat("gpucost serve: ", released.ToString()));
    }
    if (s_.scrape) s_.scrape->Stop();
    // The last cycle's series, delivered if the endpoint answers soon.
    if (remote_ && !remote_->Flush(std::chrono::seconds(5))) {
      LogError("gpucost serve: remote-write: stopped with series still queued");
    }
    return ok ? Status::Ok() : Status::Unavailable("the HTTP server stopped with an error");
  }

  void Stop() {
    StopLoop();
    while (!http_->is_running() && !stopping_http_) {
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    http_->stop();
  }

  bool Authorized(const httplib::Request& req, httplib::Response& res) const {
    if (s_.token.empty() || req.get_header_value("Authorization") == "Bearer " + s_.token) {
      return true;
    }
    res.status = 401;
    res.set_header("WWW-Authenticate", "Bearer");
    res.set_content("unauthorized\n", "text/plain");
    return false;
  }

  void StopLoop() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      stopping_ = true;
    }
    wake_.notify_all();
  }

  // The source's data for `w`; with --scrape, the spool's files for the window, read while no
  // scrape is appended to them.
  Result<LoadedInput> Load(Window w) {
    if (!s_.scrape) return LoadInput(source_, w, s_.step);
    GPUCOST_ASSIGN_OR_RETURN(Duration staleness, ParseDuration(source_.staleness));
    InputFlags in = source_;
    const auto lock = s_.scrape->ReadLock();
    // serve scrapes at its own interval, well within the staleness: the spool is read back
    // only that far (not SampleLookback's half hour, six times the parsing every cycle).
    GPUCOST_ASSIGN_OR_RETURN(in.inputs, s_.scrape->Files(w, staleness));
    if (in.inputs.empty()) return Status::InvalidArgument("no samples in the scrape spool yet");
    return LoadInput(in, w, s_.step);
  }

  // One chunk [start, end): attribute and write. `ledger_failed` tells a failed write (disk
  // full, permissions) from a failed source.
  //
  // A step without data (no record from the run, no sample in it) keeps what the ledger holds for
  // it: the source may no longer have what that came from. A run of such steps from where serve
  // stopped watching (unwatched_from_: a restart, a failed source or ledger) that data follows
  // again is a hole: once closed, each of its steps that holds nothing gets the holdings of the
  // step before, unmeasured (docs/serve.md, "Gaps").
  Status Attribute(Window w, Instant now, bool& ledger_failed) {
    ledger_failed = false;
    const size_t steps = static_cast<size_t>((w.end - w.start + s_.step - Duration(1)) / s_.step);
    std::vector<bool> data(steps, false);
    Result<LoadedInput> input = Load(w);
    if (!input.ok() && !NoData(input.status())) return input.status();
    HoleScan scan;
    if (input.ok()) {
      ReportSettings settings;
      settings.step = s_.step;
      settings.accumulate = true;
      GPUCOST_ASSIGN_OR_RETURN(settings.by, ParseDimensions("cluster"));
      ApplyInput(*input, settings);
      // A cluster that appears in the source is written (and its lease taken) from here on.
      for (std::string& c : ClustersOf(input->timeline.inventory)) {
        if (std::find(clusters_.begin(), clusters_.end(), c) == clusters_.end()) {
          LogInfo(StrCat("gpucost serve: the source has a new cluster, ", c, ", written from ",
                         FormatRfc3339(w.start)));
          clusters_.insert(std::upper_bound(clusters_.begin(), clusters_.end(), c), std::move(c));
        }
      }
      settings.prior_draws = FindDraws(input->timeline.inventory, draws_);
      ledger::LedgerSink sink(*ledger_, input->timeline.inventory, settings.window, settings.step);
      GPUCOST_ASSIGN_OR_RETURN(ReportRun run,
                               RunReport(input->timeline, s_.price, settings, &sink));
      draws_ = KeyDraws(input->timeline.inventory, run.summary.open_draws);
      data = sink.StepsWithRecords();
      data.resize(steps, false);
      for (size_t i = 0; i < steps; ++i) {
        const int64_t at = UnixMs(w.start + static_cast<int64_t>(i) * s_.step);
        data[i] = data[i] || input->timeline.sampled.Any(at, at + StepMs());
      }
      scan = ScanHoles(w.start, s_.step, data, hole_, unwatched_from_);
      ledger::WriteGaps keep{scan.keep, 0};
      const Status written = sink.Commit(&keep, Scope(now));
      ledger_failed = !written.ok();
      if (!written.ok()) return written;
    } else {
      scan = ScanHoles(w.start, s_.step, data, hole_, unwatched_from_);
    }
    for (const Window& hole : scan.carry) {
      ledger::WriteGaps carry{{{hole, true}}, 0};
      const Status written = ledger_->Write(Inventory{}, hole, s_.step, {}, &carry, Scope(now));
      ledger_failed = !written.ok();
      if (!written.ok()) return written;
      LogWarn(StrCat("gpucost serve: the source has no data from ", FormatRfc3339(hole.start),
                     " to ", FormatRfc3339(hole.end),
                     ", which serve did not watch: ", carry.carried_steps,
                     " steps were given the holdings of the step before, unmeasured"));
      std::lock_guard<std::mutex> lock(mu_);
      health_.gap_steps += carry.carried_steps;
    }
    hole_ = scan.pending;
    return Status::Ok();
  }

  int64_t StepMs() const {
    return std::chrono::duration_cast<std::chrono::milliseconds>(s_.step).count();
  }

  static Instant Now() {
    return std::chrono::time_point_cast<Duration>(std::chrono::system_clock::now());
  }

  ledger::WriteScope Scope(Instant now) const {
    ledger::WriteScope scope;
    scope.clusters = clusters_;
    scope.writer = writer_;
    scope.lease = s_.writer_lease;
    scope.now = now;
    return scope;
  }

  // At the first cycle, the clusters serve writes: those its source has over the last interval,
  // or where it starts (--from); --cluster when it has none yet (docs/serve.md, "Many
  // clusters"). Clusters that appear later are added as they do.
  Status LearnClusters(Instant end) {
    if (!clusters_.empty()) return Status::Ok();
    std::vector<Window> probes = {{end - s_.interval, end}};
    if (s_.from && *s_.from < end)
      probes.push_back({*s_.from, std::min(end, *s_.from + s_.max_chunk)});
    for (const Window& w : probes) {
      Result<LoadedInput> probe = Load(w);
      if (!probe.ok() && !NoData(probe.status())) return probe.status();
      if (probe.ok()) clusters_ = ClustersOf(probe->timeline.inventory);
      if (!clusters_.empty()) break;
    }
    if (clusters_.empty()) clusters_ = {s_.source.cluster};
    LogInfo(StrCat("gpucost serve: writing cluster", clusters_.size() == 1 ? " " : "s ",
                   Join(clusters_, ", "), " of ", s_.ledger, " as ", writer_));
    std::lock_guard<std::mutex> lock(mu_);
    health_.clusters = clusters_;
    return Status::Ok();
  }

  // Takes or renews the writer lease of serve's clusters: true while it holds it. A serve whose
  // clusters another serve writes is its standby: it answers from the ledger, writes nothing, and
  // takes over once the other stops renewing.
  bool HoldLease(Instant now) {
    Result<std::optional<ledger::ScopeState>> held = ledger_->TakeLease(Scope(now));
    if (held.ok() && *held && GoneFromThisHost((*held)->writer)) {
      // Its own predecessor, killed and restarted: no need to wait for its lease to run out.
      ledger::WriteScope scope = Scope(now);
      scope.replaces = (*held)->writer;
      LogInfo(StrCat("gpucost serve: taking over from ", scope.replaces,
                     ", which no longer runs on this host"));
      held = ledger_->TakeLease(scope);
    }
    if (!held.ok()) {
      LogError(StrCat("gpucost serve: ", held.status().ToString()));
      return false;
    }
    if (*held) {
      if (writing_ || !standing_by_) {
        LogInfo(StrCat("gpucost serve: standing by: cluster ", (*held)->cluster, " is written by ",
                       (*held)->writer, " until ", FormatRfc3339((*held)->lease_until),
                       "; this serve takes over if it stops"));
      }
      GoStandby();
      return false;
    }
    if (!writing_) {
      if (standing_by_) {
        LogInfo(StrCat("gpucost serve: took over writing ", Join(clusters_, ", ")));
      }
      writing_ = true;
      standing_by_ = false;
      resumed_ = false;  // where the writer before stopped
    }
    return true;
  }

  void GoStandby() {
    writing_ = false;
    standing_by_ = true;
    resumed_ = false;
    hole_.reset();
    unwatched_from_.reset();
  }

  // Once writing: resumes each cluster where its writer before stopped (a restart, a takeover),
  // and what came after was not watched.
  Status Resume() {
    if (resumed_) return Status::Ok();
    GPUCOST_ASSIGN_OR_RETURN(std::vector<ledger::ScopeState> scopes, ledger_->Scopes());
    std::optional<Instant> through;
    fresh_ = false;
    for (const std::string& cluster : clusters_) {
      std::optional<Instant> point;
      for (const ledger::ScopeState& scope : scopes) {
        if (scope.cluster != cluster) continue;
        point = scope.attributed_through;
        if (scope.newest_step && (!point || scope.newest_step->end > *point)) {
          point = scope.newest_step->end;
        }
      }
      if (!point) {
        fresh_ = true;  // new to the ledger: it starts at --from, or one interval ago
        continue;
      }
      through = through ? std::min(*through, *point) : point;
    }
    processed_ = through;
    unwatched_from_ = through;
    // The draws of the pods running where the run before stopped: they keep their units.
    Result<std::vector<KeyedDraw>> draws = ledger_->OpenDraws(clusters_);
    if (draws.ok()) {
      draws_ = std::move(*draws);
    } else {
      draws_.clear();
      LogError(StrCat("gpucost serve: ", draws.status().ToString(),
                      " (the pods running at the restart draw their units anew)"));
    }
    resumed_ = true;
    return Status::Ok();
  }

  // Attributes what is due at `now`; true when it caught up (or stands by).
  bool Cycle(Instant now) {
    const Instant end = AlignDown(now - s_.lag, s_.step);
    Status ready = LearnClusters(end);
    if (ready.ok() && !HoldLease(now)) {
      Refresh(now);
      return standing_by_;
    }
    if (ready.ok()) ready = Resume();
    if (!ready.ok()) {
      LogError(StrCat("gpucost serve: ", ready.ToString()));
      {
        std::lock_guard<std::mutex> lock(mu_);
        ++health_.source_errors;
      }
      Refresh(now);
      return false;
    }
    Instant start = end - s_.interval;
    if (processed_) start = *processed_ - s_.grace;
    if (!processed_ || fresh_) {
      const Instant first = s_.from ? *s_.from : end - s_.interval;
      start = processed_ ? std::min(start, first) : first;
    }
    if (s_.from && start < *s_.from) start = *s_.from;
    start = AlignDown(start, s_.step);
    bool caught_up = true;
    while (start < end) {
      const Instant chunk_end = std::min(end, start + s_.max_chunk);
      bool ledger_failed = false;
      const Status st = Attribute({start, chunk_end}, now, ledger_failed);
      if (st.code() == StatusCode::kFailedPrecondition) {
        // Another serve took the lease over (this one stalled past it): it writes from here.
        LogInfo(StrCat("gpucost serve: standing by: ", st.message()));
        GoStandby();
        Refresh(now);
        return true;
      }
      if (!st.ok()) {
        // Nothing of the chunk was kept (one transaction); the next cycle attributes it again.
        LogError(StrCat("gpucost serve: ", FormatRfc3339(start), " to ", FormatRfc3339(chunk_end),
                        ": ", ledger_failed ? "writing the ledger: " : "", st.ToString()));
        {
          std::lock_guard<std::mutex> lock(mu_);
          ++(ledger_failed ? health_.ledger_write_errors : health_.source_errors);
        }
        if (!unwatched_from_ && processed_) unwatched_from_ = processed_;
        caught_up = false;
        break;
      }
      processed_ = chunk_end;
      fresh_ = false;
      // A restart resumes here; while a hole is open, at its start, to find it again.
      const Status marked = ledger_->SetAttributedThrough(
          Scope(now), hole_ ? std::min(*hole_, chunk_end) : chunk_end, draws_);
      if (!marked.ok()) LogError(StrCat("gpucost serve: ", marked.ToString()));
      start = chunk_end;
      if (Stopping()) return false;
    }
    if (caught_up && !hole_) unwatched_from_.reset();
    // Roll up what no later cycle rewrites: everything before the next cycle's start, and before
    // the next cycle of every other live writer of the ledger (the serves of other clusters; one
    // whose lease ran out is not waited for), so that their writes do not roll up again what
    // this one rolled.
    if (processed_) {
      Instant before = *processed_ - s_.grace;
      Result<std::vector<ledger::ScopeState>> scopes = ledger_->Scopes();
      if (scopes.ok()) {
        for (const ledger::ScopeState& other : *scopes) {
          if (other.writer.empty() || other.writer == writer_ || other.lease_until <= now ||
              !other.attributed_through) {
            continue;
          }
          before = std::min(before, *other.attributed_through - s_.grace);
        }
      }
      Result<int64_t> sealed = ledger_->Seal(before);
      if (!sealed.ok()) LogError(StrCat("gpucost serve: ", sealed.status().ToString()));
    }
    if (s_.retention.count() > 0) {
      Result<int64_t> removed = ledger_->DeleteBefore(now - s_.retention);
      if (!removed.ok()) LogError(StrCat("gpucost serve: ", removed.status().ToString()));
    }
    Refresh(now);
    Publish(now);
    return caught_up;
  }

  bool Stopping() {
    std::lock_guard<std::mutex> lock(mu_);
    return stopping_;
  }

  // Month-to-date and forecast per budgeted team, as of the ledger's newest step (the formula of
  // `gpucost alerts`, docs/alerts.md).
  std::vector<TeamBudgetGauge> Budgets(const ledger::LedgerLatest& latest) {
    std::vector<TeamBudgetGauge> out;
    if (!s_.budgets || !latest.step_start) return out;
    Result<std::optional<Window>> span = ledger_->Span();
    if (!span.ok() || !*span) return out;
    const Instant as_of = *latest.step_start + latest.step;
    const Window month = alerts::MonthOf(as_of - Duration(1));
    const Instant data_start = (*span)->start;
    const Window rate = alerts::RateWindow(as_of, data_start, s_.forecast_lookback);
    Result<std::map<std::string, double>> mtd =
        ledger_->TeamCosts({std::max(month.start, data_start), as_of}, clusters_);
    Result<std::map<std::string, double>> recent = ledger_->TeamCosts(rate, clusters_);
    if (!mtd.ok() || !recent.ok()) return out;
    std::set<std::string> teams;
    for (const auto& [team, usd] : *mtd) teams.insert(team);
    for (const auto& [team, budget] : s_.budgets->budgets_usd) teams.insert(team);
    for (const std::string& team : teams) {
      const std::optional<double> budget = s_.budgets->For(team);
      if (!budget) continue;
      alerts::ForecastInput in;
      in.month = month;
      in.as_of = as_of;
      in.data_start = data_start;
      in.month_to_date_usd = mtd->count(team) ? mtd->at(team) : 0;
      in.recent_usd = recent->count(team) ? recent->at(team) : 0;
      in.lookback = s_.forecast_lookback;
      out.push_back({s_.source.cluster, team, *budget, in.month_to_date_usd,
                     alerts::Forecast(in).forecast_usd});
    }
    return out;
  }

  // /metrics: the series of serve's own clusters only, so that the serves of a shared ledger
  // export (and remote-write) each cluster once; none before it knows them.
  void Refresh(Instant now) {
    Result<ledger::LedgerTotals> totals = ledger::LedgerTotals{};
    Result<ledger::LedgerLatest> latest = ledger::LedgerLatest{};
    if (!clusters_.empty()) {
      totals = ledger_->Totals(clusters_);
      latest = ledger_->Latest(clusters_);
    }
    const std::vector<TeamBudgetGauge> budgets =
        latest.ok() ? Budgets(*latest) : std::vector<TeamBudgetGauge>();
    // SQLite: the file and its WAL; PostgreSQL: the ledger's tables.
    const Result<int64_t> size = ledger_->SizeBytes();
    const double bytes = size.ok() ? static_cast<double>(*size) : 0;
    std::lock_guard<std::mutex> lock(mu_);
    if (processed_) ++health_.cycles;
    health_.ledger_bytes = bytes;
    health_.writer = writer_;
    health_.clusters = clusters_;
    health_.writing = writing_;
    health_.lock_wait_seconds = std::chrono::duration<double>(ledger_->lock_wait()).count();
    health_.lag_seconds =
        processed_ ? std::chrono::duration<double>(now - *processed_).count() : 0;
    if (remote_) health_.remote_write = remote_->Stats();
    if (s_.scrape) health_.scrape = s_.scrape->Health();
    if (totals.ok() && latest.ok()) metrics_ = ServeMetricsText(*totals, *latest, budgets, health_);
  }

  // Queues what /metrics shows now for the remote-write endpoint.
  void Publish(Instant now) {
    if (!remote_) return;
    std::string text;
    {
      std::lock_guard<std::mutex> lock(mu_);
      text = metrics_;
    }
    Result<std::vector<promsource::WriteSeries>> series = SeriesOfExposition(text, UnixMs(now));
    const Status queued = series.ok() ? remote_->Enqueue(std::move(*series)) : series.status();
    if (!queued.ok()) LogError(StrCat("gpucost serve: remote-write: ", queued.ToString()));
  }

  void Loop() {
    // What the ledger already holds is served before the first cycle ends.
    Refresh(Now());
    while (!Stopping()) {
      const auto next = std::chrono::steady_clock::now() + s_.interval;
      const bool caught_up = Cycle(Now());
      {
        std::lock_guard<std::mutex> lock(mu_);
        ready_ = caught_up;
      }
      std::unique_lock<std::mutex> lock(mu_);
      wake_.wait_until(lock, next, [this] { return stopping_; });
    }
  }

  // /api/v1/report?window=START,END&by=team,workload&step=1h&accumulate=true: the report contract
  // of `gpucost report --format json`, from the ledger.
  void Report(const httplib::Request& req, httplib::Response& res) {
    const auto fail = [&res](int code, std::string_view message) {
      res.status = code;
      res.set_content(JsonErrorBody(message), "application/json");
    };
    const Result<ReportQuery> query =
        ParseReportQuery([&req](const std::string& name) -> std::optional<std::string> {
          if (!req.has_param(name)) return std::nullopt;
          return req.get_param_value(name);
        });
    if (!query.ok()) return fail(400, query.status().message());
    InputFlags in;
    in.ledger = s_.ledger;
    ReportSettings settings;
    settings.by = query->by;
    settings.accumulate = query->accumulate;
    in.ledger_rollups = query->rollups;
    // The fleet's, or ?cluster=a,b's: every cluster of the ledger, not only serve's.
    in.ledger_clusters = query->clusters;
    in.ledger_cache = &rollup_cache_;
    Result<LoadedInput> input = LoadInput(in, query->window, s_.step);
    if (!input.ok()) return fail(404, std::string(input.status().message()));
    ApplyInput(*input, settings);
    Result<ReportRun> run = RunReport(input->timeline, s_.price, settings);
    if (!run.ok()) return fail(500, std::string(run.status().message()));
    std::ostringstream out;
    RenderJson(run->report, out);
    res.set_content(out.str(), "application/json");
  }

  ServeOptions s_;
  std::unique_ptr<ledger::Ledger> ledger_;
  // Decoded roll-ups for the API: about a month of days of a 1,000-node cluster (~140 B a row).
  ledger::RollupCache rollup_cache_{2'000'000};
  InputFlags source_;
  std::unique_ptr<httplib::Server> http_;
  std::unique_ptr<promsource::RemoteWriter> remote_;  // null without --remote-write
  std::mutex mu_;
  std::condition_variable wake_;
  bool stopping_ = false;
  std::atomic<bool> stopping_http_{false};
  bool ready_ = false;
  std::optional<Instant> processed_;
  bool resumed_ = false;
  bool fresh_ = false;  // a cluster of serve's is new to the ledger: it starts at --from
  const std::string writer_ = WriterName();
  std::vector<std::string> clusters_;  // the clusters serve writes (LearnClusters), sorted
  bool writing_ = false;               // it holds their writer lease
  bool standing_by_ = false;           // another serve holds it
  // Where serve stopped attributing steps as they closed (a restart, a failed cycle); cleared once
  // caught up with no hole open.
  std::optional<Instant> unwatched_from_;
  std::optional<Instant> hole_;  // the start of a hole no data has closed yet
  // The pool draws of holdings running at the end of the last chunk attributed: the next chunk
  // places them on the same units, as one attribution of both would (docs/serve.md).
  std::vector<KeyedDraw> draws_;
  ServeHealth health_;
  std::string metrics_;
};


Status CheckTls(const ServeOptions& options) {
  if (options.tls_cert_file.empty() && options.tls_key_file.empty()) return Status::Ok();
  if (options.tls_cert_file.empty() || options.tls_key_file.empty()) {
    return Status::InvalidArgument("--tls-cert-file and --tls-key-file go together");
  }
  httplib::SSLServer https(options.tls_cert_file.c_str(), options.tls_key_file.c_str());
  if (!https.is_valid()) {
    return Status::InvalidArgument(
        StrCat(options.tls_cert_file, ", ", options.tls_key_file,
               ": cannot load the TLS certificate and its private key (PEM, matching)"));
  }
  return Status::Ok();
}

Result<std::unique_ptr<Server>> Server::Create(ServeOptions options,
                                               std::unique_ptr<ledger::Ledger> ledger) {
  GPUCOST_RETURN_IF_ERROR(CheckTls(options));
  std::unique_ptr<httplib::Server> http =
      options.tls_cert_file.empty()
          ? std::make_unique<httplib::Server>()
          : std::make_unique<httplib::SSLServer>(options.tls_cert_file.c_str(),
                                                 options.tls_key_file.c_str());
  std::unique_ptr<promsource::RemoteWriter> remote;
  if (!options.remote_write.url.empty()) {
    GPUCOST_ASSIGN_OR_RETURN(remote, promsource::RemoteWriter::Create(options.remote_write));
  }
  return std::unique_ptr<Server>(new Server(std::make_unique<Impl>(
      std::move(options), std::move(ledger), std::move(http), std::move(remote))));
}

Server::Server(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Server::~Server() = default;
Result<int> Server::Bind(const std::string& host, int port) { return impl_->Bind(host, port); }
Status Server::Run() { return impl_->Run(); }
void Server::Stop() { impl_->Stop(); }

}  // namespace gpucost::cli
