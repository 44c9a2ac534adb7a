// What a reader remembers of the series it read last (the source's id for it, else its name and
// labels), so that the next sample of the same series can reuse what that series resolved to (map
// entries, pointers into the reader's data) instead of copying labels and looking keys up again.
// Remote read and the query API hand over each series' samples together, where the memo hits
// almost always; a scrape or file interleaves series, where it never does, so after 64 misses in
// a row the memo is left empty for the next 4096 samples and remembering costs little.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "ingest/exposition.h"

namespace gpucost {

class SeriesMemo {
 public:
  // Whether `s` is the series remembered last (same name, same labels in the same order).
  bool Matches(const SampleView& s) const {
    if (!valid_) return false;
    if (s.series != 0 || series_ != 0) return s.series == series_;
    if (s.name != name_ || s.labels.size() != labels_.size()) return false;
    for (size_t i = 0; i < labels_.size(); ++i) {
      if (s.labels[i].value != labels_[i].second || s.labels[i].name != labels_[i].first) {
        return false;
      }
    }
    return true;
  }

  // Call for every sample: true when it is the remembered series (the caller reuses what it
  // resolved to); otherwise the memo is emptied and Worth() says whether to remember this one.
  bool Hit(const SampleView& s) {
    if (Matches(s)) {
      misses_ = 0;
      return true;
    }
    valid_ = false;
    if (pause_ > 0) {
      --pause_;
      worth_ = false;
    } else {
      worth_ = true;
      if (++misses_ >= kMissesBeforePause) {
        misses_ = 0;
        pause_ = kPauseSamples;
      }
    }
    return false;
  }

  // After a miss: whether the series just resolved is worth remembering.
  bool Worth() const { return worth_; }

  void Remember(const SampleView& s) {
    valid_ = true;
    series_ = s.series;
    if (series_ != 0) return;  // the id alone tells the series
    name_.assign(s.name);
    labels_.resize(s.labels.size());
    for (size_t i = 0; i < s.labels.size(); ++i) {
      labels_[i].first.assign(s.labels[i].name);
      labels_[i].second.assign(s.labels[i].value);
    }
  }

 private:
  static constexpr int kMissesBeforePause = 64;
  static constexpr int kPauseSamples = 4096;
  bool valid_ = false;
  bool worth_ = true;
  int misses_ = 0;
  int pause_ = 0;
  uint64_t series_ = 0;  // the source's id of the series, 0: known by name_ and labels_
  std::string name_;
  std::vector<std::pair<std::string, std::string>> labels_;
};

}  // namespace gpucost
