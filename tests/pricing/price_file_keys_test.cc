// A key given twice in a price file or the catalog is an error naming the file, the line and the
// key: yaml-cpp keeps both entries, so one of them used to win silently (the last for
// default_usd_per_gpu_hour and prices, none at all for a selector given twice).
#include <gtest/gtest.h>

#include <string>

#include "pricing/catalog.h"
#include "pricing/price_book_config.h"
#include "pricing/rate_card.h"

namespace gpucost {
namespace {

std::string KeysError(const std::string& yaml) {
  const Result<PriceBookConfig> config = ParsePriceBookConfig(yaml, "prices.yaml");
  return config.ok() ? "(accepted)" : std::string(config.status().message());
}

TEST(PriceFileKeys, AKeyGivenTwiceIsAnErrorNamingItsLine) {
  EXPECT_EQ(KeysError("default_usd_per_gpu_hour: 2\ndefault_usd_per_gpu_hour: 3\n"),
            "prices.yaml:2: default_usd_per_gpu_hour: duplicate key, first given on line 1");
  EXPECT_EQ(KeysError("prices:\n  - match: {node: a}\n    usd_per_gpu_hour: 1\n"
                      "prices:\n  - match: {node: b}\n    usd_per_gpu_hour: 2\n"),
            "prices.yaml:4: prices: duplicate key, first given on line 1");
  EXPECT_EQ(KeysError("prices:\n  - match: {node: n1, node: n2}\n    usd_per_gpu_hour: 1\n"),
            "prices.yaml:2: prices[0].match.node: duplicate key, first given on line 2");
  EXPECT_EQ(KeysError("overrides:\n  - match: {node: a}\n    usd_per_gpu_hour: 1\n"
                      "    usd_per_gpu_hour: 9\n"),
            "prices.yaml:4: overrides[0].usd_per_gpu_hour: duplicate key, first given on line 3");
  EXPECT_EQ(KeysError("spot:\n  discount: 0.5\n  discount: 0.7\n"),
            "prices.yaml:3: spot.discount: duplicate key, first given on line 2");
  // The same key in two entries is no duplicate.
  EXPECT_EQ(KeysError("prices:\n  - match: {node: a}\n    usd_per_gpu_hour: 1\n"
                      "  - match: {node: b}\n    usd_per_gpu_hour: 2\n"),
            "(accepted)");
  // The rate card reads the same files.
  const Result<RateCard> card =
      ParseRateCard("default_usd_per_gpu_hour: 2\ndefault_usd_per_gpu_hour: 3\n", "card.yaml");
  ASSERT_FALSE(card.ok());
  EXPECT_EQ(card.status().code(), StatusCode::kParseError);
  EXPECT_EQ(card.status().message(),
            "card.yaml:2: default_usd_per_gpu_hour: duplicate key, first given on line 1");
  const Result<Catalog> catalog = ParseCatalog(
      "instances:\n  - {type: x, gpus: 1, gpus: 8, prices: [{usd_per_hour: 1}]}\n", "cat.yaml");
  ASSERT_FALSE(catalog.ok());
  EXPECT_EQ(catalog.status().message(),
            "cat.yaml:2: instances[0].gpus: duplicate key, first given on line 2");
}

}  // namespace
}  // namespace gpucost
