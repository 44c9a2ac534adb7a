// `gpucost serve`: keeps a cost ledger current and serves it (docs/serve.md, the settings in
// docs/config.md). The flags, or a YAML file of them (--config), are validated here before
// anything starts; the work is serve::Server's (serve/serve_server.h).
#include <cstdio>
#include <memory>
#include <optional>
#include <string>

#include "alerts/budgets.h"
#include "cli/commands.h"
#include "cli/config_file.h"
#include "cli/input_flags.h"
#include "cli/price_flags.h"
#include "cli/remote_write_flags.h"
#include "cli/scrape_flags.h"
#include "cli/stop_signals.h"
#include "core/files.h"
#include "core/listen_address.h"
#include "core/log.h"
#include "core/strings.h"
#include "ledger/ledger.h"
#include "pricing/price_book.h"
#include "serve/serve_server.h"

namespace gpucost::cli {
namespace {

struct ServeFlags {
  std::string config;
  bool check_config = false;
  bool read_only = false;
  InputFlags input;  // input.ledger is the ledger serve writes
  PriceOptions price;
  std::string listen = "127.0.0.1:9464";
  std::string tls_cert_file;
  std::string tls_key_file;
  std::string token_file;
  std::string path_prefix;
  std::string interval = "1m";
  std::string step = "60s";
  std::string lag = "2m";
  std::string grace = "auto";
  std::string max_chunk = "6h";
  std::string from;
  std::string retention = "0s";
  std::string writer_lease = "auto";
  std::string budgets;
  std::string forecast_lookback = "7d";
  RemoteWriteFlags remote_write;
  ScrapeFlags scrape;
};

Result<serve::ServeOptions> Parse(const ServeFlags& f) {
  serve::ServeOptions s;
  const auto positive = [](std::string_view flag, const std::string& text) -> Result<Duration> {
    Result<Duration> d = ParseDuration(text);
    if (!d.ok() || d->count() <= 0) {
      return Status::InvalidArgument(StrCat(flag, " \"", text, "\": a positive duration (1m)"));
    }
    return *d;
  };
  const auto non_negative = [](std::string_view flag,
                               const std::string& text) -> Result<Duration> {
    Result<Duration> d = ParseDuration(text);
    if (!d.ok() || d->count() < 0) {
      return Status::InvalidArgument(StrCat(flag, " \"", text, "\": a duration (10m, 0s)"));
    }
    return *d;
  };
  GPUCOST_ASSIGN_OR_RETURN(s.interval, positive("--interval", f.interval));
  GPUCOST_ASSIGN_OR_RETURN(s.step, positive("--step", f.step));
  GPUCOST_ASSIGN_OR_RETURN(s.max_chunk, positive("--max-chunk", f.max_chunk));
  GPUCOST_ASSIGN_OR_RETURN(s.lag, non_negative("--lag", f.lag));
  // A store can receive samples late (remote-write queues, federation); serve's own scrapes are
  // in the spool before the steps they cover close (--lag), so they need no grace.
  if (f.grace == "auto") {
    s.grace = f.scrape.wanted() ? Duration(0) : Duration(std::chrono::minutes(10));
  } else {
    GPUCOST_ASSIGN_OR_RETURN(s.grace, non_negative("--grace", f.grace));
  }
  GPUCOST_ASSIGN_OR_RETURN(s.retention, non_negative("--retention", f.retention));
  if (s.retention.count() > 0 && s.retention <= s.grace + s.lag) {
    return Status::InvalidArgument("--retention must be longer than --grace + --lag");
  }
  if (s.max_chunk < s.step) return Status::InvalidArgument("--max-chunk is shorter than --step");
  if (f.writer_lease == "auto") {
    s.writer_lease = std::max<Duration>(3 * s.interval, std::chrono::seconds(30));
  } else {
    GPUCOST_ASSIGN_OR_RETURN(s.writer_lease, positive("--writer-lease", f.writer_lease));
    if (s.writer_lease <= s.interval) {
      return Status::InvalidArgument(
          "--writer-lease must be longer than --interval: the writer renews it every cycle");
    }
  }
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
  s.tls_cert_file = f.tls_cert_file;
  s.tls_key_file = f.tls_key_file;
  GPUCOST_RETURN_IF_ERROR(serve::CheckTls(s));
  s.path_prefix = f.path_prefix;
  GPUCOST_RETURN_IF_ERROR(serve::CheckPathPrefix(s.path_prefix));
  GPUCOST_ASSIGN_OR_RETURN(s.remote_write, RemoteWriterOptionsOf(f.remote_write));
  s.source = f.input;
  s.source.ledger.clear();
  s.read_only = f.read_only;
  const bool has_source = !f.input.inputs.empty() || !f.input.prometheus.empty() ||
                          !f.input.slurm_sacct.empty() || f.input.slurm || f.input.kube.any() ||
                          f.scrape.wanted();
  if (!has_source && !f.read_only) {
    return Status::InvalidArgument(
        "serve attributes from a source: --prometheus URL, --input FILE, --scrape, --kube or "
        "--slurm; or --read-only to serve the ledger's API without attributing");
  }
  if (has_source && f.read_only) {
    return Status::InvalidArgument("--read-only attributes nothing: leave out the source flags");
  }
  if (f.scrape.wanted()) {
    if (!f.input.prometheus.empty() || !f.input.inputs.empty()) {
      return Status::InvalidArgument(
          "--scrape and --scrape-endpoints are the source: leave out --prometheus and --input");
    }
    GPUCOST_ASSIGN_OR_RETURN(s.scrape,
                             serve::ScrapeSource::Create(f.scrape, f.input.kube, f.input.ledger));
  }
  s.ledger = f.input.ledger;
  GPUCOST_ASSIGN_OR_RETURN(s.price_book, MakePriceBook(f.price));
  s.price = PriceBook::AsPriceFn(s.price_book);
  return s;
}

// Errors are bad flags or configuration (exit 2); otherwise the exit status once stopped.
Result<int> Serve(const ServeFlags& f) {
  GPUCOST_ASSIGN_OR_RETURN(serve::ServeOptions options, Parse(f));
  GPUCOST_ASSIGN_OR_RETURN(auto address, ParseListenAddress(f.listen));
  if (!IsLoopbackHost(address.first)) {
    if (options.token.empty()) {
      LogWarn(StrCat("gpucost serve: listening on ", address.first,
                     " without --token-file: whoever reaches it reads every team's costs"));
    } else if (options.tls_cert_file.empty()) {
      LogWarn(StrCat("gpucost serve: listening on ", address.first,
                     " without --tls-cert-file: the bearer token crosses the network in clear"));
    }
  }
  if (f.check_config) {
    std::printf("gpucost serve: the configuration is valid\n");
    return 0;
  }
  // A read-only server reads a ledger another writes: none there is an error, not a new one.
  GPUCOST_ASSIGN_OR_RETURN(std::unique_ptr<ledger::Ledger> l,
                           f.read_only ? ledger::Ledger::OpenExisting(f.input.ledger)
                                       : ledger::Ledger::Open(f.input.ledger));
  const std::string ledger_name = l->path();  // a password in a URI masked
  const bool tls = !options.tls_cert_file.empty();
  const std::string prefix = options.path_prefix;
  // Before any thread starts (the remote-write sender does in Create), so that every thread
  // inherits the mask and SIGTERM reaches the waiting one only.
  BlockStopSignals();
  GPUCOST_ASSIGN_OR_RETURN(std::unique_ptr<serve::Server> server,
                           serve::Server::Create(std::move(options), std::move(l)));
  GPUCOST_ASSIGN_OR_RETURN(int port, server->Bind(address.first, address.second));
  std::printf("gpucost serve: %s://%s:%d (/metrics, /api/v1/report, /healthz, /readyz), "
              "ledger %s\n",
              tls ? "https" : "http", address.first.c_str(), port, ledger_name.c_str());
  std::printf("gpucost serve: the web UI at %s://%s:%d%s/\n", tls ? "https" : "http",
              address.first.c_str(), port, prefix.c_str());
  std::fflush(stdout);
  const Status run =
      RunUntilStopSignal([&server] { return server->Run(); }, [&server] { server->Stop(); });
  if (!run.ok()) LogError(run.ToString());
  return run.ok() ? 0 : 1;
}

// Puts the options added since `before` in `group` (--help and docs/config.md sections).
void Group(CLI::App& cmd, size_t before, const std::string& group) {
  const std::vector<CLI::Option*> options = cmd.get_options();
  for (size_t i = before; i < options.size(); ++i) options[i]->group(group);
}

}  // namespace

void AddServeCommand(CLI::App& app, int& exit_code) {
  auto f = std::make_shared<ServeFlags>();
  CLI::App* cmd = app.add_subcommand(
      "serve",
      "Keep a cost ledger current from a source (Prometheus, files, the Kubernetes API) and serve "
      "a web UI, /metrics, /api/v1/report, /healthz and /readyz");
  AddConfigFileOption(*cmd, f->config);
  cmd->add_flag("--check-config", f->check_config,
                "Validate the flags and the configuration file, then exit")
      ->configurable(false);
  cmd->add_flag("--read-only", f->read_only,
                "Serve the ledger's API and gauges without attributing (no source): a replica "
                "for readers beside the serve that writes");
  size_t before = cmd->get_options().size();
  cmd->add_option("--listen", f->listen, "HOST:PORT for HTTP (port 0: any free port)")
      ->capture_default_str();
  cmd->add_option("--tls-cert-file", f->tls_cert_file,
                  "PEM certificate (chain) to serve HTTPS with; needs --tls-key-file");
  cmd->add_option("--tls-key-file", f->tls_key_file, "PEM private key of --tls-cert-file");
  cmd->add_option("--token-file", f->token_file,
                  "Require 'Authorization: Bearer TOKEN' (the file's content) on /metrics and "
                  "/api");
  cmd->add_option("--path-prefix", f->path_prefix,
                  "Also answer every path (the web UI, the API, /metrics, the probes) under this "
                  "prefix, e.g. /gpucost, for an ingress that does not strip it");
  Group(*cmd, before, "Server");
  before = cmd->get_options().size();
  cmd->add_option("--interval", f->interval, "How often to attribute what is new")
      ->capture_default_str();
  cmd->add_option("--step", f->step, "Attribution step")->capture_default_str();
  cmd->add_option("--lag", f->lag, "Steps closer to now than this wait for their data")
      ->capture_default_str();
  cmd->add_option("--grace", f->grace,
                  "Each cycle attributes this much again, for late data (writes replace); auto: "
                  "10m from a store, 0s when serve scrapes the exporters itself")
      ->capture_default_str();
  cmd->add_option("--max-chunk", f->max_chunk, "Most time attributed in one piece when catching up")
      ->capture_default_str();
  cmd->add_option(
      "--from", f->from,
      "Where a new ledger starts (RFC 3339 or unix seconds; default: one interval ago)");
  cmd->add_option("--retention", f->retention,
                  "Remove cost records older than this (90d), with their roll-ups and the pods, "
                  "GPUs and nodes no record names any more; the /metrics counters keep what they "
                  "counted. 0s: keep everything")
      ->capture_default_str();
  cmd->add_option("--writer-lease", f->writer_lease,
                  "How long a standby serve of the same cluster waits for this one to renew its "
                  "lease before it takes over writing (docs/serve.md); auto: 3 intervals, at "
                  "least 30s")
      ->capture_default_str();
  cmd->add_option("--budgets", f->budgets,
                  "YAML file of monthly team budgets (as for gpucost alerts): exports each team's "
                  "budget, month-to-date cost and month-end forecast");
  cmd->add_option("--forecast-lookback", f->forecast_lookback,
                  "The forecast's run rate is the cost of this long")
      ->capture_default_str();
  Group(*cmd, before, "Attribution loop");
  before = cmd->get_options().size();
  AddRemoteWriteFlags(*cmd, f->remote_write);
  Group(*cmd, before, "Remote-write");
  before = cmd->get_options().size();
  AddInputFlags(*cmd, f->input);
  // report's words for these do not fit serve, which writes the ledger and reads the source
  // each cycle.
  cmd->get_option("--ledger")
      ->description(
          "The ledger serve keeps and answers from: a SQLite file (created when missing) or a "
          "postgresql:// URI (docs/ledger.md)");
  cmd->get_option("--prometheus")
      ->description(
          "Read the series from this Prometheus-compatible HTTP API every cycle, e.g. "
          "http://prometheus:9090");
  Group(*cmd, before, "Source and ledger");
  before = cmd->get_options().size();
  AddScrapeFlags(*cmd, f->scrape);
  Group(*cmd, before, "Scrape");
  before = cmd->get_options().size();
  AddPriceFlags(*cmd, f->price);
  Group(*cmd, before, "Prices");
  before = cmd->get_options().size();
  AddTimelineFlags(*cmd, f->input);
  Group(*cmd, before, "Timeline");
  cmd->footer(
      "--ledger is the ledger serve writes; the other source flags name where usage and "
      "inventory come from (--read-only: none). Stops on SIGINT/SIGTERM, within 5 s. Exit "
      "status: 0 when stopped, 2 on bad flags or configuration.");
  cmd->callback([cmd, f, &exit_code] {
    ConfigOrigins origins;
    const Status config = ApplyConfigFile(*cmd, f->config, &origins);
    const Result<int> served = config.ok() ? Serve(*f) : Result<int>(config);
    // A value refused once the flags are read names the file's line when the file gave it.
    if (!served.ok()) LogError(origins.Locate(served.status()).ToString());
    exit_code = served.ok() ? *served : 2;
  });
}

}  // namespace gpucost::cli
