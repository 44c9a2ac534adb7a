#include "cli/config_file.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <fstream>
#include <map>
#include <sstream>
#include <vector>

#include "cli/usage_error.h"
#include "core/result.h"
#include "core/strings.h"
#include "core/yaml_keys.h"

namespace gpucost::cli {
namespace {

std::string KeyOf(const CLI::Option& option) { return option.get_lnames().front(); }

bool IsSwitch(const CLI::Option& option) { return option.get_expected_max() == 0; }

bool IsList(const CLI::Option& option) {
  return !IsSwitch(option) && option.get_items_expected_max() > 1;
}

// The setting nearest to a misspelt `key`, for "did you mean" (as on the command line).
std::string Nearest(const CLI::App& cmd, std::string_view key) {
  std::vector<std::string> keys;
  for (const CLI::Option* option : cmd.get_options()) {
    if (IsConfigurable(*option)) keys.push_back(KeyOf(*option));
  }
  return NearestName(key, keys);
}

// The scalars a value stands for: one, or each item of a list of scalars.
Result<std::vector<std::string>> Scalars(const YAML::Node& value, const std::string& where) {
  std::vector<std::string> out;
  if (value.IsScalar()) {
    out.push_back(value.Scalar());
  } else if (value.IsSequence()) {
    for (const YAML::Node& item : value) {
      if (!item.IsScalar()) {
        return Status::InvalidArgument(StrCat(where, ": a list of plain values is expected"));
      }
      out.push_back(item.Scalar());
    }
  } else {
    return Status::InvalidArgument(
        StrCat(where, ": a value or a list of values is expected, not a map (keys are the "
                      "command's flag names, without nesting)"));
  }
  return out;
}

std::string YamlScalar(const std::string& value) {
  YAML::Emitter out;
  out << value;
  return out.c_str();
}

void AppendComment(std::string& out, std::string_view text, std::string_view indent = "") {
  std::string line;
  for (std::string_view word : Split(text, ' ')) {
    if (word.empty()) continue;
    if (!line.empty() && line.size() + word.size() + 1 > 96) {
      out += StrCat(indent, "# ", line, "\n");
      line.clear();
    }
    if (!line.empty()) line.push_back(' ');
    line.append(word);
  }
  if (!line.empty()) out += StrCat(indent, "# ", line, "\n");
}

// The configurable options grouped as --help shows them, groups in first-seen order.
std::vector<std::pair<std::string, std::vector<const CLI::Option*>>> Groups(
    const CLI::App& cmd) {
  std::vector<std::pair<std::string, std::vector<const CLI::Option*>>> groups;
  for (const CLI::Option* option : cmd.get_options()) {
    if (!IsConfigurable(*option)) continue;
    const std::string& name = option->get_group();
    auto it = std::find_if(groups.begin(), groups.end(),
                           [&name](const auto& g) { return g.first == name; });
    if (it == groups.end()) {
      groups.push_back({name, {}});
      it = std::prev(groups.end());
    }
    it->second.push_back(option);
  }
  return groups;
}

std::string DefaultText(const CLI::Option& option) {
  if (IsSwitch(option)) return "false";
  std::string d = option.get_default_str();
  if (IsList(option) && (d == "[]" || d == "{}")) d.clear();
  return d;
}

std::string MarkdownCell(std::string_view text) {
  std::string out;
  for (char c : text) {
    if (c == '|') {
      out += "\\|";
    } else if (c == '\n') {
      out += ' ';
    } else {
      out += c;
    }
  }
  return out;
}

}  // namespace

bool IsConfigurable(const CLI::Option& option) {
  if (option.get_lnames().empty() || option.get_positional() || !option.get_configurable()) {
    return false;
  }
  const std::string& key = KeyOf(option);
  return key != "help" && key != "help-all";
}

void AddConfigFileOption(CLI::App& cmd, std::string& path) {
  cmd.add_option("--config", path,
                 "YAML file of settings: each key is a flag's long name (interval: 1m), a list "
                 "repeats a flag; flags on the command line win (gpucost config print-defaults)")
      ->configurable(false);
}

Status ConfigOrigins::Locate(const Status& status) const {
  const std::string_view message = status.message();
  if (status.ok() || !message.starts_with("--")) return status;
  const size_t end = std::min(message.find_first_of(" :=\"", 2), message.size());
  const auto it = where_.find(message.substr(2, end - 2));
  if (it == where_.end()) return status;
  std::string_view rest = message.substr(end);
  if (rest.starts_with(':')) rest.remove_prefix(1);
  return Status(status.code(),
                StrCat(it->second, ": ", it->first, ":", rest.empty() ? "" : " ", Trim(rest)));
}

Status ApplyConfigFile(CLI::App& cmd, const std::string& path, ConfigOrigins* origins) {
  if (path.empty()) return Status::Ok();
  std::ifstream in(path);
  if (!in) return Status::InvalidArgument(StrCat(path, ": cannot read the configuration file"));
  YAML::Node root;
  try {
    root = YAML::Load(in);
  } catch (const YAML::Exception& e) {
    return Status::InvalidArgument(
        StrCat(path, ":", e.mark.line + 1, ":", e.mark.column + 1, ": not YAML: ", e.msg));
  }
  if (root.IsNull()) return Status::Ok();
  if (const Status unique = CheckUniqueYamlKeys(root, path); !unique.ok()) {
    return Status::InvalidArgument(std::string(unique.message()));
  }
  if (!root.IsMap()) {
    return Status::InvalidArgument(
        StrCat(path, ": a map of settings (key: value) is expected at the top"));
  }
  for (const auto& entry : root) {
    const std::string key = entry.first.Scalar();
    const std::string line = StrCat(path, ":", entry.first.Mark().line + 1);
    const std::string where = StrCat(line, ": ", key);
    CLI::Option* option = cmd.get_option_no_throw("--" + key);
    if (option == nullptr || !IsConfigurable(*option)) {
      const std::string nearest = Nearest(cmd, key);
      return Status::InvalidArgument(
          StrCat(where, ": no such setting of gpucost ", cmd.get_name(),
                 nearest.empty() ? "" : StrCat(" (did you mean ", nearest, "?)")));
    }
    if (entry.second.IsNull()) continue;  // "key:" with no value leaves the default
    GPUCOST_ASSIGN_OR_RETURN(std::vector<std::string> values, Scalars(entry.second, where));
    if (values.size() > 1 && !IsList(*option)) {
      return Status::InvalidArgument(StrCat(where, ": takes one value, not a list"));
    }
    if (option->count() > 0) continue;  // the command line wins
    try {
      for (const std::string& v : values) option->add_result(v);
      option->run_callback();
    } catch (const CLI::Error& e) {
      return Status::InvalidArgument(StrCat(where, ": ", e.what()));
    }
    if (origins != nullptr) origins->Set(key, line);
  }
  return Status::Ok();
}

std::string DefaultsYaml(const CLI::App& cmd) {
  std::string out = StrCat("# Settings of gpucost ", cmd.get_name(),
                           " with their defaults (gpucost config print-defaults ", cmd.get_name(),
                           ").\n# Keys are the command's flag names; a flag on the command line "
                           "wins over this file.\n");
  for (const auto& [group, options] : Groups(cmd)) {
    out += StrCat("\n# --- ", group, " ---\n");
    for (const CLI::Option* option : options) {
      AppendComment(out, option->get_description());
      const std::string d = DefaultText(*option);
      if (IsList(*option)) {
        out += StrCat("# ", KeyOf(*option), ": [", d, "]\n");
      } else if (d.empty()) {
        out += StrCat("# ", KeyOf(*option), ":\n");
      } else {
        out += StrCat(KeyOf(*option), ": ", YamlScalar(d), "\n");
      }
    }
  }
  return out;
}

std::string ConfigMarkdown(const CLI::App& cmd) {
  std::ostringstream out;
  out << "# Configuration of `gpucost " << cmd.get_name() << "`\n\n"
      << "<!-- Generated by `gpucost config docs " << cmd.get_name()
      << "`; a test fails when this file and the flags differ. -->\n\n"
      << "Every setting is a flag of `gpucost " << cmd.get_name()
      << "` and a key of its YAML configuration file (`--config FILE`): the key is the flag's "
         "long name without the dashes. A list repeats a flag (`input: [a.prom, b.prom]`), "
         "`true`/`false` set a switch, a key with no value keeps the default, and a flag given on "
         "the command line wins over the file. An unknown key, a key given twice, a map and a "
         "value the command refuses stop the start with the file and line that hold it "
         "(`serve.yaml:2: interval: \"banana\": a positive duration (1m)`), and "
         "`--check-config` says the same without starting. `gpucost config print-defaults "
      << cmd.get_name() << "` prints a file of every setting with its default.\n";
  for (const auto& [group, options] : Groups(cmd)) {
    out << "\n## " << group << "\n\n| Key | Default | What it sets |\n|---|---|---|\n";
    for (const CLI::Option* option : options) {
      const std::string d = DefaultText(*option);
      out << "| `" << KeyOf(*option) << "`" << (IsList(*option) ? " (list)" : "") << " | "
          << (d.empty() ? "" : StrCat("`", MarkdownCell(d), "`")) << " | "
          << MarkdownCell(option->get_description()) << " |\n";
    }
  }
  return out.str();
}

}  // namespace gpucost::cli
