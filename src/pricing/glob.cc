#include "pricing/glob.h"

namespace gpucost {

bool GlobMatch(std::string_view pattern, std::string_view text) {
  // Greedy scan with one backtrack point: the last '*' seen. Linear in practice, never
  // exponential, because only the most recent star is ever retried.
  size_t p = 0, t = 0;
  size_t star = std::string_view::npos, star_text = 0;
  while (t < text.size()) {
    if (p < pattern.size() && pattern[p] == '*') {
      star = p++;
      star_text = t;
    } else if (p < pattern.size() && pattern[p] == text[t]) {
      ++p;
      ++t;
    } else if (star != std::string_view::npos) {
      p = star + 1;
      t = ++star_text;
    } else {
      return false;
    }
  }
  while (p < pattern.size() && pattern[p] == '*') ++p;
  return p == pattern.size();
}

}  // namespace gpucost
