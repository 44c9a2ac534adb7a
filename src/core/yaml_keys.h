// One check every YAML file gpucost reads goes through (price files, the catalog, budgets,
// configuration files, kubeconfigs): no map may repeat a key. yaml-cpp keeps both entries of a
// repeated key, so that `node["key"]` answers the first and iteration meets both: a reader would
// silently take the first or the last. Header-only, for the modules that link yaml-cpp;
// stateless, thread-safe.
#pragma once

#include <yaml-cpp/yaml.h>

#include <cstddef>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "core/status.h"
#include "core/strings.h"

namespace gpucost {

// Ok, or a ParseError naming a key that a map anywhere under `root` repeats, at the line of its
// second appearance: "prices.yaml:5: prices[0].match.node: duplicate key, first given on line 4"
// (a map's own keys are checked before the maps and lists under it). The key is named
// by its path from the top (map keys joined with '.', list items by their 0-based [index]).
// Keys are compared as written; only scalar keys are compared. Nodes shared through aliases are
// walked once, so the work stays linear in the text however the aliases nest.
inline Status CheckUniqueYamlKeys(const YAML::Node& root, std::string_view source) {
  struct Pending {
    YAML::Node node;
    std::string path;
  };
  std::vector<Pending> stack;
  stack.push_back({root, ""});
  std::unordered_set<size_t> walked;  // the positions of the maps and lists already walked
  while (!stack.empty()) {
    Pending top = std::move(stack.back());
    stack.pop_back();
    const YAML::Node& node = top.node;
    if (!node.IsMap() && !node.IsSequence()) continue;
    const YAML::Mark mark = node.Mark();
    if (!mark.is_null() && !walked.insert(static_cast<size_t>(mark.pos)).second) continue;
    std::vector<Pending> children;
    if (node.IsSequence()) {
      size_t index = 0;
      for (const YAML::Node& item : node) {
        children.push_back({item, StrCat(top.path, "[", index++, "]")});
      }
    } else {
      std::unordered_map<std::string, int> first_line;  // key -> the line it first appears on
      for (const auto& entry : node) {
        const YAML::Node& key = entry.first;
        std::string path = top.path;
        if (key.IsScalar()) {
          const std::string& text = key.Scalar();
          path = top.path.empty() ? text : StrCat(top.path, ".", text);
          const int line = key.Mark().is_null() ? 0 : key.Mark().line + 1;
          const auto [it, inserted] = first_line.emplace(text, line);
          if (!inserted) {
            return Status::ParseError(StrCat(source, line > 0 ? StrCat(":", line) : "", ": ", path,
                                             ": duplicate key, first given on line ", it->second));
          }
        }
        children.push_back({entry.second, std::move(path)});
      }
    }
    // Reversed onto the stack, so that children are walked in document order.
    for (auto it = children.rbegin(); it != children.rend(); ++it) stack.push_back(std::move(*it));
  }
  return Status::Ok();
}

}  // namespace gpucost
