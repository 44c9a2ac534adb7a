// Flags with a fixed set of values, the same everywhere: the value is checked while parsing (a
// bad one is a usage error naming the flag), and `--help` and shell completion list the set.
// --format is one: "text" and "table" (the two names of the human-readable format) each stand
// for the other, "md" for markdown, "prom" for text (the Prometheus text format).
#pragma once

#include <CLI/CLI.hpp>
#include <map>
#include <string>
#include <vector>

namespace gpucost::cli {

// For Option::transform: the value must be one of `values` (any case), or a key of `synonyms`,
// which it becomes. Its description, "{a,b,c}", is what --help shows after the type and what
// completion offers (cli/completion_script.h); an error reads "x not in {a,b,c}".
CLI::Validator OneOf(const std::vector<std::string>& values,
                     const std::map<std::string, std::string>& synonyms = {});

// For Option::check: a comma list of report dimensions (--by); an error names the unknown one and
// the dimension nearest to it ("did you mean").
CLI::Validator DimensionList();

// For Option::check: a window START,END (RFC 3339 or unix seconds, --window).
CLI::Validator WindowValue();

// Adds --format to `cmd`, stored in `format` (its default stays as set); `formats` are the
// values, `help` what they mean, when more than their names.
CLI::Option* AddFormatOption(CLI::App& cmd, std::string& format,
                             const std::vector<std::string>& formats, const std::string& help = "");

}  // namespace gpucost::cli
