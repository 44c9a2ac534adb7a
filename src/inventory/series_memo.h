// What a reader remembers of the series it read, so that further samples of a series reuse what
// it resolved to (map entries, pointers into the reader's data) instead of copying labels and
// looking keys up again.
//
// Samples that carry the source's series id (remote read, the query API, exposition text from
// the second sample of a series on) are found by id in a table of every series seen. Samples
// without one are compared, name and labels, with the series read just before: a source that
// hands over each series' samples together hits almost always; one that interleaves series
// never does, so after 64 misses in a row nothing is remembered for the next 4096 samples and
// remembering costs little.
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "ingest/exposition.h"

namespace gpucost {

// The series read last, known by its name and labels.
class SeriesMemo {
 public:
  // Whether `s` is the series remembered last (same name, same labels in the same order).
  bool Matches(const SampleView& s) const {
    if (!valid_ || s.name != name_ || s.labels.size() != labels_.size()) return false;
    for (size_t i = 0; i < labels_.size(); ++i) {
      if (s.labels[i].value != labels_[i].second || s.labels[i].name != labels_[i].first) {
        return false;
      }
    }
    return true;
  }

  // Call for every sample: true when it is the remembered series; otherwise the memo is emptied
  // and Worth() says whether to remember this one.
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
  std::string name_;
  std::vector<std::pair<std::string, std::string>> labels_;
};

// What each series resolved to: by series id where the source gives one, else the series read
// last (SeriesMemo).
template <typename Resolved>
class SeriesCache {
 public:
  // What the series of `s` resolved to, or null when it has to be resolved (then call Worth and
  // perhaps Remember).
  const Resolved* Find(const SampleView& s) {
    if (s.series == 0) return last_.Hit(s) ? &last_resolved_ : nullptr;
    if (hot_ != nullptr && s.series == hot_->id) return &hot_->resolved;
    // Sources repeat the order of their series (scrape after scrape in a file), so the series
    // that followed this one before most likely follows it again.
    Node* found = nullptr;
    if (hot_ != nullptr && hot_->next != nullptr && hot_->next->id == s.series) {
      found = hot_->next;
    } else {
      const auto it = by_id_.find(s.series);
      if (it == by_id_.end()) return nullptr;
      found = &it->second;
      if (hot_ != nullptr) hot_->next = found;
    }
    hot_ = found;
    if (found->next != nullptr) __builtin_prefetch(found->next);
    return &found->resolved;
  }

  // After a miss: whether the series just resolved is worth remembering.
  bool Worth(const SampleView& s) const { return s.series != 0 || last_.Worth(); }

  void Remember(const SampleView& s, Resolved r) {
    if (s.series == 0) {
      last_.Remember(s);
      last_resolved_ = std::move(r);
      return;
    }
    // Ids of series no longer read (an earlier response, an earlier file) are dropped now and
    // then rather than tracked.
    if (by_id_.size() >= kMaxSeries) Clear();
    Node& node = by_id_[s.series];
    node = Node{s.series, std::move(r), nullptr};
    if (hot_ != nullptr) hot_->next = &node;
    hot_ = &node;
  }

  void Clear() {
    by_id_.clear();
    hot_ = nullptr;
    last_ = SeriesMemo();
    last_resolved_ = Resolved();
  }

  size_t size() const { return by_id_.size(); }

 private:
  struct Node {
    uint64_t id = 0;
    Resolved resolved;
    Node* next = nullptr;  // the series found after this one last time
  };
  static constexpr size_t kMaxSeries = size_t{1} << 18;
  std::unordered_map<uint64_t, Node> by_id_;  // nodes do not move
  Node* hot_ = nullptr;                       // the series found last
  SeriesMemo last_;
  Resolved last_resolved_;
};

}  // namespace gpucost
