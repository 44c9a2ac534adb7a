// Idle sharing: moves the cost of unheld capacity from idle cells to the holder cells of the
// same bucket and scope (node or cluster), in proportion to their own allocated cost or evenly
// per holder. Idle that has nobody to go to stays in its idle cell. Internal to the report
// module; stateless.
//
//   void ShareIdle(IdlePolicy policy, std::vector<Aggregator::Cell>& cells);
#pragma once

#include <vector>

#include "report/aggregator.h"
#include "report/report.h"

namespace gpucost {

// kSeparate leaves `cells` unchanged. Otherwise, for every (bucket, scope) with priced idle and
// a positive total weight among its holder cells, each holder cell receives
// idle x weight / total weight and the idle cell releases its priced money. The sum of money
// over all cells is unchanged (to rounding of one division per cell).
void ShareIdle(IdlePolicy policy, std::vector<Aggregator::Cell>& cells);

}  // namespace gpucost
