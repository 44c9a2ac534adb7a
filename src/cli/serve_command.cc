// `gpucost serve`: keeps a cost ledger current and serves it (docs/serve.md). Every --interval it
// attributes the closed steps since the ledger's last one (re-attributing the last --grace for
// late data; writes are idempotent) from the configured source, in chunks of at most
// --max-chunk, and answers /metrics, /api/v1/report, /healthz and /readyz over HTTP.
#include <httplib.h>
#include <signal.h>

#include <atomic>
#include <condition_variable>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <mutex>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <thread>

#include "alerts/budgets.h"
#include "cli/commands.h"
#include "cli/stop_signals.h"
#include "cli/input_flags.h"
#include "cli/opencost_api.h"
#include "cli/price_flags.h"
#include "cli/report_pipeline.h"
#include "cli/serve_metrics.h"
#include "core/files.h"
#include "core/listen_address.h"
#include "core/log.h"
#include "core/strings.h"
#include "ledger/ledger.h"
#include "pricing/price_fn.h"
#include "report/render.h"

namespace gpucost::cli {
namespace {

struct ServeFlags {
  InputFlags input;  // input.ledger is the ledger serve writes
  PriceOptions price;
  std::string listen = "127.0.0.1:9464";
  std::string interval = "1m";
  std::string step = "60s";
  std::string lag = "2m";
  std::string grace = "10m";
  std::string max_chunk = "6h";
  std::string from;
  std::string token_file;
  std::string budgets;
  std::string forecast_lookback = "7d";
};

struct Settings {
  Duration interval{0}, step{0}, lag{0}, grace{0}, max_chunk{0};
  std::optional<Instant> from;
  std::string token;
  std::optional<alerts::BudgetFile> budgets;
  Duration forecast_lookback{0};
};

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

class Server {
 public:
  Server(const ServeFlags& flags, Settings settings, PriceFn price,
         std::unique_ptr<ledger::Ledger> l)
      : flags_(flags), s_(std::move(settings)), price_(std::move(price)), ledger_(std::move(l)) {
    source_ = flags_.input;
    source_.ledger.clear();
    http_.new_task_queue = [] { return new httplib::ThreadPool(2); };
    http_.Get("/healthz", [](const httplib::Request&, httplib::Response& res) {
      res.set_content("ok\n", "text/plain");
    });
    http_.Get("/readyz", [this](const httplib::Request&, httplib::Response& res) {
      std::lock_guard<std::mutex> lock(mu_);
      res.status = ready_ ? 200 : 503;
      res.set_content(ready_ ? "ready\n" : "catching up\n", "text/plain");
    });
    http_.Get("/metrics", [this](const httplib::Request& req, httplib::Response& res) {
      if (!Authorized(req, res)) return;
      std::lock_guard<std::mutex> lock(mu_);
      res.set_content(metrics_, "text/plain; version=0.0.4; charset=utf-8");
    });
    http_.Get("/api/v1/report", [this](const httplib::Request& req, httplib::Response& res) {
      if (!Authorized(req, res)) return;
      Report(req, res);
    });
    for (const char* path : {"/allocation", "/allocation/compute", "/model/allocation",
                             "/model/allocation/compute"}) {
      http_.Get(path, [this](const httplib::Request& req, httplib::Response& res) {
        if (!Authorized(req, res)) return;
        const ApiResponse r = OpenCostAllocation(
            flags_.input.ledger,
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
    const int bound = port == 0 ? http_.bind_to_any_port(host)
                                : (http_.bind_to_port(host, port) ? port : -1);
    if (bound <= 0) return Status::Unavailable(StrCat("cannot listen on ", host, ":", port));
    return bound;
  }

  Status Run() {
    std::thread loop([this] { Loop(); });
    const bool ok = http_.listen_after_bind();
    stopping_http_ = true;
    StopLoop();
    loop.join();
    return ok ? Status::Ok() : Status::Unavailable("the HTTP server stopped with an error");
  }

  void Stop() {
    StopLoop();
    while (!http_.is_running() && !stopping_http_) {
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    http_.stop();
  }

 private:
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

  // One chunk [start, end): attribute and write. Ok with nothing written when the source has no
  // data for it.
  Status Attribute(Window w) {
    ReportSettings settings;
    settings.step = s_.step;
    settings.accumulate = true;
    GPUCOST_ASSIGN_OR_RETURN(settings.by, ParseDimensions("cluster"));
    Result<LoadedInput> input = LoadInput(source_, w, s_.step);
    if (!input.ok()) return NoData(input.status()) ? Status::Ok() : input.status();
    ApplyInput(*input, settings);
    ledger::LedgerSink sink(*ledger_, input->timeline.inventory, settings.window, settings.step);
    GPUCOST_ASSIGN_OR_RETURN(ReportRun run, RunReport(input->timeline, price_, settings, &sink));
    (void)run;
    return sink.Commit();
  }

  // Attributes what is due at `now`; true when it caught up.
  bool Cycle(Instant now) {
    const Instant end = AlignDown(now - s_.lag, s_.step);
    Instant start = end - s_.interval;
    Result<ledger::LedgerInfo> info = ledger_->Info();
    std::optional<Instant> resume = processed_;
    if (info.ok() && info->span && (!resume || info->span->end > *resume)) resume = info->span->end;
    if (resume) {
      start = *resume - s_.grace;
    } else if (s_.from) {
      start = *s_.from;
    }
    if (s_.from && start < *s_.from) start = *s_.from;
    start = AlignDown(start, s_.step);
    bool caught_up = true;
    while (start < end) {
      const Instant chunk_end = std::min(end, start + s_.max_chunk);
      const Status st = Attribute({start, chunk_end});
      if (!st.ok()) {
        LogError(StrCat("gpucost serve: ", FormatRfc3339(start), " to ", FormatRfc3339(chunk_end),
                        ": ", st.ToString()));
        std::lock_guard<std::mutex> lock(mu_);
        ++health_.source_errors;
        caught_up = false;
        break;
      }
      processed_ = chunk_end;
      start = chunk_end;
      if (Stopping()) return false;
    }
    Refresh(now);
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
    Result<ledger::LedgerInfo> info = ledger_->Info();
    if (!info.ok() || !info->span) return out;
    const Instant as_of = *latest.step_start + latest.step;
    const Window month = alerts::MonthOf(as_of - Duration(1));
    const Instant data_start = info->span->start;
    const Window rate = alerts::RateWindow(as_of, data_start, s_.forecast_lookback);
    Result<std::map<std::string, double>> mtd =
        ledger_->TeamCosts({std::max(month.start, data_start), as_of});
    Result<std::map<std::string, double>> recent = ledger_->TeamCosts(rate);
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
      out.push_back({flags_.input.cluster, team, *budget, in.month_to_date_usd,
                     alerts::Forecast(in).forecast_usd});
    }
    return out;
  }

  void Refresh(Instant now) {
    Result<ledger::LedgerTotals> totals = ledger_->Totals();
    Result<ledger::LedgerLatest> latest = ledger_->Latest();
    const std::vector<TeamBudgetGauge> budgets =
        latest.ok() ? Budgets(*latest) : std::vector<TeamBudgetGauge>();
    std::error_code ec;
    double bytes = 0;
    for (const char* suffix : {"", "-wal"}) {
      const auto size = std::filesystem::file_size(ledger_->path() + suffix, ec);
      if (!ec) bytes += static_cast<double>(size);
    }
    std::lock_guard<std::mutex> lock(mu_);
    if (processed_) ++health_.cycles;
    health_.ledger_bytes = bytes;
    health_.lag_seconds =
        processed_ ? std::chrono::duration<double>(now - *processed_).count() : 0;
    if (totals.ok() && latest.ok()) metrics_ = ServeMetricsText(*totals, *latest, budgets, health_);
  }

  void Loop() {
    // What the ledger already holds is served before the first cycle ends.
    Refresh(std::chrono::time_point_cast<Duration>(std::chrono::system_clock::now()));
    while (!Stopping()) {
      const auto next = std::chrono::steady_clock::now() + s_.interval;
      const bool caught_up = Cycle(std::chrono::time_point_cast<Duration>(
          std::chrono::system_clock::now()));
      if (caught_up) {
        std::lock_guard<std::mutex> lock(mu_);
        ready_ = true;
      }
      std::unique_lock<std::mutex> lock(mu_);
      wake_.wait_until(lock, next, [this] { return stopping_; });
    }
  }

  // /api/v1/report?window=START,END&by=team,workload&step=1h&accumulate=true: the report contract
  // of `gpucost report --format json`, from the ledger.
  void Report(const httplib::Request& req, httplib::Response& res) {
    const auto fail = [&res](int code, const std::string& message) {
      res.status = code;
      res.set_content(StrCat("{\"error\": \"", message, "\"}\n"), "application/json");
    };
    InputFlags in;
    in.ledger = flags_.input.ledger;
    std::optional<Window> window;
    if (req.has_param("window")) {
      Result<Window> w = ParseWindow(req.get_param_value("window"));
      if (!w.ok()) return fail(400, std::string(w.status().message()));
      window = *w;
    }
    ReportSettings settings;
    const std::string by = req.has_param("by") ? req.get_param_value("by") : "namespace";
    Result<std::vector<Dimension>> dims = ParseDimensions(by);
    if (!dims.ok()) return fail(400, std::string(dims.status().message()));
    settings.by = *dims;
    settings.accumulate = req.get_param_value("accumulate") != "false";
    Result<LoadedInput> input = LoadInput(in, window, s_.step);
    if (!input.ok()) return fail(404, std::string(input.status().message()));
    ApplyInput(*input, settings);
    Result<ReportRun> run = RunReport(input->timeline, price_, settings);
    if (!run.ok()) return fail(500, std::string(run.status().message()));
    std::ostringstream out;
    RenderJson(run->report, out);
    res.set_content(out.str(), "application/json");
  }

  const ServeFlags& flags_;
  Settings s_;
  PriceFn price_;
  std::unique_ptr<ledger::Ledger> ledger_;
  InputFlags source_;
  httplib::Server http_;
  std::mutex mu_;
  std::condition_variable wake_;
  bool stopping_ = false;
  std::atomic<bool> stopping_http_{false};
  bool ready_ = false;
  std::optional<Instant> processed_;
  ServeHealth health_;
  std::string metrics_;
};

Result<Settings> Parse(const ServeFlags& f) {
  Settings s;
  const auto positive = [](std::string_view flag, const std::string& text) -> Result<Duration> {
    Result<Duration> d = ParseDuration(text);
    if (!d.ok() || d->count() <= 0) {
      return Status::InvalidArgument(StrCat(flag, " \"", text, "\": a positive duration (1m)"));
    }
    return *d;
  };
  GPUCOST_ASSIGN_OR_RETURN(s.interval, positive("--interval", f.interval));
  GPUCOST_ASSIGN_OR_RETURN(s.step, positive("--step", f.step));
  GPUCOST_ASSIGN_OR_RETURN(s.max_chunk, positive("--max-chunk", f.max_chunk));
  GPUCOST_ASSIGN_OR_RETURN(s.lag, ParseDuration(f.lag));
  GPUCOST_ASSIGN_OR_RETURN(s.grace, ParseDuration(f.grace));
  if (s.max_chunk < s.step) return Status::InvalidArgument("--max-chunk is shorter than --step");
  if (!f.from.empty()) {
    GPUCOST_ASSIGN_OR_RETURN(s.from, ParseInstant(f.from));
  }
  if (!f.token_file.empty()) {
    GPUCOST_ASSIGN_OR_RETURN(std::string token, ReadWholeFile(f.token_file));
    s.token = std::string(Trim(token));
    if (s.token.empty()) return Status::InvalidArgument(StrCat(f.token_file, ": empty token"));
  }
  if (f.input.ledger.empty()) return Status::InvalidArgument("--ledger FILE: the ledger to keep");
  if (!f.budgets.empty()) {
    GPUCOST_ASSIGN_OR_RETURN(s.budgets, alerts::LoadBudgets(f.budgets));
  }
  GPUCOST_ASSIGN_OR_RETURN(s.forecast_lookback,
                           positive("--forecast-lookback", f.forecast_lookback));
  return s;
}

int Serve(const ServeFlags& f) {
  Result<Settings> settings = Parse(f);
  Result<PriceFn> price = settings.ok() ? MakePriceFn(f.price) : Result<PriceFn>(settings.status());
  Result<std::pair<std::string, int>> address = ParseListenAddress(f.listen);
  if (!settings.ok() || !price.ok() || !address.ok()) {
    LogError(!settings.ok() ? settings.status().ToString()
             : !price.ok()  ? price.status().ToString()
                            : address.status().ToString());
    return 2;
  }
  Result<std::unique_ptr<ledger::Ledger>> l = ledger::Ledger::Open(f.input.ledger);
  if (!l.ok()) {
    LogError(l.status().ToString());
    return 2;
  }
  BlockStopSignals();
  Server server(f, *settings, *price, std::move(*l));
  Result<int> port = server.Bind(address->first, address->second);
  if (!port.ok()) {
    LogError(port.status().ToString());
    return 2;
  }
  std::printf("gpucost serve: http://%s:%d (/metrics, /api/v1/report, /healthz, /readyz), "
              "ledger %s\n",
              address->first.c_str(), *port, f.input.ledger.c_str());
  std::fflush(stdout);
  const Status run =
      RunUntilStopSignal([&server] { return server.Run(); }, [&server] { server.Stop(); });
  if (!run.ok()) LogError(run.ToString());
  return run.ok() ? 0 : 1;
}

}  // namespace

void AddServeCommand(CLI::App& app, int& exit_code) {
  auto f = std::make_shared<ServeFlags>();
  CLI::App* cmd = app.add_subcommand(
      "serve",
      "Keep a cost ledger current from a source (Prometheus, files, the Kubernetes API) and serve "
      "/metrics, /api/v1/report, /healthz and /readyz");
  cmd->add_option("--listen", f->listen, "HOST:PORT for HTTP (port 0: any free port)")
      ->capture_default_str();
  cmd->add_option("--interval", f->interval, "How often to attribute what is new")
      ->capture_default_str();
  cmd->add_option("--step", f->step, "Attribution step")->capture_default_str();
  cmd->add_option("--lag", f->lag, "Steps closer to now than this wait for their data")
      ->capture_default_str();
  cmd->add_option("--grace", f->grace,
                  "Each cycle attributes this much again, for late data (writes replace)")
      ->capture_default_str();
  cmd->add_option("--max-chunk", f->max_chunk, "Most time attributed in one piece when catching up")
      ->capture_default_str();
  cmd->add_option(
      "--from", f->from,
      "Where a new ledger starts (RFC 3339 or unix seconds; default: one interval ago)");
  cmd->add_option("--token-file", f->token_file,
                  "Require 'Authorization: Bearer TOKEN' (the file's content) on /metrics and "
                  "/api");
  cmd->add_option("--budgets", f->budgets,
                  "YAML file of monthly team budgets (as for gpucost alerts): exports each team's "
                  "budget, month-to-date cost and month-end forecast");
  cmd->add_option("--forecast-lookback", f->forecast_lookback,
                  "The forecast's run rate is the cost of this long")
      ->capture_default_str();
  AddInputFlags(*cmd, f->input);
  AddPriceFlags(*cmd, f->price);
  AddTimelineFlags(*cmd, f->input);
  cmd->footer(
      "--ledger FILE is the ledger serve writes (created when missing); the other input flags "
      "name its source. Stops on SIGINT/SIGTERM. Exit status: 0 when stopped, 2 on bad flags.");
  cmd->callback([f, &exit_code] { exit_code = Serve(*f); });
}

}  // namespace gpucost::cli
