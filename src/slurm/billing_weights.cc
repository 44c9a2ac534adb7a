#include "slurm/billing_weights.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <fstream>
#include <sstream>

#include "core/strings.h"

namespace gpucost::slurm {
namespace {

// Powers of 1024 of a unit suffix (K=1 .. P=5), -1 when `c` is not one.
int SuffixPower(char c) {
  switch (c) {
    case 'K': case 'k': return 1;
    case 'M': case 'm': return 2;
    case 'G': case 'g': return 3;
    case 'T': case 't': return 4;
    case 'P': case 'p': return 5;
    default: return -1;
  }
}

bool ParseNumber(std::string_view s, double& out) {
  s = Trim(s);
  if (s.empty()) return false;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
  return ec == std::errc() && p == s.data() + s.size() && std::isfinite(out) && out >= 0;
}

// Memory and burst buffers are counted in MB; everything else in plain units.
bool CountedInMb(std::string_view tres) { return tres == "mem" || tres.starts_with("bb/"); }

// A TRES count as AllocTRES prints it ("8", "64G", "30000M") in its base unit.
bool ParseCount(std::string_view tres, std::string_view v, double& out) {
  v = Trim(v);
  int power = 0;
  if (!v.empty() && SuffixPower(v.back()) >= 0) {
    power = SuffixPower(v.back());
    v.remove_suffix(1);
  }
  if (!ParseNumber(v, out)) return false;
  if (power > 0) {
    // Suffixed counts of MB-based TRES are relative to M; others to the plain unit.
    const int base = CountedInMb(tres) ? 2 : 0;
    out *= std::pow(1024.0, power - base);
  }
  return true;
}

// Node-level TRES for MAX_TRES (Slurm takes the largest of these per node).
bool IsNodeTres(std::string_view tres) {
  return tres == "cpu" || tres == "mem" || tres == "node" || tres.starts_with("gres/");
}

std::string Unquote(std::string_view v) {
  v = Trim(v);
  if (v.size() >= 2 && (v.front() == '"' || v.front() == '\'') && v.back() == v.front()) {
    v = v.substr(1, v.size() - 2);
  }
  return std::string(v);
}

}  // namespace

Result<std::map<std::string, TresWeight>> ParseTresBillingWeights(std::string_view text) {
  std::map<std::string, TresWeight> out;
  text = Trim(text);
  if (text.empty() || text == "(null)") return out;
  for (std::string_view item : Split(text, ',')) {
    item = Trim(item);
    if (item.empty()) continue;
    const size_t eq = item.find('=');
    if (eq == std::string_view::npos) {
      return Status::ParseError(StrCat("TRESBillingWeights item \"", item, "\" has no '='"));
    }
    const std::string name = ToLower(Trim(item.substr(0, eq)));
    std::string_view value = Trim(item.substr(eq + 1));
    int power = 0;
    if (!value.empty() && SuffixPower(value.back()) >= 0) {
      power = SuffixPower(value.back());
      value.remove_suffix(1);
    }
    double w = 0;
    if (name.empty() || !ParseNumber(value, w)) {
      return Status::ParseError(StrCat("TRESBillingWeights item \"", item, "\" is not TRES=weight"));
    }
    if (power > 0) w /= std::pow(1024.0, power - (CountedInMb(name) ? 2 : 0));
    out[name] = TresWeight{w};
  }
  return out;
}

Result<BillingWeights> ParseBillingWeights(std::string_view text, const std::string& source) {
  BillingWeights out;
  std::string current;  // the partition whose record is being read
  uint64_t line_no = 0;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t nl = text.find('\n', pos);
    if (nl == std::string_view::npos) nl = text.size();
    std::string_view line = Trim(text.substr(pos, nl - pos));
    pos = nl + 1;
    ++line_no;
    if (line.empty() || line.starts_with('#')) {
      if (line.empty()) current.clear();
      continue;
    }
    // `scontrol show config` prints "PriorityFlags           = MAX_TRES,...".
    if (ToLower(line).starts_with("priorityflags")) {
      const size_t eq = line.find('=');
      if (eq != std::string_view::npos) {
        for (std::string_view f : Split(line.substr(eq + 1), ',')) {
          if (ToLower(Trim(f)) == "max_tres") out.max_tres = true;
        }
      }
      continue;
    }
    // key=value tokens separated by blanks; a value may be quoted (slurm.conf).
    size_t i = 0;
    while (i < line.size()) {
      while (i < line.size() && (line[i] == ' ' || line[i] == '\t')) ++i;
      size_t j = i;
      char quote = 0;
      while (j < line.size() && (quote != 0 || (line[j] != ' ' && line[j] != '\t'))) {
        if (line[j] == '"' || line[j] == '\'') quote = quote == line[j] ? 0 : (quote == 0 ? line[j] : quote);
        ++j;
      }
      const std::string_view token = line.substr(i, j - i);
      i = j;
      const size_t eq = token.find('=');
      if (eq == std::string_view::npos) continue;
      const std::string key = ToLower(token.substr(0, eq));
      const std::string value = Unquote(token.substr(eq + 1));
      if (key == "partitionname") {
        current = value;
        out.partitions[current];
      } else if (key == "tresbillingweights") {
        if (current.empty()) {
          return Status::ParseError(StrCat(source, ":", line_no,
                                           ": TRESBillingWeights outside a PartitionName record"));
        }
        auto w = ParseTresBillingWeights(value);
        if (!w.ok()) return w.status().WithContext(StrCat(source, ":", line_no, " partition ", current));
        out.partitions[current] = std::move(*w);
      }
    }
  }
  if (out.partitions.empty()) {
    return Status::ParseError(StrCat(source, ": no PartitionName records (give `scontrol show "
                                             "partition` output)"));
  }
  return out;
}

Result<BillingWeights> LoadBillingWeights(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Status::IoError(StrCat("cannot open billing weights file ", path));
  std::ostringstream buf;
  buf << in.rdbuf();
  return ParseBillingWeights(buf.str(), path);
}

Result<double> BillingOf(std::string_view alloc_tres, const std::map<std::string, TresWeight>& weights,
                         bool max_tres) {
  double node_max = 0;
  double global = 0;
  double cpus = 0;
  for (std::string_view item : Split(alloc_tres, ',')) {
    item = Trim(item);
    if (item.empty()) continue;
    const size_t eq = item.find('=');
    if (eq == std::string_view::npos) {
      return Status::ParseError(StrCat("AllocTRES item \"", item, "\" has no '='"));
    }
    const std::string name = ToLower(Trim(item.substr(0, eq)));
    if (name == "billing") continue;
    double count = 0;
    if (!ParseCount(name, item.substr(eq + 1), count)) {
      return Status::ParseError(StrCat("AllocTRES item \"", item, "\" is not a count"));
    }
    if (name == "cpu") cpus = count;
    auto it = weights.find(name);
    if (it == weights.end()) continue;
    const double billed = count * it->second.weight;
    if (max_tres && IsNodeTres(name)) {
      node_max = std::max(node_max, billed);
    } else {
      global += billed;
    }
  }
  if (weights.empty()) return std::trunc(cpus);
  return std::trunc(node_max + global);
}

std::optional<double> RecordedBilling(std::string_view alloc_tres) {
  for (std::string_view item : Split(alloc_tres, ',')) {
    const size_t eq = item.find('=');
    if (eq == std::string_view::npos || ToLower(Trim(item.substr(0, eq))) != "billing") continue;
    double v = 0;
    if (ParseNumber(item.substr(eq + 1), v)) return v;
  }
  return std::nullopt;
}

}  // namespace gpucost::slurm
