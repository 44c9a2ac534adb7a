// LineParser: parses one exposition line (sample, metadata, comment or "# EOF") and calls the
// handler for samples and metadata. It remembers each family's TYPE so it can mark OpenMetrics
// "_created" samples. Views it hands out point into the line or into a scratch buffer and die
// with the next call. Internal to the ingest module; not thread-safe.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "ingest/exposition.h"
#include "ingest/known_series.h"

namespace gpucost::exposition_internal {

enum class LineResult : uint8_t { kOk, kError, kEof };

class LineParser {
 public:
  LineParser(ExpositionFormat format, ExpositionHandler& handler, bool remember_series = false);

  // `line` excludes its line break (and a CR before it). On kError, error() says what was wrong.
  LineResult Parse(std::string_view line, uint64_t line_no);
  const std::string& error() const { return error_; }
  uint64_t samples() const { return samples_; }

 private:
  LineResult ParseSample(const char* p, const char* end);
  LineResult ParseComment(const char* p, const char* end);
  LineResult ParseExemplar(const char* p, const char* end);
  // `p` points at '{'. On success `p` is just past '}'. A quoted name not followed by '=' is
  // the metric name (Prometheus 3 form) and goes to *metric_name when that is non-null.
  bool ParseLabels(const char*& p, const char* end, std::vector<LabelView>& out,
                   std::string_view* metric_name);
  // `p` points at the opening quote; on success `p` is just past the closing one.
  bool ParseQuoted(const char*& p, const char* end, std::string_view& out);
  bool ParseMetadataName(const char*& p, const char* end, std::string_view& out);
  bool CheckDuplicateLabels(const std::vector<LabelView>& labels);
  bool IsCreatedSample(std::string_view name);
  LineResult Fail(std::string message);

  ExpositionFormat format_;
  ExpositionHandler& handler_;
  uint64_t line_no_ = 0;
  uint64_t samples_ = 0;
  std::string_view line_;
  std::vector<LabelView> labels_;
  std::vector<LabelView> exemplar_labels_;
  // Unescaped strings of the current line. Reserved to the line's length before the first
  // append, so views into it stay valid for the whole line.
  std::string scratch_;
  bool scratch_ready_ = false;
  std::unordered_map<std::string, MetricType> types_;
  // Whether to go on remembering series: false (and the table emptied) once the table holds
  // next_check_ series and lines have found them fewer than four times each on average.
  bool KeepRemembering();
  // Remembers the series `text` (just parsed into `name` and labels_) when it pays.
  const KnownSeries::Entry* Learn(std::string_view text, std::string_view name);
  bool remember_series_;
  KnownSeries known_;  // series seen before, by their text (when remember_series_)
  uint64_t remembered_lines_ = 0;
  uint64_t remembered_hits_ = 0;
  size_t next_check_ = size_t{1} << 14;
  // Which series were seen, as one bit per hash (2^22 bits, false positives only remember a
  // series early), and the hash of the line before.
  static constexpr int kSeenBits = 22;
  static constexpr size_t kSeenWords = (size_t{1} << kSeenBits) / 64;
  std::vector<uint64_t> seen_;
  uint64_t last_hash_ = 0;
  const KnownSeries::Entry* last_known_ = nullptr;  // the series of the line before, if known
  std::string key_;
  std::string help_;  // unescaped HELP text
  std::string error_;
};

}  // namespace gpucost::exposition_internal
