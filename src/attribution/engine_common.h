// Small pieces shared by the engine's stages: integer-millisecond spans (the engine computes
// every boundary in integer milliseconds so that steps, holdings, prices and samples cut each
// other exactly) and a capped warning collector. Value types, thread-compatible.
#pragma once

#include <cstdint>
#include <string>
#include <unordered_set>
#include <utility>
#include <vector>

#include "core/time.h"

namespace gpucost::attribution {

// [start, end) in unix milliseconds.
struct Span {
  int64_t start = 0;
  int64_t end = 0;
  bool empty() const { return end <= start; }
};

inline Span ToSpan(Instant start, Instant end) { return {UnixMs(start), UnixMs(end)}; }

// Keeps the first kMax warnings and counts the rest, so a cluster with a systematic problem
// (every pod requesting a missing resource) yields a readable list, not millions of lines.
class Warnings {
 public:
  static constexpr size_t kMax = 200;

  // A message already kept is not kept again: one request drawn in pieces, or sized in several
  // places, tells its trouble once. Past the cap, each message not kept is counted.
  void Add(std::string message) {
    if (kept_.contains(message)) return;
    if (list_.size() < kMax) {
      kept_.insert(message);
      list_.push_back(std::move(message));
    } else {
      ++dropped_;
    }
  }

  // The kept warnings, plus one line saying how many were left out.
  std::vector<std::string> Take() {
    if (dropped_ > 0) {
      list_.push_back("... and " + std::to_string(dropped_) + " more warnings");
      dropped_ = 0;
    }
    kept_.clear();
    return std::exchange(list_, {});
  }

 private:
  std::vector<std::string> list_;
  std::unordered_set<std::string> kept_;  // the messages in list_
  int64_t dropped_ = 0;
};

}  // namespace gpucost::attribution
