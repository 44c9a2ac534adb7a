// WorkSeriesCollector: an ExpositionHandler that keeps the raw samples of one work counter
// (requests served, tokens generated, training steps, ...) per series, with the pod and
// namespace each series belongs to, so that the counter can be joined to the GPU holders of
// the same input (docs/unit-cost.md). Samples of other metrics are ignored at the cost of one
// name comparison. Not thread-safe.
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "core/labels.h"
#include "core/result.h"
#include "ingest/exposition.h"
#include "workcost/counter_increase.h"

namespace gpucost::workcost {

struct WorkSeriesOptions {
  std::string metric;  // the sample name as stored, e.g. vllm:request_success_total
  // Label naming the series' pod. Empty: `exported_pod` when the series has it (Prometheus
  // relabelled the target's own `pod` label), else `pod`.
  std::string pod_label;
  std::string namespace_label;              // likewise: `exported_namespace`, else `namespace`
  std::string default_cluster = "default";  // for series without a `cluster` label
};

struct WorkSeries {
  std::string cluster;
  std::string namespace_name;          // empty when the series has no namespace label
  std::string pod;                     // empty when the series has no pod label
  LabelSet labels;                     // the series' labels, for messages
  std::string first_seen;              // "file:line" of its first sample
  std::vector<CounterSample> samples;  // sorted by time, one per timestamp, finite and >= 0
};

class WorkSeriesCollector final : public ExpositionHandler {
 public:
  explicit WorkSeriesCollector(WorkSeriesOptions options);

  // Names the input the following samples come from (for file:line in messages).
  void BeginSource(std::string name);

  void OnSample(const SampleView& sample) override;

  // The series, each sorted by time (a repeated timestamp keeps the value read last), in the
  // order they were first seen. Call once.
  std::vector<WorkSeries> Finish();

  const WorkSeriesOptions& options() const { return options_; }
  uint64_t samples() const { return samples_; }
  // Samples skipped (no timestamp, NaN or infinite, negative, duplicate label names, and after
  // Finish a rise past what a counter counts in one step), each kind once with a count and the
  // first place it happened.
  std::vector<std::string> warnings() const;

 private:
  struct Skipped {
    uint64_t count = 0;
    std::string first;
  };
  void Skip(Skipped& kind, const SampleView& sample, std::string_view what);

  WorkSeriesOptions options_;
  std::string source_ = "<input>";
  std::vector<WorkSeries> series_;
  std::unordered_map<LabelSet, size_t, LabelSetHash> index_;
  uint64_t samples_ = 0;
  Skipped untimestamped_;
  Skipped not_finite_;
  Skipped negative_;
  Skipped bad_labels_;
  Skipped jumps_;  // rises past kMaxCounterRise (Finish)
};

}  // namespace gpucost::workcost
