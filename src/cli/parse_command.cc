// `gpucost parse`: checks exposition files and summarises them per metric (type, series,
// samples, time span), with line-numbered errors and duplicate / out-of-order warnings. Series
// are counted by a 64-bit hash of their sorted labels, so memory is O(series), not O(samples).
#include <fmt/core.h>
#define XXH_INLINE_ALL
#include <xxhash.h>

#include <algorithm>
#include <climits>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "cli/commands.h"
#include "core/strings.h"
#include "core/time.h"
#include "ingest/exposition.h"
#include "inventory/sample_labels.h"

namespace gpucost::cli {
namespace {

constexpr int64_t kNoTimestamp = INT64_MIN;

struct MetricRow {
  std::string name;
  MetricType type = MetricType::kUnknown;
  bool typed = false;
  uint64_t series = 0;
  uint64_t samples = 0;
  int64_t first_ms = INT64_MAX;
  int64_t last_ms = INT64_MIN;
};

struct Finding {
  uint64_t line;
  std::string message;
};

// What the user may cap; the total of each kind is always counted.
struct FindingList {
  size_t limit;
  uint64_t total = 0;
  std::vector<Finding> kept;
  void Add(uint64_t line, std::string message) {
    ++total;
    if (kept.size() < limit) kept.push_back(Finding{line, std::move(message)});
  }
};

class Summary final : public ExpositionHandler {
 public:
  explicit Summary(size_t max_findings) : errors_{max_findings, 0, {}}, warnings_{max_findings, 0, {}} {}

  void OnMetadata(const MetadataView& md) override {
    if (md.kind == MetadataKind::kType) types_.insert_or_assign(std::string(md.family), md.type);
  }

  bool OnError(const ParseIssue& issue) override {
    if (issue.damaged) {  // the file's, apart from its malformed lines
      damaged_.push_back(Finding{issue.line, issue.message});
      return true;
    }
    errors_.Add(issue.line, issue.message);
    return true;
  }

  void OnSample(const SampleView& s) override {
    MetricRow& row = Row(s.name);
    ++row.samples;
    const int64_t ts = s.has_timestamp ? s.timestamp_ms : kNoTimestamp;
    if (s.has_timestamp) {
      row.first_ms = std::min(row.first_ms, ts);
      row.last_ms = std::max(row.last_ms, ts);
    }
    auto [it, inserted] = last_ts_.try_emplace(SeriesHash(s), ts);
    if (inserted) {
      ++row.series;
      return;
    }
    const int64_t prev = it->second;
    if (ts == prev) {
      warnings_.Add(s.line, ts == kNoTimestamp
                                ? StrCat("duplicate sample for ", SeriesText(s), " (both without a timestamp)")
                                : StrCat("duplicate sample for ", SeriesText(s), " at ",
                                         FormatRfc3339(InstantFromUnixMs(ts))));
    } else if (ts != kNoTimestamp && prev != kNoTimestamp && ts < prev) {
      warnings_.Add(s.line, StrCat("out-of-order sample for ", SeriesText(s), ": ",
                                   FormatRfc3339(InstantFromUnixMs(ts)), " is before ",
                                   FormatRfc3339(InstantFromUnixMs(prev))));
    }
    if (ts != kNoTimestamp && (prev == kNoTimestamp || ts > prev)) it->second = ts;
  }

  // Resolves each metric's type from its family's TYPE line, once the whole file is read.
  void ResolveTypes() {
    static constexpr std::string_view kSuffixes[] = {"_total", "_created", "_bucket", "_count",
                                                     "_sum",   "_gcount",  "_gsum",   "_info"};
    for (MetricRow& row : rows_) {
      auto it = types_.find(row.name);
      for (std::string_view suffix : kSuffixes) {
        if (it != types_.end()) break;
        if (row.name.size() > suffix.size() && std::string_view(row.name).ends_with(suffix)) {
          it = types_.find(row.name.substr(0, row.name.size() - suffix.size()));
        }
      }
      if (it != types_.end()) {
        row.type = it->second;
        row.typed = true;
      }
    }
  }

  const std::vector<MetricRow>& rows() const { return rows_; }
  const FindingList& errors() const { return errors_; }
  const std::vector<Finding>& damaged() const { return damaged_; }
  const FindingList& warnings() const { return warnings_; }
  uint64_t series() const { return last_ts_.size(); }

 private:
  MetricRow& Row(std::string_view name) {
    // Samples of one metric arrive together, so the last row is almost always the one.
    if (last_row_ < rows_.size() && rows_[last_row_].name == name) return rows_[last_row_];
    auto [it, inserted] = row_index_.try_emplace(std::string(name), rows_.size());
    if (inserted) rows_.push_back(MetricRow{.name = std::string(name)});
    last_row_ = it->second;
    return rows_[last_row_];
  }

  // Order-independent: each label with a value is hashed as `name="value` and the mixed
  // per-label hashes are summed, which equals hashing the labels sorted by name without paying
  // for the sort. Empty values are skipped (Prometheus treats them as absent).
  uint64_t SeriesHash(const SampleView& s) {
    uint64_t sum = XXH3_64bits(s.name.data(), s.name.size());
    for (const LabelView& l : s.labels) {
      if (l.value.empty()) continue;
      const char* n = l.name.data();
      const size_t nl = l.name.size();
      uint64_t h;
      // Unescaped labels written without spaces are already `name="value` in the input line.
      if (l.value.data() == n + nl + 2 && n[nl] == '=' && n[nl + 1] == '"') {
        h = XXH3_64bits(n, nl + 2 + l.value.size());
      } else {
        key_.assign(l.name);
        key_.append("=\"");
        key_.append(l.value);
        h = XXH3_64bits(key_.data(), key_.size());
      }
      sum += Mix(h);
    }
    return Mix(sum);
  }

  static uint64_t Mix(uint64_t x) {  // the MurmurHash3 finaliser
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdULL;
    x ^= x >> 33;
    x *= 0xc4ceb9fe1a85ec53ULL;
    return x ^ (x >> 33);
  }

  FindingList errors_;
  std::vector<Finding> damaged_;  // the compressed data's damage, printed whatever the list keeps
  FindingList warnings_;
  std::unordered_map<std::string, MetricType> types_;
  std::vector<MetricRow> rows_;
  std::unordered_map<std::string, size_t> row_index_;
  size_t last_row_ = SIZE_MAX;
  std::unordered_map<uint64_t, int64_t> last_ts_;  // series hash -> last timestamp
  std::string key_;
};

std::string TimeCell(int64_t ms, bool present) {
  return present ? FormatRfc3339(InstantFromUnixMs(ms)) : std::string("-");
}

void PrintFindings(const std::string& file, const char* kind, const FindingList& list) {
  if (list.total == 0) return;
  fmt::print("{} ({}):\n", kind, list.total);
  for (const Finding& f : list.kept) fmt::print("  {}:{}: {}\n", file, f.line, f.message);
  if (list.total > list.kept.size()) fmt::print("  ... and {} more\n", list.total - list.kept.size());
}

struct Options {
  std::vector<std::string> files;
  bool strict = false;
  ExpositionFormat format = ExpositionFormat::kAuto;
  size_t max_errors = 20;
};

// 0 clean, 1 malformed lines, 2 I/O or strict-mode failure.
int ParseOneFile(const std::string& file, const Options& opts) {
  auto source = OpenByteSource(file);
  if (!source.ok()) {
    fmt::print(stderr, "gpucost parse: {}\n", source.status().message());
    return 2;
  }
  ParseOptions po;
  po.format = opts.format;
  po.strict = opts.strict;
  po.source_name = file;
  Summary summary(opts.max_errors);
  const Result<ParseStats> stats = ParseExposition(**source, po, summary);
  if (!stats.ok()) {
    fmt::print(stderr, "gpucost parse: {}\n", stats.status().message());
    return 2;
  }
  summary.ResolveTypes();

  size_t width = 6;
  for (const MetricRow& r : summary.rows()) width = std::max(width, r.name.size());
  fmt::print("{}\n", file);
  fmt::print("  {:<{}}  {:<14}  {:>9}  {:>10}  {:<24}  {}\n", "metric", width, "type", "series",
             "samples", "first", "last");
  for (const MetricRow& r : summary.rows()) {
    const bool has_ts = r.first_ms <= r.last_ms;
    fmt::print("  {:<{}}  {:<14}  {:>9}  {:>10}  {:<24}  {}\n", r.name, width,
               r.typed ? MetricTypeName(r.type) : std::string_view("-"), r.series, r.samples,
               TimeCell(r.first_ms, has_ts), TimeCell(r.last_ms, has_ts));
  }
  fmt::print("total: {} metrics, {} series, {} samples, {} lines, {} bytes; {} errors, {} warnings\n",
             summary.rows().size(), summary.series(), stats->samples, stats->lines, stats->bytes,
             summary.errors().total, summary.warnings().total);
  for (const Finding& f : summary.damaged()) {
    fmt::print("damaged: {}:{}: {}; what was read of the damaged part may be wrong\n", file, f.line,
               f.message);
  }
  PrintFindings(file, "errors", summary.errors());
  PrintFindings(file, "warnings", summary.warnings());
  return summary.errors().total > 0 || !summary.damaged().empty() ? 1 : 0;
}

}  // namespace

void AddParseCommand(CLI::App& app, int& exit_code) {
  auto opts = std::make_shared<Options>();
  CLI::App* cmd = app.add_subcommand(
      "parse",
      "Check Prometheus text / OpenMetrics files and summarise them per metric.\n"
      "Prints, per file, each metric's type (from its family's TYPE line), distinct series,\n"
      "samples and first/last timestamp, then totals, line-numbered errors for malformed lines\n"
      "(every good line is still counted) and warnings for duplicate or out-of-order samples.\n"
      "Exit code: 0 clean, 1 some lines were malformed, 2 a file could not be read or --strict\n"
      "met an error.");
  cmd->add_option("files", opts->files, "Files to parse; '-' is stdin, gzip is detected")
      ->required();
  cmd->add_flag("--strict", opts->strict, "Stop at the first malformed line (exit code 2)");
  const std::map<std::string, ExpositionFormat> formats = {
      {"auto", ExpositionFormat::kAuto},
      {"text", ExpositionFormat::kText},
      {"openmetrics", ExpositionFormat::kOpenMetrics}};
  cmd->add_option("--format", opts->format,
                  "auto (either; timestamps < 1e11 are seconds), text (0.0.4, ms timestamps) or "
                  "openmetrics (1.0, second timestamps, '# EOF' required)")
      ->transform(CLI::CheckedTransformer(formats, CLI::ignore_case))
      ->default_str("auto");
  cmd->add_option("--max-errors", opts->max_errors,
                  "Print at most N errors and N warnings per file (totals are always printed)")
      ->default_val(20);
  cmd->callback([opts, &exit_code] {
    int worst = 0;
    for (const std::string& file : opts->files) worst = std::max(worst, ParseOneFile(file, *opts));
    exit_code = worst;
  });
}

}  // namespace gpucost::cli
