// Test helpers for the dashboard tests: the metric names a PromQL expression selects, and the
// Grafana variables a string refers to. A small lexer, enough for the expressions gpucost
// writes (functions, aggregations with by/without, selectors, ranges, binary operators).
#pragma once

#include <cctype>
#include <set>
#include <string>
#include <string_view>

namespace gpucost::monitoring {

inline bool IsNameChar(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_' || c == ':';
}

// Metric names in `expr`: identifiers that are not functions (followed by "("), keywords, label
// names inside {...} or the label lists of by/without/on/ignoring/group_left/group_right, nor
// inside strings or [...] ranges.
inline std::set<std::string> MetricNames(std::string_view expr) {
  static const std::set<std::string, std::less<>> kKeywords = {
      "by", "without", "on", "ignoring", "group_left", "group_right", "bool", "and", "or", "unless",
      "offset", "inf", "nan", "atan2",
      // Aggregation operators, which may be followed by by/without before their "(".
      "sum", "min", "max", "avg", "count", "stddev", "stdvar", "topk", "bottomk", "quantile",
      "count_values", "group", "limitk", "limit_ratio"};
  static const std::set<std::string, std::less<>> kLabelLists = {
      "by", "without", "on", "ignoring", "group_left", "group_right"};
  std::set<std::string> out;
  size_t i = 0;
  bool labels_next = false;  // the next "(...)" is a label list
  while (i < expr.size()) {
    const char c = expr[i];
    if (c == '"' || c == '\'' || c == '`') {
      const size_t close = expr.find(c, i + 1);
      i = close == std::string_view::npos ? expr.size() : close + 1;
    } else if (c == '{' || c == '[') {
      const size_t close = expr.find(c == '{' ? '}' : ']', i + 1);
      i = close == std::string_view::npos ? expr.size() : close + 1;
    } else if (c == '(' && labels_next) {
      const size_t close = expr.find(')', i + 1);
      i = close == std::string_view::npos ? expr.size() : close + 1;
      labels_next = false;
    } else if (std::isdigit(static_cast<unsigned char>(c)) != 0) {
      while (i < expr.size() && (IsNameChar(expr[i]) || expr[i] == '.')) ++i;
    } else if (IsNameChar(c)) {
      size_t j = i;
      while (j < expr.size() && IsNameChar(expr[j])) ++j;
      const std::string word(expr.substr(i, j - i));
      size_t k = j;
      while (k < expr.size() && expr[k] == ' ') ++k;
      const bool call = k < expr.size() && expr[k] == '(';
      if (kLabelLists.contains(word)) {
        labels_next = true;
      } else if (!call && !kKeywords.contains(word)) {
        out.insert(word);
      }
      i = j;
    } else {
      ++i;
    }
  }
  return out;
}

// The series selector of a Grafana `label_values(<selector>, <label>)` variable query; "" when
// `query` has another form.
inline std::string LabelValuesSelector(std::string_view query) {
  constexpr std::string_view kOpen = "label_values(";
  const size_t comma = query.rfind(',');
  if (!query.starts_with(kOpen) || !query.ends_with(")") || comma == std::string_view::npos ||
      comma < kOpen.size()) {
    return "";
  }
  return std::string(query.substr(kOpen.size(), comma - kOpen.size()));
}

// Grafana variables referred to in `text`: $name, ${name}, ${name:format}, [[name]].
inline std::set<std::string> VariableRefs(std::string_view text) {
  std::set<std::string> out;
  for (size_t i = 0; i < text.size(); ++i) {
    size_t start = std::string_view::npos;
    if (text[i] == '$' && i + 1 < text.size() && text[i + 1] == '{') {
      start = i + 2;
    } else if (text[i] == '$') {
      start = i + 1;
    } else if (text.substr(i, 2) == "[[") {
      start = i + 2;
    }
    if (start == std::string_view::npos) continue;
    size_t j = start;
    while (j < text.size() &&
           (std::isalnum(static_cast<unsigned char>(text[j])) != 0 || text[j] == '_')) {
      ++j;
    }
    if (j > start) out.insert(std::string(text.substr(start, j - start)));
  }
  return out;
}

}  // namespace gpucost::monitoring
