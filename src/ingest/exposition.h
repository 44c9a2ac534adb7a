// Streaming parser for the Prometheus text exposition format 0.0.4 and OpenMetrics 1.0.
// It reads a ByteSource in blocks and calls an ExpositionHandler for every sample, metadata line
// and malformed line; memory is one read block plus the longest line, never the whole input.
// Malformed lines are reported with their line number and skipped; every good line is kept
// (ParseOptions::strict stops at the first error instead). Not thread-safe; one parse per call.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>

#include "core/result.h"

namespace gpucost {

enum class ExpositionFormat : uint8_t {
  kAuto,         // accept both; timestamps < 1e11 are seconds, larger ones milliseconds
  kText,         // Prometheus text 0.0.4: integer millisecond timestamps, no exemplars
  kOpenMetrics,  // OpenMetrics 1.0: second timestamps, exemplars, "# EOF" required
};

enum class MetricType : uint8_t {
  kUnknown, kCounter, kGauge, kHistogram, kGaugeHistogram, kSummary, kInfo, kStateSet, kUntyped
};
std::string_view MetricTypeName(MetricType t);

struct LabelView {
  std::string_view name;
  std::string_view value;  // unescaped
};

// Views are valid only during the handler call.
struct SampleView {
  std::string_view name;              // as written, e.g. "http_requests_total"
  std::span<const LabelView> labels;  // in input order
  double value = 0;
  bool has_timestamp = false;
  int64_t timestamp_ms = 0;
  uint64_t line = 0;                  // 1-based
  // The OpenMetrics "<family>_created" sample of a counter, histogram or summary: a creation
  // time, not a measurement.
  bool is_created = false;
  // Nonzero where the source knows series apart (remote read, the query API): the same for every
  // sample of one series and different for any other, so that a reader can tell a repeat of the
  // series it just read without comparing labels. 0 in text, where samples of series interleave.
  uint64_t series = 0;
};

// A fresh SampleView::series id, unique within the process.
inline uint64_t NewSeriesId() {
  static std::atomic<uint64_t> next{0};
  return next.fetch_add(1, std::memory_order_relaxed) + 1;
}

enum class MetadataKind : uint8_t { kHelp, kType, kUnit };

struct MetadataView {
  MetadataKind kind;
  std::string_view family;
  std::string_view text;  // HELP text (unescaped) or UNIT; for TYPE the type's name
  MetricType type = MetricType::kUnknown;  // for TYPE
  uint64_t line = 0;
};

struct ParseIssue {
  uint64_t line = 0;
  std::string message;
  // Compressed input that is damaged or cut short: not one malformed line but the file's, said
  // apart from the lines (a CRC error at a member's end comes after the damaged part's garbage).
  bool damaged = false;
  // The input looks cut short (an unterminated last line that does not parse, an OpenMetrics
  // file without "# EOF", compressed input that stops early): what it lacks is unknown, so
  // nothing may be read from an absence in it (a process the node agent did not list).
  bool cut_short = false;
};

class ExpositionHandler {
 public:
  virtual ~ExpositionHandler() = default;
  virtual void OnSample(const SampleView& sample) = 0;
  virtual void OnMetadata(const MetadataView& /*metadata*/) {}
  // Called for each malformed line (already skipped). Return false to stop parsing.
  virtual bool OnError(const ParseIssue& /*issue*/) { return true; }
};

struct ParseOptions {
  ExpositionFormat format = ExpositionFormat::kAuto;
  bool strict = false;                  // fail with the first error instead of skipping the line
  size_t max_line_bytes = 64u << 20;    // longer lines are reported and skipped without buffering
  std::string source_name = "<input>";  // used in error messages: "<source_name>:<line>: ..."
  // Remember each series' text, so that its further lines are not parsed again and its samples
  // carry one SampleView::series id (up to 128 MiB of series). Worth it for a handler that looks
  // series up by id; costs a table lookup per line (a cache miss on large files) otherwise.
  bool remember_series = false;
};

struct ParseStats {
  uint64_t bytes = 0;
  uint64_t lines = 0;
  uint64_t samples = 0;
  uint64_t errors = 0;
  bool saw_eof_marker = false;  // "# EOF"
};

// A stream of bytes: a file, stdin, or a gzip or zstd file (detected by its magic bytes).
class ByteSource {
 public:
  virtual ~ByteSource() = default;
  // Reads up to `n` bytes; 0 at end of input.
  virtual Result<size_t> Read(char* buf, size_t n) = 0;
  virtual const std::string& name() const = 0;
};

// "-" is stdin. Gzip and zstd input is decompressed transparently.
Result<std::unique_ptr<ByteSource>> OpenByteSource(const std::string& path);
std::unique_ptr<ByteSource> StringByteSource(std::string data, std::string name = "<string>");
// Wraps `raw` in a gzip decoder when its first bytes are the gzip magic 1f 8b, or in a zstd
// decoder for the zstd magic 28 b5 2f fd (several members or frames one after another are read as
// one stream); otherwise returns it unchanged.
Result<std::unique_ptr<ByteSource>> MaybeDecompress(std::unique_ptr<ByteSource> raw);

// Non-strict: returns stats (errors go to the handler). Strict: returns the first error as a
// kParseError Status "<source>:<line>: <message>". I/O failures are always errors.
Result<ParseStats> ParseExposition(ByteSource& in, const ParseOptions& options,
                                   ExpositionHandler& handler);

}  // namespace gpucost
