// How much of an instance's price is the price of its GPUs (docs/pricing.md "GPU share"):
// all of it (the default for GPU nodes), AWS's split-cost weights (9 : 0.9 : 0.1 per GPU : vCPU :
// GiB), OpenCost-style price ratios, or a fixed fraction. Plain value type.
//
//   Result<GpuShare> ParseGpuShare("aws-split");
//   std::optional<double> share.Of(gpus, vcpus, memory_gib);
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "core/result.h"

namespace gpucost {

enum class GpuShareMode : uint8_t { kAll, kAwsSplit, kPriceRatio, kFraction };

struct GpuShare {
  GpuShareMode mode = GpuShareMode::kAll;
  double fraction = 1.0;  // kFraction only

  // OpenCost's default marginal prices (configs/default.json): $/GPU-h, $/vCPU-h, $/GiB-h.
  static constexpr double kRatioGpu = 0.95;
  static constexpr double kRatioCpu = 0.031611;
  static constexpr double kRatioRam = 0.004237;

  // The GPU share of the instance price, in (0, 1]. None when the mode needs the vCPUs and memory
  // of the instance and they are unknown (0).
  std::optional<double> Of(int gpus, int vcpus, double memory_gib) const;
  // "all", "aws-split", "price-ratio", "fraction 0.8".
  std::string ToString() const;
};

// "all", "aws-split", "price-ratio", or a number in (0, 1] for a fixed fraction.
Result<GpuShare> ParseGpuShare(std::string_view text);

}  // namespace gpucost
