// YAML configuration files for a command's flags. Each key is the long name of one of the
// command's flags (`interval: 1m` is `--interval 1m`), a list gives a repeated flag
// (`input: [a.prom, b.prom]`), `true`/`false` set a switch, and a flag given on the command line
// wins over the file. The same flag registrations give the commented defaults file
// (`gpucost config print-defaults`) and docs/config.md (`gpucost config docs`), so the three can
// never disagree.
//
//   std::string config;
//   AddConfigFileOption(*cmd, config);
//   cmd->callback([&] { Status s = ApplyConfigFile(*cmd, config); ... });
#pragma once

#include <CLI/CLI.hpp>
#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <utility>

#include "core/status.h"

namespace gpucost::cli {

// Registers --config FILE on `cmd`; `path` must outlive the command.
void AddConfigFileOption(CLI::App& cmd, std::string& path);

// Which flags a configuration file set, and on which line, so that a value the command refuses
// only once it reads its flags (a duration that is not one, a negative price) is named by the
// file and line that gave it, as the file's other mistakes are.
class ConfigOrigins {
 public:
  // `flag` is a long name without dashes ("interval"); `where` is "serve.yaml:2".
  void Set(const std::string& flag, std::string where) { where_[flag] = std::move(where); }
  // `status` with the flag its message starts with put as the file names it, when the file set
  // that flag: `--interval "banana": a positive duration` becomes
  // `serve.yaml:2: interval: "banana": a positive duration`. Otherwise (the flag came from the
  // command line or its default) `status` unchanged.
  Status Locate(const Status& status) const;

 private:
  std::map<std::string, std::string, std::less<>> where_;
};

// Sets every flag of `cmd` the file names and the command line did not, and records in
// `origins` (when given) the line of each. Nothing happens when `path` is empty. InvalidArgument
// naming the file and line for unreadable YAML, a key given twice, a key that is no flag of the
// command (with the nearest flag name), a map where a value belongs, or a value the flag refuses.
Status ApplyConfigFile(CLI::App& cmd, const std::string& path, ConfigOrigins* origins = nullptr);

// The options a configuration file may set: every long flag but --help and those marked
// configurable(false) (--config itself, one-off actions such as --check-config).
bool IsConfigurable(const CLI::Option& option);

// A YAML file of every configurable flag of `cmd` with its default value and its help as a
// comment, grouped as in --help; flags without a default are commented out. Valid input for
// ApplyConfigFile.
std::string DefaultsYaml(const CLI::App& cmd);

// The Markdown reference of the same settings (docs/config.md for `serve`).
std::string ConfigMarkdown(const CLI::App& cmd);

}  // namespace gpucost::cli
