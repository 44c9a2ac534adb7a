// Renderers of a UnitCostTable: an aligned text table with a totals row, CSV and JSON. Unknown
// figures are printed as "unknown" (text), an empty field (CSV) or null (JSON), never as 0.
// Stateless and thread-safe.
#pragma once

#include <ostream>
#include <string_view>

#include "core/result.h"
#include "workcost/unit_cost.h"

namespace gpucost::workcost {

enum class UnitCostFormat : uint8_t { kText, kCsv, kJson };

Result<UnitCostFormat> ParseUnitCostFormat(std::string_view name);  // text | csv | json

void RenderUnitCost(const UnitCostTable& table, UnitCostFormat format, std::ostream& out);

}  // namespace gpucost::workcost
