// LabelSet: an immutable set of name=value string pairs, sorted by name, with its 64-bit hash
// computed once. Sorting makes equality and hashing independent of the order labels arrived in
// (dcgm-exporter emits Go-map order). Interner maps repeated strings to dense ids for the hot
// paths that hold many series. Neither class is thread-safe for writes.
#pragma once

#include <cstdint>
#include <deque>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "core/result.h"

namespace gpucost {

struct Label {
  std::string name;
  std::string value;
  friend bool operator==(const Label&, const Label&) = default;
};

class LabelSet {
 public:
  LabelSet() = default;
  // Sorts the labels. Duplicate names are an error naming the label.
  static Result<LabelSet> Make(std::vector<Label> labels);
  // For literals in code and tests; duplicate names keep the last value.
  LabelSet(std::initializer_list<std::pair<std::string_view, std::string_view>> labels);

  // Empty when absent: Prometheus treats an empty label as an absent one.
  std::string_view Get(std::string_view name) const;
  bool Has(std::string_view name) const;
  size_t size() const { return labels_.size(); }
  bool empty() const { return labels_.empty(); }
  uint64_t hash() const { return hash_; }
  std::vector<Label>::const_iterator begin() const { return labels_.begin(); }
  std::vector<Label>::const_iterator end() const { return labels_.end(); }

  // Returns a copy with `name` set (or removed when value is empty).
  LabelSet With(std::string_view name, std::string_view value) const;

  // {a="1",b="x\"y"} with Prometheus escaping.
  std::string ToString() const;

  friend bool operator==(const LabelSet& a, const LabelSet& b) {
    return a.hash_ == b.hash_ && a.labels_ == b.labels_;
  }

 private:
  void Finish();  // sort, drop empty values, hash
  std::vector<Label> labels_;
  uint64_t hash_ = 0;
};

struct LabelSetHash {
  size_t operator()(const LabelSet& l) const { return l.hash(); }
};

// Appends a label value with Prometheus text-format escaping of \ " and newline.
void AppendEscapedLabelValue(std::string& out, std::string_view value);
// The same for an exposition others read (serve's /metrics and what it remote-writes), with
// bytes that are not UTF-8 written as U+FFFD (core/utf8.h): Prometheus refuses a whole scrape
// over one such label value. Text gpucost reads back itself keeps the bytes (the function above).
void AppendExportedLabelValue(std::string& out, std::string_view value);

class Interner {
 public:
  using Id = uint32_t;
  Id Intern(std::string_view s);
  std::string_view Get(Id id) const { return *strings_[id]; }
  size_t size() const { return strings_.size(); }

 private:
  std::deque<std::string> storage_;  // deque: stable addresses for the map's keys
  std::vector<const std::string*> strings_;
  std::unordered_map<std::string_view, Id> ids_;
};

}  // namespace gpucost
