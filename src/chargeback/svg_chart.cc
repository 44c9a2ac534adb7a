#include "chargeback/svg_chart.h"

#include <algorithm>
#include <cmath>
#include <sstream>

#include "chargeback/format.h"
#include "core/money.h"
#include "core/strings.h"

namespace gpucost::chargeback {
namespace {

// One decimal is plenty for pixel coordinates and keeps the markup short.
std::string Px(double v) {
  std::ostringstream out;
  out.setf(std::ios::fixed);
  out.precision(1);
  out << v;
  return out.str();
}

double Value(double v) { return std::isfinite(v) && v > 0 ? v : 0; }

double Total(const ChartBar& bar) {
  double sum = 0;
  for (double v : bar.values) sum += Value(v);
  return sum;
}

// A round axis maximum (1, 2 or 5 times a power of ten, times the tick count) above `max`.
double NiceStep(double max, int ticks) {
  if (!(max > 0)) return 1;
  const double raw = max / ticks;
  const double magnitude = std::pow(10.0, std::floor(std::log10(raw)));
  for (double m : {1.0, 2.0, 5.0, 10.0}) {
    if (m * magnitude >= raw) return m * magnitude;
  }
  return 10 * magnitude;
}

// By the one rounding rule (RoundUnits), which says "out of range" past what it keeps exact.
std::string Dollars(double usd) { return FormatDollarUnits(RoundUnits(usd, 2), 2); }

// Axis labels: whole dollars when the ticks are ("$800"), cents otherwise.
std::string AxisDollars(double usd, double step) {
  return step >= 1 ? FormatDollarUnits(RoundUnits(usd, 0), 0) : Dollars(usd);
}

std::string Tooltip(const ChartBar& bar, const ChartSeries& s, double v) {
  return StrCat("<title>", EscapeXml(bar.label), ": ", EscapeXml(s.name), " ", Dollars(v),
                "</title>");
}

std::string Legend(const std::vector<ChartSeries>& series, double x, double y) {
  std::string out;
  for (const ChartSeries& s : series) {
    out += StrCat("<rect x=\"", Px(x), "\" y=\"", Px(y - 9),
                  "\" width=\"10\" height=\"10\" fill=\"", s.color, "\"/><text x=\"", Px(x + 14),
                  "\" y=\"", Px(y), "\">", EscapeXml(s.name), "</text>");
    x += 24 + 7.0 * static_cast<double>(s.name.size());
  }
  return out;
}

}  // namespace

std::string ColumnChart(const std::vector<ChartSeries>& series, const std::vector<ChartBar>& bars,
                        std::string_view aria_label, int label_every) {
  constexpr double kWidth = 760, kHeight = 260, kLeft = 70, kRight = 10, kTop = 28, kBottom = 30;
  constexpr int kTicks = 4;
  const double plot_w = kWidth - kLeft - kRight;
  const double plot_h = kHeight - kTop - kBottom;
  double max = 0;
  for (const ChartBar& b : bars) max = std::max(max, Total(b));
  const double step = NiceStep(max, kTicks);
  const double top = step * kTicks;
  std::string out = StrCat("<svg class=\"chart\" viewBox=\"0 0 ", Px(kWidth), " ", Px(kHeight),
                           "\" role=\"img\" aria-label=\"", EscapeXml(aria_label), "\">");
  out += Legend(series, kLeft, 14);
  for (int i = 0; i <= kTicks; ++i) {
    const double y = kTop + plot_h - plot_h * i / kTicks;
    out += StrCat("<line class=\"grid\" x1=\"", Px(kLeft), "\" y1=\"", Px(y), "\" x2=\"",
                  Px(kWidth - kRight), "\" y2=\"", Px(y), "\"/><text class=\"axis\" x=\"",
                  Px(kLeft - 6), "\" y=\"", Px(y + 4), "\" text-anchor=\"end\">",
                  AxisDollars(step * i, step), "</text>");
  }
  const double slot = bars.empty() ? plot_w : plot_w / static_cast<double>(bars.size());
  const double bar_w = slot * 0.72;
  for (size_t i = 0; i < bars.size(); ++i) {
    const ChartBar& bar = bars[i];
    const double x = kLeft + slot * static_cast<double>(i) + (slot - bar_w) / 2;
    double y = kTop + plot_h;
    for (size_t k = 0; k < series.size() && k < bar.values.size(); ++k) {
      const double h = plot_h * Value(bar.values[k]) / top;
      if (h <= 0) continue;
      y -= h;
      out += StrCat("<rect x=\"", Px(x), "\" y=\"", Px(y), "\" width=\"", Px(bar_w), "\" height=\"",
                    Px(h), "\" fill=\"", series[k].color, "\">",
                    Tooltip(bar, series[k], bar.values[k]), "</rect>");
    }
    if (label_every > 0 && i % static_cast<size_t>(label_every) == 0) {
      out += StrCat("<text class=\"axis\" x=\"", Px(x + bar_w / 2), "\" y=\"",
                    Px(kHeight - kBottom + 16), "\" text-anchor=\"middle\">", EscapeXml(bar.label),
                    "</text>");
    }
  }
  return out + "</svg>";
}

std::string BarChart(const std::vector<ChartSeries>& series, const std::vector<ChartBar>& bars,
                     std::string_view aria_label) {
  constexpr double kWidth = 760, kLeft = 200, kRight = 90, kTop = 28, kRow = 26, kBar = 18;
  const double plot_w = kWidth - kLeft - kRight;
  const double height = kTop + kRow * static_cast<double>(bars.size()) + 8;
  double max = 0;
  for (const ChartBar& b : bars) max = std::max(max, Total(b));
  if (!(max > 0)) max = 1;
  std::string out = StrCat("<svg class=\"chart\" viewBox=\"0 0 ", Px(kWidth), " ", Px(height),
                           "\" role=\"img\" aria-label=\"", EscapeXml(aria_label), "\">");
  out += Legend(series, kLeft, 14);
  for (size_t i = 0; i < bars.size(); ++i) {
    const ChartBar& bar = bars[i];
    const double y = kTop + kRow * static_cast<double>(i);
    std::string label = bar.label;
    if (label.size() > 30) {
      size_t cut = 29;  // not inside a UTF-8 sequence
      while (cut > 0 && (static_cast<unsigned char>(label[cut]) & 0xC0) == 0x80) --cut;
      label = label.substr(0, cut) + "…";
    }
    out +=
        StrCat("<text x=\"", Px(kLeft - 8), "\" y=\"", Px(y + kBar - 5), "\" text-anchor=\"end\">",
               EscapeXml(label), "<title>", EscapeXml(bar.label), "</title></text>");
    double x = kLeft;
    for (size_t k = 0; k < series.size() && k < bar.values.size(); ++k) {
      const double w = plot_w * Value(bar.values[k]) / max;
      if (w <= 0) continue;
      out += StrCat("<rect x=\"", Px(x), "\" y=\"", Px(y), "\" width=\"", Px(w), "\" height=\"",
                    Px(kBar), "\" fill=\"", series[k].color, "\">",
                    Tooltip(bar, series[k], bar.values[k]), "</rect>");
      x += w;
    }
    out += StrCat("<text class=\"axis\" x=\"", Px(x + 6), "\" y=\"", Px(y + kBar - 5), "\">",
                  !bar.unpriced    ? Dollars(Total(bar))
                  : Total(bar) > 0 ? Dollars(Total(bar)) + " + unknown"
                                   : std::string("unknown"),
                  "</text>");
  }
  return out + "</svg>";
}

}  // namespace gpucost::chargeback
