#include "inventory/mig_profiles.h"

#include <cctype>
#include <charconv>
#include <cmath>

#include "core/strings.h"

namespace gpucost {
namespace {

std::string Gb(double gb) { return StrCat(static_cast<int>(gb), "gb"); }

// The seven-compute-slice, eight-memory-slice layout shared by A100 through B300.
MigModel SevenSlice(std::string family, double memory_gb, int small1, int large1, int g2, int g3,
                    int g4, int g7, bool media_ext) {
  MigModel m{std::move(family), 7, 8, memory_gb, {}};
  const std::string s1 = StrCat("1g.", Gb(small1));
  m.profiles.push_back({s1, 1, 1, 7});
  if (media_ext) m.profiles.push_back({s1 + "+me", 1, 1, 1});
  m.profiles.push_back({StrCat("1g.", Gb(large1)), 1, 2, 4});
  m.profiles.push_back({StrCat("2g.", Gb(g2)), 2, 2, 3});
  m.profiles.push_back({StrCat("3g.", Gb(g3)), 3, 4, 2});
  m.profiles.push_back({StrCat("4g.", Gb(g4)), 4, 4, 1});
  m.profiles.push_back({StrCat("7g.", Gb(g7)), 7, 8, 1});
  return m;
}

std::vector<MigModel> BuildTable() {
  std::vector<MigModel> t;
  t.push_back(SevenSlice("A100-40GB", 40, 5, 10, 10, 20, 20, 40, true));
  t.push_back(SevenSlice("A100-80GB/H100-80GB/H800", 80, 10, 20, 20, 40, 40, 80, true));
  t.push_back(SevenSlice("H100-NVL/H100-94GB", 94, 12, 24, 24, 47, 47, 94, true));
  t.push_back(SevenSlice("H100-96GB/GH200-96GB/H20", 96, 12, 24, 24, 48, 48, 96, false));
  t.push_back(SevenSlice("H200-141GB", 141, 18, 35, 35, 71, 71, 141, true));
  t.push_back(SevenSlice("GH200-144GB", 144, 18, 36, 36, 72, 72, 144, false));
  t.push_back(SevenSlice("B200", 180, 23, 45, 45, 90, 90, 180, true));
  t.push_back(SevenSlice("GB200", 186, 23, 47, 47, 93, 93, 186, false));
  t.push_back(SevenSlice("B300", 269, 34, 67, 67, 135, 135, 269, true));
  t.push_back(MigModel{"A30", 4, 4, 24,
                       {{"1g.6gb", 1, 1, 4},
                        {"1g.6gb+me", 1, 1, 1},
                        {"2g.12gb", 2, 2, 2},
                        {"2g.12gb+me", 2, 2, 1},
                        {"4g.24gb", 4, 4, 1}}});
  // Its +gfx, -me and +me.all variants resolve to the base profile's slices.
  t.push_back(MigModel{"RTX-PRO-6000-Blackwell", 4, 4, 96,
                       {{"1g.24gb", 1, 1, 4}, {"2g.48gb", 2, 2, 2}, {"4g.96gb", 4, 4, 1}}});
  return t;
}

const MigModel* ByFamily(std::string_view family) {
  for (const MigModel& m : MigModels()) {
    if (m.family == family) return &m;
  }
  return nullptr;
}

bool ParseInt(std::string_view s, int& out) {
  if (s.empty()) return false;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
  return ec == std::errc() && p == s.data() + s.size();
}

}  // namespace

const std::vector<MigModel>& MigModels() {
  static const std::vector<MigModel> kTable = BuildTable();
  return kTable;
}

std::optional<MigProfileName> ParseMigProfileName(std::string_view text) {
  text = Trim(text);
  const size_t g = text.find("g.");
  if (g == std::string_view::npos) return std::nullopt;
  MigProfileName out;
  if (!ParseInt(text.substr(0, g), out.compute_slices) || out.compute_slices <= 0) {
    return std::nullopt;
  }
  std::string_view rest = text.substr(g + 2);
  size_t digits = 0;
  while (digits < rest.size() && (std::isdigit(static_cast<unsigned char>(rest[digits])) != 0 ||
                                  rest[digits] == '.')) {
    ++digits;
  }
  // "10gb.me": the digit run may swallow nothing after "gb"; "gb" must follow the number.
  std::string_view number = rest.substr(0, digits);
  if (!number.empty() && number.back() == '.') number.remove_suffix(1);
  if (number.empty() || rest.substr(number.size(), 2) != "gb") return std::nullopt;
  out.memory_gb = 0;
  {
    const std::string n(number);
    char* end = nullptr;
    out.memory_gb = std::strtod(n.c_str(), &end);
    if (end != n.c_str() + n.size() || out.memory_gb <= 0) return std::nullopt;
  }
  std::string suffix(rest.substr(number.size() + 2));
  if (suffix == ".me") suffix = "+me";  // device-plugin resource spelling of "+me"
  if (suffix == "_me") suffix = "+me";  // KSM-sanitized spelling
  if (!suffix.empty() && suffix != "+me" && suffix != "-me" && suffix != "+gfx" &&
      suffix != "+me.all" && suffix != ".gfx" && suffix != ".me.all") {
    return std::nullopt;
  }
  if (suffix == ".gfx") suffix = "+gfx";
  if (suffix == ".me.all") suffix = "+me.all";
  out.suffix = std::move(suffix);
  return out;
}

std::string NormalizeMigProfileName(const MigProfileName& p) {
  std::string mem = FormatDouble(p.memory_gb);
  return StrCat(p.compute_slices, "g.", mem, "gb", p.suffix);
}

const MigModel* DetectMigModel(std::string_view model_name) {
  std::string name = ToLower(model_name);
  // GFD single-strategy products carry the slice profile after "-mig-"; it is not the model.
  if (size_t mig = name.find("-mig-"); mig != std::string::npos) name.resize(mig);
  std::vector<std::string> tokens;
  std::string cur;
  for (char c : name) {
    if (std::isalnum(static_cast<unsigned char>(c)) != 0) {
      cur.push_back(c);
    } else if (!cur.empty()) {
      tokens.push_back(std::move(cur));
      cur.clear();
    }
  }
  if (!cur.empty()) tokens.push_back(cur);
  auto has = [&](std::string_view t) {
    for (const std::string& s : tokens) {
      if (s == t) return true;
    }
    return false;
  };
  auto has_prefix = [&](std::string_view t) {
    for (const std::string& s : tokens) {
      if (s.starts_with(t)) return true;
    }
    return false;
  };
  if (has("a30")) return ByFamily("A30");
  if (has("rtx") && has("pro") && has("6000")) return ByFamily("RTX-PRO-6000-Blackwell");
  if (has("gb200")) return ByFamily("GB200");
  if (has("b300") || has("gb300")) return ByFamily("B300");
  if (has("b200")) return ByFamily("B200");
  if (has("gh200")) {
    return has_prefix("144") ? ByFamily("GH200-144GB") : ByFamily("H100-96GB/GH200-96GB/H20");
  }
  if (has("h200")) return ByFamily("H200-141GB");
  if (has("h20")) return ByFamily("H100-96GB/GH200-96GB/H20");
  if (has("h100") || has("h800")) {
    if (has("nvl") || has("94gb")) return ByFamily("H100-NVL/H100-94GB");
    if (has("96gb")) return ByFamily("H100-96GB/GH200-96GB/H20");
    return ByFamily("A100-80GB/H100-80GB/H800");
  }
  if (has("a100")) {
    return has("80gb") ? ByFamily("A100-80GB/H100-80GB/H800") : ByFamily("A100-40GB");
  }
  return nullptr;
}

const MigProfile* FindMigProfile(const MigModel& model, std::string_view name) {
  const std::optional<MigProfileName> parsed = ParseMigProfileName(name);
  if (!parsed) return nullptr;
  const std::string canonical = NormalizeMigProfileName(*parsed);
  for (const MigProfile& p : model.profiles) {
    if (p.name == canonical) return &p;
  }
  // Nearest memory among profiles with the same compute slices; a "+me" variant prefers the
  // table's "+me" row, other variants (+gfx, -me, +me.all) take the base profile's slices.
  const bool want_me = parsed->suffix == "+me";
  const MigProfile* best = nullptr;
  double best_score = 0;
  for (const MigProfile& p : model.profiles) {
    if (p.compute_slices != parsed->compute_slices) continue;
    const std::optional<MigProfileName> pp = ParseMigProfileName(p.name);
    if (!pp) continue;
    double score = std::fabs(pp->memory_gb - parsed->memory_gb);
    if ((pp->suffix == "+me") != want_me) score += 1e6;
    if (best == nullptr || score < best_score) {
      best = &p;
      best_score = score;
    }
  }
  return best;
}

double MigFraction(const MigModel& model, const MigProfile& profile, MigWeight weight) {
  if (weight == MigWeight::kMemory) {
    return static_cast<double>(profile.memory_slices) / static_cast<double>(model.memory_slices);
  }
  return static_cast<double>(profile.compute_slices) / static_cast<double>(model.compute_slices);
}

std::optional<double> MigFractionWithoutModel(std::string_view name, MigWeight weight) {
  const std::optional<MigProfileName> p = ParseMigProfileName(name);
  if (!p || p->compute_slices > 7) return std::nullopt;
  if (weight == MigWeight::kCompute) return p->compute_slices / 7.0;
  switch (p->compute_slices) {
    case 1: return 1.0 / 8.0;
    case 2: return 2.0 / 8.0;
    case 3:
    case 4: return 4.0 / 8.0;
    case 7: return 1.0;
    default: return p->compute_slices / 7.0;
  }
}

}  // namespace gpucost
