// Helpers for the exposition parser tests: a handler that records everything it is given, and a
// ByteSource that returns a few bytes per Read so lines straddle block boundaries.
#pragma once

#include <algorithm>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "ingest/exposition.h"

namespace gpucost::testing {

struct RecordedSample {
  std::string name;
  std::vector<std::pair<std::string, std::string>> labels;
  double value = 0;
  bool has_timestamp = false;
  int64_t timestamp_ms = 0;
  uint64_t line = 0;
  bool is_created = false;
  uint64_t series = 0;  // not compared: an id, not what was parsed

  std::string Label(const std::string& n) const {
    for (const auto& [k, v] : labels) {
      if (k == n) return v;
    }
    return "<absent>";
  }
  bool operator==(const RecordedSample& o) const {
    const bool same_value = value == o.value || (value != value && o.value != o.value);  // NaN
    return name == o.name && labels == o.labels && same_value && has_timestamp == o.has_timestamp &&
           timestamp_ms == o.timestamp_ms && line == o.line && is_created == o.is_created;
  }
};

struct RecordedMetadata {
  MetadataKind kind;
  std::string family;
  std::string text;
  MetricType type;
  uint64_t line;
};

class Recorder : public ExpositionHandler {
 public:
  void OnSample(const SampleView& s) override {
    RecordedSample r;
    r.name = std::string(s.name);
    for (const LabelView& l : s.labels) r.labels.emplace_back(std::string(l.name), std::string(l.value));
    r.value = s.value;
    r.has_timestamp = s.has_timestamp;
    r.timestamp_ms = s.timestamp_ms;
    r.line = s.line;
    r.is_created = s.is_created;
    r.series = s.series;
    samples.push_back(std::move(r));
  }
  void OnMetadata(const MetadataView& m) override {
    metadata.push_back({m.kind, std::string(m.family), std::string(m.text), m.type, m.line});
  }
  bool OnError(const ParseIssue& issue) override {
    errors.push_back(issue);
    return errors.size() < stop_after_errors;
  }

  std::vector<RecordedSample> samples;
  std::vector<RecordedMetadata> metadata;
  std::vector<ParseIssue> errors;
  size_t stop_after_errors = SIZE_MAX;
};

// Returns 1..max_chunk bytes per Read, cycling through sizes, to put block boundaries everywhere.
class ChunkedSource : public ByteSource {
 public:
  ChunkedSource(std::string data, size_t max_chunk) : data_(std::move(data)), max_chunk_(max_chunk) {}
  Result<size_t> Read(char* buf, size_t n) override {
    const size_t want = 1 + (calls_++ % max_chunk_);
    const size_t k = std::min({n, want, data_.size() - pos_});
    std::memcpy(buf, data_.data() + pos_, k);
    pos_ += k;
    return k;
  }
  const std::string& name() const override { return name_; }

 private:
  std::string data_;
  size_t max_chunk_;
  size_t pos_ = 0;
  size_t calls_ = 0;
  std::string name_ = "<chunked>";
};

struct ParseOutcome {
  Result<ParseStats> stats = Status::Internal("not run");
  Recorder rec;
};

inline ParseOutcome ParseString(const std::string& text, ParseOptions options = {}) {
  ParseOutcome out;
  auto src = StringByteSource(text);
  out.stats = ParseExposition(*src, options, out.rec);
  return out;
}

}  // namespace gpucost::testing
