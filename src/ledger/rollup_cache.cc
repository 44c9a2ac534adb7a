#include "ledger/rollup_cache.h"

namespace gpucost::ledger {

RolledPeriod RollupCache::Find(const std::string& target, int64_t period_ms, int64_t start_ms,
                               int64_t generation) {
  std::lock_guard<std::mutex> lock(mu_);
  const auto it = entries_.find(Key{target, period_ms, start_ms});
  if (it == entries_.end() || it->second.generation != generation) return nullptr;
  lru_.splice(lru_.begin(), lru_, it->second.lru);
  return it->second.rows;
}

void RollupCache::Put(const std::string& target, int64_t period_ms, int64_t start_ms,
                      int64_t generation, RolledPeriod rows) {
  if (rows == nullptr || rows->size() > max_rows_) return;
  std::lock_guard<std::mutex> lock(mu_);
  Key key{target, period_ms, start_ms};
  if (const auto it = entries_.find(key); it != entries_.end()) {
    rows_ -= it->second.rows->size();
    lru_.erase(it->second.lru);
    entries_.erase(it);
  }
  rows_ += rows->size();
  lru_.push_front(key);
  entries_.emplace(std::move(key), Entry{generation, std::move(rows), lru_.begin()});
  while (rows_ > max_rows_ && !lru_.empty()) {
    const auto last = entries_.find(lru_.back());
    rows_ -= last->second.rows->size();
    entries_.erase(last);
    lru_.pop_back();
  }
}

size_t RollupCache::rows() const {
  std::lock_guard<std::mutex> lock(mu_);
  return rows_;
}

}  // namespace gpucost::ledger
