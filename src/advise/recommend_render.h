// Renders recommendations as text (one block per recommendation: action, savings, evidence,
// risk) or JSON (the same fields, full precision, null for unknown money). Stateless.
#pragma once

#include <ostream>
#include <string_view>

#include "advise/recommend.h"
#include "core/result.h"

namespace gpucost::advise {

enum class RecommendFormat : uint8_t { kText, kJson };
Result<RecommendFormat> ParseRecommendFormat(std::string_view text);

void RenderRecommendations(const Recommendations& recs, RecommendFormat format, std::ostream& out);

}  // namespace gpucost::advise
