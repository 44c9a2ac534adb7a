// The rate card shipped in examples/ stays valid and means what its comments say.
#include <gtest/gtest.h>

#include "pricing/rate_card.h"

namespace gpucost {
namespace {

TEST(ExamplePrices, LoadsAndPricesByFirstMatchingRule) {
  auto card = LoadRateCard(std::string(GPUCOST_SOURCE_DIR) + "/examples/prices.yaml");
  ASSERT_TRUE(card.ok()) << card.status().ToString();
  EXPECT_EQ(card->rules.size(), 5u);
  ASSERT_TRUE(card->default_usd_per_gpu_hour.has_value());
  EXPECT_DOUBLE_EQ(*card->default_usd_per_gpu_hour, 2.0);

  const Window w{InstantFromUnixMs(0), InstantFromUnixMs(3'600'000)};
  Node spot_t4;
  spot_t4.gpu_model = "Tesla T4";
  spot_t4.capacity_type = "spot";
  EXPECT_DOUBLE_EQ(card->Lookup(spot_t4, w).usd_per_gpu_hour, 0.16);
  Node t4 = spot_t4;
  t4.capacity_type = "on_demand";
  EXPECT_DOUBLE_EQ(card->Lookup(t4, w).usd_per_gpu_hour, 0.53);
  Node other;
  other.gpu_model = "NVIDIA L4";
  const PricePeriod p = card->Lookup(other, w);
  EXPECT_DOUBLE_EQ(p.usd_per_gpu_hour, 2.0);
  EXPECT_EQ(p.source, PriceSource::kDefault);
}

}  // namespace
}  // namespace gpucost
