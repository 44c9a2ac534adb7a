#include "cli/format_flag.h"

#include <algorithm>
#include <map>

#include "core/strings.h"

namespace gpucost::cli {

CLI::Option* AddFormatOption(CLI::App& cmd, std::string& format,
                             const std::vector<std::string>& formats, const std::string& help) {
  std::map<std::string, std::string> names;
  for (const std::string& f : formats) names[f] = f;
  // Other names of a format: each counts where the command has its format and not the name.
  static constexpr std::pair<const char*, const char*> kSynonyms[] = {
      {"table", "text"}, {"text", "table"}, {"md", "markdown"}, {"prom", "text"}};
  const auto has = [&formats](const char* f) {
    return std::find(formats.begin(), formats.end(), f) != formats.end();
  };
  for (const auto& [synonym, format_name] : kSynonyms) {
    if (has(format_name) && !has(synonym)) names.emplace(synonym, format_name);
  }
  // "{a,b}": the values --help shows, and those shell completion offers (OptionChoices).
  const std::string choices = StrCat("{", Join(formats, ","), "}");
  CLI::Validator check(
      [names, choices](std::string& value) -> std::string {
        const auto it = names.find(ToLower(value));
        if (it == names.end()) return StrCat(value, " not in ", choices);
        value = it->second;
        return "";
      },
      choices, "format");
  return cmd.add_option("--format", format, help.empty() ? Join(formats, " | ") : help)
      ->transform(check)
      ->capture_default_str();
}

}  // namespace gpucost::cli
