// ExpositionWriter: an ExpositionHandler that writes the samples and metadata it is given as
// exposition text: OpenMetrics with second timestamps and "# EOF" (what `promtool tsdb
// create-blocks-from openmetrics` imports), Prometheus text with millisecond timestamps, or
// Prometheus text without timestamps (what an exporter's /metrics serves). Buffers in memory
// and, given a sink, hands the buffer over in large blocks. Not thread-safe.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

#include "core/status.h"
#include "ingest/exposition.h"

namespace gpucost::simulate {

enum class TextFormat : uint8_t {
  kOpenMetrics,    // "name{..} value 1790812800.5", "# EOF" at Finish
  kPromText,       // "name{..} value 1790812800500"
  kUntimestamped,  // "name{..} value" (a live scrape)
};

class ExpositionWriter final : public ExpositionHandler {
 public:
  // `sink` receives the text in blocks of about `flush_bytes`; without one the text stays in
  // text() until taken.
  using Sink = std::function<Status(std::string_view)>;
  explicit ExpositionWriter(TextFormat format, Sink sink = nullptr, size_t flush_bytes = 4u << 20);

  void OnSample(const SampleView& sample) override;
  void OnMetadata(const MetadataView& metadata) override;

  // Writes "# EOF" for OpenMetrics and flushes; the first sink error, if any.
  Status Finish();

  std::string& text() { return buf_; }
  uint64_t samples() const { return samples_; }
  uint64_t bytes() const { return bytes_ + buf_.size(); }

 private:
  void MaybeFlush();
  void AppendEscaped(std::string_view value);

  TextFormat format_;
  Sink sink_;
  size_t flush_bytes_;
  std::string buf_;
  uint64_t samples_ = 0;
  uint64_t bytes_ = 0;
  Status status_;
};

}  // namespace gpucost::simulate
