#include "cli/ratio_flag.h"

#include <cmath>
#include <cstdlib>

#include "core/strings.h"

namespace gpucost::cli {

Result<double> ParseRatio(std::string_view flag, const std::string& text) {
  std::string number = std::string(Trim(text));
  const bool percent = !number.empty() && number.back() == '%';
  if (percent) number.pop_back();
  char* end = nullptr;
  const double v = std::strtod(number.c_str(), &end);
  if (number.empty() || end != number.c_str() + number.size() || !std::isfinite(v)) {
    return Status::InvalidArgument(
        StrCat(flag, ": \"", text, "\" is not a fraction (0.8) or a percent (80%)"));
  }
  return percent ? v / 100 : v;
}

}  // namespace gpucost::cli
