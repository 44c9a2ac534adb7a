// The series a parser has read before, by their text as written ("name{labels}"). Exposition
// text repeats every series once per scrape, so from its second sample on a series' name and
// labels are taken from here instead of parsed again, and its samples carry one id
// (SampleView::series) that readers use to find what they made of it. Bounded: past `max_bytes`
// no more series are added (those lines are parsed as before). Internal to the ingest module.
#pragma once

#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "core/strings.h"
#include "ingest/exposition.h"

namespace gpucost::exposition_internal {

class KnownSeries {
 public:
  struct Entry {
    std::string_view name;
    std::vector<LabelView> labels;
    uint64_t id = 0;
    uint64_t hash = 0;  // of the text
    std::string_view text;
    // The series of the line after this one's last line: files repeat the order of their series
    // scrape after scrape, so the next line is most likely that series again.
    mutable const Entry* next = nullptr;
  };

  explicit KnownSeries(size_t max_bytes = size_t{128} << 20) : max_bytes_(max_bytes) {}

  size_t size() const { return map_.size(); }

  const Entry* Find(std::string_view text) const {
    const auto it = map_.find(text);
    return it == map_.end() ? nullptr : &it->second->entry;
  }

  // Remembers the series `text` (whose Hash64 is `hash`) parsed into `name` and `labels`; null
  // when full.
  const Entry* Add(std::string_view text, uint64_t hash, std::string_view name,
                   const std::vector<LabelView>& labels) {
    size_t bytes = 2 * text.size() + name.size() + sizeof(Stored) + 64;
    for (const LabelView& l : labels) bytes += l.name.size() + l.value.size() + sizeof(LabelView);
    if (bytes_ + bytes > max_bytes_) return nullptr;
    auto stored = std::make_unique<Stored>();
    // One buffer, sized first, so that the views into it never move.
    std::string& b = stored->buffer;
    b.reserve(bytes);
    const auto keep = [&b](std::string_view s) {
      const size_t at = b.size();
      b.append(s);
      return std::string_view(b.data() + at, s.size());
    };
    const std::string_view key = keep(text);
    stored->entry.text = key;
    stored->entry.name = keep(name);
    stored->entry.labels.reserve(labels.size());
    for (const LabelView& l : labels) {
      const std::string_view n = keep(l.name);
      stored->entry.labels.push_back(LabelView{n, keep(l.value)});
    }
    stored->entry.id = NewSeriesId();
    stored->entry.hash = hash;
    bytes_ += bytes;
    const Entry* out = &stored->entry;
    map_.emplace(key, std::move(stored));
    return out;
  }

 private:
  struct Stored {
    std::string buffer;
    Entry entry;
  };
  size_t max_bytes_;
  size_t bytes_ = 0;
  // XXH3: several times faster than std::hash on series texts (~100-300 bytes).
  struct TextHash {
    size_t operator()(std::string_view s) const { return static_cast<size_t>(Hash64(s)); }
  };
  std::unordered_map<std::string_view, std::unique_ptr<Stored>, TextHash> map_;
};

// The end of a sample line's series text (its name and label set as written), or null where
// the line does not start with one of the forms the table takes: `name value`, `name{...} value`,
// `{"name",...} value`. Does not check the labels; the parser does that the first time it sees
// the text.
const char* SeriesTextEnd(const char* p, const char* end);

// A known series with a label set, found from the line's end: `series value` or `series value
// timestamp`, so the series text ends with '}' one or two tokens before the end. Any text equal
// to a known series' text parses as that series did (the parser reads left to right and a label
// set ends at its '}'), so a match needs no further check. Null where there is none (a new
// series, an exemplar after the timestamp, no label set).
const char* KnownSeriesEnd(const char* p, const char* end, const KnownSeries& known_series,
                           const KnownSeries::Entry*& out);

// The series that followed `last` before, when the line starts with its text (a label set) and
// a space: the common case in files, found without hashing. Null otherwise.
inline const char* FollowingSeriesEnd(const char* p, const char* end,
                                      const KnownSeries::Entry* last,
                                      const KnownSeries::Entry*& out) {
  if (last == nullptr || last->next == nullptr) return nullptr;
  const std::string_view t = last->next->text;
  const size_t n = t.size();
  if (n == 0 || t.back() != '}' || static_cast<size_t>(end - p) <= n ||
      (p[n] != ' ' && p[n] != '\t') || std::memcmp(p, t.data(), n) != 0) {
    return nullptr;
  }
  out = last->next;
  return p + n;
}

}  // namespace gpucost::exposition_internal
