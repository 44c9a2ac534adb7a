#include "k8s/api_client.h"

#include <curl/curl.h>

#include <memory>
#include <mutex>

#include <nlohmann/json.hpp>

#include "core/strings.h"

namespace gpucost::k8s {
namespace {

void GlobalInit() {
  static std::once_flag once;
  std::call_once(once, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
}

struct Transfer {
  ApiResponse* response = nullptr;
  const ApiClient::LineHandler* on_line = nullptr;
  const std::atomic<bool>* stop = nullptr;
  size_t max_bytes = 0;
  long status = 0;       // from the status line, known before the body
  std::string pending;   // a partial line of a streamed body
  bool stopped_by_handler = false;
  bool too_large = false;
};

size_t OnHeader(char* data, size_t size, size_t n, void* user) {
  auto* t = static_cast<Transfer*>(user);
  const std::string_view line(data, size * n);
  if (line.starts_with("HTTP/")) {
    const auto parts = Split(line, ' ');
    if (parts.size() >= 2) t->status = std::strtol(std::string(parts[1]).c_str(), nullptr, 10);
    t->response->retry_after.clear();
  } else if (const size_t colon = line.find(':'); colon != std::string_view::npos) {
    if (ToLower(Trim(line.substr(0, colon))) == "retry-after") {
      t->response->retry_after = std::string(Trim(line.substr(colon + 1)));
    }
  }
  return size * n;
}

size_t OnBody(char* data, size_t size, size_t n, void* user) {
  auto* t = static_cast<Transfer*>(user);
  const size_t len = size * n;
  if (t->on_line == nullptr || t->status != 200) {
    if (t->response->body.size() + len > t->max_bytes) {
      t->too_large = true;
      return 0;
    }
    t->response->body.append(data, len);
    return len;
  }
  std::string_view chunk(data, len);
  while (!chunk.empty()) {
    const size_t nl = chunk.find('\n');
    if (nl == std::string_view::npos) {
      t->pending.append(chunk);
      if (t->pending.size() > t->max_bytes) {
        t->too_large = true;
        return 0;
      }
      break;
    }
    bool go_on;
    if (t->pending.empty()) {
      go_on = (*t->on_line)(chunk.substr(0, nl));
    } else {
      t->pending.append(chunk.substr(0, nl));
      go_on = (*t->on_line)(t->pending);
      t->pending.clear();
    }
    chunk.remove_prefix(nl + 1);
    if (!go_on) {
      t->stopped_by_handler = true;
      return 0;
    }
  }
  return len;
}

int OnProgress(void* user, curl_off_t, curl_off_t, curl_off_t, curl_off_t) {
  auto* t = static_cast<Transfer*>(user);
  return t->stop != nullptr && t->stop->load() ? 1 : 0;
}

struct CurlFree {
  void operator()(CURL* h) const { curl_easy_cleanup(h); }
};
struct SlistFree {
  void operator()(curl_slist* l) const { curl_slist_free_all(l); }
};

void SetBlob(CURL* h, CURLoption option, const std::string& pem) {
  curl_blob blob{const_cast<char*>(pem.data()), pem.size(), CURL_BLOB_COPY};
  curl_easy_setopt(h, option, &blob);
}

struct ServerAddress {
  std::string scheme, host, port;
};

// "https://10.0.0.1:6443" -> {https, 10.0.0.1, 6443}; "https://[::1]" -> {https, [::1], 443}.
ServerAddress SplitServer(std::string_view server) {
  ServerAddress a;
  const size_t sep = server.find("://");
  if (sep == std::string_view::npos) return a;
  a.scheme = std::string(server.substr(0, sep));
  std::string_view rest = server.substr(sep + 3);
  rest = rest.substr(0, rest.find('/'));
  const size_t bracket = rest.rfind(']');
  const size_t colon = rest.rfind(':');
  if (colon != std::string_view::npos && (bracket == std::string_view::npos || colon > bracket)) {
    a.host = std::string(rest.substr(0, colon));
    a.port = std::string(rest.substr(colon + 1));
  } else {
    a.host = std::string(rest);
    a.port = a.scheme == "http" ? "80" : "443";
  }
  return a;
}

}  // namespace

std::string StatusMessage(std::string_view body) {
  auto j = nlohmann::json::parse(body, nullptr, false);
  if (j.is_object() && j.value("kind", "") == "Status") {
    std::string m = j.value("message", "");
    const std::string reason = j.value("reason", "");
    if (!reason.empty()) m = m.empty() ? reason : StrCat(m, " (", reason, ")");
    return m;
  }
  std::string head(body.substr(0, 200));
  for (char& c : head) {
    if (c == '\n' || c == '\r') c = ' ';
  }
  return head;
}

ApiClient::ApiClient(KubeConnection connection, CredentialSource& credentials,
                     ClientOptions options)
    : connection_(std::move(connection)), credentials_(credentials), options_(std::move(options)) {
  GlobalInit();
}

Result<ApiResponse> ApiClient::Get(std::string_view path_and_query) const {
  return Perform(path_and_query, options_.request_timeout, nullptr, nullptr);
}

Result<ApiResponse> ApiClient::Stream(std::string_view path_and_query, Duration timeout,
                                      const LineHandler& on_line,
                                      const std::atomic<bool>* stop) const {
  return Perform(path_and_query, timeout, &on_line, stop);
}

Result<ApiResponse> ApiClient::Perform(std::string_view path_and_query, Duration timeout,
                                       const LineHandler* on_line,
                                       const std::atomic<bool>* stop) const {
  auto creds = credentials_.Get();
  if (!creds.ok()) return creds.status().WithContext("Kubernetes API credentials");
  auto first = PerformOnce(path_and_query, timeout, on_line, stop, *creds);
  if (!first.ok() || first->status != 401) return first;
  // A rotated token or an expired exec credential: fetch them anew, once.
  credentials_.Invalidate();
  auto fresh = credentials_.Get();
  if (!fresh.ok()) return fresh.status().WithContext("Kubernetes API credentials");
  return PerformOnce(path_and_query, timeout, on_line, stop, *fresh);
}

Result<ApiResponse> ApiClient::PerformOnce(std::string_view path_and_query, Duration timeout,
                                           const LineHandler* on_line,
                                           const std::atomic<bool>* stop,
                                           const Credentials& creds) const {
  std::unique_ptr<CURL, CurlFree> handle(curl_easy_init());
  if (!handle) return Status::Internal("curl_easy_init failed");
  CURL* h = handle.get();
  ApiResponse response;
  Transfer t;
  t.response = &response;
  t.on_line = on_line;
  t.stop = stop;
  t.max_bytes = options_.max_response_bytes;

  std::string url = StrCat(connection_.server, path_and_query);
  std::unique_ptr<curl_slist, SlistFree> connect_to;
  if (!connection_.tls_server_name.empty()) {
    // The certificate is checked for tls-server-name: the URL names it (so curl sends it as SNI
    // and verifies it) and CONNECT_TO sends the connection to the real host.
    const ServerAddress a = SplitServer(connection_.server);
    if (!a.host.empty() && a.host != connection_.tls_server_name) {
      url = StrCat(a.scheme, "://", connection_.tls_server_name, ":", a.port, path_and_query);
      connect_to.reset(curl_slist_append(
          nullptr, StrCat(connection_.tls_server_name, ":", a.port, ":", a.host, ":", a.port).c_str()));
      curl_easy_setopt(h, CURLOPT_CONNECT_TO, connect_to.get());
    }
  }
  curl_easy_setopt(h, CURLOPT_URL, url.c_str());
  curl_easy_setopt(h, CURLOPT_HTTPGET, 1L);
  curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(h, CURLOPT_PROTOCOLS_STR, "http,https");
  curl_easy_setopt(h, CURLOPT_FOLLOWLOCATION, 0L);  // never send credentials elsewhere
  curl_easy_setopt(h, CURLOPT_USERAGENT, options_.user_agent.c_str());
  curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT_MS, static_cast<long>(options_.connect_timeout.count()));
  curl_easy_setopt(h, CURLOPT_TIMEOUT_MS, static_cast<long>(timeout.count()));
  curl_easy_setopt(h, CURLOPT_ACCEPT_ENCODING, "");
  curl_easy_setopt(h, CURLOPT_HEADERFUNCTION, &OnHeader);
  curl_easy_setopt(h, CURLOPT_HEADERDATA, &t);
  curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, &OnBody);
  curl_easy_setopt(h, CURLOPT_WRITEDATA, &t);
  if (stop != nullptr) {
    curl_easy_setopt(h, CURLOPT_NOPROGRESS, 0L);
    curl_easy_setopt(h, CURLOPT_XFERINFOFUNCTION, &OnProgress);
    curl_easy_setopt(h, CURLOPT_XFERINFODATA, &t);
  }
  // TLS: verification stays on unless the kubeconfig turns it off for this cluster.
  const bool verify = !connection_.insecure_skip_tls_verify;
  curl_easy_setopt(h, CURLOPT_SSL_VERIFYPEER, verify ? 1L : 0L);
  curl_easy_setopt(h, CURLOPT_SSL_VERIFYHOST, verify ? 2L : 0L);
  if (!connection_.ca_pem.empty()) SetBlob(h, CURLOPT_CAINFO_BLOB, connection_.ca_pem);
  const std::string& cert = !creds.client_cert_pem.empty() ? creds.client_cert_pem
                                                           : connection_.client_cert_pem;
  const std::string& key = !creds.client_key_pem.empty() ? creds.client_key_pem
                                                         : connection_.client_key_pem;
  if (!cert.empty()) {
    SetBlob(h, CURLOPT_SSLCERT_BLOB, cert);
    curl_easy_setopt(h, CURLOPT_SSLCERTTYPE, "PEM");
  }
  if (!key.empty()) {
    SetBlob(h, CURLOPT_SSLKEY_BLOB, key);
    curl_easy_setopt(h, CURLOPT_SSLKEYTYPE, "PEM");
  }
  if (!connection_.proxy_url.empty()) curl_easy_setopt(h, CURLOPT_PROXY, connection_.proxy_url.c_str());
  std::string userpwd;
  std::unique_ptr<curl_slist, SlistFree> headers;
  auto add_header = [&](const std::string& line) {
    headers.reset(curl_slist_append(headers.release(), line.c_str()));
  };
  add_header("Accept: application/json");
  if (!creds.bearer_token.empty()) {
    add_header(StrCat("Authorization: Bearer ", creds.bearer_token));
  } else if (!creds.username.empty()) {
    userpwd = StrCat(creds.username, ":", creds.password);
    curl_easy_setopt(h, CURLOPT_HTTPAUTH, CURLAUTH_BASIC);
    curl_easy_setopt(h, CURLOPT_USERPWD, userpwd.c_str());
  }
  curl_easy_setopt(h, CURLOPT_HTTPHEADER, headers.get());

  const CURLcode rc = curl_easy_perform(h);
  long status = 0;
  curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &status);
  response.status = status;
  if (t.too_large) {
    return Status::IoError(StrCat("GET ", path_and_query, ": response larger than ",
                                              options_.max_response_bytes, " bytes"));
  }
  if (rc == CURLE_OK || t.stopped_by_handler || (stop != nullptr && stop->load())) {
    // A watch whose server hung up mid-line loses only that partial line.
    return response;
  }
  if (rc == CURLE_OPERATION_TIMEDOUT) {
    response.timed_out = true;
    if (on_line != nullptr && status == 200) return response;  // a watch that ran its course
  }
  response.error = curl_easy_strerror(rc);
  switch (rc) {
    case CURLE_PEER_FAILED_VERIFICATION:
    case CURLE_SSL_CACERT_BADFILE:
    case CURLE_SSL_CERTPROBLEM:
    case CURLE_SSL_CIPHER:
    case CURLE_SSL_ISSUER_ERROR:
    case CURLE_SSL_PINNEDPUBKEYNOTMATCH:
    case CURLE_UNSUPPORTED_PROTOCOL:
    case CURLE_URL_MALFORMAT:
    case CURLE_COULDNT_RESOLVE_HOST:
      response.retryable = false;
      break;
    default:
      break;
  }
  if (on_line != nullptr && status == 200 && (rc == CURLE_PARTIAL_FILE || rc == CURLE_RECV_ERROR ||
                                              rc == CURLE_GOT_NOTHING)) {
    return response;  // the server dropped a watch: the caller resumes from its last version
  }
  response.status = 0;
  return response;
}

}  // namespace gpucost::k8s
