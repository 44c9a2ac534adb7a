// --format, the same everywhere: one of a fixed set of values (which `--help` and shell
// completion list), checked while parsing, so that a bad one is a usage error naming the flag;
// "text" and "table" (the two names of the human-readable format) each stand for the other, "md"
// for markdown, "prom" for text (the Prometheus text format).
#pragma once

#include <CLI/CLI.hpp>
#include <string>
#include <vector>

namespace gpucost::cli {

// Adds --format to `cmd`, stored in `format` (its default stays as set); `formats` are the
// values, `help` what they mean, when more than their names.
CLI::Option* AddFormatOption(CLI::App& cmd, std::string& format,
                             const std::vector<std::string>& formats, const std::string& help = "");

}  // namespace gpucost::cli
