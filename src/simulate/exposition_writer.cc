#include "simulate/exposition_writer.h"

#include <charconv>
#include <cmath>
#include <cstring>

namespace gpucost::simulate {

ExpositionWriter::ExpositionWriter(TextFormat format, Sink sink, size_t flush_bytes)
    : format_(format), sink_(std::move(sink)), flush_bytes_(flush_bytes) {
  buf_.reserve(sink_ ? flush_bytes_ + (64u << 10) : 64u << 10);
}

void ExpositionWriter::AppendEscaped(std::string_view v) {
  if (v.find_first_of("\\\"\n") == std::string_view::npos) {
    buf_.append(v);
    return;
  }
  for (char c : v) {
    if (c == '\\') {
      buf_ += "\\\\";
    } else if (c == '"') {
      buf_ += "\\\"";
    } else if (c == '\n') {
      buf_ += "\\n";
    } else {
      buf_ += c;
    }
  }
}

void ExpositionWriter::OnSample(const SampleView& s) {
  buf_.append(s.name);
  if (!s.labels.empty()) {
    buf_ += '{';
    bool first = true;
    for (const LabelView& l : s.labels) {
      if (!first) buf_ += ',';
      first = false;
      buf_.append(l.name);
      buf_ += "=\"";
      AppendEscaped(l.value);
      buf_ += '"';
    }
    buf_ += '}';
  }
  buf_ += ' ';
  char num[40];
  if (std::isnan(s.value)) {
    buf_ += "NaN";
  } else if (std::isinf(s.value)) {
    buf_ += s.value > 0 ? "+Inf" : "-Inf";
  } else {
    auto [end, ec] = std::to_chars(num, num + sizeof num, s.value);
    buf_.append(num, ec == std::errc() ? end : num);
  }
  if (s.has_timestamp && format_ != TextFormat::kUntimestamped) {
    buf_ += ' ';
    int64_t ts = s.timestamp_ms;
    if (format_ == TextFormat::kOpenMetrics) {
      const bool negative = ts < 0;
      if (negative) {
        buf_ += '-';
        ts = -ts;
      }
      auto [end, ec] = std::to_chars(num, num + sizeof num, ts / 1000);
      buf_.append(num, end);
      if (ts % 1000 != 0) {
        const int ms = static_cast<int>(ts % 1000);
        buf_ += '.';
        buf_ += static_cast<char>('0' + ms / 100);
        buf_ += static_cast<char>('0' + ms / 10 % 10);
        buf_ += static_cast<char>('0' + ms % 10);
      }
    } else {
      auto [end, ec] = std::to_chars(num, num + sizeof num, ts);
      buf_.append(num, end);
    }
  }
  buf_ += '\n';
  ++samples_;
  MaybeFlush();
}

void ExpositionWriter::OnMetadata(const MetadataView& m) {
  switch (m.kind) {
    case MetadataKind::kHelp:
      buf_ += "# HELP ";
      buf_.append(m.family);
      buf_ += ' ';
      for (char c : m.text) {  // HELP escapes backslash and newline only
        if (c == '\\') {
          buf_ += "\\\\";
        } else if (c == '\n') {
          buf_ += "\\n";
        } else {
          buf_ += c;
        }
      }
      break;
    case MetadataKind::kType:
      buf_ += "# TYPE ";
      buf_.append(m.family);
      buf_ += ' ';
      buf_.append(m.text);
      break;
    case MetadataKind::kUnit:
      if (format_ != TextFormat::kOpenMetrics) return;  // Prometheus text has no UNIT line
      buf_ += "# UNIT ";
      buf_.append(m.family);
      buf_ += ' ';
      buf_.append(m.text);
      break;
  }
  buf_ += '\n';
}

void ExpositionWriter::MaybeFlush() {
  if (!sink_ || buf_.size() < flush_bytes_) return;
  if (status_.ok()) status_ = sink_(buf_);
  bytes_ += buf_.size();
  buf_.clear();
}

Status ExpositionWriter::Finish() {
  if (format_ == TextFormat::kOpenMetrics) buf_ += "# EOF\n";
  if (sink_ && !buf_.empty()) {
    if (status_.ok()) status_ = sink_(buf_);
    bytes_ += buf_.size();
    buf_.clear();
  }
  return status_;
}

}  // namespace gpucost::simulate
