// GlobMatch: shell-style matching where '*' stands for any run of characters (possibly empty)
// and every other character matches itself. Used by price rules to select nodes. Stateless and
// thread-safe.
//
//   bool GlobMatch(std::string_view pattern, std::string_view text);
#pragma once

#include <string_view>

namespace gpucost {

// True when `text` matches `pattern` as a whole. A pattern without '*' is an exact comparison.
bool GlobMatch(std::string_view pattern, std::string_view text);

}  // namespace gpucost
