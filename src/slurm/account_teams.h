// The account → team mapping file of the Slurm source (`--slurm-account-teams`): one
// `account team` pair a line (a space, a tab, '=' or ',' between them), '#' comments and blank
// lines ignored. A job's team is its account's team, else the account itself. Stateless;
// thread-safe.
#pragma once

#include <map>
#include <string>
#include <string_view>

#include "core/result.h"

namespace gpucost::slurm {

// Errors name the file and line: a line without a team, an account mapped twice.
Result<std::map<std::string, std::string>> ParseAccountTeams(std::string_view text,
                                                             const std::string& source);
Result<std::map<std::string, std::string>> LoadAccountTeams(const std::string& path);

}  // namespace gpucost::slurm
