#include "slurm/gpu_tres.h"

#include <cctype>
#include <charconv>
#include <cstdint>
#include <set>

#include "core/strings.h"
#include "inventory/mig_profiles.h"

namespace gpucost::slurm {
namespace {

bool IsDigit(char c) { return std::isdigit(static_cast<unsigned char>(c)) != 0; }

// Length of "<N>g.<M>gb" (M may carry a decimal point) starting at `i`, or 0.
size_t ProfileLength(std::string_view s, size_t i) {
  size_t j = i;
  while (j < s.size() && IsDigit(s[j])) ++j;
  if (j == i || j + 1 >= s.size() || s[j] != 'g' || s[j + 1] != '.') return 0;
  j += 2;
  const size_t mem = j;
  while (j < s.size() && (IsDigit(s[j]) || s[j] == '.')) ++j;
  if (j == mem || s.substr(j, 2) != "gb") return 0;
  j += 2;
  // Media-extension suffixes as sites spell them in type names.
  for (std::string_view suffix : {"+me.all", "+me", ".me", "-me", "_me", "+gfx"}) {
    if (s.substr(j, suffix.size()) == suffix) return j + suffix.size() - i;
  }
  return j - i;
}

}  // namespace

int GpuTres::total() const {
  int n = whole;
  for (const auto& [profile, count] : mig) n += count;
  return n;
}

std::string MigProfileInGresType(std::string_view type, std::string* prefix) {
  const std::string lower = ToLower(type);
  for (size_t i = 0; i < lower.size(); ++i) {
    if (!IsDigit(lower[i]) || (i > 0 && IsDigit(lower[i - 1]))) continue;
    const size_t len = ProfileLength(lower, i);
    if (len == 0) continue;
    std::string text = lower.substr(i, len);
    if (text.ends_with("_me")) text.replace(text.size() - 3, 1, "+");
    const std::optional<MigProfileName> parsed = ParseMigProfileName(text);
    if (!parsed) continue;
    if (prefix != nullptr) {
      std::string_view p = std::string_view(lower).substr(0, i);
      while (!p.empty() && (p.back() == '_' || p.back() == '-' || p.back() == '.')) p.remove_suffix(1);
      *prefix = std::string(p);
    }
    return NormalizeMigProfileName(*parsed);
  }
  return "";
}

Result<GpuTres> ParseGpuTres(std::string_view alloc_tres) {
  GpuTres out;
  int untyped = -1;
  int typed_whole = 0;
  int64_t typed_total = 0;
  std::map<std::string, int> typed_mig;
  std::set<std::string> whole_types;
  for (std::string_view item : Split(alloc_tres, ',')) {
    item = Trim(item);
    if (item.empty()) continue;
    const size_t eq = item.find('=');
    if (eq == std::string_view::npos) {
      return Status::ParseError(StrCat("TRES item \"", item, "\" has no '='"));
    }
    const std::string key = ToLower(Trim(item.substr(0, eq)));
    if (key != "gres/gpu" && !key.starts_with("gres/gpu:")) continue;  // gres/gpumem, cpu, ...
    const std::string_view value = Trim(item.substr(eq + 1));
    int64_t wide = 0;
    auto [p, ec] = std::from_chars(value.data(), value.data() + value.size(), wide);
    if ((ec != std::errc() && ec != std::errc::result_out_of_range) ||
        p != value.data() + value.size() || wide < 0) {
      return Status::ParseError(StrCat("TRES item \"", item, "\": count is not a whole number"));
    }
    // More than any job holds: a corrupt row, not a job to cost (a billion GPUs took all memory).
    if (ec == std::errc::result_out_of_range || wide > kMaxJobGpus) {
      return Status::ParseError(StrCat(
          "TRES item \"", item, "\": more GPUs than a job holds (at most ", kMaxJobGpus, ")"));
    }
    const int count = static_cast<int>(wide);
    if (key == "gres/gpu") {
      untyped = count;
      continue;
    }
    typed_total += count;
    if (typed_total > kMaxJobGpus) {
      return Status::ParseError(StrCat(
          "the typed GPU counts add up to more GPUs than a job holds (at most ", kMaxJobGpus, ")"));
    }
    const std::string type = key.substr(std::string_view("gres/gpu:").size());
    std::string hint;
    const std::string profile = MigProfileInGresType(type, &hint);
    if (profile.empty()) {
      typed_whole += count;
      if (count > 0) whole_types.insert(type);
    } else {
      typed_mig[profile] += count;
      if (!hint.empty()) out.mig_model_hint = hint;
    }
  }
  int mig_total = 0;
  for (const auto& [profile, count] : typed_mig) {
    if (count > 0) {
      out.mig[profile] = count;
      mig_total += count;
    }
  }
  if (whole_types.size() == 1) out.whole_type = *whole_types.begin();
  if (untyped < 0) {
    out.whole = typed_whole;
    return out;
  }
  // The untyped count is every GPU the job holds; MIG slices are GPUs to Slurm too.
  if (mig_total > untyped) {
    out.note = StrCat("typed MIG counts (", mig_total, ") exceed gres/gpu=", untyped,
                      "; the typed counts are used");
    return out;
  }
  out.whole = untyped - mig_total;
  return out;
}

}  // namespace gpucost::slurm
