#include "core/money.h"

#include <cmath>

namespace gpucost {

int64_t RoundUnits(double value, int decimals) {
  const int64_t fine = std::llround(value * std::pow(10.0, decimals + 4));
  const int64_t whole = fine / 10000;
  const int64_t rest = fine % 10000;  // the sign of `fine`
  if (rest >= 5000) return whole + 1;
  if (rest <= -5000) return whole - 1;
  return whole;
}

}  // namespace gpucost
