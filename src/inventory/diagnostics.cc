#include "inventory/diagnostics.h"

#include "core/strings.h"

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

}  // namespace gpucost
