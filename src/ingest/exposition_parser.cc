// ParseExposition: splits a ByteSource into lines with memchr over one block at a time and hands
// each line to LineParser. A line that straddles two reads is moved to the front of the buffer,
// so the buffer holds at most one block plus the longest line; a line over max_line_bytes is
// reported and skipped without being buffered.
#include <cstring>
#include <memory>

#include "core/strings.h"
#include "ingest/exposition.h"
#include "ingest/exposition_line.h"

namespace gpucost {

std::string_view MetricTypeName(MetricType t) {
  switch (t) {
    case MetricType::kUnknown: return "unknown";
    case MetricType::kCounter: return "counter";
    case MetricType::kGauge: return "gauge";
    case MetricType::kHistogram: return "histogram";
    case MetricType::kGaugeHistogram: return "gaugehistogram";
    case MetricType::kSummary: return "summary";
    case MetricType::kInfo: return "info";
    case MetricType::kStateSet: return "stateset";
    case MetricType::kUntyped: return "untyped";
  }
  return "unknown";
}

namespace {

constexpr size_t kBlockBytes = 1 << 20;

// A file named as OpenMetrics ("x.om", "x.om.gz", "x.openmetrics.zst"...).
bool NamedOpenMetrics(std::string_view name) {
  for (std::string_view z : {".gz", ".zst"}) {
    if (name.ends_with(z)) name.remove_suffix(z.size());
  }
  return name.ends_with(".om") || name.ends_with(".openmetrics");
}

class Driver {
 public:
  Driver(ByteSource& in, const ParseOptions& options, ExpositionHandler& handler)
      : in_(in),
        options_(options),
        handler_(handler),
        lines_(options.format, handler, options.remember_series) {}

  Result<ParseStats> Run();

 private:
  // Reports a malformed line. Returns an error in strict mode; sets stop_ when the handler
  // asks to stop.
  Status Issue(uint64_t line, std::string message, bool damaged = false, bool cut_short = false);
  Status ContentAfterEof(uint64_t line);
  Status Line(const char* begin, const char* end);
  Status Grow(size_t needed);

  ByteSource& in_;
  const ParseOptions& options_;
  ExpositionHandler& handler_;
  exposition_internal::LineParser lines_;
  ParseStats stats_;
  bool stop_ = false;
  bool after_eof_ = false;
  bool at_unterminated_end_ = false;  // parsing the input's last line, which has no line feed
  std::unique_ptr<char[]> buf_;
  size_t cap_ = 0;
};

Status Driver::Issue(uint64_t line, std::string message, bool damaged, bool cut_short) {
  ++stats_.errors;
  if (options_.strict) return Status::ParseError(StrCat(options_.source_name, ":", line, ": ", message));
  if (!handler_.OnError(
          ParseIssue{line, std::move(message), damaged, cut_short || at_unterminated_end_})) {
    stop_ = true;
  }
  return Status::Ok();
}

// "# EOF" must be the last line; content after it is most often a second file appended
// (`cat a.om b.om`): said once per marker, and read like the rest rather than lost.
Status Driver::ContentAfterEof(uint64_t line) {
  after_eof_ = false;
  return Issue(line,
               "content after \"# EOF\", which must be the last line (files concatenated?); the "
               "lines after it are read as well");
}

Status Driver::Line(const char* begin, const char* end) {
  const uint64_t line_no = ++stats_.lines;
  if (end > begin && end[-1] == '\r') --end;
  // A file saved by an editor that writes a UTF-8 byte order mark: its first line was lost.
  if (line_no == 1)
    begin += Utf8BomBytes(std::string_view(begin, static_cast<size_t>(end - begin)));
  const auto len = static_cast<size_t>(end - begin);
  if (after_eof_ && len > 0) GPUCOST_RETURN_IF_ERROR(ContentAfterEof(line_no));
  if (len > options_.max_line_bytes) {
    return Issue(line_no, StrCat("line is ", len, " bytes, longer than the limit of ",
                                 options_.max_line_bytes, " bytes; skipped"));
  }
  switch (lines_.Parse(std::string_view(begin, len), line_no)) {
    case exposition_internal::LineResult::kOk:
      return Status::Ok();
    case exposition_internal::LineResult::kEof:
      after_eof_ = true;
      stats_.saw_eof_marker = true;
      return Status::Ok();
    case exposition_internal::LineResult::kError:
      return Issue(line_no, lines_.error());
  }
  return Status::Ok();
}

Status Driver::Grow(size_t needed) {
  if (needed <= cap_) return Status::Ok();
  auto bigger = std::make_unique_for_overwrite<char[]>(needed);
  if (cap_ > 0) std::memcpy(bigger.get(), buf_.get(), cap_);
  buf_ = std::move(bigger);
  cap_ = needed;
  return Status::Ok();
}

Result<ParseStats> Driver::Run() {
  GPUCOST_RETURN_IF_ERROR(Grow(kBlockBytes));
  size_t begin = 0;    // start of the current (incomplete) line
  size_t scanned = 0;  // bytes before this hold no unprocessed '\n'
  size_t end = 0;      // bytes read into buf_
  bool skipping = false;  // inside an over-long line, dropping bytes until its '\n'
  bool input_done = false;
  bool cut = false;  // the input stopped early (see below)
  while (!stop_) {
    char* buf = buf_.get();
    while (!stop_) {
      const auto* nl = static_cast<const char*>(std::memchr(buf + scanned, '\n', end - scanned));
      if (nl == nullptr) {
        scanned = end;
        break;
      }
      const auto next = static_cast<size_t>(nl - buf) + 1;
      if (skipping) {
        skipping = false;
      } else {
        GPUCOST_RETURN_IF_ERROR(Line(buf + begin, nl));
      }
      begin = scanned = next;
    }
    if (stop_) break;
    if (skipping) {
      begin = scanned = end = 0;
    } else if (end - begin > options_.max_line_bytes + 1) {  // + 1: a CR before the '\n'
      if (after_eof_) GPUCOST_RETURN_IF_ERROR(ContentAfterEof(stats_.lines + 1));
      GPUCOST_RETURN_IF_ERROR(Issue(++stats_.lines,
                                    StrCat("line is longer than the limit of ", options_.max_line_bytes,
                                           " bytes; skipped")));
      skipping = true;
      begin = scanned = end = 0;
      if (stop_) break;
    }
    if (input_done) break;
    if (begin > 0) {
      std::memmove(buf, buf + begin, end - begin);
      end -= begin;
      scanned -= begin;
      begin = 0;
    }
    if (cap_ - end < kBlockBytes / 2) GPUCOST_RETURN_IF_ERROR(Grow(end + kBlockBytes));
    Result<size_t> got = in_.Read(buf_.get() + end, cap_ - end);
    if (!got.ok() && got.status().code() == StatusCode::kParseError) {
      // Compressed input that stops early (a torn last gzip member): the lines before stand,
      // the line it cuts is dropped, and the cut is reported like a malformed line.
      input_done = true;
      cut = true;
      GPUCOST_RETURN_IF_ERROR(
          Issue(stats_.lines + 1, std::string(got.status().message()), true, true));
      break;
    }
    if (!got.ok()) return std::move(got).status();
    if (*got == 0) {
      input_done = true;
    } else {
      end += *got;
      stats_.bytes += *got;
    }
  }
  if (!stop_ && !skipping && !cut && begin < end) {
    // A last line without its line feed: an error in it is most likely where the input was cut.
    at_unterminated_end_ = true;
    GPUCOST_RETURN_IF_ERROR(Line(buf_.get() + begin, buf_.get() + end));
    at_unterminated_end_ = false;
  }
  if (!stop_ && options_.format == ExpositionFormat::kOpenMetrics && !stats_.saw_eof_marker) {
    GPUCOST_RETURN_IF_ERROR(Issue(stats_.lines == 0 ? 1 : stats_.lines,
                                  "OpenMetrics input must end with \"# EOF\"", false, true));
  } else if (!stop_ && options_.format == ExpositionFormat::kAuto && !stats_.saw_eof_marker &&
             stats_.lines > 0 && NamedOpenMetrics(options_.source_name)) {
    // An OpenMetrics file ends with "# EOF": one without it was most likely cut short (a copy or
    // a download that stopped). Its lines are read; the loss of the rest is said.
    GPUCOST_RETURN_IF_ERROR(Issue(stats_.lines,
                                  "OpenMetrics file without \"# EOF\" at its end: it may be cut "
                                  "short (its lines are read)",
                                  false, true));
  }
  stats_.samples = lines_.samples();
  return stats_;
}

}  // namespace

Result<ParseStats> ParseExposition(ByteSource& in, const ParseOptions& options,
                                   ExpositionHandler& handler) {
  Driver driver(in, options, handler);
  return driver.Run();
}

}  // namespace gpucost
