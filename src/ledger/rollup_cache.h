// RollupCache: decoded roll-up periods kept in memory between reads of one process (`gpucost
// serve` answering its API), so a month's report does not decode a month of roll-up rows from the
// database on every request. A period is keyed by the ledger target, its length and start, and
// the generation the ledger gave it when it was rolled: a period rolled again (late data) has a
// new generation and is read again. Ledger::Read also keeps the sum of a window's periods here,
// under a key that names each period and its generation. Bounded by rows; the least recently
// used periods go first.
// Thread-safe.
//
//   auto cache = std::make_shared<RollupCache>(2'000'000);
//   ReadOptions o; o.rollups = true; o.cache = cache.get();
//   ledger->Read(window, o);
#pragma once

#include <cstdint>
#include <list>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <tuple>
#include <vector>

#include "report/row_accumulator.h"

namespace gpucost::ledger {

// One roll-up row as the database holds it: ledger ids, not inventory indexes.
struct StoredRollup {
  int64_t unit_id = 0;
  int64_t holder_id = 0;  // 0: idle
  RolledRecord rolled;    // its step, unit and holder unset
};
using RolledPeriod = std::shared_ptr<const std::vector<StoredRollup>>;

class RollupCache {
 public:
  explicit RollupCache(size_t max_rows) : max_rows_(max_rows) {}

  // The period when cached at this generation; null otherwise.
  RolledPeriod Find(const std::string& target, int64_t period_ms, int64_t start_ms,
                    int64_t generation);
  void Put(const std::string& target, int64_t period_ms, int64_t start_ms, int64_t generation,
           RolledPeriod rows);

  size_t rows() const;

 private:
  using Key = std::tuple<std::string, int64_t, int64_t>;
  struct Entry {
    int64_t generation;
    RolledPeriod rows;
    std::list<Key>::iterator lru;
  };
  mutable std::mutex mu_;
  size_t max_rows_;
  size_t rows_ = 0;
  std::map<Key, Entry> entries_;
  std::list<Key> lru_;  // most recently used first
};

}  // namespace gpucost::ledger
