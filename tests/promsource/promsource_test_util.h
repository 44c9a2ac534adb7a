// Helpers for the Prometheus source tests: a handler that records samples and a transport that
// answers from canned responses.
#pragma once

#include <cstdint>
#include <deque>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "ingest/exposition.h"
#include "promsource/http_transport.h"

namespace gpucost::promsource::testing {

struct RecordedSample {
  std::string name;
  std::vector<std::pair<std::string, std::string>> labels;
  double value = 0;
  int64_t t_ms = 0;
};

class RecordingHandler final : public ExpositionHandler {
 public:
  void OnSample(const SampleView& s) override {
    RecordedSample r{std::string(s.name), {}, s.value, s.timestamp_ms};
    for (const LabelView& l : s.labels) r.labels.emplace_back(l.name, l.value);
    samples.push_back(std::move(r));
  }
  std::vector<RecordedSample> samples;
};

// Answers each request with the next canned result; records the URLs (and requests) asked for.
class ScriptedTransport final : public HttpTransport {
 public:
  explicit ScriptedTransport(std::deque<TransportResult> script, std::vector<std::string>* urls,
                             std::vector<HttpRequest>* requests = nullptr)
      : script_(std::move(script)), urls_(urls), requests_(requests) {}
  TransportResult Send(const HttpRequest& request) override {
    if (urls_ != nullptr) urls_->push_back(request.url);
    if (requests_ != nullptr) requests_->push_back(request);
    if (script_.empty()) return TransportResult{std::nullopt, TransportFailure::kOther, "no more"};
    TransportResult r = std::move(script_.front());
    script_.pop_front();
    return r;
  }

 private:
  std::deque<TransportResult> script_;
  std::vector<std::string>* urls_;
  std::vector<HttpRequest>* requests_;
};

inline TransportResult Answer(long status, std::string body, std::string content_type = "",
                              std::string content_encoding = "") {
  return TransportResult{
      HttpResponse{status, std::move(body), std::move(content_type), std::move(content_encoding)},
      TransportFailure::kNone, ""};
}

// Bytes from a hex string ("0a1b...", whitespace ignored).
inline std::string FromHex(std::string_view hex) {
  std::string out;
  int hi = -1;
  for (const char c : hex) {
    int v = -1;
    if (c >= '0' && c <= '9') v = c - '0';
    if (c >= 'a' && c <= 'f') v = c - 'a' + 10;
    if (c >= 'A' && c <= 'F') v = c - 'A' + 10;
    if (v < 0) continue;
    if (hi < 0) {
      hi = v;
    } else {
      out.push_back(static_cast<char>(hi * 16 + v));
      hi = -1;
    }
  }
  return out;
}

// A file of tests/promsource/data/, whole.
inline std::string ReadData(const std::string& name) {
  std::ifstream in(std::string(GPUCOST_SOURCE_DIR) + "/tests/promsource/data/" + name);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

}  // namespace gpucost::promsource::testing
