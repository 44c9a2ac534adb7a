// Renders a what-if scenario as text tables (by category, by team, by policy; money in cents that
// add up to the totals) or JSON (full precision). Stateless.
#pragma once

#include <ostream>

#include "advise/recommend_render.h"
#include "advise/whatif.h"

namespace gpucost::advise {

void RenderScenario(const Scenario& scenario, RecommendFormat format, std::ostream& out);

}  // namespace gpucost::advise
