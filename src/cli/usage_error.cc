#include "cli/usage_error.h"

#include <algorithm>
#include <numeric>

#include "core/redact.h"
#include "core/strings.h"

namespace gpucost::cli {
namespace {

// Optimal string alignment distance: insertions, deletions, substitutions and swaps of two
// neighbours ("reprot" is one swap from "report").
size_t EditDistance(std::string_view a, std::string_view b) {
  std::vector<std::vector<size_t>> d(a.size() + 1, std::vector<size_t>(b.size() + 1));
  for (size_t i = 0; i <= a.size(); ++i) d[i][0] = i;
  for (size_t j = 0; j <= b.size(); ++j) d[0][j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    for (size_t j = 1; j <= b.size(); ++j) {
      const size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
      d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1]) {
        d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
      }
    }
  }
  return d[a.size()][b.size()];
}

// "gpucost ledger write": the names from the root to `cmd`.
std::string CommandPath(const CLI::App& cmd) {
  std::string path = cmd.get_name();
  for (const CLI::App* p = cmd.get_parent(); p != nullptr; p = p->get_parent()) {
    path = StrCat(p->get_name(), " ", path);
  }
  return path;
}

std::vector<std::string> SubcommandNames(const CLI::App& cmd) {
  std::vector<std::string> names;
  for (const CLI::App* sub : cmd.get_subcommands([](const CLI::App*) { return true; })) {
    if (sub->get_name().empty()) continue;
    names.push_back(sub->get_name());
    for (const std::string& alias : sub->get_aliases()) names.push_back(alias);
  }
  return names;
}

std::vector<std::string> FlagNames(const CLI::App& cmd) {
  std::vector<std::string> names;
  for (const CLI::Option* opt : cmd.get_options()) {
    for (const std::string& n : opt->get_lnames()) names.push_back(StrCat("--", n));
    for (const std::string& n : opt->get_snames()) names.push_back(StrCat("-", n));
  }
  return names;
}

std::string DidYouMean(std::string_view word, const std::vector<std::string>& candidates) {
  const std::string nearest = NearestName(word, candidates);
  return nearest.empty() ? std::string() : StrCat("; did you mean '", nearest, "'?");
}

// The one line that says what is wrong with the command line of `cmd`.
std::string Problem(const CLI::App& cmd, const CLI::ParseError& e) {
  // Words nobody took come first: `report --bb` is about --bb, not a missing --input.
  const std::vector<std::string> extras = cmd.remaining();
  if (!extras.empty()) {
    const std::string& word = extras.front();
    if (word.size() > 1 && word[0] == '-') {
      const std::string flag = word.substr(0, word.find('='));
      return StrCat("unknown flag '", flag, "'", DidYouMean(flag, FlagNames(cmd)));
    }
    const std::vector<std::string> subs = SubcommandNames(cmd);
    if (!subs.empty()) {
      return StrCat("unknown command '", word, "'", DidYouMean(word, subs));
    }
    return StrCat("unexpected argument '", word, "'");
  }
  return e.what();
}

}  // namespace

std::string NearestName(std::string_view word, const std::vector<std::string>& candidates) {
  std::string best;
  // One slip in a short word, two in a longer one, three at most.
  size_t best_distance = std::min<size_t>(3, 1 + word.size() / 5) + 1;
  for (const std::string& c : candidates) {
    const size_t d = EditDistance(word, c);
    if (d < best_distance) {
      best = c;
      best_distance = d;
    }
  }
  if (best.empty() && word.size() >= 3) {
    for (const std::string& c : candidates) {
      if (c.starts_with(word)) return c;
    }
  }
  return best;
}

int AnswerParseError(const CLI::App& app, const CLI::ParseError& e, std::ostream& out,
                     std::ostream& err) {
  if (e.get_exit_code() == 0) return app.exit(e, out, err);  // --help, --help-all, --version
  const CLI::App* cmd = &app;
  while (!cmd->get_subcommands().empty()) cmd = cmd->get_subcommands().back();
  if (cmd->remaining().empty() && !SubcommandNames(*cmd).empty() &&
      e.get_name() == "RequiredError" && std::string_view(e.what()) == "A subcommand is required") {
    out << cmd->help();
    return kUsageExitCode;
  }
  const std::string path = CommandPath(*cmd);
  err << RedactUris(StrCat(path, ": ", Problem(*cmd, e))) << "\n"
      << "run '" << path << " --help'\n";
  return kUsageExitCode;
}

}  // namespace gpucost::cli
