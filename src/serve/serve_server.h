// The server behind `gpucost serve` (docs/serve.md): a loop that every interval attributes the
// closed steps since the ledger's last one (re-attributing the last `grace` for late data; ledger
// writes are idempotent) in chunks of at most `max_chunk`, and an HTTP(S) server answering
// the web UI at / (serve/ui_assets.h), /metrics, /api/v1/report, /api/v1/ledger, /api/v1/fleet,
// /api/v1/alerts, OpenCost's /allocation, /healthz and /readyz from the ledger. With a remote-write
// endpoint, every cycle also queues the /metrics series for it.
//
//   GPUCOST_ASSIGN_OR_RETURN(auto server, Server::Create(std::move(options), std::move(ledger)));
//   GPUCOST_ASSIGN_OR_RETURN(int port, server->Bind("127.0.0.1", 0));
//   std::thread t([&] { server->Run(); });  ... server->Stop(); t.join();
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "alerts/budgets.h"
#include "core/result.h"
#include "core/time.h"
#include "ledger/ledger.h"
#include "pipeline/input.h"
#include "pricing/price_fn.h"
#include "promsource/remote_write.h"
#include "serve/scrape_source.h"

namespace gpucost::serve {

struct ServeOptions {
  InputOptions source;  // where usage and inventory come from (its ledger field is unused)
  std::string ledger;   // the ledger target, for the API's reads (shown as Ledger::path())
  PriceFn price;
  // The book `price` reads (the recommendations' spot rates); null: spot rates are unknown.
  std::shared_ptr<const PriceBook> price_book;
  Duration interval{0}, step{0}, lag{0}, grace{0}, max_chunk{0};
  std::optional<Instant> from;  // where a new ledger starts; nullopt: one interval ago
  Duration retention{0};        // records older than this are removed; 0: kept forever
  // How long the writer lease of serve's clusters lasts unless renewed: a standby serve of the
  // same clusters takes over writing after it runs out (docs/serve.md, "Many clusters").
  Duration writer_lease{std::chrono::seconds(30)};
  bool read_only = false;  // serve the ledger's API and gauges; attribute nothing
  std::string token;       // required bearer token; empty: none
  // Every path is answered under this prefix as well ("/gpucost": /gpucost/, /gpucost/api/...),
  // for an ingress that does not strip it; empty: at the root only (CheckPathPrefix's form).
  std::string path_prefix;
  std::optional<alerts::BudgetFile> budgets;
  Duration forecast_lookback{0};
  std::string tls_cert_file;  // PEM; with tls_key_file the server speaks HTTPS only
  std::string tls_key_file;
  promsource::RemoteWriterOptions remote_write;  // url empty: no remote-write
  // With --scrape: the source is the scrape spool (its files replace source.inputs).
  std::shared_ptr<ScrapeSource> scrape;
};

// A path prefix is "" or "/" followed by segments of letters, digits, '-', '_' and '~'
// separated by single slashes, without a trailing slash ("/gpucost", "/tools/gpucost").
Status CheckPathPrefix(const std::string& prefix);

// Whether the TLS settings can serve: both files or neither, a certificate and its key.
Status CheckTls(const ServeOptions& options);

class Server {
 public:
  // Fails when the TLS certificate or key cannot be loaded.
  static Result<std::unique_ptr<Server>> Create(ServeOptions options,
                                                std::unique_ptr<ledger::Ledger> ledger);
  ~Server();
  Server(const Server&) = delete;
  Server& operator=(const Server&) = delete;

  // Binds `host`:`port` (0: any free port) and gives the port.
  Result<int> Bind(const std::string& host, int port);
  // Serves and runs the loop until Stop().
  Status Run();
  // Thread-safe; returns once the HTTP server is stopping.
  void Stop();

 private:
  struct Impl;
  explicit Server(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace gpucost::serve
