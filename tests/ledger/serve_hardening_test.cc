// `gpucost serve` next to clients that misbehave (docs/serve.md, "Operating"): slow and idle
// sockets do not hold back /healthz or /metrics, API errors are JSON with the status that says
// whose fault it is and nothing of where the ledger lives, windows far beyond the ledger cost
// what the ledger holds, the bearer scheme is read in any case, a serve without a source
// must say it only reads, and a damaged ledger is neither served nor reported from.
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sqlite3.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

#include "cli/cli_test_util.h"
#include "common/child_process.h"
#include "core/strings.h"
#include "ledger/ledger.h"
#include "ledger/serve_test_util.h"
#include "promsource/http_transport.h"

namespace gpucost {
namespace {

using serve_test::ConnectLoopback;
using serve_test::Get;
using serve_test::Response;
using serve_test::WaitFor;
using testing_util::ChildProcess;
using testing_util::FreePort;
using testing_util::RunResult;
using testing_util::RunShell;
using testing_util::TempDir;

// The demo cluster's hour (2026-10-01T00:00Z on, 60 s steps) in a SQLite ledger, served
// read-only.
class ServeHardening : public ::testing::Test {
 protected:
  void SetUp() override {
    ledger_ = (dir_.path() / "costs.db").string();
    const std::string input = (dir_.path() / "demo.om").string();
    ASSERT_EQ(RunShell(kBinary + " demo --write-openmetrics " + input).exit_code, 0);
    const RunResult wrote = RunShell(kBinary + " ledger write " + ledger_ + " --input " + input +
                                     " --price-per-gpu-hour 12 2>&1");
    ASSERT_EQ(wrote.exit_code, 0) << wrote.output;
  }

  std::unique_ptr<ChildProcess> Start(int port, const std::vector<std::string>& extra = {}) {
    std::vector<std::string> args = {kBinary, "serve",       "--ledger",
                                     ledger_, "--read-only", "--price-per-gpu-hour",
                                     "12",    "--listen",    "127.0.0.1:" + std::to_string(port)};
    args.insert(args.end(), extra.begin(), extra.end());
    auto serve = std::make_unique<ChildProcess>(args, (dir_.path() / "serve.log").string());
    base_ = "http://127.0.0.1:" + std::to_string(port);
    return serve;
  }

  // A GET that must answer with a JSON error: its status, and its message.
  std::pair<int, std::string> Error(const std::string& path) {
    const Response r = Get(base_ + path);
    const nlohmann::json body = nlohmann::json::parse(r.body, nullptr, false);
    // serve's {"error": …}, or OpenCost's {"code": …, "message": …} on its paths.
    EXPECT_TRUE(body.is_object() && (body.contains("error") || body.contains("message")))
        << path << ": " << r.body;
    // Nothing of where the ledger lives.
    EXPECT_EQ(r.body.find(dir_.path().string()), std::string::npos) << path << ": " << r.body;
    EXPECT_EQ(r.body.find("costs.db"), std::string::npos) << path << ": " << r.body;
    return {r.status, body.is_object() ? body.value("error", body.value("message", "")) : ""};
  }

  TempDir dir_;
  std::string ledger_;
  std::string base_;
};

TEST_F(ServeHardening, SlowAndIdleSocketsDoNotHoldBackTheProbes) {
  const int port = FreePort();
  auto serve = Start(port);
  ASSERT_TRUE(WaitFor(base_ + "/readyz", 200, std::chrono::seconds(60))) << serve->Log();
  // 100 sockets that never send a byte and 100 that stop inside their request's headers.
  std::vector<int> sockets;
  for (int i = 0; i < 200; ++i) {
    const int fd = ConnectLoopback(port);
    ASSERT_GE(fd, 0) << i;
    if (i % 2 == 1) {
      const std::string part = "GET /healthz HTTP/1.1\r\nHost: x\r\n";
      ASSERT_EQ(::send(fd, part.data(), part.size(), 0), static_cast<ssize_t>(part.size()));
    }
    sockets.push_back(fd);
  }
  // With a fixed pool of two threads, these waited for the slow sockets' read timeouts (5 s and
  // more each); each has a thread now.
  double slowest = 0;
  for (int i = 0; i < 10; ++i) {
    for (const char* path : {"/healthz", "/metrics"}) {
      const auto start = std::chrono::steady_clock::now();
      EXPECT_EQ(Get(base_ + path).status, 200) << path;
      slowest = std::max(
          slowest, std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    }
  }
  for (int fd : sockets) ::close(fd);
  EXPECT_LT(slowest, 1.0) << "the slowest probe took " << slowest << " s";
  std::printf("slowest of 20 probes beside 200 slow and idle sockets: %.1f ms\n", slowest * 1e3);
}

TEST_F(ServeHardening, ErrorsAreJsonWithTheirStatusAndNoPaths) {
  const int port = FreePort();
  auto serve = Start(port);
  ASSERT_TRUE(WaitFor(base_ + "/readyz", 200, std::chrono::seconds(60))) << serve->Log();
  // Bad parameters: 400, the input quoted as JSON (the quote in it escaped), not echoed raw.
  auto [status, message] = Error("/api/v1/report?window=%22garbage%22");
  EXPECT_EQ(status, 400);
  EXPECT_NE(message.find("window"), std::string::npos) << message;
  EXPECT_EQ(Error("/api/v1/report?by=nonsense").first, 400);
  EXPECT_EQ(Error("/api/v1/report?accumulate=maybe").first, 400);
  EXPECT_EQ(Error("/api/v1/report?rollups=perhaps").first, 400);
  // A parameter given twice: which did the client mean? Refused, not the first taken.
  std::tie(status, message) = Error("/api/v1/report?by=namespace&by=pod");
  EXPECT_EQ(status, 400);
  EXPECT_EQ(message, "by is given more than once");
  // A parameter the path does not read: a misspelt cluster= would answer for the whole fleet.
  std::tie(status, message) = Error("/api/v1/report?clusters=east");
  EXPECT_EQ(status, 400);
  EXPECT_EQ(message,
            "unknown parameter clusters: this path takes window, by, accumulate, rollups, step, "
            "cluster");
  EXPECT_EQ(Error("/api/v1/report?by=team&idle=proportional").first, 400);
  EXPECT_EQ(Error("/api/v1/alerts?by=team").first, 400);
  EXPECT_EQ(Error("/api/v1/recommendations?teams=a").first, 400);
  EXPECT_EQ(Error("/api/v1/fleet?window=x").first, 400);
  EXPECT_EQ(Get(base_ + "/api/v1/report?by=team&cluster=&step=1h&accumulate=false").status, 200);
  // A window that starts between the ledger's steps: the client's to fix, not "not found".
  std::tie(status, message) =
      Error("/api/v1/report?window=2026-10-01T00:00:30Z,2026-10-01T00:30:00Z");
  EXPECT_EQ(status, 400);
  EXPECT_NE(message.find("the ledger"), std::string::npos) << message;
  // A window that ends inside a step with more after it: refused, not costed past its end.
  std::tie(status, message) =
      Error("/api/v1/report?window=2026-10-01T00:00:00Z,2026-10-01T00:05:01Z");
  EXPECT_EQ(status, 400);
  EXPECT_NE(message.find("ends inside the step"), std::string::npos) << message;
  // 404 is for paths only, and says which paths there are.
  std::tie(status, message) = Error("/api/v1/nothing");
  EXPECT_EQ(status, 404);
  EXPECT_NE(message.find("no GET /api/v1/nothing here: the API is GET /api/v1/report"),
            std::string::npos)
      << message;

  // The ledger damaged under it: 503, still JSON, no path.
  {
    std::ofstream scribble(ledger_, std::ios::binary | std::ios::trunc);
    scribble << std::string(8192, 'x');
  }
  std::filesystem::remove(ledger_ + "-wal");
  std::filesystem::remove(ledger_ + "-shm");
  std::tie(status, message) = Error("/api/v1/report");
  EXPECT_EQ(status, 503) << message;
  std::tie(status, message) = Error("/allocation?window=2026-10-01T00:00:00Z,2026-10-01T01:00:00Z");
  EXPECT_EQ(status, 503) << message;
}

// Sends `request` on a new connection and gives all the server wrote back until it closed.
std::string Exchange(int port, const std::string& request) {
  const int fd = ConnectLoopback(port);
  if (fd < 0) return "<refused>";
  const timeval limit{20, 0};  // a guard only: the server closes at once
  ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &limit, sizeof limit);
  ::send(fd, request.data(), request.size(), MSG_NOSIGNAL);
  std::string out;
  char buf[4096];
  for (ssize_t n; (n = ::recv(fd, buf, sizeof buf, 0)) > 0;)
    out.append(buf, static_cast<size_t>(n));
  ::close(fd);
  return out;
}

size_t Count(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

// No endpoint takes a body: one is refused unread (a 2 GiB body was held in memory, and a GET's
// body was read as the next request), and a method other than GET or HEAD is a 405.
TEST_F(ServeHardening, RequestBodiesAndOtherMethodsAreRefusedUnread) {
  const int port = FreePort();
  auto serve = Start(port);
  ASSERT_TRUE(WaitFor(base_ + "/readyz", 200, std::chrono::seconds(60))) << serve->Log();
  const std::string hidden = "GET /readyz HTTP/1.1\r\nHost: x\r\n\r\n";
  const std::string smuggled =
      Exchange(port, StrCat("GET /healthz HTTP/1.1\r\nHost: x\r\nContent-Length: ", hidden.size(),
                            "\r\n\r\n", hidden));
  EXPECT_EQ(Count(smuggled, "HTTP/1.1 "), 1u) << smuggled;
  EXPECT_EQ(smuggled.rfind("HTTP/1.1 413", 0), 0u) << smuggled;
  EXPECT_NE(smuggled.find("takes no request body"), std::string::npos) << smuggled;
  // Two gigabytes announced and none sent: answered at once, nothing waited for or kept.
  const std::string huge = Exchange(
      port, "POST /api/v1/report HTTP/1.1\r\nHost: x\r\nContent-Length: 2147483648\r\n\r\n");
  EXPECT_EQ(huge.rfind("HTTP/1.1 413", 0), 0u) << huge;
  const std::string chunked = Exchange(
      port, "GET /metrics HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n");
  EXPECT_EQ(chunked.rfind("HTTP/1.1 413", 0), 0u) << chunked;
  for (const char* method : {"DELETE", "PUT", "PATCH", "OPTIONS"}) {
    const std::string r = Exchange(
        port, StrCat(method, " /api/v1/report HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n"));
    EXPECT_EQ(r.rfind("HTTP/1.1 405", 0), 0u) << method << ": " << r;
    EXPECT_NE(r.find("Allow: GET, HEAD"), std::string::npos) << method << ": " << r;
    EXPECT_NE(r.find("{\"error\":\""), std::string::npos) << method << ": " << r;
  }
  // A body without a length is refused before it is read (it was read, and kept, until the
  // client closed): the answer comes while the client still holds the connection open.
  for (const char* method : {"POST", "PUT", "PATCH"}) {
    const std::string r = Exchange(
        port, StrCat(method, " /api/v1/report HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
                     std::string(4096, 'x')));
    EXPECT_EQ(r.rfind("HTTP/1.1 405", 0), 0u) << method << ": " << r;
  }
  // Whole answers only: 2,700 ranges of one file were a 222 MB answer, built in memory.
  std::string ranges = "bytes=0-";
  for (int i = 0; i < 100; ++i) ranges += ",0-";
  const std::string whole = Exchange(port, "GET /app.js HTTP/1.1\r\nHost: x\r\n\r\n");
  const std::string ranged =
      Exchange(port, StrCat("GET /app.js HTTP/1.1\r\nHost: x\r\nRange: ", ranges, "\r\n\r\n"));
  EXPECT_EQ(ranged.rfind("HTTP/1.1 200", 0), 0u) << ranged.substr(0, 200);
  EXPECT_EQ(ranged.size(), whole.size());
  EXPECT_EQ(Get(base_ + "/healthz").status, 200);
  // None of it took an API answer's turn.
  EXPECT_NE(Get(base_ + "/metrics").body.find("\ngpucost_api_busy_total 0\n"), std::string::npos);
}

// What every browser asks for, "gzip, deflate, br", is answered gzip: the library's Brotli took
// 70 times as long (7.1 s for a 5 MB report). A client that takes only br gets it as it is.
TEST_F(ServeHardening, AnswersAreGzipNeverBrotli) {
  const int port = FreePort();
  auto serve = Start(port);
  ASSERT_TRUE(WaitFor(base_ + "/readyz", 200, std::chrono::seconds(60))) << serve->Log();
  const auto headers_of = [&](const std::string& path, const std::string& accept) {
    const std::string r = Exchange(
        port,
        StrCat("GET ", path, " HTTP/1.1\r\nHost: x\r\nAccept-Encoding: ", accept, "\r\n\r\n"));
    return r.substr(0, r.find("\r\n\r\n"));
  };
  for (const char* path : {"/api/v1/report?by=pod", "/metrics", "/app.js"}) {
    for (const char* accept : {"gzip, deflate, br", "br;q=1.0, gzip;q=0.8", "gzip"}) {
      const std::string h = headers_of(path, accept);
      EXPECT_EQ(h.rfind("HTTP/1.1 200", 0), 0u) << path << ": " << h;
      EXPECT_NE(h.find("Content-Encoding: gzip"), std::string::npos) << path << ", " << accept;
    }
    // Nothing the client refused or did not ask for: only br, gzip refused (q=0), a tab.
    for (const char* accept : {"br", "gzip;q=0, br", "gzip; q=0.0,br", "identity,\tbr"}) {
      const std::string h = headers_of(path, accept);
      EXPECT_EQ(h.rfind("HTTP/1.1 200", 0), 0u) << path << ": " << h;
      EXPECT_EQ(h.find("Content-Encoding"), std::string::npos)
          << path << ", " << accept << ": " << h;
    }
  }
  // Two Accept-Encoding headers are one list: gzip from the second.
  const std::string two = Exchange(port,
                                   "GET /metrics HTTP/1.1\r\nHost: x\r\nAccept-Encoding: br\r\n"
                                   "Accept-Encoding: gzip\r\n\r\n");
  EXPECT_NE(two.substr(0, two.find("\r\n\r\n")).find("Content-Encoding: gzip"), std::string::npos)
      << two.substr(0, 300);
}

TEST_F(ServeHardening, AWindowFarBeyondTheLedgerCostsWhatTheLedgerHolds) {
  const int port = FreePort();
  auto serve = Start(port);
  ASSERT_TRUE(WaitFor(base_ + "/readyz", 200, std::chrono::seconds(60))) << serve->Log();
  const Response all = Get(base_ + "/api/v1/report?by=namespace");
  ASSERT_EQ(all.status, 200) << all.body;
  const double total = nlohmann::json::parse(all.body)["totals"]["cost_usd"].get<double>();
  ASSERT_GT(total, 0);
  // These took 77 s and 8 minutes of a core: every 5 minutes of the window was planned.
  for (const char* window : {"1970-01-01T00:00:00Z,9999-12-31T00:00:00Z", "0,99999999999999",
                             "2026-09-01T00:00:00Z,2026-11-01T00:00:00Z"}) {
    const auto start = std::chrono::steady_clock::now();
    const Response r = Get(base_ + "/api/v1/report?by=namespace&window=" + window);
    const double took =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    ASSERT_EQ(r.status, 200) << window << ": " << r.body;
    const nlohmann::json report = nlohmann::json::parse(r.body);
    EXPECT_NEAR(report["totals"]["cost_usd"].get<double>(), total, 1e-9) << window;
    EXPECT_LT(took, 10.0) << window;
  }
  // Nothing of it in the ledger: a clear 400.
  const auto [status, message] =
      Error("/api/v1/report?window=2020-01-01T00:00:00Z,2020-01-02T00:00:00Z");
  EXPECT_EQ(status, 400);
  EXPECT_NE(message.find("no cost records"), std::string::npos) << message;
}

// A ledger that holds no step yet (made, nothing written) is ready, so that the web UI loads,
// and /readyz says what the API's 503 says.
TEST_F(ServeHardening, ReadyzSaysALedgerHoldsNoRecordYet) {
  ledger_ = (dir_.path() / "empty.db").string();
  ASSERT_TRUE(ledger::Ledger::Open(ledger_).ok());
  const int port = FreePort();
  auto serve = Start(port);
  ASSERT_TRUE(WaitFor(base_ + "/readyz", 200, std::chrono::seconds(60))) << serve->Log();
  EXPECT_EQ(Get(base_ + "/readyz").body,
            "ready (read-only); the ledger holds no cost records yet\n");
  // Every path that reads the ledger answers it alike.
  for (const char* path :
       {"/api/v1/report?by=namespace", "/api/v1/alerts", "/api/v1/recommendations"}) {
    const auto [status, message] = Error(path);
    EXPECT_EQ(status, 503) << path;
    EXPECT_NE(message.find("holds no cost records yet"), std::string::npos) << path << message;
  }
}

// A second serve on a port one already listens on is refused, never let in to share its
// connections (SO_REUSEPORT answered from either ledger by turns).
TEST_F(ServeHardening, ASecondServeOnTheSamePortIsRefused) {
  const int port = FreePort();
  auto serve = Start(port);
  ASSERT_TRUE(WaitFor(base_ + "/readyz", 200, std::chrono::seconds(60))) << serve->Log();
  const RunResult second =
      RunShell("timeout 30 " + kBinary + " serve --ledger " + ledger_ +
               " --read-only --listen 127.0.0.1:" + std::to_string(port) + " 2>&1");
  EXPECT_NE(second.exit_code, 0) << second.output;
  EXPECT_NE(second.exit_code, 124) << second.output;
  EXPECT_NE(second.output.find("cannot listen on 127.0.0.1:" + std::to_string(port)),
            std::string::npos)
      << second.output;
  EXPECT_EQ(Get(base_ + "/readyz").status, 200);
}

TEST_F(ServeHardening, TheBearerSchemeIsReadInAnyCase) {
  const std::string token_file = (dir_.path() / "token").string();
  std::ofstream(token_file) << "s3cret\n";
  const int port = FreePort();
  auto serve = Start(port, {"--token-file", token_file});
  ASSERT_TRUE(WaitFor(base_ + "/readyz", 200, std::chrono::seconds(60))) << serve->Log();
  auto transport = promsource::MakeCurlTransport({});
  const auto status_with = [&](const std::string& header) {
    promsource::HttpRequest r;
    r.url = base_ + "/metrics";
    if (!header.empty()) r.headers.push_back({"Authorization", header});
    const promsource::TransportResult res = transport->Send(r);
    return res.response ? static_cast<int>(res.response->status) : 0;
  };
  EXPECT_EQ(status_with("Bearer s3cret"), 200);
  EXPECT_EQ(status_with("bearer s3cret"), 200);
  EXPECT_EQ(status_with("BEARER  s3cret"), 200);
  EXPECT_EQ(status_with("Bearer wrong"), 401);
  EXPECT_EQ(status_with("Bearer s3cre"), 401);
  EXPECT_EQ(status_with("Bearer s3crett"), 401);
  EXPECT_EQ(status_with("Basic s3cret"), 401);
  EXPECT_EQ(status_with("Bearer"), 401);
  EXPECT_EQ(status_with(""), 401);
}

TEST_F(ServeHardening, AServeWithoutASourceMustSayItOnlyReads) {
  const RunResult none = RunShell(kBinary + " serve --ledger " + ledger_ + " --check-config 2>&1");
  EXPECT_EQ(none.exit_code, 2) << none.output;
  EXPECT_NE(none.output.find("--read-only"), std::string::npos) << none.output;
  const RunResult both = RunShell(kBinary + " serve --ledger " + ledger_ +
                                  " --read-only --prometheus http://x --check-config 2>&1");
  EXPECT_EQ(both.exit_code, 2) << both.output;
  const RunResult ok =
      RunShell(kBinary + " serve --ledger " + ledger_ + " --read-only --check-config 2>&1");
  EXPECT_EQ(ok.exit_code, 0) << ok.output;
  const RunResult open = RunShell(kBinary + " serve --ledger " + ledger_ +
                                  " --read-only --listen 0.0.0.0:0 --check-config 2>&1");
  EXPECT_EQ(open.exit_code, 0) << open.output;
  EXPECT_NE(open.output.find("without --token-file"), std::string::npos) << open.output;
}

// Garbage over one page of the ledger's cost records, as a bad disk block or a stray write
// would leave it (after the WAL is folded into the file).
void ScribbleOverARecordsPage(const std::string& path) {
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(db, "PRAGMA wal_checkpoint(TRUNCATE)", nullptr, nullptr, nullptr),
            SQLITE_OK);
  int64_t page = 0;
  int64_t page_size = 0;
  const auto one = [&](const char* sql, int64_t& out) {
    sqlite3_stmt* q = nullptr;
    ASSERT_EQ(sqlite3_prepare_v2(db, sql, -1, &q, nullptr), SQLITE_OK) << sqlite3_errmsg(db);
    ASSERT_EQ(sqlite3_step(q), SQLITE_ROW) << sql;
    out = sqlite3_column_int64(q, 0);
    sqlite3_finalize(q);
  };
  one("SELECT pageno FROM dbstat WHERE name = 'cost_records' AND pagetype = 'leaf' "
      "ORDER BY pageno LIMIT 1 OFFSET 2",
      page);
  one("PRAGMA page_size", page_size);
  sqlite3_close(db);
  std::fstream f(path, std::ios::binary | std::ios::in | std::ios::out);
  f.seekp((page - 1) * page_size + 1);  // the page's type byte stays
  const std::string garbage(static_cast<size_t>(page_size - 1), '\xa5');
  f.write(garbage.data(), static_cast<std::streamsize>(garbage.size()));
  ASSERT_TRUE(f.good());
}

TEST_F(ServeHardening, ADamagedLedgerIsNeitherServedNorReportedFrom) {
  ScribbleOverARecordsPage(ledger_);
  // The CLI: an error naming the damage, exit 2, no numbers.
  RunResult r =
      RunShell(kBinary + " report --ledger " + ledger_ + " --accumulate --no-rollups 2>&1");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("data loss"), std::string::npos) << r.output;
  EXPECT_EQ(r.output.find("cost_usd"), std::string::npos) << r.output;
  r = RunShell(kBinary + " ledger check " + ledger_ + " 2>&1");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("the ledger is damaged"), std::string::npos) << r.output;

  // serve: alive, not ready, no numbers, a gauge that says why, one log line.
  const int port = FreePort();
  auto serve = Start(port);
  ASSERT_TRUE(WaitFor(base_ + "/healthz", 200, std::chrono::seconds(60))) << serve->Log();
  ASSERT_TRUE(WaitFor(base_ + "/readyz", 503, std::chrono::seconds(60))) << serve->Log();
  std::string metrics;
  for (int i = 0; i < 100 && metrics.find("gpucost_ledger_damaged 1") == std::string::npos; ++i) {
    metrics = Get(base_ + "/metrics").body;
    if (metrics.find("gpucost_ledger_damaged 1") == std::string::npos) {
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
  }
  EXPECT_NE(metrics.find("gpucost_ledger_damaged 1"), std::string::npos) << metrics;
  EXPECT_EQ(metrics.find("\ngpucost_allocated_usd_total{"), std::string::npos) << metrics;
  const Response ready = Get(base_ + "/readyz");
  EXPECT_EQ(ready.status, 503);
  EXPECT_NE(ready.body.find("damaged"), std::string::npos) << ready.body;
  auto [status, message] = Error("/api/v1/report?by=namespace");
  EXPECT_EQ(status, 503);
  EXPECT_NE(message.find("damaged"), std::string::npos) << message;
  std::tie(status, message) = Error("/allocation?window=2026-10-01T00:00:00Z,2026-10-01T01:00:00Z");
  EXPECT_EQ(status, 503) << message;
  EXPECT_NE(serve->Log().find("the ledger is damaged"), std::string::npos) << serve->Log();
}

}  // namespace
}  // namespace gpucost
