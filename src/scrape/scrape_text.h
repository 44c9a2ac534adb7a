// ScrapeText: re-renders one parsed scrape as the timestamped Prometheus text that the spool
// holds and `--input` reads: # HELP / # TYPE / # UNIT lines as received, every sample with the
// scrape time when it had no timestamp of its own (milliseconds), and the target's labels added
// where a sample lacks them. OpenMetrics "_created" samples and exemplars are dropped. Re-rendering
// (rather than copying the body) means a spool file never holds "# EOF", OpenMetrics second
// timestamps or anything the strict parse did not accept. Not thread-safe; one per scrape.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "ingest/exposition.h"

namespace gpucost::scrape {

class ScrapeText final : public ExpositionHandler {
 public:
  // `extra_labels` in the order they are appended; each is added only when absent or empty.
  ScrapeText(int64_t scrape_ms, std::vector<std::pair<std::string, std::string>> extra_labels);

  void OnSample(const SampleView& sample) override;
  void OnMetadata(const MetadataView& metadata) override;

  std::string& text() { return text_; }
  uint64_t samples() const { return samples_; }

 private:
  int64_t scrape_ms_;
  std::vector<std::pair<std::string, std::string>> extra_;
  std::vector<bool> present_;  // per extra label, for the sample being written
  std::string text_;
  uint64_t samples_ = 0;
};

}  // namespace gpucost::scrape
