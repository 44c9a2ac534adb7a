// Flag values that are fractions: "80%" or "0.8" -> 0.8, with an error naming the flag.
#pragma once

#include <string>
#include <string_view>

#include "core/result.h"

namespace gpucost::cli {

Result<double> ParseRatio(std::string_view flag, const std::string& text);

}  // namespace gpucost::cli
