// Renderers for a finished Report: `table` (aligned, totals row, money rounded so rows add up
// to the printed totals), `csv` (header row, full precision, null = empty field) and `json`
// (docs/report.md "JSON"). Column names are the same snake_case everywhere. Stateless and
// thread-safe.
//
//   Result<OutputFormat> ParseOutputFormat(std::string_view name);  // "table", "csv", "json"
//   void Render(const Report& report, OutputFormat format, std::ostream& out);
//   std::string RenderToString(const Report& report, OutputFormat format);
#pragma once

#include <ostream>
#include <string>
#include <string_view>

#include "core/result.h"
#include "report/report.h"

namespace gpucost {

enum class OutputFormat : uint8_t { kTable, kCsv, kJson };

std::string_view OutputFormatName(OutputFormat f);
Result<OutputFormat> ParseOutputFormat(std::string_view name);

void RenderTable(const Report& report, std::ostream& out);
void RenderCsv(const Report& report, std::ostream& out);
void RenderJson(const Report& report, std::ostream& out);  // one document, indented, newline

void Render(const Report& report, OutputFormat format, std::ostream& out);
std::string RenderToString(const Report& report, OutputFormat format);

}  // namespace gpucost
