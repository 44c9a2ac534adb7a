// An HTTP/1.1 server on 127.0.0.1 (optionally TLS, optionally demanding a client certificate)
// for testing our real libcurl client: every request is recorded (method, target, headers, body,
// the client certificate's subject) and answered by a callback, one connection at a time with
// "Connection: close". Test certificates are made at test time with the openssl command line.
#pragma once

#include <arpa/inet.h>
#include <netinet/in.h>
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "cli/cli_test_util.h"
#include "core/strings.h"

namespace gpucost::promsource::testing {

struct ReceivedRequest {
  std::string method;
  std::string target;  // path and query
  std::vector<std::pair<std::string, std::string>> headers;
  std::string body;
  std::string client_subject;  // "" without a client certificate

  const std::string* Header(std::string_view name) const {
    for (const auto& [k, v] : headers) {
      if (ToLower(k) == ToLower(name)) return &v;
    }
    return nullptr;
  }
};

struct FakeAnswer {
  int status = 200;
  std::string body;
  std::string content_type = "application/json";
};

struct TlsFiles {
  std::string cert;
  std::string key;
  std::string client_ca;  // when set, a client certificate signed by it is required
};

class FakeHttpServer {
 public:
  using Handler = std::function<FakeAnswer(const ReceivedRequest&)>;

  explicit FakeHttpServer(Handler handler, std::optional<TlsFiles> tls = std::nullopt)
      : handler_(std::move(handler)) {
    if (tls) {
      ctx_ = SSL_CTX_new(TLS_server_method());
      SSL_CTX_use_certificate_chain_file(ctx_, tls->cert.c_str());
      SSL_CTX_use_PrivateKey_file(ctx_, tls->key.c_str(), SSL_FILETYPE_PEM);
      if (!tls->client_ca.empty()) {
        SSL_CTX_load_verify_locations(ctx_, tls->client_ca.c_str(), nullptr);
        SSL_CTX_set_verify(ctx_, SSL_VERIFY_PEER | SSL_VERIFY_FAIL_IF_NO_PEER_CERT, nullptr);
        // Without a session id context OpenSSL refuses to resume the sessions curl offers on
        // its next connection when client certificates are verified.
        static constexpr unsigned char kContext[] = "gpucost-test";
        SSL_CTX_set_session_id_context(ctx_, kContext, sizeof kContext - 1);
      }
    }
    fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
    const int one = 1;
    ::setsockopt(fd_, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    ::bind(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr);
    socklen_t len = sizeof addr;
    ::getsockname(fd_, reinterpret_cast<sockaddr*>(&addr), &len);
    port_ = ntohs(addr.sin_port);
    ::listen(fd_, 16);
    thread_ = std::thread([this] { Serve(); });
  }
  ~FakeHttpServer() {
    ::shutdown(fd_, SHUT_RDWR);
    ::close(fd_);
    thread_.join();
    if (ctx_ != nullptr) SSL_CTX_free(ctx_);
  }
  FakeHttpServer(const FakeHttpServer&) = delete;
  FakeHttpServer& operator=(const FakeHttpServer&) = delete;

  std::string url() const { return StrCat(ctx_ ? "https" : "http", "://127.0.0.1:", port_); }
  std::vector<ReceivedRequest> requests() const {
    std::lock_guard<std::mutex> lock(mu_);
    return requests_;
  }
  int failed_handshakes() const { return failed_handshakes_; }

 private:
  // Reads from the plain socket or the TLS session.
  struct Conn {
    int fd;
    SSL* ssl;
    ssize_t Read(char* buf, size_t n) {
      return ssl ? SSL_read(ssl, buf, static_cast<int>(n)) : ::recv(fd, buf, n, 0);
    }
    void Write(const std::string& s) {
      if (ssl) {
        SSL_write(ssl, s.data(), static_cast<int>(s.size()));
      } else {
        ::send(fd, s.data(), s.size(), MSG_NOSIGNAL);
      }
    }
  };

  void Serve() {
    while (true) {
      const int c = ::accept(fd_, nullptr, nullptr);
      if (c < 0) return;
      SSL* ssl = nullptr;
      if (ctx_ != nullptr) {
        ssl = SSL_new(ctx_);
        SSL_set_fd(ssl, c);
        if (SSL_accept(ssl) <= 0) {
          ++failed_handshakes_;
          ERR_clear_error();
          SSL_free(ssl);
          ::close(c);
          continue;
        }
      }
      Conn conn{c, ssl};
      Handle(conn);
      if (ssl != nullptr) {
        SSL_shutdown(ssl);
        SSL_free(ssl);
      }
      ::close(c);
    }
  }

  void Handle(Conn& conn) {
    std::string data;
    char buf[8192];
    size_t header_end = std::string::npos;
    while ((header_end = data.find("\r\n\r\n")) == std::string::npos) {
      const ssize_t n = conn.Read(buf, sizeof buf);
      if (n <= 0) return;
      data.append(buf, static_cast<size_t>(n));
    }
    ReceivedRequest req;
    const std::vector<std::string_view> lines =
        Split(std::string_view(data).substr(0, header_end), '\n');
    const std::vector<std::string_view> first = Split(Trim(lines[0]), ' ');
    req.method = std::string(first[0]);
    req.target = first.size() > 1 ? std::string(first[1]) : "";
    size_t content_length = 0;
    for (size_t i = 1; i < lines.size(); ++i) {
      const std::string_view l = Trim(lines[i]);
      const size_t colon = l.find(':');
      if (colon == std::string_view::npos) continue;
      req.headers.emplace_back(std::string(l.substr(0, colon)),
                               std::string(Trim(l.substr(colon + 1))));
      if (ToLower(l.substr(0, colon)) == "content-length") {
        content_length = std::stoul(std::string(Trim(l.substr(colon + 1))));
      }
    }
    req.body = data.substr(header_end + 4);
    while (req.body.size() < content_length) {
      const ssize_t n = conn.Read(buf, sizeof buf);
      if (n <= 0) return;
      req.body.append(buf, static_cast<size_t>(n));
    }
    if (conn.ssl != nullptr) {
      if (X509* peer = SSL_get_peer_certificate(conn.ssl)) {
        char name[256];
        X509_NAME_oneline(X509_get_subject_name(peer), name, sizeof name);
        req.client_subject = name;
        X509_free(peer);
      }
    }
    const FakeAnswer a = handler_(req);
    {
      std::lock_guard<std::mutex> lock(mu_);
      requests_.push_back(req);
    }
    conn.Write(StrCat("HTTP/1.1 ", a.status, " X\r\nContent-Type: ", a.content_type,
                      "\r\nContent-Length: ", a.body.size(), "\r\nConnection: close\r\n\r\n",
                      a.body));
  }

  Handler handler_;
  SSL_CTX* ctx_ = nullptr;
  int fd_ = -1;
  int port_ = 0;
  std::thread thread_;
  mutable std::mutex mu_;
  std::vector<ReceivedRequest> requests_;
  std::atomic<int> failed_handshakes_{0};
};

// A CA, a server certificate for 127.0.0.1 and a client certificate (CN gpucost-client), all
// P-256 and valid for two days, written to `dir`: ca.crt, server.{crt,key}, client.{crt,key}.
// Empty on success, else openssl's output.
inline std::string MakeTestPki(const std::filesystem::path& dir) {
  const std::string key = "-newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes";
  const testing_util::RunResult r = testing_util::RunShell(StrCat(
      "(cd ", dir.string(), " && printf 'subjectAltName=IP:127.0.0.1\\n' > server.ext && ",
      "printf 'extendedKeyUsage=clientAuth\\n' > client.ext && ",
      "openssl req -x509 ", key, " -keyout ca.key -out ca.crt -days 2 -subj /CN=gpucost-test-ca",
      " && openssl req ", key, " -keyout server.key -out server.csr -subj /CN=127.0.0.1",
      " && openssl x509 -req -in server.csr -CA ca.crt -CAkey ca.key -CAcreateserial",
      " -out server.crt -days 2 -extfile server.ext",
      " && openssl req ", key, " -keyout client.key -out client.csr -subj /CN=gpucost-client",
      " && openssl x509 -req -in client.csr -CA ca.crt -CAkey ca.key -CAcreateserial",
      " -out client.crt -days 2 -extfile client.ext) 2>&1"));
  return r.exit_code == 0 ? "" : r.output;
}

}  // namespace gpucost::promsource::testing
