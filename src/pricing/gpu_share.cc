#include "pricing/gpu_share.h"

#include <charconv>
#include <cmath>

#include "core/strings.h"

namespace gpucost {

std::optional<double> GpuShare::Of(int gpus, int vcpus, double memory_gib) const {
  if (gpus <= 0) return std::nullopt;
  const double g = gpus;
  switch (mode) {
    case GpuShareMode::kAll:
      return 1.0;
    case GpuShareMode::kFraction:
      return fraction;
    case GpuShareMode::kAwsSplit:
      if (vcpus <= 0 || memory_gib <= 0) return std::nullopt;
      return 9 * g / (9 * g + 0.9 * vcpus + 0.1 * memory_gib);
    case GpuShareMode::kPriceRatio:
      if (vcpus <= 0 || memory_gib <= 0) return std::nullopt;
      return kRatioGpu * g / (kRatioGpu * g + kRatioCpu * vcpus + kRatioRam * memory_gib);
  }
  return std::nullopt;
}

std::string GpuShare::ToString() const {
  switch (mode) {
    case GpuShareMode::kAll:
      return "all";
    case GpuShareMode::kAwsSplit:
      return "aws-split";
    case GpuShareMode::kPriceRatio:
      return "price-ratio";
    case GpuShareMode::kFraction:
      return StrCat("fraction ", FormatDouble(fraction));
  }
  return "all";
}

Result<GpuShare> ParseGpuShare(std::string_view text) {
  GpuShare s;
  if (text == "all") return s;
  if (text == "aws-split") {
    s.mode = GpuShareMode::kAwsSplit;
    return s;
  }
  if (text == "price-ratio") {
    s.mode = GpuShareMode::kPriceRatio;
    return s;
  }
  double f = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), f);
  if (ec == std::errc() && end == text.data() + text.size() && std::isfinite(f) && f > 0 &&
      f <= 1) {
    s.mode = GpuShareMode::kFraction;
    s.fraction = f;
    return s;
  }
  return Status::InvalidArgument(StrCat("gpu_share: expected all, aws-split, price-ratio or a "
                                        "fraction in (0, 1], got \"",
                                        text, "\""));
}

}  // namespace gpucost
