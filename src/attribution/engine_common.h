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

// The line that closes a capped list of warnings: "... and N more warnings".
inline std::string MoreWarnings(int64_t n) {
  return "... and " + std::to_string(n) + (n == 1 ? " more warning" : " more warnings");
}

// Keeps the first kMax warnings and counts the rest, so a cluster with a systematic problem
// (every pod requesting a missing resource) yields a readable list, not millions of lines.
class Warnings {
 public:
  static constexpr size_t kMax = 200;

  // A message already kept is not kept again: one request drawn in pieces, or sized in several
  // places, tells its trouble once. Past the cap, each different message is counted once (by its
  // hash: the messages left out are not held).
  void Add(std::string message) {
    if (kept_.contains(message)) return;
    if (list_.size() < kMax) {
      kept_.insert(message);
      list_.push_back(std::move(message));
    } else if (dropped_.insert(std::hash<std::string>{}(message)).second) {
      ++dropped_count_;
    }
  }

  // The kept warnings, plus one line saying how many were left out.
  std::vector<std::string> Take() {
    if (dropped_count_ > 0) {
      list_.push_back(MoreWarnings(dropped_count_));
      dropped_count_ = 0;
    }
    kept_.clear();
    dropped_.clear();
    return std::exchange(list_, {});
  }

 private:
  std::vector<std::string> list_;
  std::unordered_set<std::string> kept_;  // the messages in list_
  std::unordered_set<size_t> dropped_;    // hashes of the messages left out
  int64_t dropped_count_ = 0;
};

}  // namespace gpucost::attribution
