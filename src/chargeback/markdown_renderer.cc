// Markdown: per team a heading, the charge lines as a table with a total row, the waste and
// spot sentences as a list, and the top consumers as a table. `|` in names is escaped.
#include <ostream>
#include <string>

#include "chargeback/render.h"
#include "chargeback/statement_text.h"

namespace gpucost::chargeback {
namespace {

std::string Cell(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '|' || c == '\\') out.push_back('\\');
    out.push_back(c == '\n' ? ' ' : c);
  }
  return out;
}

void RenderOneMarkdown(const StatementText& t, std::ostream& out) {
  out << "## " << Cell(t.title) << "\n\n";
  out << "Period: " << t.period << "\n\n";
  out << "| " << t.thing << " and capacity | " << t.hours_heading << " | rate | amount |\n";
  out << "|---|--:|--:|--:|\n";
  for (const StatementText::Line& l : t.lines) {
    out << "| " << Cell(l.label) << " | " << l.hours << " | " << l.rate << " | " << l.amount
        << " |\n";
  }
  if (!t.shared_idle.empty()) {
    out << "| " << t.shared_idle_label << " | | | " << t.shared_idle << " |\n";
  }
  if (!t.rounding.empty()) out << "| Rounding | | | " << t.rounding << " |\n";
  out << "| **Total** | **" << t.hours << "** | | **" << t.total << "** |\n\n";
  out << "- Waste: " << t.waste << "; " << t.waste_detail << "\n";
  out << "- Spot ratio: " << t.spot << "\n";
  if (!t.unmeasured.empty()) out << "- Unmeasured: " << t.unmeasured << "\n";
  if (!t.consumers.empty()) {
    out << "\nTop consumers:\n\n";
    out << "| # | workload | " << t.hours_heading << " | amount |\n";
    out << "|--:|---|--:|--:|\n";
    for (const StatementText::Consumer& c : t.consumers) {
      out << "| " << c.rank << " | " << Cell(c.name) << " | " << c.hours << " | " << c.amount
          << " |\n";
    }
  }
}

}  // namespace

void RenderMarkdown(const StatementSet& set, std::ostream& out) {
  WriteEachStatement(set, out, &RenderOneMarkdown);
  if (!set.cluster) return;
  const ClusterText c = DescribeCluster(set);
  out << "\n## " << Cell(c.title) << "\n\n| part | amount |\n|---|--:|\n";
  for (const ClusterText::Part& p : c.parts)
    out << "| " << Cell(p.label) << " | " << p.amount << " |\n";
  out << "| **" << c.total_label << "** | **" << c.total << "** |\n";
  if (!c.prices.empty()) out << "\nPrices: " << c.prices << " (docs/pricing.md)\n";
  if (!c.note.empty()) out << "\nNote: " << c.note << "\n";
}

}  // namespace gpucost::chargeback
