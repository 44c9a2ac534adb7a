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

#include "ingest/exposition.h"

namespace gpucost::exposition_internal {

class KnownSeries {
 public:
  struct Entry {
    std::string_view name;
    std::vector<LabelView> labels;
    uint64_t id = 0;
  };

  explicit KnownSeries(size_t max_bytes = size_t{128} << 20) : max_bytes_(max_bytes) {}

  const Entry* Find(std::string_view text) const {
    const auto it = map_.find(text);
    return it == map_.end() ? nullptr : &it->second->entry;
  }

  // Remembers the series `text` parsed into `name` and `labels`; null when full.
  const Entry* Add(std::string_view text, std::string_view name,
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
    stored->entry.name = keep(name);
    stored->entry.labels.reserve(labels.size());
    for (const LabelView& l : labels) {
      const std::string_view n = keep(l.name);
      stored->entry.labels.push_back(LabelView{n, keep(l.value)});
    }
    stored->entry.id = NewSeriesId();
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
  // 32 bytes at a time in four independent lanes (multiply and fold), so that the lanes'
  // multiplications overlap: several times faster than std::hash on series texts (~100-300
  // bytes), and good enough for a table whose keys are not chosen to collide (a collision costs
  // a comparison, never a wrong answer).
  struct TextHash {
    static uint64_t Mix(uint64_t h, uint64_t w) {
      h = (h ^ w) * 0x9E3779B97F4A7C15ull;
      return h ^ (h >> 29);
    }
    static uint64_t Word(const char* p) {
      uint64_t w;
      std::memcpy(&w, p, 8);
      return w;
    }
    size_t operator()(std::string_view s) const {
      const char* p = s.data();
      const size_t n = s.size();
      uint64_t lane[4] = {n, 0x243F6A8885A308D3ull, 0x13198A2E03707344ull, 0xA4093822299F31D0ull};
      size_t i = 0;
      for (; i + 32 <= n; i += 32) {
        for (int k = 0; k < 4; ++k) lane[k] = Mix(lane[k], Word(p + i + 8 * k));
      }
      for (int k = 0; i + 8 <= n; i += 8, ++k) lane[k] = Mix(lane[k], Word(p + i));
      uint64_t tail = 0;
      std::memcpy(&tail, p + i, n - i);
      uint64_t h = Mix(lane[0], tail);
      for (int k = 1; k < 4; ++k) h = Mix(h, lane[k]);
      return static_cast<size_t>(h);
    }
  };
  std::unordered_map<std::string_view, std::unique_ptr<Stored>, TextHash> map_;
};

}  // namespace gpucost::exposition_internal
