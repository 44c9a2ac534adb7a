// Shell completion scripts for gpucost, written from the command tree that CLI11 holds: the
// subcommands of each command, its flags, and the values of each option or argument whose values
// form a fixed set (CLI::IsMember, CLI::CheckedTransformer). Stateless; thread-safe for an App
// nobody modifies meanwhile.
#pragma once

#include <CLI/CLI.hpp>
#include <string>
#include <vector>

namespace gpucost::cli {

// The fixed set of values `opt` takes, from its validators' "{a,b,c}" (or "{a->x,b->y}"); empty
// when any value goes.
std::vector<std::string> OptionChoices(const CLI::Option& opt);

// A bash script that defines _gpucost and registers it with `complete` for `program`.
std::string BashCompletion(const CLI::App& app, const std::string& program);

// A zsh script (#compdef) for `program`: a file in $fpath or `source`d after compinit.
std::string ZshCompletion(const CLI::App& app, const std::string& program);

}  // namespace gpucost::cli
