#include "promsource/http_transport.h"

#include <curl/curl.h>

#include <algorithm>
#include <mutex>

#include "core/strings.h"

namespace gpucost::promsource {
namespace {

void GlobalInitOnce() {
  static std::once_flag once;
  std::call_once(once, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
}

struct Sink {
  std::string* body;
  size_t limit;
  bool overflow = false;
};

size_t WriteBody(char* data, size_t size, size_t count, void* user) {
  Sink* sink = static_cast<Sink*>(user);
  const size_t n = size * count;
  if (sink->body->size() + n > sink->limit) {
    sink->overflow = true;
    return 0;  // makes curl fail with CURLE_WRITE_ERROR
  }
  sink->body->append(data, n);
  return n;
}

// Records the Content-Encoding response header (curl reports Content-Type itself).
size_t ReadHeader(char* data, size_t size, size_t count, void* user) {
  auto* encoding = static_cast<std::string*>(user);
  const size_t n = size * count;
  const std::string_view line(data, n);
  const size_t colon = line.find(':');
  if (colon != std::string_view::npos &&
      ToLower(Trim(line.substr(0, colon))) == "content-encoding") {
    *encoding = std::string(Trim(line.substr(colon + 1)));
  } else if (line.starts_with("HTTP/")) {
    encoding->clear();  // a new response (after 100 Continue)
  }
  return n;
}

class CurlTransport final : public HttpTransport {
 public:
  explicit CurlTransport(HttpOptions options) : options_(std::move(options)) {
    GlobalInitOnce();
    handle_ = curl_easy_init();
  }
  ~CurlTransport() override {
    if (handle_ != nullptr) curl_easy_cleanup(handle_);
  }
  CurlTransport(const CurlTransport&) = delete;
  CurlTransport& operator=(const CurlTransport&) = delete;

  TransportResult Send(const HttpRequest& request) override {
    TransportResult out;
    if (handle_ == nullptr) {
      out.failure = TransportFailure::kOther;
      out.error = "libcurl could not be initialised";
      return out;
    }
    CURL* h = handle_;
    curl_easy_reset(h);  // keeps the connection cache, so chunks reuse one connection
    std::string body;
    body.reserve(std::min(request.response_bytes_hint, options_.max_response_bytes));
    Sink sink{&body, options_.max_response_bytes};
    curl_slist* headers = nullptr;
    for (const auto& [k, v] : request.headers) {
      headers = curl_slist_append(headers, StrCat(k, ": ", v).c_str());
    }
    curl_easy_setopt(h, CURLOPT_URL, request.url.c_str());
    curl_easy_setopt(h, CURLOPT_CUSTOMREQUEST, request.method.c_str());
    if (!request.body.empty()) {
      curl_easy_setopt(h, CURLOPT_POSTFIELDS, request.body.data());
      curl_easy_setopt(h, CURLOPT_POSTFIELDSIZE_LARGE,
                       static_cast<curl_off_t>(request.body.size()));
    }
    curl_easy_setopt(h, CURLOPT_HTTPHEADER, headers);
    curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, &WriteBody);
    curl_easy_setopt(h, CURLOPT_WRITEDATA, &sink);
    curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT_MS,
                     static_cast<long>(options_.connect_timeout.count()));
    curl_easy_setopt(h, CURLOPT_TIMEOUT_MS, static_cast<long>(options_.request_timeout.count()));
    curl_easy_setopt(h, CURLOPT_SSL_VERIFYPEER, options_.verify_tls ? 1L : 0L);
    curl_easy_setopt(h, CURLOPT_SSL_VERIFYHOST, options_.verify_tls ? 2L : 0L);
    if (!options_.ca_file.empty()) curl_easy_setopt(h, CURLOPT_CAINFO, options_.ca_file.c_str());
    if (FindHeader(request, "Accept-Encoding") == nullptr) {
      curl_easy_setopt(h, CURLOPT_ACCEPT_ENCODING, "");  // gzip/deflate as the server offers
    }
    std::string content_encoding;
    curl_easy_setopt(h, CURLOPT_HEADERFUNCTION, &ReadHeader);
    curl_easy_setopt(h, CURLOPT_HEADERDATA, &content_encoding);
    if (!options_.cert_file.empty()) {
      curl_easy_setopt(h, CURLOPT_SSLCERT, options_.cert_file.c_str());
    }
    if (!options_.key_file.empty()) curl_easy_setopt(h, CURLOPT_SSLKEY, options_.key_file.c_str());
    curl_easy_setopt(h, CURLOPT_USERAGENT, options_.user_agent.c_str());
    curl_easy_setopt(h, CURLOPT_FOLLOWLOCATION, 0L);  // never forward credentials elsewhere
    curl_easy_setopt(h, CURLOPT_PROTOCOLS_STR, "http,https");

    const CURLcode rc = curl_easy_perform(h);
    curl_slist_free_all(headers);
    if (rc != CURLE_OK) {
      if (sink.overflow) {
        out.failure = TransportFailure::kOther;
        out.error = StrCat("response larger than ", options_.max_response_bytes,
                           " bytes (use a shorter chunk)");
      } else {
        out.failure =
            rc == CURLE_OPERATION_TIMEDOUT ? TransportFailure::kTimeout
            : (rc == CURLE_COULDNT_CONNECT || rc == CURLE_COULDNT_RESOLVE_HOST ||
               rc == CURLE_RECV_ERROR || rc == CURLE_SEND_ERROR || rc == CURLE_GOT_NOTHING)
                ? TransportFailure::kConnect
                : TransportFailure::kOther;
        out.error = curl_easy_strerror(rc);
      }
      return out;
    }
    long status = 0;
    curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &status);
    char* content_type = nullptr;
    curl_easy_getinfo(h, CURLINFO_CONTENT_TYPE, &content_type);
    out.response = HttpResponse{status, std::move(body),
                                content_type != nullptr ? content_type : "",
                                std::move(content_encoding)};
    return out;
  }

 private:
  HttpOptions options_;
  CURL* handle_ = nullptr;
};

}  // namespace

std::unique_ptr<HttpTransport> MakeCurlTransport(HttpOptions options) {
  return std::make_unique<CurlTransport>(std::move(options));
}

const std::string* FindHeader(const HttpRequest& request, std::string_view name) {
  const std::string want = ToLower(name);
  for (const auto& [k, v] : request.headers) {
    if (ToLower(k) == want) return &v;
  }
  return nullptr;
}

}  // namespace gpucost::promsource
