#include "core/money.h"

#include <algorithm>
#include <numeric>

namespace gpucost {

std::vector<int64_t> RoundPreservingTotal(std::span<const double> values, int decimals,
                                          int64_t* total_units) {
  const double scale = std::pow(10.0, decimals);
  CompensatedSum sum;
  for (double v : values) sum.Add(v * scale);
  const auto target = static_cast<int64_t>(std::llround(sum.value()));

  std::vector<int64_t> out(values.size());
  std::vector<double> remainder(values.size());
  int64_t floor_sum = 0;
  for (size_t i = 0; i < values.size(); ++i) {
    const double scaled = values[i] * scale;
    const double f = std::floor(scaled);
    out[i] = static_cast<int64_t>(f);
    remainder[i] = scaled - f;
    floor_sum += out[i];
  }
  int64_t missing = target - floor_sum;  // 0 <= missing <= n, up to float noise
  std::vector<size_t> order(values.size());
  std::iota(order.begin(), order.end(), 0);
  // Largest remainders first; ties go to the earlier row so output is deterministic.
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return remainder[a] > remainder[b]; });
  for (size_t k = 0; missing > 0 && k < order.size(); ++k, --missing) ++out[order[k]];
  for (size_t k = order.size(); missing < 0 && k > 0; --k, ++missing) --out[order[k - 1]];
  if (total_units) *total_units = target;
  return out;
}

std::vector<int64_t> RoundToCents(std::span<const double> dollars, int64_t* total_cents) {
  return RoundPreservingTotal(dollars, 2, total_cents);
}

}  // namespace gpucost
