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
  if (total_units) *total_units = target;
  return RoundToTotal(values, decimals, target);
}

std::vector<int64_t> RoundToTotal(std::span<const double> values, int decimals,
                                  int64_t total_units) {
  const double scale = std::pow(10.0, decimals);
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
  if (values.empty()) return out;
  std::vector<size_t> order(values.size());
  std::iota(order.begin(), order.end(), 0);
  // Largest remainders first; ties go to the earlier row so output is deterministic.
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return remainder[a] > remainder[b]; });
  // 0 <= missing < n for the values' own rounded total; a total rounded elsewhere may differ by
  // float noise, and the round robin still lands on it exactly.
  int64_t missing = total_units - floor_sum;
  for (size_t k = 0; missing > 0; k = (k + 1) % order.size(), --missing) ++out[order[k]];
  for (size_t k = order.size(); missing < 0; k = k == 1 ? order.size() : k - 1, ++missing) {
    --out[order[k - 1]];
  }
  return out;
}

std::vector<int64_t> RoundToCents(std::span<const double> dollars, int64_t* total_cents) {
  return RoundPreservingTotal(dollars, 2, total_cents);
}

}  // namespace gpucost
