// Renderers for a StatementSet: `text` (the statement as a tree of charge lines), `markdown`,
// `csv` (one row per team and charge line; amounts in cents that add up to each total), `json`
// (docs/chargeback.md "JSON") and `html` (one self-contained page: inline CSS and SVG charts,
// nothing fetched). Stateless and thread-safe.
#pragma once

#include <cstdint>
#include <ostream>
#include <string>
#include <string_view>

#include "chargeback/statement.h"
#include "core/result.h"

namespace gpucost::chargeback {

enum class StatementFormat : uint8_t { kText, kMarkdown, kCsv, kJson, kHtml };

// "text", "markdown" (or "md"), "csv", "json", "html".
Result<StatementFormat> ParseStatementFormat(std::string_view name);

void RenderText(const StatementSet& set, std::ostream& out);
void RenderMarkdown(const StatementSet& set, std::ostream& out);
void RenderCsv(const StatementSet& set, std::ostream& out);
void RenderJson(const StatementSet& set, std::ostream& out);
void RenderHtml(const StatementSet& set, std::ostream& out);

void RenderStatements(const StatementSet& set, StatementFormat format, std::ostream& out);
std::string RenderStatementsToString(const StatementSet& set, StatementFormat format);

}  // namespace gpucost::chargeback
