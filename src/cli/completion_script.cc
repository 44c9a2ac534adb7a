#include "cli/completion_script.h"

#include <string_view>

#include "core/strings.h"

namespace gpucost::cli {
namespace {

// What the scripts know of one command: its path from the root ("", "ledger write") and words.
struct CompletionNode {
  std::string path;
  std::vector<std::string> subcommands;  // names and aliases
  std::vector<std::string> positional_values;
  std::vector<std::string> flags;    // take no value
  std::vector<std::string> options;  // take a value
  std::vector<std::pair<std::string, std::vector<std::string>>> option_values;
};

// Words the scripts can hold unquoted, between spaces and in a case pattern.
bool IsPlainCompletionWord(std::string_view w) {
  if (w.empty()) return false;
  for (const char c : w) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                    c == '-' || c == '_' || c == '.' || c == ':' || c == '/' || c == '+' ||
                    c == '@' || c == ',';
    if (!ok) return false;
  }
  return true;
}

void CollectCompletionNodes(const CLI::App& cmd, const std::string& path,
                            std::vector<CompletionNode>& nodes) {
  CompletionNode node;
  node.path = path;
  std::vector<const CLI::App*> subs = cmd.get_subcommands([](const CLI::App*) { return true; });
  for (const CLI::App* sub : subs) {
    if (sub->get_name().empty() || sub->get_disabled()) continue;
    node.subcommands.push_back(sub->get_name());
    for (const std::string& alias : sub->get_aliases()) node.subcommands.push_back(alias);
  }
  for (const CLI::Option* opt : cmd.get_options()) {
    const std::vector<std::string> choices = OptionChoices(*opt);
    std::vector<std::string> names;
    for (const std::string& n : opt->get_lnames()) names.push_back(StrCat("--", n));
    for (const std::string& n : opt->get_snames()) names.push_back(StrCat("-", n));
    if (names.empty()) {  // a positional argument
      for (const std::string& c : choices) {
        if (IsPlainCompletionWord(c)) node.positional_values.push_back(c);
      }
      continue;
    }
    const bool takes_value = opt->get_type_size_max() > 0;
    for (const std::string& n : names) {
      (takes_value ? node.options : node.flags).push_back(n);
      if (!choices.empty()) node.option_values.emplace_back(n, choices);
    }
  }
  nodes.push_back(std::move(node));
  for (const CLI::App* sub : subs) {
    if (sub->get_name().empty() || sub->get_disabled()) continue;
    CollectCompletionNodes(
        *sub, path.empty() ? sub->get_name() : StrCat(path, " ", sub->get_name()), nodes);
  }
}

std::string CompletionWords(const std::vector<std::string>& words) {
  std::vector<std::string> plain;
  for (const std::string& w : words) {
    if (IsPlainCompletionWord(w)) plain.push_back(w);
  }
  return Join(plain, " ");
}

// A shell function (the same text in bash and zsh) that echoes, for the command path in $1, the
// words `pick` gives.
template <typename Pick>
std::string CompletionCaseFunction(const std::string& name, const std::string& comment,
                                   const std::vector<CompletionNode>& nodes, Pick pick) {
  std::string out = StrCat("# ", comment, "\n", name, "() {\n  case \"$1\" in\n");
  for (const CompletionNode& n : nodes) {
    const std::string words = CompletionWords(pick(n));
    if (!words.empty()) out += StrCat("    \"", n.path, "\") echo \"", words, "\" ;;\n");
  }
  return out + "  esac\n}\n";
}

std::string CompletionTables(const std::vector<CompletionNode>& nodes, const std::string& fn) {
  std::string out;
  out +=
      CompletionCaseFunction(StrCat(fn, "_subcommands"), "The subcommands of the command path $1.",
                             nodes, [](const CompletionNode& n) { return n.subcommands; });
  out += CompletionCaseFunction(StrCat(fn, "_positionals"),
                                "The values of its arguments, where fixed.", nodes,
                                [](const CompletionNode& n) { return n.positional_values; });
  out += CompletionCaseFunction(StrCat(fn, "_flags"), "Its flags that take no value.", nodes,
                                [](const CompletionNode& n) { return n.flags; });
  out += CompletionCaseFunction(StrCat(fn, "_options"), "Its options that take a value.", nodes,
                                [](const CompletionNode& n) { return n.options; });
  out += StrCat("# The values of option $2 of the command path $1, where fixed.\n", fn,
                "_values() {\n  case \"$1 $2\" in\n");
  for (const CompletionNode& n : nodes) {
    for (const auto& [option, values] : n.option_values) {
      const std::string words = CompletionWords(values);
      if (words.empty()) continue;
      out += StrCat("    \"", n.path, " ", option, "\") echo \"", words, "\" ;;\n");
    }
  }
  out += "  esac\n}\n";
  return out;
}

// Shell function names hold no '-': gpucost-agent -> _gpucost_agent.
std::string CompletionFunctionName(const std::string& program) {
  std::string fn = StrCat("_", program);
  for (char& c : fn) {
    if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9'))) c = '_';
  }
  return fn;
}

// The loop both shells run over the words before the cursor: $cmdpath becomes the command path
// (subcommands only; an option that takes a value skips that value). `words` opens the shell's
// array of words ("${COMP_WORDS"); `first` and `cursor` are the indices of the first word after
// the program and of the word at the cursor.
std::string CompletionWalk(const std::string& fn, const std::string& words,
                           const std::string& first, const std::string& cursor) {
  return StrCat("  local cmdpath=\"\" i w\n  for ((i = ", first, "; i < ", cursor,
                "; i++)); do\n    w=", words,
                "[i]}\n"
                "    if [[ $w == -* ]]; then\n"
                "      if [[ $w != *=* && \" $(",
                fn,
                "_options \"$cmdpath\") \" == *\" $w \"* ]]; then ((i++)); fi\n"
                "      continue\n    fi\n"
                "    if [[ \" $(",
                fn, "_subcommands \"$cmdpath\") \" == *\" $w \"* ]]; then\n",
                "      cmdpath=${cmdpath:+$cmdpath }$w\n    fi\n  done\n");
}

}  // namespace

std::vector<std::string> OptionChoices(const CLI::Option& opt) {
  // get_type_name() is "TEXT:{a,b,c}", or "TEXT:value in {a->x,b->y} OR {x,y}" for a map.
  const std::string type = opt.get_type_name();
  const size_t open = type.find('{');
  const size_t close = type.find('}', open);
  if (open == std::string::npos || close == std::string::npos) return {};
  std::vector<std::string> values;
  for (const std::string& item :
       SplitList(std::string_view(type).substr(open + 1, close - open - 1))) {
    values.push_back(item.substr(0, item.find("->")));
  }
  return values;
}

std::string BashCompletion(const CLI::App& app, const std::string& program) {
  std::vector<CompletionNode> nodes;
  CollectCompletionNodes(app, "", nodes);
  const std::string fn = CompletionFunctionName(program);
  std::string out =
      StrCat("# bash completion for ", program, ", written by `", program,
             " completion bash`.\n# Install: ", program,
             " completion bash > ~/.local/share/bash-completion/completions/", program,
             "\n#      or: source <(", program, " completion bash)   # in ~/.bashrc\n");
  out += CompletionTables(nodes, fn);
  out +=
      StrCat(fn, "() {\n  local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]}\n");
  out += CompletionWalk(fn, "${COMP_WORDS", "1", "COMP_CWORD");
  out += StrCat(
      "  local words\n"
      "  if [[ $prev == -* && \" $(",
      fn,
      "_options \"$cmdpath\") \" == *\" $prev \"* ]]; then\n"
      "    words=$(",
      fn,
      "_values \"$cmdpath\" \"$prev\")\n"
      "  elif [[ $cur == -* ]]; then\n"
      "    words=\"$(",
      fn, "_flags \"$cmdpath\") $(", fn,
      "_options \"$cmdpath\")\"\n"
      "  else\n"
      "    words=\"$(",
      fn, "_subcommands \"$cmdpath\") $(", fn,
      "_positionals \"$cmdpath\")\"\n"
      "  fi\n"
      "  # No fixed words: bash completes file names (-o default).\n"
      "  COMPREPLY=($(compgen -W \"$words\" -- \"$cur\"))\n"
      "}\n"
      "complete -o default -F ",
      fn, " ", program, "\n");
  return out;
}

std::string ZshCompletion(const CLI::App& app, const std::string& program) {
  std::vector<CompletionNode> nodes;
  CollectCompletionNodes(app, "", nodes);
  const std::string fn = CompletionFunctionName(program);
  std::string out =
      StrCat("#compdef ", program, "\n# zsh completion for ", program, ", written by `", program,
             " completion zsh`.\n# Install: ", program, " completion zsh > \"${fpath[1]}/_",
             program, "\"   # then start a new zsh\n#      or: source <(", program,
             " completion zsh)   # in ~/.zshrc, after compinit\n");
  out += CompletionTables(nodes, fn);
  out += StrCat(fn, "() {\n  local cur=${words[CURRENT]} prev=${words[CURRENT-1]}\n");
  out += CompletionWalk(fn, "${words", "2", "CURRENT");
  out += StrCat(
      "  local list\n"
      "  if [[ $prev == -* && \" $(",
      fn,
      "_options \"$cmdpath\") \" == *\" $prev \"* ]]; then\n"
      "    list=\"$(",
      fn,
      "_values \"$cmdpath\" \"$prev\")\"\n"
      "  elif [[ $cur == -* ]]; then\n"
      "    list=\"$(",
      fn, "_flags \"$cmdpath\") $(", fn,
      "_options \"$cmdpath\")\"\n"
      "  else\n"
      "    list=\"$(",
      fn, "_subcommands \"$cmdpath\") $(", fn,
      "_positionals \"$cmdpath\")\"\n"
      "  fi\n"
      "  local -a choices\n"
      "  choices=(${=list})\n"
      "  if (( ${#choices} )); then compadd -- $choices; else _files; fi\n"
      "}\n"
      "if [[ ${zsh_eval_context[-1]} == loadautofunc ]]; then\n  ",
      fn, " \"$@\"\nelse\n  compdef ", fn, " ", program, "\nfi\n");
  return out;
}

}  // namespace gpucost::cli
