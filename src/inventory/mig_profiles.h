// MIG profile table (reference/input-formats.md §4): for each GPU model family, its MIG profiles
// and slice counts, so a profile name becomes a GPU fraction. Also parses profile names as DCGM
// and the device plugin spell them ("1g.5gb", "1g.10gb+me", "7g.79gb") and detects the model
// family from dcgm-exporter's modelName or a GFD product label. Stateless and thread-safe.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gpucost {

// Which slice count a MIG fraction is measured in (DESIGN.md "Capacity units").
enum class MigWeight : uint8_t { kCompute, kMemory };

struct MigProfileName {
  int compute_slices = 0;  // the N of "<N>g"
  double memory_gb = 0;    // the <mem> of ".<mem>gb"
  std::string suffix;      // "", "+me", "+gfx", "+me.all", "-me" (".me" is read as "+me")
};
// Parses "<N>g.<mem>gb[+me|.me|-me|+gfx|+me.all]". nullopt when the text is not a profile name
// (including DCGM's "<<<NULL>>>" blank).
std::optional<MigProfileName> ParseMigProfileName(std::string_view text);

struct MigProfile {
  std::string name;       // canonical, e.g. "1g.10gb+me"
  int compute_slices = 0;
  int memory_slices = 0;  // of the GPU's memory_slices
  int max_instances = 0;  // on one GPU
};

struct MigModel {
  std::string family;     // "A100-40GB", "A100-80GB/H100-80GB/H800", "A30", ...
  int compute_slices = 7;
  int memory_slices = 8;
  double memory_gb = 0;   // nominal memory of the whole GPU
  std::vector<MigProfile> profiles;
};

// All families of the table.
const std::vector<MigModel>& MigModels();

// Family from dcgm modelName ("NVIDIA A100-SXM4-40GB", "NVIDIA H100 80GB HBM3", "NVIDIA A30") or
// GFD product ("NVIDIA-H100-NVL-MIG-1g.12gb", "A100-SXM4-40GB-MIG-1g.5gb-SHARED"). nullptr when
// unknown or not MIG-capable.
const MigModel* DetectMigModel(std::string_view model_name);

// The table's profile a (possibly oddly rounded) name stands for on `model`: exact name first,
// then the profile with the same compute slices whose memory is nearest ("7g.79gb" -> "7g.80gb").
// Media-extension variants keep their slice counts. nullptr when nothing fits.
const MigProfile* FindMigProfile(const MigModel& model, std::string_view name);

// The profile's fraction of its GPU: compute slices / GPU compute slices (kCompute) or memory
// slices / GPU memory slices (kMemory).
double MigFraction(const MigModel& model, const MigProfile& profile, MigWeight weight);

// Fraction of a profile when the model is unknown: N/7 by compute; by memory, the 7-slice rule
// (1g small 1/8, 2g 2/8, 3g and 4g 4/8, 7g 8/8). nullopt when the name does not parse.
std::optional<double> MigFractionWithoutModel(std::string_view name, MigWeight weight);

// "7g.79gb" / "1g.10gb.me" -> "7g.79gb" / "1g.10gb+me": the name as the table spells variants.
std::string NormalizeMigProfileName(const MigProfileName& p);

}  // namespace gpucost
