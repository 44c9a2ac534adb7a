#include "scrape/scrape_text.h"

#include <algorithm>

#include "core/labels.h"
#include "core/strings.h"

namespace gpucost::scrape {
namespace {

// Legacy metric and label names are written bare; anything else (UTF-8 names, Prometheus 3) in
// quotes, which the parser reads back.
bool IsLegacyName(std::string_view name, bool metric) {
  if (name.empty()) return false;
  for (size_t i = 0; i < name.size(); ++i) {
    const char c = name[i];
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' ||
                    (metric && c == ':') || (i > 0 && c >= '0' && c <= '9');
    if (!ok) return false;
  }
  return true;
}

void AppendName(std::string& out, std::string_view name, bool metric) {
  if (IsLegacyName(name, metric)) {
    out.append(name);
  } else {
    out.push_back('"');
    AppendEscapedLabelValue(out, name);
    out.push_back('"');
  }
}

// HELP text escapes only backslash and newline.
void AppendHelp(std::string& out, std::string_view text) {
  for (const char c : text) {
    if (c == '\\') {
      out += "\\\\";
    } else if (c == '\n') {
      out += "\\n";
    } else {
      out.push_back(c);
    }
  }
}

}  // namespace

ScrapeText::ScrapeText(int64_t scrape_ms,
                       std::vector<std::pair<std::string, std::string>> extra_labels)
    : scrape_ms_(scrape_ms), extra_(std::move(extra_labels)), present_(extra_.size()) {}

void ScrapeText::OnMetadata(const MetadataView& m) {
  switch (m.kind) {
    case MetadataKind::kHelp:
      text_ += "# HELP ";
      AppendName(text_, m.family, true);
      text_.push_back(' ');
      AppendHelp(text_, m.text);
      break;
    case MetadataKind::kType:
      text_ += "# TYPE ";
      AppendName(text_, m.family, true);
      text_.push_back(' ');
      text_ += MetricTypeName(m.type);
      break;
    case MetadataKind::kUnit:
      text_ += "# UNIT ";
      AppendName(text_, m.family, true);
      text_.push_back(' ');
      text_ += m.text;
      break;
  }
  text_.push_back('\n');
}

void ScrapeText::OnSample(const SampleView& s) {
  if (s.is_created) return;  // a creation time, not a measurement
  const bool quoted_name = !IsLegacyName(s.name, true);
  std::fill(present_.begin(), present_.end(), false);
  for (const LabelView& l : s.labels) {
    if (l.value.empty()) continue;
    for (size_t i = 0; i < extra_.size(); ++i) {
      if (l.name == extra_[i].first) present_[i] = true;
    }
  }
  bool first = true;
  const auto open = [&] {
    text_.push_back(first ? '{' : ',');
    first = false;
  };
  if (quoted_name) {
    open();
    AppendName(text_, s.name, true);
  } else {
    text_ += s.name;
  }
  for (const LabelView& l : s.labels) {
    bool replaced = false;  // an empty label the target fills in is written once, with its value
    for (size_t i = 0; i < extra_.size(); ++i) {
      if (l.name == extra_[i].first && !present_[i]) replaced = true;
    }
    if (replaced) continue;
    open();
    AppendName(text_, l.name, false);
    text_ += "=\"";
    AppendEscapedLabelValue(text_, l.value);
    text_.push_back('"');
  }
  for (size_t i = 0; i < extra_.size(); ++i) {
    if (present_[i]) continue;
    open();
    AppendName(text_, extra_[i].first, false);
    text_ += "=\"";
    AppendEscapedLabelValue(text_, extra_[i].second);
    text_.push_back('"');
  }
  if (!first) text_.push_back('}');
  text_.push_back(' ');
  text_ += FormatDouble(s.value);
  text_.push_back(' ');
  text_ += std::to_string(s.has_timestamp ? s.timestamp_ms : scrape_ms_);
  text_.push_back('\n');
  ++samples_;
}

}  // namespace gpucost::scrape
