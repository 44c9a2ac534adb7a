// The libcurl transport and the client's retry/error handling against a tiny in-process HTTP
// server: 5xx then success, 4xx with a Prometheus error body, a timeout, a refused connection.
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <deque>
#include <string>
#include <thread>
#include <vector>

#include "core/strings.h"
#include "promsource/prometheus_client.h"

namespace gpucost::promsource {
namespace {

struct Canned {
  int status = 200;
  std::string body;
  std::chrono::milliseconds delay{0};
};

// Serves the canned answers in order, one connection each, then stops.
class TinyServer {
 public:
  explicit TinyServer(std::deque<Canned> answers) : answers_(std::move(answers)) {
    fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
    const int one = 1;
    ::setsockopt(fd_, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    addr.sin_port = 0;
    ::bind(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr);
    socklen_t len = sizeof addr;
    ::getsockname(fd_, reinterpret_cast<sockaddr*>(&addr), &len);
    port_ = ntohs(addr.sin_port);
    ::listen(fd_, 8);
    thread_ = std::thread([this] { Serve(); });
  }
  ~TinyServer() {
    ::shutdown(fd_, SHUT_RDWR);
    ::close(fd_);
    thread_.join();
  }
  TinyServer(const TinyServer&) = delete;
  TinyServer& operator=(const TinyServer&) = delete;

  std::string url() const { return StrCat("http://127.0.0.1:", port_); }

 private:
  void Serve() {
    std::vector<std::thread> workers;  // one per connection, so a slow answer blocks no other
    while (!answers_.empty()) {
      const int c = ::accept(fd_, nullptr, nullptr);
      if (c < 0) break;
      Canned a = answers_.front();
      answers_.pop_front();
      workers.emplace_back([this, c, a] { Answer(c, a); });
    }
    for (std::thread& t : workers) t.join();
  }

  void Answer(int c, const Canned& a) {
    std::string req;
    char buf[4096];
    while (req.find("\r\n\r\n") == std::string::npos) {
      const ssize_t n = ::recv(c, buf, sizeof buf, 0);
      if (n <= 0) break;
      req.append(buf, static_cast<size_t>(n));
    }
    std::this_thread::sleep_for(a.delay);
    const std::string resp =
        StrCat("HTTP/1.1 ", a.status,
               " X\r\nContent-Type: application/json\r\nContent-Length: ", a.body.size(),
               "\r\nConnection: close\r\n\r\n", a.body);
    ::send(c, resp.data(), resp.size(), MSG_NOSIGNAL);
    ::close(c);
  }

  int fd_ = -1;
  int port_ = 0;
  std::deque<Canned> answers_;
  std::thread thread_;
};

const char kOkMatrix[] = R"({"status":"success","data":{"resultType":"matrix","result":[]}})";

PrometheusClientOptions FastRetries() {
  PrometheusClientOptions o;
  o.retry.initial_backoff = std::chrono::milliseconds(10);
  o.http.request_timeout = std::chrono::milliseconds(500);
  return o;
}

TEST(CurlTransport, RetriesServerErrorsThenSucceeds) {
  TinyServer server({{503, "busy"},
                     {500, R"({"status":"error","errorType":"internal","error":"x"})"},
                     {200, kOkMatrix}});
  PrometheusClient c(server.url(), FastRetries());
  auto r = c.Query("up[5m]", InstantFromUnixMs(1000));
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(*r, kOkMatrix);
  EXPECT_EQ(c.requests(), 3u);
}

TEST(CurlTransport, ClientErrorNamesUrlStatusAndApiError) {
  TinyServer server({{400, R"({"status":"error","errorType":"bad_data","error":"parse error"})"}});
  PrometheusClient c(server.url(), FastRetries());
  auto r = c.Query("up[", InstantFromUnixMs(1000));
  ASSERT_FALSE(r.ok());
  const std::string m = r.status().ToString();
  EXPECT_NE(m.find(server.url() + "/api/v1/query?query=up%5B&time=1"), std::string::npos) << m;
  EXPECT_NE(m.find("HTTP 400 (bad_data: parse error)"), std::string::npos) << m;
  EXPECT_EQ(c.requests(), 1u);  // not retried
}

TEST(CurlTransport, TimeoutIsRetried) {
  TinyServer server({{200, kOkMatrix, std::chrono::milliseconds(1200)}, {200, kOkMatrix}});
  PrometheusClient c(server.url(), FastRetries());
  auto r = c.Query("up", InstantFromUnixMs(0));
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(c.requests(), 2u);  // the slow answer timed out; the retry got the quick one
}

TEST(CurlTransport, RefusedConnectionGivesUpWithTheUrl) {
  int port = 0;
  {
    TinyServer server({{200, kOkMatrix}});  // learn a free port, then let it go
    port = std::stoi(server.url().substr(server.url().rfind(':') + 1));
    PrometheusClient warm(server.url(), FastRetries());
    ASSERT_TRUE(warm.Query("up", InstantFromUnixMs(0)).ok());
  }
  PrometheusClientOptions o = FastRetries();
  o.retry.max_attempts = 2;
  PrometheusClient c(StrCat("http://127.0.0.1:", port), o);
  auto r = c.Query("up", InstantFromUnixMs(0));
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().ToString().find(StrCat("http://127.0.0.1:", port, "/api/v1/query")),
            std::string::npos)
      << r.status().ToString();
  EXPECT_NE(r.status().ToString().find("gave up after 2 attempts"), std::string::npos);
}

}  // namespace
}  // namespace gpucost::promsource
