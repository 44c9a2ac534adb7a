// Feeds arbitrary bytes to the exposition parser in every format, strict and lenient, and again
// through a source that returns a few bytes per read, checking that both agree; and every line
// twice, checking that a line read through the table of known series gives what it gave first.
#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <map>
#include <string>
#include <string_view>

#include "ingest/exposition.h"

namespace {

class Tally final : public gpucost::ExpositionHandler {
 public:
  void OnSample(const gpucost::SampleView& s) override {
    ++samples;
    for (const gpucost::LabelView& l : s.labels) bytes += l.name.size() + l.value.size();
    bytes += s.name.size();
  }
  void OnMetadata(const gpucost::MetadataView& m) override { bytes += m.family.size() + m.text.size(); }
  bool OnError(const gpucost::ParseIssue& issue) override {
    if (issue.line == 0 || issue.message.empty()) std::abort();
    ++errors;
    return true;
  }
  uint64_t samples = 0;
  uint64_t errors = 0;
  uint64_t bytes = 0;
};

class Chunked final : public gpucost::ByteSource {
 public:
  Chunked(const uint8_t* data, size_t size) : data_(data), size_(size) {}
  gpucost::Result<size_t> Read(char* buf, size_t n) override {
    const size_t k = std::min({n, size_ - pos_, size_t{1} + (calls_++ % 5)});
    std::memcpy(buf, data_ + pos_, k);
    pos_ += k;
    return k;
  }
  const std::string& name() const override { return name_; }

 private:
  const uint8_t* data_;
  size_t size_;
  size_t pos_ = 0;
  size_t calls_ = 0;
  std::string name_ = "<fuzz>";
};

// What each line gave: its sample, or its error.
class ByLine final : public gpucost::ExpositionHandler {
 public:
  void OnSample(const gpucost::SampleView& s) override {
    std::string& out = lines[s.line];
    out.append(s.name).push_back('{');
    for (const gpucost::LabelView& l : s.labels) {
      out.append(l.name).push_back('=');
      out.append(l.value).push_back(',');
    }
    uint64_t bits;
    std::memcpy(&bits, &s.value, sizeof bits);
    out += "} " + std::to_string(bits) + " " + std::to_string(s.has_timestamp) + " " +
           std::to_string(s.timestamp_ms) + " " + std::to_string(s.is_created);
  }
  bool OnError(const gpucost::ParseIssue& issue) override {
    lines[issue.line] += "error: " + issue.message;
    return true;
  }
  std::map<uint64_t, std::string> lines;
};

// Every sample line three times over (comments left out, so that no "# EOF" ends the input and
// the TYPE state is the same for all copies; and lines that start with a byte order mark, which
// is skipped on the input's first line only): the second time a series comes back it is
// remembered and the third time it is read through the table of known series; every copy must
// give exactly what the first gave, and the same as a parse without the table.
void CheckKnownSeries(const std::string& text) {
  std::string once;
  uint64_t n = 0;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t nl = text.find('\n', pos);
    if (nl == std::string::npos) nl = text.size();
    const std::string_view line(text.data() + pos, nl - pos);
    pos = nl + 1;
    if (line.find('\r') != std::string_view::npos || line.find('#') == 0 ||
        line.starts_with("\xEF\xBB\xBF")) {
      continue;
    }
    (once += line) += '\n';
    ++n;
  }
  if (n == 0) return;
  const std::string thrice = once + once + once;
  for (auto format : {gpucost::ExpositionFormat::kText, gpucost::ExpositionFormat::kOpenMetrics}) {
    // OpenMetrics wants "# EOF" last; without it the last line would carry that error too.
    const std::string input =
        format == gpucost::ExpositionFormat::kOpenMetrics ? thrice + "# EOF\n" : thrice;
    ByLine r, plain;
    for (bool remember : {true, false}) {
      gpucost::ParseOptions options;
      options.format = format;
      options.max_line_bytes = 4096;
      options.remember_series = remember;
      auto src = gpucost::StringByteSource(input);
      if (!gpucost::ParseExposition(*src, options, remember ? r : plain).ok()) std::abort();
    }
    if (r.lines != plain.lines) std::abort();
    for (const auto& [line, what] : r.lines) {
      const uint64_t first = (line - 1) % n + 1;
      const auto other = r.lines.find(first);
      if (other == r.lines.end() || other->second != what) std::abort();
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  for (auto format : {gpucost::ExpositionFormat::kAuto, gpucost::ExpositionFormat::kText,
                      gpucost::ExpositionFormat::kOpenMetrics}) {
    for (bool strict : {false, true}) {
      gpucost::ParseOptions options;
      options.format = format;
      options.strict = strict;
      options.max_line_bytes = 4096;
      Tally whole;
      auto src = gpucost::StringByteSource(text);
      auto stats = gpucost::ParseExposition(*src, options, whole);
      if (strict || format != gpucost::ExpositionFormat::kAuto) continue;
      if (!stats.ok() || stats->samples != whole.samples || stats->bytes != size) std::abort();
      Tally pieces;
      Chunked chunked(data, size);
      auto stats2 = gpucost::ParseExposition(chunked, options, pieces);
      if (!stats2.ok() || pieces.samples != whole.samples || pieces.errors != whole.errors ||
          pieces.bytes != whole.bytes) {
        std::abort();
      }
    }
  }
  CheckKnownSeries(text);
  // Gzip detection on the raw bytes (often not gzip, sometimes a corrupt stream): must not crash.
  auto gz = gpucost::MaybeDecompress(gpucost::StringByteSource(text));
  if (gz.ok()) {
    Tally t;
    (void)gpucost::ParseExposition(**gz, {}, t);
  }
  return 0;
}
