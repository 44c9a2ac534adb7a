// Inline SVG stacked bar charts for the HTML statement: vertical columns over time (one per day)
// and horizontal bars (one per workload), each bar a stack of series (effective, waste,
// unmeasured) whose height is the whole (allocated). Plain markup: no scripts, no external
// references; each segment carries a <title> tooltip. Stateless and thread-safe.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace gpucost::chargeback {

struct ChartSeries {
  std::string name;
  std::string color;  // CSS colour, e.g. "#2b7a4b"
};

struct ChartBar {
  std::string label;           // x label (columns) or row label (bars); plain text
  std::vector<double> values;  // one per series, stacked in series order; NaN counts as 0
  // Hours without a price: the total prints "unknown" ("+ unknown" beside priced money), never
  // as a silent $0.00.
  bool unpriced = false;
};

// Columns over time; `label_every` thins the x labels (every n-th column is labelled).
std::string ColumnChart(const std::vector<ChartSeries>& series, const std::vector<ChartBar>& bars,
                        std::string_view aria_label, int label_every);

// Horizontal bars with the stack's total printed at the end of each.
std::string BarChart(const std::vector<ChartSeries>& series, const std::vector<ChartBar>& bars,
                     std::string_view aria_label);

}  // namespace gpucost::chargeback
