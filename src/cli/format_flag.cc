#include "cli/format_flag.h"

#include <algorithm>

#include "cli/usage_error.h"
#include "core/strings.h"
#include "core/time.h"
#include "report/dimension.h"

namespace gpucost::cli {

CLI::Validator OneOf(const std::vector<std::string>& values,
                     const std::map<std::string, std::string>& synonyms) {
  std::map<std::string, std::string> names = synonyms;
  for (const std::string& v : values) names[ToLower(v)] = v;
  const std::string choices = StrCat("{", Join(values, ","), "}");
  return CLI::Validator(
      [names, choices](std::string& value) -> std::string {
        const auto it = names.find(ToLower(value));
        if (it == names.end()) return StrCat(value, " not in ", choices);
        value = it->second;
        return "";
      },
      choices, "one-of");
}

CLI::Validator DimensionList() {
  return CLI::Validator(
      [](std::string& value) -> std::string {
        const Result<std::vector<Dimension>> dims = ParseDimensions(value);
        if (dims.ok()) return "";
        std::string message(dims.status().message());
        for (const std::string& word : SplitList(value)) {
          if (ParseDimension(word).ok()) continue;
          const std::string near = NearestName(word, DimensionNames());
          if (!near.empty()) message = StrCat(message, "; did you mean \"", near, "\"?");
          break;
        }
        return message;
      },
      "", "dimensions");
}

CLI::Validator WindowValue() {
  return CLI::Validator(
      [](std::string& value) -> std::string {
        const Result<Window> w = ParseWindow(value);
        return w.ok() ? "" : std::string(w.status().message());
      },
      "", "window");
}

CLI::Option* AddFormatOption(CLI::App& cmd, std::string& format,
                             const std::vector<std::string>& formats, const std::string& help) {
  // Other names of a format: each counts where the command has its format and not the name.
  static constexpr std::pair<const char*, const char*> kSynonyms[] = {
      {"table", "text"}, {"text", "table"}, {"md", "markdown"}, {"prom", "text"}};
  const auto has = [&formats](const char* f) {
    return std::find(formats.begin(), formats.end(), f) != formats.end();
  };
  std::map<std::string, std::string> synonyms;
  for (const auto& [synonym, format_name] : kSynonyms) {
    if (has(format_name) && !has(synonym)) synonyms.emplace(synonym, format_name);
  }
  return cmd.add_option("--format", format, help.empty() ? Join(formats, " | ") : help)
      ->transform(OneOf(formats, synonyms))
      ->capture_default_str();
}

}  // namespace gpucost::cli
