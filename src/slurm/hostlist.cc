#include "slurm/hostlist.h"

#include <charconv>

#include "core/strings.h"

namespace gpucost::slurm {
namespace {

Result<std::vector<std::string>> ExpandGroup(std::string_view group, std::string_view whole) {
  // "01-04,07" -> 01 02 03 04 07
  std::vector<std::string> out;
  for (std::string_view item : Split(group, ',')) {
    item = Trim(item);
    const size_t dash = item.find('-');
    const std::string_view lo_text = item.substr(0, dash);
    const std::string_view hi_text = dash == std::string_view::npos ? lo_text : item.substr(dash + 1);
    uint64_t lo = 0;
    uint64_t hi = 0;
    auto parse = [](std::string_view t, uint64_t& v) {
      if (t.empty() || t.size() > 18) return false;
      auto [p, ec] = std::from_chars(t.data(), t.data() + t.size(), v);
      return ec == std::errc() && p == t.data() + t.size();
    };
    if (!parse(lo_text, lo) || !parse(hi_text, hi) || hi < lo) {
      return Status::ParseError(StrCat("bad range \"", item, "\" in host list \"", whole, "\""));
    }
    if (hi - lo > 100000) {
      return Status::ParseError(StrCat("range \"", item, "\" in host list \"", whole, "\" is too large"));
    }
    const size_t width = lo_text.size();
    for (uint64_t v = lo; v <= hi; ++v) {
      std::string digits = std::to_string(v);
      if (digits.size() < width) digits.insert(0, width - digits.size(), '0');
      out.push_back(std::move(digits));
    }
  }
  return out;
}

// One name with any number of bracket groups: the product of the groups.
Status ExpandName(std::string_view name, std::string_view whole, size_t max_hosts,
                  std::vector<std::string>& out) {
  std::vector<std::string> partial = {""};
  size_t i = 0;
  while (i < name.size()) {
    const size_t open = name.find('[', i);
    const std::string_view literal = name.substr(i, open == std::string_view::npos ? name.npos : open - i);
    if (literal.find(']') != std::string_view::npos) {
      return Status::ParseError(StrCat("unbalanced ']' in host list \"", whole, "\""));
    }
    for (std::string& p : partial) p.append(literal);
    if (open == std::string_view::npos) break;
    const size_t close = name.find(']', open);
    if (close == std::string_view::npos) {
      return Status::ParseError(StrCat("unbalanced '[' in host list \"", whole, "\""));
    }
    GPUCOST_ASSIGN_OR_RETURN(std::vector<std::string> values,
                             ExpandGroup(name.substr(open + 1, close - open - 1), whole));
    if (partial.size() * values.size() + out.size() > max_hosts) {
      return Status::ParseError(StrCat("host list \"", whole, "\" expands to more than ", max_hosts,
                                       " names"));
    }
    std::vector<std::string> next;
    next.reserve(partial.size() * values.size());
    for (const std::string& p : partial) {
      for (const std::string& v : values) next.push_back(p + v);
    }
    partial = std::move(next);
    i = close + 1;
  }
  for (std::string& p : partial) {
    if (p.empty()) return Status::ParseError(StrCat("empty name in host list \"", whole, "\""));
    out.push_back(std::move(p));
  }
  return Status::Ok();
}

}  // namespace

Result<std::vector<std::string>> ExpandHostList(std::string_view text, size_t max_hosts) {
  text = Trim(text);
  std::vector<std::string> out;
  if (text.empty() || text == "None assigned" || text == "(null)") return out;
  int depth = 0;
  size_t begin = 0;
  for (size_t i = 0; i <= text.size(); ++i) {
    const char c = i < text.size() ? text[i] : ',';
    if (c == '[') {
      if (++depth > 1) return Status::ParseError(StrCat("nested '[' in host list \"", text, "\""));
    } else if (c == ']') {
      if (--depth < 0) return Status::ParseError(StrCat("unbalanced ']' in host list \"", text, "\""));
    } else if (c == ',' && depth == 0) {
      const std::string_view name = Trim(text.substr(begin, i - begin));
      if (name.empty()) return Status::ParseError(StrCat("empty name in host list \"", text, "\""));
      GPUCOST_RETURN_IF_ERROR(ExpandName(name, text, max_hosts, out));
      begin = i + 1;
    }
  }
  if (depth != 0) return Status::ParseError(StrCat("unbalanced '[' in host list \"", text, "\""));
  return out;
}

}  // namespace gpucost::slurm
