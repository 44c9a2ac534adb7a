// Secrets in the URIs a user gives — a PostgreSQL ledger's password (with an unescaped '@' too),
// a Prometheus, scrape target or remote-write URL's user:password@ and ?token= — never reach
// what gpucost prints. Each test plants one secret in every such URI, runs the commands that
// fail on them (a report of an empty ledger, a ledger it cannot reach, serve with a source and
// targets nobody answers, flags it refuses) and looks for the plant in stderr, the API's bodies,
// /metrics and /readyz.
#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "cli/cli_test_util.h"
#include "common/child_process.h"
#include "core/strings.h"
#include "ledger/ledger_test_util.h"
#include "ledger/serve_test_util.h"

namespace gpucost::ledger {
namespace {

using serve_test::Get;
using serve_test::Response;
using serve_test::ValueOf;
using serve_test::WaitFor;
using testing_util::ChildProcess;
using testing_util::FreePort;
using testing_util::RunResult;
using testing_util::RunShell;

// The plant, and the password with an unescaped '@' in it ("S3cr@tPlant"): no piece of either
// may show.
constexpr const char* kPlant = "S3cretPlant";
constexpr const char* kPieces[] = {"S3cr", "Plant"};

void ExpectNoPlant(const std::string& where, const std::string& text) {
  for (const char* piece : kPieces) {
    EXPECT_EQ(text.find(piece), std::string::npos) << where << " shows the secret:\n" << text;
  }
}

class SecretRedaction : public ::testing::Test {
 protected:
  void SetUp() override {
    // Skipped only where PostgreSQL is not installed; CI installs it.
    if (!testing_util::PostgresServer::Available()) GTEST_SKIP() << "no PostgreSQL binaries";
    std::string why;
    pg_ = SharedPostgres(&why);
    ASSERT_NE(pg_, nullptr) << why;
  }

  // A new, empty database, its URI with the plant as the password (trust authentication lets
  // any password in).
  std::string PlantedLedger(const std::string& name) {
    static int serial = 0;
    const std::string db = name + "_" + std::to_string(++serial);
    EXPECT_FALSE(pg_->CreateDatabase(db).empty()) << pg_->error();
    return StrCat("postgresql://postgres:", kPlant, "@127.0.0.1:", pg_->port(), "/", db);
  }

  // `gpucost serve ARGS` on a free port, stderr and stdout in serve.log.
  std::unique_ptr<ChildProcess> Serve(std::vector<std::string> args, int port) {
    args.insert(args.begin(), {kBinary, "serve"});
    for (const std::string& a :
         {std::string("--listen"), StrCat("127.0.0.1:", port), std::string("--interval"),
          std::string("1s"), std::string("--price-per-gpu-hour"), std::string("12")}) {
      args.push_back(a);
    }
    return std::make_unique<ChildProcess>(args, (dir_.path() / "serve.log").string());
  }

  // Polls /metrics until `series` (a name with its labels) counts at least one.
  static std::string MetricsOnceCounted(const std::string& base, const std::string& series) {
    std::string metrics;
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    while (std::chrono::steady_clock::now() < deadline) {
      metrics = Get(base + "/metrics").body;
      if (ValueOf(metrics, series) >= 1) break;
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    return metrics;
  }

  testing_util::TempDir dir_;
  testing_util::PostgresServer* pg_ = nullptr;
};

TEST_F(SecretRedaction, AReportOfAnEmptyOrUnreachableLedgerHidesItsPassword) {
  const std::string ledger = PlantedLedger("empty");
  const std::string window = "--window 2020-11-26T00:00:00Z,2020-11-26T01:00:00Z";
  const RunResult empty =
      RunShell(StrCat(kBinary, " report --ledger '", ledger, "' ", window, " 2>&1"));
  EXPECT_EQ(empty.exit_code, 2) << empty.output;
  EXPECT_TRUE(testing_util::Contains(empty.output, "no cost records")) << empty.output;
  ExpectNoPlant("report of an empty ledger", empty.output);

  // libpq ends the user information at the first '@', and names the rest as the host.
  const std::string at = StrCat("postgresql://postgres:S3cr@tPlant@127.0.0.1:", pg_->port(), "/x");
  const RunResult unreachable =
      RunShell(StrCat(kBinary, " report --ledger '", at, "' ", window, " 2>&1"));
  EXPECT_EQ(unreachable.exit_code, 2) << unreachable.output;
  EXPECT_TRUE(testing_util::Contains(unreachable.output, "cannot connect")) << unreachable.output;
  ExpectNoPlant("report of a ledger it cannot reach", unreachable.output);

  const RunResult info = RunShell(StrCat(kBinary, " ledger info '", ledger, "' 2>&1"));
  EXPECT_EQ(info.exit_code, 0) << info.output;
  ExpectNoPlant("ledger info", info.output);
}

TEST_F(SecretRedaction, ServeWithASourceNobodyAnswersHidesEveryPassword) {
  const std::string ledger = PlantedLedger("prometheus");
  const int port = FreePort();
  const std::string base = StrCat("http://127.0.0.1:", port);
  const std::string prometheus =
      StrCat("http://reader:", kPlant, "@127.0.0.1:", FreePort(), "/?token=", kPlant);
  auto serve = Serve({"--ledger", ledger, "--prometheus", prometheus}, port);
  ASSERT_TRUE(WaitFor(base + "/healthz", 200, std::chrono::seconds(30))) << serve->Log();
  // A failed cycle has been logged (after the client's retries) and counted.
  const std::string metrics =
      MetricsOnceCounted(base, "gpucost_scrape_errors_total{target=\"source\"}");
  EXPECT_GE(ValueOf(metrics, "gpucost_scrape_errors_total{target=\"source\"}"), 1) << metrics;
  ExpectNoPlant("/metrics", metrics);
  const Response ready = Get(base + "/readyz");
  EXPECT_EQ(ready.status, 503);
  ExpectNoPlant("/readyz", ready.body);
  const Response report =
      Get(base + "/api/v1/report?window=2020-11-26T00:00:00Z,2020-11-26T01:00:00Z");
  EXPECT_GE(report.status, 400) << report.body;
  EXPECT_TRUE(testing_util::Contains(report.body, "no cost records")) << report.body;
  ExpectNoPlant("/api/v1/report", report.body);
  // Without a window, a ledger that holds nothing yet is not "unavailable or damaged", and not
  // an error in the log.
  const Response whole = Get(base + "/api/v1/report?by=namespace");
  EXPECT_EQ(whole.status, 503) << whole.body;
  EXPECT_TRUE(testing_util::Contains(whole.body, "holds no cost records yet")) << whole.body;
  EXPECT_FALSE(testing_util::Contains(whole.body, "damaged")) << whole.body;
  const Response allocation =
      Get(base + "/allocation?window=2020-11-26T00:00:00Z,2020-11-26T01:00:00Z");
  ExpectNoPlant("/allocation", allocation.body);
  EXPECT_EQ(serve->Terminate(), 0);
  const std::string log = serve->Log();
  EXPECT_TRUE(testing_util::Contains(log, "127.0.0.1")) << log;  // the URLs are still named
  EXPECT_FALSE(testing_util::Contains(log, "holds no cost records")) << log;
  ExpectNoPlant("serve's stderr", log);
}

TEST_F(SecretRedaction, ServeScrapingTargetsNobodyAnswersHidesEveryPassword) {
  const std::string ledger = PlantedLedger("scrape");
  const int port = FreePort();
  const std::string base = StrCat("http://127.0.0.1:", port);
  const std::string target =
      StrCat("http://scraper:", kPlant, "@127.0.0.1:", FreePort(), "/metrics?token=", kPlant);
  const std::string remote_write = StrCat("http://writer:", kPlant, "@127.0.0.1:", FreePort(),
                                          "/api/v1/write?access_token=", kPlant);
  auto serve =
      Serve({"--ledger", ledger, "--scrape", "dcgm=" + target, "--scrape-interval", "1s",
             "--scrape-spool", (dir_.path() / "spool").string(), "--remote-write", remote_write},
            port);
  ASSERT_TRUE(WaitFor(base + "/healthz", 200, std::chrono::seconds(30))) << serve->Log();
  // The target's failed scrape is in /metrics, labelled with its URL.
  std::string metrics;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (std::chrono::steady_clock::now() < deadline &&
         metrics.find("gpucost_scrape_up{job=\"dcgm\"") == std::string::npos) {
    metrics = Get(base + "/metrics").body;
    if (metrics.find("gpucost_scrape_up{job=\"dcgm\"") == std::string::npos) {
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
  }
  EXPECT_TRUE(testing_util::Contains(metrics, "gpucost_scrape_up{job=\"dcgm\"")) << metrics;
  ExpectNoPlant("/metrics", metrics);
  const Response report =
      Get(base + "/api/v1/report?window=2020-11-26T00:00:00Z,2020-11-26T01:00:00Z");
  EXPECT_GE(report.status, 400) << report.body;
  ExpectNoPlant("/api/v1/report", report.body);
  ExpectNoPlant("/readyz", Get(base + "/readyz").body);
  EXPECT_EQ(serve->Terminate(), 0);
  const std::string log = serve->Log();
  EXPECT_TRUE(testing_util::Contains(log, "scrape of ")) << log;
  ExpectNoPlant("serve's stderr", log);
}

TEST_F(SecretRedaction, RefusedFlagsHideEveryPassword) {
  const std::string ledger = PlantedLedger("flags");
  const std::string target =
      StrCat("http://scraper:", kPlant, "@127.0.0.1:9100/metrics?token=", kPlant);
  const std::string checked =
      StrCat(" --scrape-spool ", (dir_.path() / "spool").string(), " --check-config");
  const struct {
    std::string args;
    std::string says;
  } refused[] = {
      // Refused when the writer starts (after the ledger opens), not by --check-config.
      {StrCat("--prometheus http://x --listen 127.0.0.1:0 --remote-write 'ftp://writer:", kPlant,
              "@127.0.0.1/api/v1/write?token=", kPlant, "'"),
       "is not http:// or https://"},
      {StrCat("--scrape '", target, "' --scrape '", target, "'", checked), "is given twice"},
      {StrCat("--scrape 'http://scraper:", kPlant, "@127.0.0.1:port/metrics?token=", kPlant, "'",
              checked),
       "is not a number"},
      // An unescaped '/' in the password ends the authority early: "S3cr" would be the port.
      {StrCat("--scrape 'http://scraper:S3cr/tPlant@127.0.0.1:9100/metrics'", checked),
       "is not a number"},
  };
  for (const auto& r : refused) {
    const RunResult run =
        RunShell(StrCat(kBinary, " serve --ledger '", ledger, "' ", r.args, " 2>&1"));
    EXPECT_EQ(run.exit_code, 2) << r.says << "\n" << run.output;
    EXPECT_TRUE(testing_util::Contains(run.output, r.says)) << r.says << "\n" << run.output;
    ExpectNoPlant(r.says, run.output);
  }
}

}  // namespace
}  // namespace gpucost::ledger
