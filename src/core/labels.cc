#include "core/labels.h"

#include <algorithm>

#include "core/strings.h"
#include "core/utf8.h"

namespace gpucost {

Result<LabelSet> LabelSet::Make(std::vector<Label> labels) {
  LabelSet out;
  out.labels_ = std::move(labels);
  std::sort(out.labels_.begin(), out.labels_.end(),
            [](const Label& a, const Label& b) { return a.name < b.name; });
  for (size_t i = 1; i < out.labels_.size(); ++i) {
    if (out.labels_[i].name == out.labels_[i - 1].name) {
      return Status::InvalidArgument(StrCat("duplicate label name \"", out.labels_[i].name, "\""));
    }
  }
  out.Finish();
  return out;
}

LabelSet::LabelSet(std::initializer_list<std::pair<std::string_view, std::string_view>> labels) {
  for (const auto& nv : labels) {
    const std::string_view n = nv.first;
    auto it = std::find_if(labels_.begin(), labels_.end(), [n](const Label& l) { return l.name == n; });
    if (it != labels_.end()) {
      it->value = std::string(nv.second);
    } else {
      labels_.push_back(Label{std::string(n), std::string(nv.second)});
    }
  }
  std::sort(labels_.begin(), labels_.end(),
            [](const Label& a, const Label& b) { return a.name < b.name; });
  Finish();
}

void LabelSet::Finish() {
  std::erase_if(labels_, [](const Label& l) { return l.value.empty(); });
  uint64_t h = 0x6770756365737421ULL;
  for (const Label& l : labels_) {
    h = HashCombine(h, Hash64(l.name));
    h = HashCombine(h, Hash64(l.value));
  }
  hash_ = h;
}

std::string_view LabelSet::Get(std::string_view name) const {
  // Label sets are small (typically < 16): a linear scan beats binary search here.
  for (const Label& l : labels_) {
    if (l.name == name) return l.value;
  }
  return {};
}

bool LabelSet::Has(std::string_view name) const { return !Get(name).empty(); }

LabelSet LabelSet::With(std::string_view name, std::string_view value) const {
  LabelSet out = *this;
  auto it = std::find_if(out.labels_.begin(), out.labels_.end(),
                         [&](const Label& l) { return l.name == name; });
  if (it != out.labels_.end()) {
    it->value = std::string(value);
  } else {
    out.labels_.push_back(Label{std::string(name), std::string(value)});
    std::sort(out.labels_.begin(), out.labels_.end(),
              [](const Label& a, const Label& b) { return a.name < b.name; });
  }
  out.Finish();
  return out;
}

void AppendEscapedLabelValue(std::string& out, std::string_view value) {
  for (char c : value) {
    switch (c) {
      case '\\': out += "\\\\"; break;
      case '"': out += "\\\""; break;
      case '\n': out += "\\n"; break;
      default: out += c;
    }
  }
}

void AppendExportedLabelValue(std::string& out, std::string_view value) {
  if (IsValidUtf8(value)) {
    AppendEscapedLabelValue(out, value);
  } else {
    AppendEscapedLabelValue(out, ValidUtf8(value));
  }
}

std::string LabelSet::ToString() const {
  std::string out = "{";
  for (size_t i = 0; i < labels_.size(); ++i) {
    if (i) out += ',';
    out += labels_[i].name;
    out += "=\"";
    AppendEscapedLabelValue(out, labels_[i].value);
    out += '"';
  }
  out += '}';
  return out;
}

Interner::Id Interner::Intern(std::string_view s) {
  auto it = ids_.find(s);
  if (it != ids_.end()) return it->second;
  storage_.emplace_back(s);
  const Id id = static_cast<Id>(strings_.size());
  strings_.push_back(&storage_.back());
  ids_.emplace(std::string_view(storage_.back()), id);
  return id;
}

}  // namespace gpucost
