#include "chargeback/render.h"

#include <sstream>

#include "core/strings.h"

namespace gpucost::chargeback {

Result<StatementFormat> ParseStatementFormat(std::string_view name) {
  if (name == "text") return StatementFormat::kText;
  if (name == "markdown" || name == "md") return StatementFormat::kMarkdown;
  if (name == "csv") return StatementFormat::kCsv;
  if (name == "json") return StatementFormat::kJson;
  if (name == "html") return StatementFormat::kHtml;
  return Status::InvalidArgument(
      StrCat("unknown output format \"", name, "\" (expected text, markdown, csv, json, html)"));
}

void RenderStatements(const StatementSet& set, StatementFormat format, std::ostream& out) {
  switch (format) {
    case StatementFormat::kText:
      return RenderText(set, out);
    case StatementFormat::kMarkdown:
      return RenderMarkdown(set, out);
    case StatementFormat::kCsv:
      return RenderCsv(set, out);
    case StatementFormat::kJson:
      return RenderJson(set, out);
    case StatementFormat::kHtml:
      return RenderHtml(set, out);
  }
}

std::string RenderStatementsToString(const StatementSet& set, StatementFormat format) {
  std::ostringstream out;
  RenderStatements(set, format, out);
  return out.str();
}

}  // namespace gpucost::chargeback
