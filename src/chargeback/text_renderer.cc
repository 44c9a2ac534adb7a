// Text: the statement as a tree of charge lines, labels padded and hours and rates right-aligned
// so the lines read as columns; statements of several teams are separated by a blank line.
#include <algorithm>
#include <ostream>
#include <string>

#include "chargeback/render.h"
#include "chargeback/statement_text.h"

namespace gpucost::chargeback {
namespace {

std::string PadRight(const std::string& s, size_t width) {
  return s.size() >= width ? s : s + std::string(width - s.size(), ' ');
}

std::string PadLeft(const std::string& s, size_t width) {
  return s.size() >= width ? s : std::string(width - s.size(), ' ') + s;
}

void RenderOneText(const StatementText& t, std::ostream& out) {
  out << t.title << "\n";
  out << "Period: " << t.period << "\n";
  out << t.hours_heading << " consumed: " << t.hours << "\n";
  size_t label_w = 0, hours_w = 0, rate_w = 0;
  for (const StatementText::Line& l : t.lines) {
    label_w = std::max(label_w, l.label.size() + 1);
    hours_w = std::max(hours_w, l.hours.size());
    rate_w = std::max(rate_w, l.rate.size());
  }
  const size_t rows =
      t.lines.size() + (t.shared_idle.empty() ? 0 : 1) + (t.rounding.empty() ? 0 : 1);
  for (size_t i = 0; i < t.lines.size(); ++i) {
    const StatementText::Line& l = t.lines[i];
    out << (i + 1 == rows ? "└── " : "├── ") << PadRight(l.label + ":", label_w) << " "
        << PadLeft(l.hours, hours_w) << " hrs × " << PadLeft(l.rate, rate_w) << " = " << l.amount
        << "\n";
  }
  if (!t.shared_idle.empty()) {
    out << (t.rounding.empty() ? "└── " : "├── ") << t.shared_idle_label << ": " << t.shared_idle
        << "\n";
  }
  if (!t.rounding.empty()) {
    out << "└── " << PadRight("Rounding:", label_w) << " " << t.rounding
        << " (each line rounded to the cent on its own)\n";
  }
  out << "Total: " << t.total << "\n";
  out << "Waste: " << t.waste << "\n";
  out << "       " << t.waste_detail << "\n";
  out << "Spot ratio: " << t.spot << "\n";
  if (!t.unmeasured.empty()) out << "Unmeasured: " << t.unmeasured << "\n";
  const std::string indent(std::string("Top consumers: ").size(), ' ');
  for (const StatementText::Consumer& c : t.consumers) {
    out << (c.rank == 1 ? "Top consumers: " : indent) << c.rank << ". " << c.name << " " << c.hours
        << " " << t.hrs << " (" << c.amount << ")\n";
  }
}

void RenderCluster(const ClusterText& c, std::ostream& out) {
  out << "\n" << c.title << "\n";
  size_t label_w = 0;
  for (const ClusterText::Part& p : c.parts) label_w = std::max(label_w, p.label.size() + 1);
  for (size_t i = 0; i < c.parts.size(); ++i) {
    out << (i + 1 == c.parts.size() ? "└── " : "├── ") << PadRight(c.parts[i].label + ":", label_w)
        << " " << c.parts[i].amount << "\n";
  }
  out << c.total_label << ": " << c.total << "\n";
  if (!c.prices.empty()) out << "Prices: " << c.prices << " (docs/pricing.md)\n";
  if (!c.note.empty()) out << "Note: " << c.note << "\n";
}

}  // namespace

void RenderText(const StatementSet& set, std::ostream& out) {
  WriteEachStatement(set, out, &RenderOneText);
  if (set.cluster) RenderCluster(DescribeCluster(set), out);
}

}  // namespace gpucost::chargeback
