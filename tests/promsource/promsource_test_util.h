// Helpers for the Prometheus source tests: a handler that records samples and a transport that
// answers from canned responses.
#pragma once

#include <cstdint>
#include <deque>
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

// Answers each request with the next canned result; records the URLs asked for.
class ScriptedTransport final : public HttpTransport {
 public:
  explicit ScriptedTransport(std::deque<TransportResult> script, std::vector<std::string>* urls)
      : script_(std::move(script)), urls_(urls) {}
  TransportResult Send(const HttpRequest& request) override {
    if (urls_ != nullptr) urls_->push_back(request.url);
    if (script_.empty()) return TransportResult{std::nullopt, TransportFailure::kOther, "no more"};
    TransportResult r = std::move(script_.front());
    script_.pop_front();
    return r;
  }

 private:
  std::deque<TransportResult> script_;
  std::vector<std::string>* urls_;
};

inline TransportResult Answer(long status, std::string body) {
  return TransportResult{HttpResponse{status, std::move(body)}, TransportFailure::kNone, ""};
}

}  // namespace gpucost::promsource::testing
