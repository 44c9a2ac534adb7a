#include "inventory/diagnostics.h"

#include "core/strings.h"
#include "core/time.h"
#include "ingest/exposition.h"
#include "inventory/sample_labels.h"

namespace gpucost {

std::string InputWarning::ToString() const {
  std::string out;
  if (!source.empty()) {
    out = line > 0 ? StrCat(source, ":", line, ": ") : StrCat(source, ": ");
  }
  out += message;
  if (count > 1) out += StrCat(" (and ", count - 1, " more like it)");
  return out;
}

void Diagnostics::Warn(const std::string& kind, std::string source, uint64_t line,
                       std::string message) {
  auto [it, inserted] = by_kind_.emplace(kind, warnings_.size());
  if (!inserted) {
    ++warnings_[it->second].count;
    return;
  }
  warnings_.push_back(InputWarning{std::move(source), line, std::move(message), 1});
}

void Diagnostics::Warn(const std::string& kind, std::string source, const SampleView& s,
                       std::string message) {
  if (s.line == 0 && !by_kind_.contains(kind)) {
    message +=
        StrCat(" (", SeriesText(s),
               s.has_timestamp ? StrCat(" at ", FormatRfc3339(InstantFromUnixMs(s.timestamp_ms)))
                               : std::string(),
               ")");
  }
  Warn(kind, std::move(source), s.line, std::move(message));
}

}  // namespace gpucost
