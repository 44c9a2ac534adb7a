#include "report/render.h"

#include <sstream>

#include "core/strings.h"

namespace gpucost {

std::string_view OutputFormatName(OutputFormat f) {
  switch (f) {
    case OutputFormat::kTable:
      return "table";
    case OutputFormat::kCsv:
      return "csv";
    case OutputFormat::kJson:
      return "json";
  }
  return "table";
}

Result<OutputFormat> ParseOutputFormat(std::string_view name) {
  for (OutputFormat f : {OutputFormat::kTable, OutputFormat::kCsv, OutputFormat::kJson}) {
    if (OutputFormatName(f) == name) return f;
  }
  return Status::InvalidArgument(
      StrCat("unknown output format \"", name, "\" (expected table, csv, json)"));
}

void Render(const Report& report, OutputFormat format, std::ostream& out) {
  switch (format) {
    case OutputFormat::kTable:
      RenderTable(report, out);
      return;
    case OutputFormat::kCsv:
      RenderCsv(report, out);
      return;
    case OutputFormat::kJson:
      RenderJson(report, out);
      return;
  }
}

std::string RenderToString(const Report& report, OutputFormat format) {
  std::ostringstream out;
  Render(report, format, out);
  return out.str();
}

}  // namespace gpucost
