#include "serve/serve_server.h"

#include <httplib.h>
#include <malloc.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <filesystem>
#include <mutex>
#include <thread>

#include "core/http_workers.h"
#include "core/log.h"
#include "core/strings.h"
#include "ledger/ledger_types.h"
#include "ledger/rollup_cache.h"
#include "report/report_query.h"
#include "serve/api_errors.h"
#include "serve/api_turns.h"
#include "serve/ledger_api.h"
#include "serve/opencost_api.h"
#include "serve/serve_metrics.h"
#include "serve/serve_writer.h"
#include "serve/ui_api.h"
#include "serve/ui_assets.h"

namespace gpucost::serve {

struct Server::Impl {
  Impl(ServeOptions options, std::unique_ptr<ledger::Ledger> l,
       std::unique_ptr<httplib::Server> http, std::unique_ptr<promsource::RemoteWriter> remote)
      : s_(std::move(options)),
        ledger_(std::move(l)),
        http_(std::move(http)),
        remote_(std::move(remote)) {
    ServeHttpSafely(*http_, kHttpMaxConnections, &listen_fd_);
    AnswerServerErrors(*http_);
    Get("/healthz", [](const httplib::Request&, httplib::Response& res) {
      res.set_content("ok\n", "text/plain");
    });
    Get("/readyz", [this](const httplib::Request&, httplib::Response& res) {
      std::lock_guard<std::mutex> lock(mu_);
      const bool ready = ready_ && checked_ && damage_.ok();
      res.status = ready ? 200 : 503;
      // A standby serves the ledger's reads as the writer does.
      std::string text = !damage_.ok()     ? "the ledger is damaged: see the server's log"
                         : !checked_       ? "checking the ledger"
                         : !ready_         ? "catching up"
                         : health_.writing ? "ready"
                         : s_.read_only    ? "ready (read-only)"
                                           : "ready (standby)";
      // Ready all the same: the web UI loads and says why it shows nothing.
      if (ready && ledger_empty_) text += "; the ledger holds no cost records yet";
      res.set_content(text + "\n", "text/plain");
    });
    Get("/metrics", [this](const httplib::Request& req, httplib::Response& res) {
      if (!Authorized(req, res)) return;
      std::lock_guard<std::mutex> lock(mu_);
      res.set_content(metrics_, "text/plain; version=0.0.4; charset=utf-8");
    });
    // The JSON APIs (each waits for its turn, api_turns.h); /api/v1/ledger is what the web UI
    // reads besides the others, a few rows.
    using Request = httplib::Request;
    Api("/api/v1/report", kReportParams,
        [this](const Request& q) { return ReportJson(s_, Params(q), &rollup_cache_); });
    Get("/api/v1/ledger", [this](const Request& req, httplib::Response& res) {
      if (!Authorized(req, res) || RefuseWhileDamaged(res)) return;
      Answer(res, LedgerInfoJson(s_.ledger));
    });
    Api("/api/v1/alerts", kAlertsParams,
        [this](const Request& q) { return AlertsJson(s_, Params(q)); });
    Api("/api/v1/recommendations", kRecommendationsParams,
        [this](const Request& q) { return RecommendationsJson(s_, Params(q)); });
    Api("/api/v1/fleet", kFleetParams, [this](const Request& q) {
      return FleetJson(s_.ledger, SplitList(q.get_param_value("cluster")));
    });
    // The web UI's files, without a token: they hold no data, and the page asks for the token.
    for (const UiAsset& asset : UiAssets()) {
      const auto answer = [&asset](const httplib::Request&, httplib::Response& res) {
        res.set_header("Cache-Control", "no-cache");
        res.set_header("X-Content-Type-Options", "nosniff");
        res.set_header("Content-Security-Policy",
                       "default-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' "
                       "data: blob:; frame-ancestors 'none'");
        res.set_content(asset.body.data(), asset.body.size(), std::string(asset.content_type));
      };
      Get(std::string(asset.path), answer);
      if (asset.path == "/index.html") Get("/", answer);
    }
    if (!s_.path_prefix.empty()) {  // the page's relative URLs need the slash
      http_->Get(s_.path_prefix, [this](const httplib::Request&, httplib::Response& res) {
        res.set_redirect(s_.path_prefix + "/");
      });
    }
    // OpenCost's allocation API, and the OpenCost UI's filter suggestions.
    using OpenCostApi = ApiResponse (*)(const std::string&,
                                        const std::function<std::string(const char*)>&, Instant);
    const auto opencost = [this](const char* path, OpenCostApi api) {
      Get(
          path,
          [this, path, api](const httplib::Request& req, httplib::Response& res) {
            if (!Authorized(req, res) || RefuseWhileDamaged(res)) return;
            const ApiResponse r = api(
                s_.ledger,
                [&req](const char* name) {
                  return req.has_param(name) ? req.get_param_value(name) : std::string();
                },
                std::chrono::time_point_cast<Duration>(std::chrono::system_clock::now()));
            if (r.cause == StatusCode::kDataLoss) {
              NoteDamage(Status::DataLoss(StrCat(path, " read a damaged ledger")));
            }
            res.status = r.status;
            res.set_content(r.body, "application/json");
          },
          true);
    };
    for (const char* path :
         {"/allocation", "/allocation/compute", "/model/allocation", "/model/allocation/compute"}) {
      opencost(path, &OpenCostAllocation);
    }
    for (const char* path : {"/allocation/autocomplete", "/model/allocation/autocomplete"}) {
      opencost(path, &OpenCostAutocomplete);
    }
  }

  // Routes `path` at the root and under the path prefix; an `api` answer waits for its turn
  // (api_turns.h), once its token is checked, and with `known` parameters any other is a 400.
  void Get(const std::string& path, httplib::Server::Handler handler, bool api = false,
           std::span<const std::string_view> known = {}) {
    if (api) {
      handler = [this, known, inner = std::move(handler)](const httplib::Request& q,
                                                          httplib::Response& r) {
        if (!Authorized(q, r)) return;
        if (const std::string problem = ParamProblem(q, known); !problem.empty()) {
          r.status = 400;
          r.set_content(JsonErrorBody(problem), "application/json");
          return;
        }
        turns_.Run(r, [&] { inner(q, r); });
      };
    }
    if (!s_.path_prefix.empty()) http_->Get(s_.path_prefix + path, handler);
    http_->Get(path, std::move(handler));
  }

  // A JSON API at `path` that takes the `known` parameters: its token checked, a turn taken,
  // refused while the ledger is damaged.
  void Api(const std::string& path, std::span<const std::string_view> known,
           std::function<Result<std::string>(const httplib::Request&)> answer) {
    Get(
        path,
        [this, answer = std::move(answer)](const httplib::Request& req, httplib::Response& res) {
          if (!RefuseWhileDamaged(res)) Answer(res, answer(req));
        },
        true, known);
  }

  // A JSON body, or the failure as api_errors.h says.
  void Answer(httplib::Response& res, const Result<std::string>& body) {
    if (!body.ok()) return Fail(res, body.status());
    res.set_content(*body, "application/json");
  }

  Result<int> Bind(const std::string& host, int port) {
    const int bound =
        port == 0 ? http_->bind_to_any_port(host) : (http_->bind_to_port(host, port) ? port : -1);
    if (bound <= 0) return Status::Unavailable(StrCat("cannot listen on ", host, ":", port));
    WidenAcceptQueue(listen_fd_);
    return bound;
  }

  Status Run() {
    if (s_.scrape) s_.scrape->Start();
    std::thread loop([this] {
      // Attributing yields the CPU to the HTTP threads: probes answer while a catch-up runs on
      // every core (a nice of 10 weighs about a tenth of a default thread).
      (void)::setpriority(PRIO_PROCESS, static_cast<id_t>(::gettid()), 10);
      Loop();
    });
    const bool ok = http_->listen_after_bind();
    stopping_http_ = true;
    StopLoop();
    loop.join();
    // A standby of the same clusters takes over at its next cycle rather than when the lease
    // runs out.
    writer_.Release(Now());
    if (s_.scrape) s_.scrape->Stop();
    // The last cycle's series, delivered if the endpoint answers soon.
    if (remote_ && !remote_->Flush(std::chrono::seconds(3))) {
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

  // From the first damage found on (a check, a read, a write), serve answers no numbers and
  // writes nothing: the ledger needs repair (docs/ledger.md, "A damaged ledger").
  void NoteDamage(const Status& s) {
    if (s.code() != StatusCode::kDataLoss) return;
    std::lock_guard<std::mutex> lock(mu_);
    if (!damage_.ok()) return;
    damage_ = s;
    LogError(StrCat("gpucost serve: ", s.message(),
                    ": serving no numbers and writing nothing until the ledger is repaired"));
  }
  bool Damaged() {
    std::lock_guard<std::mutex> lock(mu_);
    return !damage_.ok();
  }
  bool RefuseWhileDamaged(httplib::Response& res) {
    if (!Damaged()) return false;
    res.status = 503;
    res.set_content(JsonErrorBody("the ledger is damaged: see the server's log"),
                    "application/json");
    return true;
  }

  // The ledger's storage, checked before serve is ready (SQLite reads every page: seconds a
  // gigabyte); reads and writes check what they touch from then on.
  void CheckLedger() {
    Result<ledger::LedgerCheck> check = ledger_->Check(/*whole=*/false);
    if (!check.ok()) {
      NoteDamage(check.status());
      if (check.status().code() != StatusCode::kDataLoss) {
        LogError(StrCat("gpucost serve: checking the ledger: ", check.status().ToString()));
      }
    } else if (!check->problems.empty()) {
      NoteDamage(Status::DataLoss(StrCat(ledger_->path(),
                                         ": the ledger is damaged: ", Join(check->problems, "; "),
                                         " (docs/ledger.md, \"A damaged ledger\")")));
    }
    std::lock_guard<std::mutex> lock(mu_);
    checked_ = true;
  }

  bool Authorized(const httplib::Request& req, httplib::Response& res) const {
    if (s_.token.empty() || TokenIs(req.get_header_value("Authorization"), s_.token)) return true;
    res.status = 401;
    res.set_header("WWW-Authenticate", "Bearer");
    res.set_content(JsonErrorBody("a bearer token is needed (Authorization: Bearer TOKEN)"),
                    "application/json");
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
  static Instant Now() {
    return std::chrono::time_point_cast<Duration>(std::chrono::system_clock::now());
  }

  bool Stopping() {
    std::lock_guard<std::mutex> lock(mu_);
    return stopping_;
  }

  // /metrics: the series of serve's own clusters only, so that the serves of a shared ledger
  // export (and remote-write) each cluster once; none before it knows them.
  void Refresh(Instant now) {
    Result<ledger::LedgerTotals> totals = ledger::LedgerTotals{};
    Result<ledger::LedgerLatest> latest = ledger::LedgerLatest{};
    std::vector<std::string> clusters = writer_.clusters();
    Result<std::vector<ledger::ScopeState>> scopes = ledger_->Scopes();
    // /readyz says so while no step is written: the API has nothing to answer yet.
    const bool empty = scopes.ok() && std::ranges::none_of(*scopes, [](const auto& scope) {
                         return scope.newest_step.has_value();
                       });
    if (s_.read_only && scopes.ok()) {  // what no serve exports: a ledger filled by `ledger write`
      clusters = UnwrittenClusters(*scopes, now);
    }
    NoteDamage(writer_.damage());
    const bool damaged = Damaged();
    // A damaged ledger's money is not exported: its health is.
    if (!clusters.empty() && !damaged) {
      totals = ledger_->Totals(clusters);
      latest = ledger_->Latest(clusters);
      NoteDamage(totals.status());
      NoteDamage(latest.status());
    }
    const std::vector<TeamBudgetGauge> budgets =
        latest.ok() && s_.budgets ? TeamBudgetGauges(*ledger_, *s_.budgets, s_.forecast_lookback,
                                                     s_.source.cluster, *latest, clusters)
                                  : std::vector<TeamBudgetGauge>();
    // SQLite: the file and its WAL; PostgreSQL: the ledger's tables.
    const Result<int64_t> size = ledger_->SizeBytes();
    const double bytes = size.ok() ? static_cast<double>(*size) : 0;
    std::optional<uint64_t> ledger_free;
    if (!s_.ledger.starts_with("postgres://") && !s_.ledger.starts_with("postgresql://")) {
      std::error_code ec;
      const std::filesystem::space_info space = std::filesystem::space(s_.ledger, ec);
      if (!ec) ledger_free = space.available;
    }
    std::lock_guard<std::mutex> lock(mu_);
    ledger_empty_ = empty;
    const std::optional<Instant>& processed = writer_.processed();
    if (processed) ++health_.cycles;
    const ServeWriter::Counts& counts = writer_.counts();
    health_.source_errors = counts.source_errors;
    health_.ledger_write_errors = counts.ledger_write_errors;
    health_.gap_steps = counts.gap_steps;
    health_.api_busy = turns_.refused();
    health_.ledger_bytes = bytes;
    health_.ledger_damaged = !damage_.ok();
    health_.ledger_free_bytes = ledger_free;
    health_.writer = writer_.name();
    health_.clusters = writer_.clusters();
    health_.writing = writer_.writing();
    health_.kube_kinds = writer_.kube_kinds();
    health_.lock_wait_seconds = std::chrono::duration<double>(ledger_->lock_wait()).count();
    // Before its first chunk, a catch-up lags by all it has to attribute.
    const std::optional<Instant> behind =
        processed ? processed : (writer_.writing() ? s_.from : std::nullopt);
    health_.lag_seconds =
        behind ? std::max(0.0, std::chrono::duration<double>(now - *behind).count()) : 0;
    if (remote_) health_.remote_write = remote_->Stats();
    if (s_.scrape) health_.scrape = s_.scrape->Health();
    if (totals.ok() && latest.ok()) {
      metrics_ = ServeMetricsText(*totals, *latest, budgets, health_);
    } else if (health_.ledger_damaged) {
      metrics_ = ServeMetricsText({}, {}, {}, health_);
    }
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
    CheckLedger();
    // What the ledger already holds is served before the first cycle ends.
    Refresh(Now());
    while (!Stopping()) {
      const auto next = std::chrono::steady_clock::now() + s_.interval;
      const Instant now = Now();
      // --read-only: the API and the ledger's gauges, nothing attributed; nothing is written
      // into a damaged ledger.
      const ServeWriter::Outcome outcome = s_.read_only || Damaged()
                                               ? ServeWriter::Outcome{true, false}
                                               : writer_.Cycle(now, [this] { return Stopping(); });
      Refresh(now);
      malloc_trim(0);  // glibc keeps what a cycle or a client (a flood of headers) freed
      if (outcome.completed) Publish(now);
      {
        std::lock_guard<std::mutex> lock(mu_);
        ready_ = outcome.caught_up;
      }
      std::unique_lock<std::mutex> lock(mu_);
      wake_.wait_until(lock, next, [this] { return stopping_; });
    }
  }

  // Answers a failed API request (api_errors.h), logging what the client is not told.
  void Fail(httplib::Response& res, const Status& s) {
    NoteDamage(s);
    const ApiError e = ApiErrorOf(s, s_.ledger);
    if (e.status >= 500 && !ledger::IsEmptyLedger(s)) {
      LogError(StrCat("gpucost serve: ", s.ToString()));
    }
    res.status = e.status;
    res.set_content(JsonErrorBody(e.message), "application/json");
  }

  // The request's query parameters, as the API functions read them.
  static QueryParam Params(const httplib::Request& req) {
    return [&req](const std::string& name) -> std::optional<std::string> {
      if (!req.has_param(name)) return std::nullopt;
      return req.get_param_value(name);
    };
  }

  ServeOptions s_;
  std::unique_ptr<ledger::Ledger> ledger_;
  // Decoded roll-ups for the API: about a month of days of a 1,000-node cluster (~140 B a row).
  ledger::RollupCache rollup_cache_{2'000'000};
  ApiTurns turns_{ApiTurnsAtOnce(), std::chrono::seconds(30)};
  std::unique_ptr<httplib::Server> http_;
  int listen_fd_ = -1;                                // http_'s, once bound
  std::unique_ptr<promsource::RemoteWriter> remote_;  // null without --remote-write
  std::mutex mu_;
  std::condition_variable wake_;
  bool stopping_ = false;
  std::atomic<bool> stopping_http_{false};
  bool ready_ = false;
  bool checked_ = false;              // the ledger's storage was checked (CheckLedger)
  bool ledger_empty_ = false;         // no step written yet, as of the latest Refresh
  Status damage_;                     // the first damage found; OK while none was
  ServeWriter writer_{s_, *ledger_};  // after s_ and ledger_
  ServeHealth health_;
  std::string metrics_;
};

Status CheckPathPrefix(const std::string& prefix) {
  if (prefix.empty()) return Status::Ok();
  bool segment_start = true;
  for (size_t i = 0; i < prefix.size(); ++i) {
    const char c = prefix[i];
    if (c == '/') {
      if (segment_start && i > 0) break;  // "//"
      segment_start = true;
      continue;
    }
    if (i == 0) break;
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                    c == '-' || c == '_' || c == '~';
    if (!ok) break;
    segment_start = false;
    if (i + 1 == prefix.size()) return Status::Ok();
  }
  return Status::InvalidArgument(StrCat(
      "--path-prefix \"", prefix,
      "\": \"/NAME\" or \"/NAME/NAME\" (letters, digits, '-', '_', '~'), no trailing slash"));
}

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
  GPUCOST_RETURN_IF_ERROR(CheckPathPrefix(options.path_prefix));
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

}  // namespace gpucost::serve
