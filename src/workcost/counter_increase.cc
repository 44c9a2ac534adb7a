#include "workcost/counter_increase.h"

#include <algorithm>

#include "core/money.h"

namespace gpucost::workcost {

CounterIncrease IncreaseOver(std::span<const CounterSample> samples, Window window,
                             Duration lookback) {
  const int64_t start = UnixMs(window.start);
  const int64_t end = UnixMs(window.end);
  const int64_t earliest = start - lookback.count();
  auto first_in = std::lower_bound(samples.begin(), samples.end(), start,
                                   [](const CounterSample& s, int64_t t) { return s.t_ms < t; });
  auto last = std::lower_bound(first_in, samples.end(), end,
                               [](const CounterSample& s, int64_t t) { return s.t_ms < t; });
  CounterIncrease out;
  auto first = first_in;
  if (first != samples.begin() && std::prev(first)->t_ms >= earliest) {
    --first;
    out.baseline_before_window = true;
  }
  if (first == last) return out;
  CompensatedSum sum;
  double prev = first->value;
  out.samples = 1;
  for (auto it = std::next(first); it != last; ++it) {
    const double v = it->value;
    if (v >= prev) {
      sum.Add(v - prev);
    } else {
      sum.Add(v);  // reset: counted again from zero
      ++out.resets;
    }
    prev = v;
    ++out.samples;
  }
  out.increase = sum.value();
  return out;
}

}  // namespace gpucost::workcost
