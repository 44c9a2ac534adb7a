#include "report/idle_sharing.h"

#include <cmath>
#include <map>
#include <utility>

namespace gpucost {

void ShareIdle(IdlePolicy policy, std::vector<Aggregator::Cell>& cells) {
  if (policy == IdlePolicy::kSeparate) return;
  struct Scope {
    std::vector<size_t> holders;  // holder cells
    std::vector<size_t> idle;     // idle cells: one per idle group with capacity in the scope
  };
  // Ordered map: the order sharing is applied in never depends on hash layout.
  std::map<std::pair<int64_t, uint32_t>, Scope> scopes;
  for (size_t i = 0; i < cells.size(); ++i) {
    Scope& s = scopes[{cells[i].bucket, cells[i].scope}];
    (cells[i].is_idle ? s.idle : s.holders).push_back(i);
  }
  std::vector<double> weights;
  for (auto& [key, scope] : scopes) {
    if (scope.idle.empty() || scope.holders.empty()) continue;
    weights.clear();
    double total_weight = 0;
    for (size_t h : scope.holders) {
      double w = 0;
      if (policy == IdlePolicy::kProportional) {
        // Unknown-priced holders carry no weight: their own cost is unknown.
        w = cells[h].acc.own_allocated_usd();
        if (!std::isfinite(w) || w < 0) w = 0;
      } else {
        w = static_cast<double>(cells[h].holders);
      }
      weights.push_back(w);
      total_weight += w;
    }
    if (!(total_weight > 0)) continue;  // nobody to share to: the idle row stays
    for (size_t i : scope.idle) {
      // Idle with no known price has no money to share: it stays in its idle row, unknown, and
      // the holders receive nothing (not $0.00, which would make a holder whose own hours have
      // no price read as costing nothing).
      if (!cells[i].acc.has_idle_money()) continue;
      const double idle = cells[i].acc.idle_usd();
      for (size_t k = 0; k < scope.holders.size(); ++k) {
        if (weights[k] > 0)
          cells[scope.holders[k]].acc.ReceiveIdle(idle * (weights[k] / total_weight));
      }
      cells[i].acc.ReleaseIdle();
    }
  }
}

}  // namespace gpucost
