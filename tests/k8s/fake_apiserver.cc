#include "k8s/fake_apiserver.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <charconv>
#include <condition_variable>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <functional>
#include <list>
#include <map>
#include <mutex>
#include <stdexcept>
#include <thread>
#include <utility>

#include "cli/cli_test_util.h"
#include "core/strings.h"

namespace gpucost::k8s::testing {
namespace {

using nlohmann::json;
using Clock = std::chrono::steady_clock;

struct ResourceInfo {
  std::string_view name;
  std::string_view path;
  std::string_view kind;
  std::string_view api_version;
  bool namespaced;
};

constexpr ResourceInfo kResourceInfo[] = {
    {"pods", "/api/v1/pods", "Pod", "v1", true},
    {"nodes", "/api/v1/nodes", "Node", "v1", false},
    {"namespaces", "/api/v1/namespaces", "Namespace", "v1", false},
    {"replicasets", "/apis/apps/v1/replicasets", "ReplicaSet", "apps/v1", true},
    {"statefulsets", "/apis/apps/v1/statefulsets", "StatefulSet", "apps/v1", true},
    {"daemonsets", "/apis/apps/v1/daemonsets", "DaemonSet", "apps/v1", true},
    {"jobs", "/apis/batch/v1/jobs", "Job", "batch/v1", true},
    {"cronjobs", "/apis/batch/v1/cronjobs", "CronJob", "batch/v1", true},
    {"endpointslices", "/apis/discovery.k8s.io/v1/endpointslices", "EndpointSlice",
     "discovery.k8s.io/v1", true},
    {"endpoints", "/api/v1/endpoints", "Endpoints", "v1", true},
    {"resourceslices", "/apis/resource.k8s.io/v1/resourceslices", "ResourceSlice",
     "resource.k8s.io/v1", false},
    {"resourceclaims", "/apis/resource.k8s.io/v1/resourceclaims", "ResourceClaim",
     "resource.k8s.io/v1", true},
    {"deviceclasses", "/apis/resource.k8s.io/v1/deviceclasses", "DeviceClass", "resource.k8s.io/v1",
     false},
};
constexpr size_t kResourceCount = std::size(kResourceInfo);

int ResourceIndex(std::string_view name) {
  for (size_t i = 0; i < kResourceCount; ++i) {
    if (kResourceInfo[i].name == name) return static_cast<int>(i);
  }
  return -1;
}

int ResourceIndexByPath(std::string_view path) {
  for (size_t i = 0; i < kResourceCount; ++i) {
    if (kResourceInfo[i].path == path) return static_cast<int>(i);
  }
  return -1;
}

// A namespaced collection path of the endpoint resources ("/api/v1/namespaces/NS/endpoints",
// "/apis/discovery.k8s.io/v1/namespaces/NS/endpointslices"): the resource and NS; -1 for anything
// else (the informers list cluster-wide, so other namespaced paths stay unknown).
int ResourceIndexByNamespacedPath(std::string_view path, std::string* ns) {
  const size_t at = path.find("/namespaces/");
  if (at == std::string_view::npos) return -1;
  const std::string_view rest = path.substr(at + 12);
  const size_t slash = rest.find('/');
  if (slash == std::string_view::npos || slash == 0) return -1;
  const int r = ResourceIndexByPath(StrCat(path.substr(0, at), rest.substr(slash)));
  if (r < 0 || (kResourceInfo[r].name != "endpointslices" && kResourceInfo[r].name != "endpoints")) {
    return -1;
  }
  *ns = std::string(rest.substr(0, slash));
  return r;
}

// Equality-based label selectors ("a=b,c==d,e!=f,g,!h"), as LIST's labelSelector.
bool MatchesSelector(const json& object, std::string_view selector) {
  const json* labels = nullptr;
  if (object.contains("metadata") && object["metadata"].contains("labels")) {
    labels = &object["metadata"]["labels"];
  }
  const auto get = [&](std::string_view key) -> std::optional<std::string> {
    if (labels == nullptr || !labels->contains(key)) return std::nullopt;
    return (*labels)[std::string(key)].get<std::string>();
  };
  for (std::string_view term : Split(selector, ',')) {
    term = Trim(term);
    if (term.empty()) continue;
    if (const size_t ne = term.find("!="); ne != std::string_view::npos) {
      if (get(Trim(term.substr(0, ne))) == std::string(Trim(term.substr(ne + 2)))) return false;
    } else if (const size_t eq = term.find('='); eq != std::string_view::npos) {
      const size_t v = term.substr(eq + 1).starts_with('=') ? eq + 2 : eq + 1;
      if (get(Trim(term.substr(0, eq))) != std::string(Trim(term.substr(v)))) return false;
    } else if (term.starts_with('!')) {
      if (get(Trim(term.substr(1)))) return false;
    } else if (!get(term)) {
      return false;
    }
  }
  return true;
}

size_t CheckedResource(std::string_view name) {
  const int r = ResourceIndex(name);
  if (r < 0) throw std::invalid_argument(StrCat("FakeApiServer: unknown resource '", name, "'"));
  return static_cast<size_t>(r);
}

// --- Small codecs.

std::optional<int64_t> ParseInt(std::string_view s) {
  int64_t v = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || end != s.data() + s.size() || s.empty()) return std::nullopt;
  return v;
}

// Go's strconv.ParseBool, which the API server uses for query flags.
bool ParseBool(std::string_view s) {
  return s == "1" || s == "t" || s == "T" || s == "true" || s == "True" || s == "TRUE";
}

int HexDigit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// Query values as Go's url.ParseQuery reads them: %XX escapes, '+' is a space.
std::string QueryUnescape(std::string_view s) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '+') {
      out.push_back(' ');
    } else if (s[i] == '%' && i + 2 < s.size() && HexDigit(s[i + 1]) >= 0 &&
               HexDigit(s[i + 2]) >= 0) {
      out.push_back(static_cast<char>(HexDigit(s[i + 1]) * 16 + HexDigit(s[i + 2])));
      i += 2;
    } else {
      out.push_back(s[i]);
    }
  }
  return out;
}

std::map<std::string, std::string> ParseQuery(std::string_view query) {
  std::map<std::string, std::string> out;
  for (const std::string_view part : Split(query, '&')) {
    if (part.empty()) continue;
    const size_t eq = part.find('=');
    const std::string key = QueryUnescape(part.substr(0, eq));
    out.emplace(key, eq == std::string_view::npos ? "" : QueryUnescape(part.substr(eq + 1)));
  }
  return out;
}

std::string Base64(std::string_view in) {
  std::string out(4 * ((in.size() + 2) / 3) + 1, '\0');
  const int n = EVP_EncodeBlock(reinterpret_cast<unsigned char*>(out.data()),
                                reinterpret_cast<const unsigned char*>(in.data()),
                                static_cast<int>(in.size()));
  out.resize(static_cast<size_t>(n));
  return out;
}

std::optional<std::string> Unbase64(std::string in) {
  if (in.size() % 4 != 0) return std::nullopt;
  std::string out(in.size() / 4 * 3 + 1, '\0');
  const int n = EVP_DecodeBlock(reinterpret_cast<unsigned char*>(out.data()),
                                reinterpret_cast<const unsigned char*>(in.data()),
                                static_cast<int>(in.size()));
  if (n < 0) return std::nullopt;
  // EVP_DecodeBlock counts the padding as zero bytes.
  size_t len = static_cast<size_t>(n);
  for (size_t i = in.size(); i > 0 && in[i - 1] == '='; --i) --len;
  out.resize(len);
  return out;
}

// Continue tokens are base64.RawURLEncoding, as the API server makes them.
std::string RawUrlBase64(std::string_view in) {
  std::string s = Base64(in);
  while (!s.empty() && s.back() == '=') s.pop_back();
  for (char& c : s) c = c == '+' ? '-' : c == '/' ? '_' : c;
  return s;
}

std::optional<std::string> FromRawUrlBase64(std::string s) {
  for (char& c : s) {
    if (c == '+' || c == '/' || c == '=') return std::nullopt;
    c = c == '-' ? '+' : c == '_' ? '/' : c;
  }
  while (s.size() % 4 != 0) s.push_back('=');
  return Unbase64(std::move(s));
}

std::string Rfc3339Now() {
  const std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

// --- Status bodies.

struct HttpStatusName {
  int code;
  std::string_view phrase;  // the HTTP reason phrase
  std::string_view reason;  // the Status reason the API server gives (metav1.StatusReason)
};

constexpr HttpStatusName kStatusNames[] = {
    {200, "OK", ""},
    {400, "Bad Request", "BadRequest"},
    {401, "Unauthorized", "Unauthorized"},
    {403, "Forbidden", "Forbidden"},
    {404, "Not Found", "NotFound"},
    {405, "Method Not Allowed", "MethodNotAllowed"},
    {409, "Conflict", "Conflict"},
    {410, "Gone", "Expired"},
    {429, "Too Many Requests", "TooManyRequests"},
    {500, "Internal Server Error", "InternalError"},
    {502, "Bad Gateway", "InternalError"},
    {503, "Service Unavailable", "ServiceUnavailable"},
    {504, "Gateway Timeout", "Timeout"},
};

HttpStatusName NameOf(int code) {
  for (const HttpStatusName& n : kStatusNames) {
    if (n.code == code) return n;
  }
  return {code, "Status", "Unknown"};
}

json StatusObject(int code, std::string_view reason, std::string_view message) {
  return {{"kind", "Status"},    {"apiVersion", "v1"}, {"metadata", json::object()},
          {"status", "Failure"}, {"message", message}, {"reason", reason},
          {"code", code}};
}

struct Answer {
  int status = 200;
  std::string body;
  std::string extra_headers;  // complete "Name: value\r\n" lines
};

Answer StatusAnswer(int code, std::string_view message, std::string_view reason = {}) {
  Answer a;
  a.status = code;
  a.body = StatusObject(code, reason.empty() ? NameOf(code).reason : reason, message).dump();
  if (code == 429 || code == 503) a.extra_headers = "Retry-After: 1\r\n";
  return a;
}

std::string Chunk(std::string_view data) {
  char size[20];
  std::snprintf(size, sizeof size, "%zx\r\n", data.size());
  return StrCat(size, data, "\r\n");
}

// --- Connections.

// Reads and writes a plain socket or a TLS session on it.
struct Io {
  int fd = -1;
  SSL* ssl = nullptr;
  bool failed = false;  // a transport error: no TLS close_notify afterwards

  ssize_t Read(char* buf, size_t n) {
    if (ssl != nullptr) {
      const int r = SSL_read(ssl, buf, static_cast<int>(n));
      if (r > 0) return r;
      if (SSL_get_error(ssl, r) != SSL_ERROR_ZERO_RETURN) failed = true;
      ERR_clear_error();
      return r < 0 ? -1 : 0;
    }
    ssize_t r;
    do {
      r = ::recv(fd, buf, n, 0);
    } while (r < 0 && errno == EINTR);
    if (r < 0) failed = true;
    return r;
  }

  bool Write(std::string_view s) {
    if (failed) return false;
    if (ssl != nullptr) {
      if (s.empty()) return true;
      if (SSL_write(ssl, s.data(), static_cast<int>(s.size())) <= 0) {
        failed = true;
        ERR_clear_error();
        return false;
      }
      return true;
    }
    while (!s.empty()) {
      const ssize_t r = ::send(fd, s.data(), s.size(), MSG_NOSIGNAL);
      if (r < 0 && errno == EINTR) continue;
      if (r <= 0) {
        failed = true;
        return false;
      }
      s.remove_prefix(static_cast<size_t>(r));
    }
    return true;
  }

  // The client went away (FIN, reset); pending request bytes do not count.
  bool PeerClosed() const {
    pollfd p{fd, POLLRDHUP, 0};
    return ::poll(&p, 1, 0) > 0 && (p.revents & (POLLRDHUP | POLLHUP | POLLERR)) != 0;
  }
};

struct HttpRequest {
  std::string method;
  std::string path;
  std::string query;
  bool keep_alive = true;
  std::vector<std::pair<std::string, std::string>> headers;

  std::string Header(std::string_view name) const {
    for (const auto& [k, v] : headers) {
      if (ToLower(k) == ToLower(name)) return v;
    }
    return "";
  }
};

enum class ReadOutcome { kOk, kClosed, kBad };

// Reads one request from `io`; bytes past it stay in `buf` for the next one.
ReadOutcome ReadRequest(Io& io, std::string& buf, HttpRequest* req) {
  constexpr size_t kMaxHead = 64 * 1024;
  char chunk[8192];
  size_t head_end;
  while ((head_end = buf.find("\r\n\r\n")) == std::string::npos) {
    if (buf.size() > kMaxHead) return ReadOutcome::kBad;
    const ssize_t n = io.Read(chunk, sizeof chunk);
    if (n <= 0) return ReadOutcome::kClosed;
    buf.append(chunk, static_cast<size_t>(n));
  }
  const std::vector<std::string_view> lines =
      Split(std::string_view(buf).substr(0, head_end), '\n');
  const std::vector<std::string_view> first = Split(Trim(lines[0]), ' ');
  if (first.size() != 3 || !first[2].starts_with("HTTP/1.")) return ReadOutcome::kBad;
  req->method = std::string(first[0]);
  const std::string_view target = first[1];
  const size_t q = target.find('?');
  req->path = std::string(target.substr(0, q));
  req->query = q == std::string_view::npos ? "" : std::string(target.substr(q + 1));
  req->keep_alive = first[2] == "HTTP/1.1";
  size_t content_length = 0;
  for (size_t i = 1; i < lines.size(); ++i) {
    const std::string_view line = Trim(lines[i]);
    const size_t colon = line.find(':');
    if (colon == std::string_view::npos) return ReadOutcome::kBad;
    std::string name = ToLower(Trim(line.substr(0, colon)));
    const std::string_view value = Trim(line.substr(colon + 1));
    if (name == "content-length") {
      const std::optional<int64_t> n = ParseInt(value);
      if (!n || *n < 0 || *n > (int64_t{1} << 24)) return ReadOutcome::kBad;
      content_length = static_cast<size_t>(*n);
    } else if (name == "transfer-encoding") {
      return ReadOutcome::kBad;  // no request here has a streamed body
    } else if (name == "connection") {
      if (ToLower(value) == "close") req->keep_alive = false;
      if (ToLower(value) == "keep-alive") req->keep_alive = true;
    }
    req->headers.emplace_back(std::move(name), std::string(value));
  }
  buf.erase(0, head_end + 4);
  while (buf.size() < content_length) {  // a body is read and ignored
    const ssize_t n = io.Read(chunk, sizeof chunk);
    if (n <= 0) return ReadOutcome::kClosed;
    buf.append(chunk, static_cast<size_t>(n));
  }
  buf.erase(0, content_length);
  return ReadOutcome::kOk;
}

std::string PeerSubject(SSL* ssl) {
  X509* peer = SSL_get1_peer_certificate(ssl);
  if (peer == nullptr) return "";
  std::string subject;
  if (SSL_get_verify_result(ssl) == X509_V_OK) {
    char name[512];
    X509_NAME_oneline(X509_get_subject_name(peer), name, sizeof name);
    subject = name;
  }
  X509_free(peer);
  return subject;
}

// --- The store.

using Key = std::pair<std::string, std::string>;  // namespace ("" when cluster-scoped), name
using ObjectPtr = std::shared_ptr<const json>;

struct Event {
  std::string_view type;  // ADDED, MODIFIED, DELETED
  int64_t rv;
  Key key;
  ObjectPtr object;  // with kind and apiVersion
};

struct Collection {
  std::map<Key, ObjectPtr> objects;
  std::vector<Event> history;  // every change since the start, by increasing rv
  int lists = 0;
  int watches = 0;
  int open_watches = 0;
  std::vector<std::string> queries;
};

struct WatchState {
  size_t resource = 0;
  bool bookmarks = false;
  std::vector<int64_t> bookmarks_at;  // requested, at these resourceVersions
  std::optional<json> error;          // a Status to send before ending
  bool hang_up = false;
};

struct FailRule {
  std::string prefix;
  int status;
  int remaining;
  Verb verb;
};

std::string EventLine(std::string_view type, const json& object) {
  return json{{"type", type}, {"object", object}}.dump() + "\n";
}

json ItemOf(const json& object) {
  json item = object;
  item.erase("kind");
  item.erase("apiVersion");
  return item;
}

std::string EncodeContinue(int64_t rv, const Key& last) {
  const json token = {{"v", "meta.k8s.io/v1"},
                      {"rv", rv},
                      {"start", StrCat(last.first, "/", last.second, std::string(1, '\0'))}};
  return RawUrlBase64(token.dump());
}

std::optional<std::pair<int64_t, Key>> DecodeContinue(const std::string& token) {
  const std::optional<std::string> raw = FromRawUrlBase64(token);
  if (!raw) return std::nullopt;
  const json j = json::parse(*raw, nullptr, false);
  if (!j.is_object() || !j.contains("rv") || !j["rv"].is_number_integer() || !j.contains("start") ||
      !j["start"].is_string()) {
    return std::nullopt;
  }
  std::string start = j["start"].get<std::string>();
  if (!start.empty() && start.back() == '\0') start.pop_back();
  const size_t slash = start.find('/');
  if (slash == std::string::npos) return std::nullopt;
  return std::make_pair(j["rv"].get<int64_t>(),
                        Key(start.substr(0, slash), start.substr(slash + 1)));
}

struct Connection {
  int fd = -1;
  std::thread thread;
  bool finished = false;
};

}  // namespace

struct FakeApiServer::Impl {
  enum class Outcome { kKeepAlive, kClose, kAbort };

  struct WatchStart {
    int id = -1;  // -1: not registered (expired)
    std::vector<std::string> lines;
    int64_t sent_rv = 0;
    std::optional<Clock::time_point> deadline;
  };

  explicit Impl(std::optional<ApiServerTls> tls) {
    if (tls) SetUpTls(*tls);
    listen_fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    const int one = 1;
    ::setsockopt(listen_fd_, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof addr;
    if (listen_fd_ < 0 || ::bind(listen_fd_, reinterpret_cast<sockaddr*>(&addr), len) != 0 ||
        ::getsockname(listen_fd_, reinterpret_cast<sockaddr*>(&addr), &len) != 0 ||
        ::listen(listen_fd_, 64) != 0) {
      const int err = errno;
      if (listen_fd_ >= 0) ::close(listen_fd_);
      if (ctx_ != nullptr) SSL_CTX_free(ctx_);
      throw std::runtime_error(StrCat("FakeApiServer: cannot listen: ", std::strerror(err)));
    }
    port_ = ntohs(addr.sin_port);
    // Writing to a socket whose peer has gone raises SIGPIPE, and OpenSSL writes with write(2),
    // not send(MSG_NOSIGNAL). The server's threads block the signal (they inherit the mask of
    // the thread that starts them) so that the process keeps its own disposition.
    sigset_t pipe_only, old;
    sigemptyset(&pipe_only);
    sigaddset(&pipe_only, SIGPIPE);
    pthread_sigmask(SIG_BLOCK, &pipe_only, &old);
    acceptor_ = std::thread([this] { AcceptLoop(); });
    pthread_sigmask(SIG_SETMASK, &old, nullptr);
  }

  ~Impl() {
    Stop();
    if (ctx_ != nullptr) SSL_CTX_free(ctx_);
  }

  void SetUpTls(const ApiServerTls& tls) {
    ctx_ = SSL_CTX_new(TLS_server_method());
    const auto fail = [this](std::string what) {
      ERR_clear_error();
      SSL_CTX_free(ctx_);
      ctx_ = nullptr;
      throw std::runtime_error(StrCat("FakeApiServer: ", what));
    };
    if (ctx_ == nullptr) fail("SSL_CTX_new failed");
    if (SSL_CTX_use_certificate_chain_file(ctx_, tls.cert_file.c_str()) != 1 ||
        SSL_CTX_use_PrivateKey_file(ctx_, tls.key_file.c_str(), SSL_FILETYPE_PEM) != 1) {
      fail(StrCat("cannot load ", tls.cert_file, " / ", tls.key_file));
    }
    if (!tls.client_ca_file.empty()) {
      if (SSL_CTX_load_verify_locations(ctx_, tls.client_ca_file.c_str(), nullptr) != 1) {
        fail(StrCat("cannot load ", tls.client_ca_file));
      }
      SSL_CTX_set_client_CA_list(ctx_, SSL_load_client_CA_file(tls.client_ca_file.c_str()));
      SSL_CTX_set_verify(
          ctx_, SSL_VERIFY_PEER | (tls.require_client_cert ? SSL_VERIFY_FAIL_IF_NO_PEER_CERT : 0),
          nullptr);
      // Without a session id context OpenSSL refuses to resume the sessions a client offers on
      // its next connection when client certificates are verified.
      static constexpr unsigned char kContext[] = "gpucost-fake-apiserver";
      SSL_CTX_set_session_id_context(ctx_, kContext, sizeof kContext - 1);
    }
  }

  void Stop() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (stopping_) return;
      stopping_ = true;
    }
    cv_.notify_all();
    // shutdown() wakes the acceptor's blocking accept().
    ::shutdown(listen_fd_, SHUT_RDWR);
    acceptor_.join();
    ::close(listen_fd_);
    {
      // Open watches see `stopping_` and end with the terminating chunk, as the API server
      // does when it shuts down.
      std::unique_lock<std::mutex> lock(mu_);
      cv_.wait_for(lock, std::chrono::seconds(3), [this] { return watches_.empty(); });
    }
    std::list<std::unique_ptr<Connection>> conns;
    {
      std::lock_guard<std::mutex> lock(conn_mu_);
      for (const auto& c : conns_) {
        if (c->fd >= 0) ::shutdown(c->fd, SHUT_RDWR);  // wakes reads of idle keep-alives
      }
      conns.swap(conns_);
    }
    for (const auto& c : conns) c->thread.join();
  }

  void AcceptLoop() {
    while (true) {
      const int fd = ::accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC);
      if (fd < 0) {
        if (errno == EINTR || errno == ECONNABORTED) continue;
        return;  // the listening socket was shut down
      }
      const int one = 1;
      ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);  // events leave at once
      timeval send_timeout{5, 0};  // a client that stops reading cannot block Stop() forever
      ::setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &send_timeout, sizeof send_timeout);
      std::lock_guard<std::mutex> lock(conn_mu_);
      for (auto it = conns_.begin(); it != conns_.end();) {
        if ((*it)->finished) {
          (*it)->thread.join();
          it = conns_.erase(it);
        } else {
          ++it;
        }
      }
      auto c = std::make_unique<Connection>();
      c->fd = fd;
      Connection* raw = c.get();
      c->thread = std::thread([this, raw] { ServeConnection(raw); });
      conns_.push_back(std::move(c));
    }
  }

  void ServeConnection(Connection* c) {
    Io io{c->fd};
    std::string subject;
    bool handshake_ok = true;
    if (ctx_ != nullptr) {
      io.ssl = SSL_new(ctx_);
      SSL_set_fd(io.ssl, c->fd);
      if (SSL_accept(io.ssl) <= 0) {
        ++failed_handshakes_;
        handshake_ok = false;
        io.failed = true;
      } else {
        subject = PeerSubject(io.ssl);
      }
    }
    Outcome outcome = Outcome::kClose;
    std::string buf;
    while (handshake_ok) {
      HttpRequest req;
      const ReadOutcome r = ReadRequest(io, buf, &req);
      if (r == ReadOutcome::kClosed) break;
      if (r == ReadOutcome::kBad) {
        WriteAnswer(io, StatusAnswer(400, "malformed HTTP request"), /*close=*/true);
        break;
      }
      outcome = Handle(io, req, subject);
      if (outcome != Outcome::kKeepAlive) break;
    }
    if (io.ssl != nullptr) {
      if (outcome != Outcome::kAbort && !io.failed) SSL_shutdown(io.ssl);
      SSL_free(io.ssl);
    }
    ERR_clear_error();
    std::lock_guard<std::mutex> lock(conn_mu_);
    ::close(c->fd);
    c->fd = -1;
    c->finished = true;
  }

  static bool WriteAnswer(Io& io, const Answer& a, bool close) {
    return io.Write(StrCat("HTTP/1.1 ", a.status, " ", NameOf(a.status).phrase,
                           "\r\nContent-Type: application/json\r\n"
                           "Cache-Control: no-cache, private\r\nContent-Length: ",
                           a.body.size(), "\r\n", a.extra_headers,
                           close ? "Connection: close\r\n" : "", "\r\n", a.body));
  }

  Outcome Handle(Io& io, const HttpRequest& req, const std::string& subject) {
    std::string ns;  // a namespaced LIST's namespace
    int r = ResourceIndexByPath(req.path);
    if (r < 0) r = ResourceIndexByNamespacedPath(req.path, &ns);
    const std::map<std::string, std::string> query = ParseQuery(req.query);
    const auto flag = [&query](const char* name) {
      const auto it = query.find(name);
      return it != query.end() && ParseBool(it->second);
    };
    const bool watch = r >= 0 && flag("watch");
    RecordedRequest record{req.method, req.path, req.query, "", watch, req.Header("authorization"),
                           subject,    0};
    Answer answer;
    WatchStart start;
    bool streaming = false;
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (r >= 0) {
        Collection& col = collections_[static_cast<size_t>(r)];
        ++(watch ? col.watches : col.lists);
        col.queries.push_back(req.query);
        record.resource = std::string(kResourceInfo[r].name);
      }
      if (!AuthorizedLocked(record.authorization, subject)) {
        answer = StatusAnswer(401, "Unauthorized");
      } else if (const std::optional<int> fail = TakeFailureLocked(req.path, r, watch)) {
        answer = StatusAnswer(*fail, StrCat("injected failure (HTTP ", *fail, ")"));
      } else if (req.path == "/version" && req.method == "GET") {
        answer.body = json{{"major", "1"},
                           {"minor", "30"},
                           {"gitVersion", "v1.30.2"},
                           {"gitTreeState", "clean"},
                           {"goVersion", "go1.22.4"},
                           {"compiler", "gc"},
                           {"platform", "linux/amd64"}}
                          .dump();
      } else if (r < 0) {
        answer = StatusAnswer(404, "the server could not find the requested resource");
      } else if (req.method != "GET") {
        answer = StatusAnswer(405, StrCat("the server does not allow this method on the "
                                          "requested resource (",
                                          req.method, ")"));
      } else if (!watch) {
        answer = ListLocked(static_cast<size_t>(r), query, ns);
      } else {
        std::optional<Answer> refused = StartWatchLocked(static_cast<size_t>(r), query, &start);
        if (refused) {
          answer = std::move(*refused);
        } else {
          streaming = true;
        }
      }
      record.status = answer.status;
      last_authorization_ = record.authorization;
      if (ctx_ != nullptr) last_subject_ = subject;
      requests_.push_back(std::move(record));
    }
    cv_.notify_all();
    if (streaming) return StreamWatch(io, std::move(start));
    const bool close = !req.keep_alive;
    if (!WriteAnswer(io, answer, close)) return Outcome::kAbort;
    return close ? Outcome::kClose : Outcome::kKeepAlive;
  }

  bool AuthorizedLocked(const std::string& authorization, const std::string& subject) const {
    if (tokens_.empty() && basic_user_.empty()) return true;
    if (!subject.empty()) return true;  // a verified client certificate
    const std::string_view h = authorization;
    const size_t space = h.find(' ');
    if (space == std::string_view::npos) return false;
    const std::string scheme = ToLower(h.substr(0, space));
    const std::string credential(Trim(h.substr(space + 1)));
    if (scheme == "bearer") return tokens_.count(credential) > 0;
    if (scheme == "basic" && !basic_user_.empty()) {
      const std::optional<std::string> decoded = Unbase64(credential);
      return decoded && *decoded == StrCat(basic_user_, ":", basic_password_);
    }
    return false;
  }

  std::optional<int> TakeFailureLocked(const std::string& path, int resource, bool watch) {
    for (auto it = fail_rules_.begin(); it != fail_rules_.end(); ++it) {
      if (!path.starts_with(it->prefix)) continue;
      if (it->verb == Verb::kList && (resource < 0 || watch)) continue;
      if (it->verb == Verb::kWatch && !watch) continue;
      const int status = it->status;
      if (--it->remaining <= 0) fail_rules_.erase(it);
      return status;
    }
    return std::nullopt;
  }

  // The resource's objects as of `rv`, replayed from the history.
  std::map<Key, ObjectPtr> StateAtLocked(size_t r, int64_t rv) const {
    std::map<Key, ObjectPtr> state;
    for (const Event& e : collections_[r].history) {
      if (e.rv > rv) break;
      if (e.type == "DELETED") {
        state.erase(e.key);
      } else {
        state[e.key] = e.object;
      }
    }
    return state;
  }

  // `ns` non-empty: that namespace's objects only. A labelSelector filters the items too.
  Answer ListLocked(size_t r, const std::map<std::string, std::string>& query,
                    const std::string& ns = "") const {
    const auto selector_it = query.find("labelSelector");
    const std::string selector = selector_it == query.end() ? "" : selector_it->second;
    const ResourceInfo& info = kResourceInfo[r];
    int64_t limit = 0;
    if (const auto it = query.find("limit"); it != query.end() && !it->second.empty()) {
      const std::optional<int64_t> n = ParseInt(it->second);
      if (!n) return StatusAnswer(400, StrCat("invalid limit: ", it->second));
      limit = std::max<int64_t>(*n, 0);
    }
    int64_t snapshot = rv_;
    std::optional<Key> after;
    std::map<Key, ObjectPtr> replayed;
    const std::map<Key, ObjectPtr>* objects = &collections_[r].objects;
    if (const auto it = query.find("continue"); it != query.end() && !it->second.empty()) {
      const auto decoded = DecodeContinue(it->second);
      if (!decoded || decoded->first <= 0 || decoded->first > rv_) {
        return StatusAnswer(400,
                            "continue key is not valid: incorrect encoded start "
                            "resourceVersion (version meta.k8s.io/v1)");
      }
      if (decoded->first < compact_rv_) {
        return StatusAnswer(
            410,
            "The provided continue parameter is too old to display a consistent list result. "
            "You can start a new list without the continue parameter, or use the continue token "
            "in this response to retrieve the remainder of the results. Continuing with the "
            "provided token results in an inconsistent list - objects that were created, "
            "modified, or deleted between the time the first chunk was returned and now may show "
            "up in the list.");
      }
      snapshot = decoded->first;
      after = decoded->second;
      if (snapshot != rv_) {
        replayed = StateAtLocked(r, snapshot);
        objects = &replayed;
      }
    }
    json items = json::array();
    auto it = after ? objects->upper_bound(*after) : objects->begin();
    for (; it != objects->end() && (limit == 0 || std::cmp_less(items.size(), limit)); ++it) {
      if (!ns.empty() && it->first.first != ns) continue;
      if (!selector.empty() && !MatchesSelector(*it->second, selector)) continue;
      items.push_back(ItemOf(*it->second));
    }
    json metadata = {{"resourceVersion", std::to_string(snapshot)}};
    if (it != objects->end()) {
      metadata["continue"] = EncodeContinue(snapshot, std::prev(it)->first);
      metadata["remainingItemCount"] = std::distance(it, objects->end());
    }
    Answer a;
    a.body = json{{"kind", StrCat(info.kind, "List")},
                  {"apiVersion", info.api_version},
                  {"metadata", std::move(metadata)},
                  {"items", std::move(items)}}
                 .dump();
    return a;
  }

  // Registers a watch and collects what it must send first; an answer when it is refused.
  std::optional<Answer> StartWatchLocked(size_t r, const std::map<std::string, std::string>& query,
                                         WatchStart* start) {
    const auto get = [&query](const char* name) {
      const auto it = query.find(name);
      return it == query.end() ? std::string() : it->second;
    };
    if (const std::string t = get("timeoutSeconds"); !t.empty()) {
      const std::optional<int64_t> s = ParseInt(t);
      if (!s || *s < 0) return StatusAnswer(400, StrCat("invalid timeoutSeconds: ", t));
      if (*s > 0) start->deadline = Clock::now() + std::chrono::seconds(*s);
    }
    const std::string rv_text = get("resourceVersion");
    const Collection& col = collections_[r];
    if (rv_text.empty() || rv_text == "0") {
      // "Any version": the current state as ADDED events, then changes.
      for (const auto& [key, object] : col.objects) {
        start->lines.push_back(EventLine("ADDED", *object));
      }
      start->sent_rv = rv_;
    } else {
      const std::optional<int64_t> rv = ParseInt(rv_text);
      if (!rv || *rv < 0) {
        return StatusAnswer(400, StrCat("invalid resourceVersion: ", rv_text));
      }
      if (*rv < compact_rv_) {
        start->lines.push_back(EventLine(
            "ERROR", StatusObject(410, "Expired",
                                  StrCat("too old resource version: ", *rv, " (", rv_, ")"))));
        return std::nullopt;
      }
      start->sent_rv = *rv;
    }
    WatchState w;
    w.resource = r;
    const std::string bookmarks = get("allowWatchBookmarks");
    w.bookmarks = ParseBool(bookmarks);
    start->id = next_watch_id_++;
    watches_.emplace(start->id, w);
    ++collections_[r].open_watches;
    return std::nullopt;
  }

  // Collects what the watch must send now and whether it goes on.
  enum class WatchStep { kContinue, kEnd, kAbort };
  WatchStep PollWatchLocked(int id, int64_t* sent_rv, std::vector<std::string>* lines,
                            std::optional<Clock::time_point> deadline) {
    WatchState& w = watches_.at(id);
    if (w.hang_up) return WatchStep::kAbort;
    const ResourceInfo& info = kResourceInfo[w.resource];
    const std::vector<Event>& history = collections_[w.resource].history;
    const auto bookmark = [&](int64_t rv) {
      lines->push_back(
          EventLine("BOOKMARK", {{"kind", info.kind},
                                 {"apiVersion", info.api_version},
                                 {"metadata",
                                  {{"resourceVersion", std::to_string(rv)},
                                   {"annotations", {{"k8s.io/initial-events-end", "true"}}}}}}));
      *sent_rv = std::max(*sent_rv, rv);
    };
    // Events and bookmarks in resourceVersion order: a bookmark follows the events that
    // happened before it was asked for.
    size_t b = 0;
    auto it = std::upper_bound(history.begin(), history.end(), *sent_rv,
                               [](int64_t rv, const Event& e) { return rv < e.rv; });
    for (; it != history.end(); ++it) {
      for (; b < w.bookmarks_at.size() && w.bookmarks_at[b] < it->rv; ++b) {
        bookmark(w.bookmarks_at[b]);
      }
      lines->push_back(EventLine(it->type, *it->object));
      *sent_rv = it->rv;
    }
    for (; b < w.bookmarks_at.size(); ++b) bookmark(w.bookmarks_at[b]);
    w.bookmarks_at.clear();
    if (w.error) {
      lines->push_back(EventLine("ERROR", *w.error));
      return WatchStep::kEnd;
    }
    if (stopping_ || (deadline && Clock::now() >= *deadline)) return WatchStep::kEnd;
    return WatchStep::kContinue;
  }

  bool WatchHasWorkLocked(int id, int64_t sent_rv) const {
    const WatchState& w = watches_.at(id);
    const std::vector<Event>& history = collections_[w.resource].history;
    return stopping_ || w.hang_up || w.error || !w.bookmarks_at.empty() ||
           (!history.empty() && history.back().rv > sent_rv);
  }

  Outcome StreamWatch(Io& io, WatchStart start) {
    std::string out =
        "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
        "Cache-Control: no-cache, private\r\nTransfer-Encoding: chunked\r\n\r\n";
    for (const std::string& line : start.lines) out += Chunk(line);
    if (start.id < 0) {  // refused with an ERROR event: end the response
      return io.Write(out + "0\r\n\r\n") ? Outcome::kKeepAlive : Outcome::kAbort;
    }
    bool ok = io.Write(out);
    WatchStep step = ok ? WatchStep::kContinue : WatchStep::kAbort;
    int64_t sent_rv = start.sent_rv;
    while (step == WatchStep::kContinue) {
      std::vector<std::string> lines;
      {
        std::unique_lock<std::mutex> lock(mu_);
        // Short waits so that a client that went away is noticed (see PeerClosed below).
        Clock::time_point until = Clock::now() + std::chrono::milliseconds(50);
        if (start.deadline) until = std::min(until, *start.deadline);
        cv_.wait_until(lock, until, [&] { return WatchHasWorkLocked(start.id, sent_rv); });
        step = PollWatchLocked(start.id, &sent_rv, &lines, start.deadline);
      }
      if (step == WatchStep::kAbort) break;
      std::string chunks;
      for (const std::string& line : lines) chunks += Chunk(line);
      if (step == WatchStep::kEnd) chunks += "0\r\n\r\n";
      if (!chunks.empty() && !io.Write(chunks)) step = WatchStep::kAbort;
      if (step == WatchStep::kContinue && io.PeerClosed()) step = WatchStep::kAbort;
    }
    // Close before unregistering, so that HangUpWatches() returns with the connection gone.
    if (step == WatchStep::kAbort) ::shutdown(io.fd, SHUT_RDWR);
    {
      std::lock_guard<std::mutex> lock(mu_);
      --collections_[watches_.at(start.id).resource].open_watches;
      watches_.erase(start.id);
    }
    cv_.notify_all();
    return step == WatchStep::kAbort ? Outcome::kAbort : Outcome::kKeepAlive;
  }

  // Marks the matching open watches with `mark` and waits until they have ended.
  int EndWatches(const std::function<bool(WatchState&)>& mark) {
    std::unique_lock<std::mutex> lock(mu_);
    std::vector<int> ids;
    for (auto& [id, w] : watches_) {
      if (mark(w)) ids.push_back(id);
    }
    cv_.notify_all();
    cv_.wait_for(lock, std::chrono::seconds(5), [&] {
      return std::none_of(ids.begin(), ids.end(), [&](int id) { return watches_.count(id) > 0; });
    });
    return static_cast<int>(ids.size());
  }

  int64_t Change(size_t r, std::string_view type, Key key, json object) {
    int64_t rv;
    {
      std::lock_guard<std::mutex> lock(mu_);
      Collection& col = collections_[r];
      const auto existing = col.objects.find(key);
      if (type == "DELETED") {
        if (existing == col.objects.end()) return 0;
        object = *existing->second;
      } else {
        type = existing == col.objects.end() ? "ADDED" : "MODIFIED";
      }
      rv = ++rv_;
      json& meta = object["metadata"];
      if (!meta.contains("uid")) {
        char uid[40];
        std::snprintf(uid, sizeof uid, "fa4e0000-0000-4000-8000-%012llx",
                      static_cast<unsigned long long>(rv));
        meta["uid"] =
            existing != col.objects.end() ? (*existing->second)["metadata"]["uid"] : json(uid);
      }
      if (!meta.contains("creationTimestamp")) {
        meta["creationTimestamp"] = existing != col.objects.end()
                                        ? (*existing->second)["metadata"]["creationTimestamp"]
                                        : json(Rfc3339Now());
      }
      meta["resourceVersion"] = std::to_string(rv);
      auto ptr = std::make_shared<const json>(std::move(object));
      if (type == "DELETED") {
        col.objects.erase(existing);
      } else {
        col.objects[key] = ptr;
      }
      col.history.push_back(Event{type, rv, std::move(key), std::move(ptr)});
    }
    cv_.notify_all();
    return rv;
  }

  SSL_CTX* ctx_ = nullptr;
  int listen_fd_ = -1;
  int port_ = 0;
  std::thread acceptor_;

  std::mutex conn_mu_;
  std::list<std::unique_ptr<Connection>> conns_;

  mutable std::mutex mu_;
  mutable std::condition_variable cv_;
  bool stopping_ = false;
  int64_t rv_ = 1000;  // a running cluster's counter is far from zero
  int64_t compact_rv_ = 0;
  Collection collections_[kResourceCount];
  std::map<int, WatchState> watches_;
  int next_watch_id_ = 0;
  std::vector<FailRule> fail_rules_;
  std::set<std::string> tokens_;
  std::string basic_user_;
  std::string basic_password_;
  std::string last_authorization_;
  std::string last_subject_;
  std::vector<RecordedRequest> requests_;
  std::atomic<int> failed_handshakes_{0};
};

// --- FakeApiServer.

const std::vector<std::string>& FakeApiServer::Resources() {
  static const std::vector<std::string> kNames = [] {
    std::vector<std::string> names;
    for (const ResourceInfo& r : kResourceInfo) names.emplace_back(r.name);
    return names;
  }();
  return kNames;
}

std::string FakeApiServer::CollectionPath(std::string_view resource) {
  const int r = ResourceIndex(resource);
  return r < 0 ? "" : std::string(kResourceInfo[r].path);
}

FakeApiServer::FakeApiServer(std::optional<ApiServerTls> tls)
    : impl_(std::make_unique<Impl>(std::move(tls))) {}

FakeApiServer::~FakeApiServer() = default;

void FakeApiServer::Stop() { impl_->Stop(); }

int FakeApiServer::port() const { return impl_->port_; }

std::string FakeApiServer::url() const {
  return StrCat(impl_->ctx_ != nullptr ? "https" : "http", "://127.0.0.1:", impl_->port_);
}

int64_t FakeApiServer::Upsert(std::string_view resource, nlohmann::json object) {
  const size_t r = CheckedResource(resource);
  const ResourceInfo& info = kResourceInfo[r];
  if (!object.is_object() || !object.contains("metadata") || !object["metadata"].contains("name") ||
      !object["metadata"]["name"].is_string()) {
    throw std::invalid_argument(
        StrCat("FakeApiServer::Upsert(", resource, "): object without metadata.name"));
  }
  json& meta = object["metadata"];
  if (!info.namespaced) {
    meta.erase("namespace");
  } else if (!meta.contains("namespace") || !meta["namespace"].is_string() ||
             meta["namespace"].get<std::string>().empty()) {
    meta["namespace"] = "default";
  }
  Key key(info.namespaced ? meta["namespace"].get<std::string>() : "",
          meta["name"].get<std::string>());
  object["kind"] = info.kind;
  object["apiVersion"] = info.api_version;
  return impl_->Change(r, "ADDED", std::move(key), std::move(object));
}

int64_t FakeApiServer::Delete(std::string_view resource, std::string_view ns,
                              std::string_view name) {
  const size_t r = CheckedResource(resource);
  Key key(kResourceInfo[r].namespaced ? std::string(ns) : "", std::string(name));
  return impl_->Change(r, "DELETED", std::move(key), json());
}

std::optional<nlohmann::json> FakeApiServer::Get(std::string_view resource, std::string_view ns,
                                                 std::string_view name) const {
  const size_t r = CheckedResource(resource);
  std::lock_guard<std::mutex> lock(impl_->mu_);
  const auto& objects = impl_->collections_[r].objects;
  const auto it =
      objects.find(Key(kResourceInfo[r].namespaced ? std::string(ns) : "", std::string(name)));
  if (it == objects.end()) return std::nullopt;
  return *it->second;
}

int64_t FakeApiServer::resource_version() const {
  std::lock_guard<std::mutex> lock(impl_->mu_);
  return impl_->rv_;
}

void FakeApiServer::Compact() {
  std::lock_guard<std::mutex> lock(impl_->mu_);
  // The next version marks the compaction, so that what was handed out before is older than it
  // while a list made afterwards returns a version a watch can start from.
  impl_->compact_rv_ = ++impl_->rv_;
}

int FakeApiServer::HangUpWatches() {
  return impl_->EndWatches([](WatchState& w) {
    w.hang_up = true;
    return true;
  });
}

int FakeApiServer::InjectWatchError(std::string_view resource, int status_code,
                                    std::string_view reason) {
  const size_t r = CheckedResource(resource);
  const json status = StatusObject(status_code, reason, StrCat("injected watch error: ", reason));
  return impl_->EndWatches([&](WatchState& w) {
    if (w.resource != r) return false;
    w.error = status;
    return true;
  });
}

void FakeApiServer::SendBookmark(std::string_view resource) {
  const size_t r = CheckedResource(resource);
  {
    std::lock_guard<std::mutex> lock(impl_->mu_);
    for (auto& [id, w] : impl_->watches_) {
      if (w.resource == r && w.bookmarks) w.bookmarks_at.push_back(impl_->rv_);
    }
  }
  impl_->cv_.notify_all();
}

void FakeApiServer::FailNext(std::string path_prefix, int http_status, int n, Verb verb) {
  if (n <= 0) return;
  std::lock_guard<std::mutex> lock(impl_->mu_);
  impl_->fail_rules_.push_back(FailRule{std::move(path_prefix), http_status, n, verb});
}

void FakeApiServer::ClearFailures() {
  std::lock_guard<std::mutex> lock(impl_->mu_);
  impl_->fail_rules_.clear();
}

void FakeApiServer::SetTokens(std::set<std::string> tokens) {
  std::lock_guard<std::mutex> lock(impl_->mu_);
  impl_->tokens_ = std::move(tokens);
}

void FakeApiServer::SetBasicAuth(std::string user, std::string password) {
  std::lock_guard<std::mutex> lock(impl_->mu_);
  impl_->basic_user_ = std::move(user);
  impl_->basic_password_ = std::move(password);
}

int FakeApiServer::ListCount(std::string_view resource) const {
  const size_t r = CheckedResource(resource);
  std::lock_guard<std::mutex> lock(impl_->mu_);
  return impl_->collections_[r].lists;
}

int FakeApiServer::WatchCount(std::string_view resource) const {
  const size_t r = CheckedResource(resource);
  std::lock_guard<std::mutex> lock(impl_->mu_);
  return impl_->collections_[r].watches;
}

std::vector<std::string> FakeApiServer::Queries(std::string_view resource) const {
  const size_t r = CheckedResource(resource);
  std::lock_guard<std::mutex> lock(impl_->mu_);
  return impl_->collections_[r].queries;
}

std::string FakeApiServer::LastAuthorization() const {
  std::lock_guard<std::mutex> lock(impl_->mu_);
  return impl_->last_authorization_;
}

std::string FakeApiServer::LastClientSubject() const {
  std::lock_guard<std::mutex> lock(impl_->mu_);
  return impl_->last_subject_;
}

std::vector<RecordedRequest> FakeApiServer::Requests() const {
  std::lock_guard<std::mutex> lock(impl_->mu_);
  return impl_->requests_;
}

int FakeApiServer::FailedHandshakes() const { return impl_->failed_handshakes_; }

int FakeApiServer::OpenWatches(std::string_view resource) const {
  const size_t r = CheckedResource(resource);
  std::lock_guard<std::mutex> lock(impl_->mu_);
  return impl_->collections_[r].open_watches;
}

bool FakeApiServer::WaitForWatches(std::string_view resource, int n,
                                   std::chrono::milliseconds timeout) const {
  const size_t r = CheckedResource(resource);
  std::unique_lock<std::mutex> lock(impl_->mu_);
  return impl_->cv_.wait_for(lock, timeout,
                             [&] { return impl_->collections_[r].open_watches == n; });
}

bool FakeApiServer::WaitForRequests(std::string_view resource, Verb verb, int n,
                                    std::chrono::milliseconds timeout) const {
  const size_t r = CheckedResource(resource);
  std::unique_lock<std::mutex> lock(impl_->mu_);
  return impl_->cv_.wait_for(lock, timeout, [&] {
    const Collection& col = impl_->collections_[r];
    const int count = verb == Verb::kList    ? col.lists
                      : verb == Verb::kWatch ? col.watches
                                             : col.lists + col.watches;
    return count >= n;
  });
}

Result<TestPki> MakeTestPki(const std::filesystem::path& dir) {
  const std::string key = "-newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes";
  const testing_util::RunResult r = testing_util::RunShell(StrCat(
      "(cd '", dir.string(), "' && ",
      "printf 'subjectAltName=IP:127.0.0.1,DNS:localhost\\nextendedKeyUsage=serverAuth\\n'"
      " > server.ext && printf 'extendedKeyUsage=clientAuth\\n' > client.ext && ",
      "openssl req -x509 ", key, " -keyout ca.key -out ca.crt -days 2 -subj /CN=gpucost-test-ca",
      " && openssl req -x509 ", key,
      " -keyout other-ca.key -out other-ca.crt -days 2 -subj /CN=gpucost-other-ca",
      " && openssl req ", key, " -keyout server.key -out server.csr -subj /CN=kube-apiserver",
      " && openssl x509 -req -in server.csr -CA ca.crt -CAkey ca.key -CAcreateserial",
      " -out server.crt -days 2 -extfile server.ext", " && openssl req ", key,
      " -keyout client.key -out client.csr -subj '/O=system:masters/CN=gpucost-client'",
      " && openssl x509 -req -in client.csr -CA ca.crt -CAkey ca.key -CAcreateserial",
      " -out client.crt -days 2 -extfile client.ext) 2>&1"));
  if (r.exit_code != 0) return Status::Internal(StrCat("openssl failed: ", r.output));
  return TestPki{dir / "ca.crt",     dir / "server.crt", dir / "server.key",
                 dir / "client.crt", dir / "client.key", dir / "other-ca.crt"};
}

}  // namespace gpucost::k8s::testing
