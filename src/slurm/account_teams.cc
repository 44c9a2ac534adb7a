#include "slurm/account_teams.h"

#include "core/files.h"
#include "core/strings.h"

namespace gpucost::slurm {

Result<std::map<std::string, std::string>> ParseAccountTeams(std::string_view text,
                                                             const std::string& source) {
  std::map<std::string, std::string> out;
  std::map<std::string, size_t> first_line;
  size_t n = 0;
  text.remove_prefix(Utf8BomBytes(text));  // an editor's byte order mark: not the first account's
  for (std::string_view line : Split(text, '\n')) {
    ++n;
    if (const size_t hash = line.find('#'); hash != std::string_view::npos) line = line.substr(0, hash);
    line = Trim(line);
    if (line.empty()) continue;
    const size_t sep = line.find_first_of(" \t=,");
    const std::string_view account = Trim(line.substr(0, sep));
    const std::string_view team =
        sep == std::string_view::npos ? std::string_view() : Trim(line.substr(sep + 1));
    if (account.empty() || team.empty() || team.find_first_of(" \t=,") != std::string_view::npos) {
      return Status::ParseError(StrCat(source, ":", n, ": expected \"ACCOUNT TEAM\", got \"",
                                       line, "\""));
    }
    auto [it, fresh] = first_line.try_emplace(std::string(account), n);
    if (!fresh) {
      return Status::ParseError(StrCat(source, ":", n, ": account \"", account,
                                       "\" is already mapped on line ", it->second));
    }
    out.emplace(std::string(account), std::string(team));
  }
  return out;
}

Result<std::map<std::string, std::string>> LoadAccountTeams(const std::string& path) {
  GPUCOST_ASSIGN_OR_RETURN(std::string text, ReadWholeFile(path));
  return ParseAccountTeams(text, path);
}

}  // namespace gpucost::slurm
