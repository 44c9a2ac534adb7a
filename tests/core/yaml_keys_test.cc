// A key repeated in any map of a YAML file is an error that names the file, the line of the
// second one and the key's path (core/yaml_keys.h); yaml-cpp alone keeps both entries silently.
#include "core/yaml_keys.h"

#include <gtest/gtest.h>

#include <chrono>
#include <string>

namespace gpucost {
namespace {

Status CheckYaml(const std::string& text) {
  return CheckUniqueYamlKeys(YAML::Load(text), "f.yaml");
}

TEST(YamlKeys, ARepeatedKeyNamesFileLineAndKey) {
  const Status top = CheckYaml("a: 1\nb: 2\na: 3\n");
  ASSERT_FALSE(top.ok());
  EXPECT_EQ(top.code(), StatusCode::kParseError);
  EXPECT_EQ(top.message(), "f.yaml:3: a: duplicate key, first given on line 1");

  const Status flow =
      CheckYaml("prices:\n  - match: {node: n1}\n  - match: {node: n1, node: n2}\n");
  ASSERT_FALSE(flow.ok());
  EXPECT_EQ(flow.message(), "f.yaml:3: prices[1].match.node: duplicate key, first given on line 3");

  const Status nested = CheckYaml("spot:\n  discount: 0.1\n  prices: []\n  discount: 0.2\n");
  ASSERT_FALSE(nested.ok());
  EXPECT_EQ(nested.message(), "f.yaml:4: spot.discount: duplicate key, first given on line 2");
}

TEST(YamlKeys, TheSameKeyInDifferentMapsIsNoDuplicate) {
  EXPECT_TRUE(CheckYaml("a: {x: 1}\nb: {x: 2}\nl: [{x: 1}, {x: 2}]\n").ok());
  EXPECT_TRUE(CheckYaml("").ok());
  EXPECT_TRUE(CheckYaml("- 1\n- 1\n").ok());  // a list may repeat its items
  EXPECT_TRUE(CheckYaml("scalar\n").ok());
}

// Aliases share one node; it is walked once, so nine levels of ten aliases each (10^9 paths
// through the text) take no longer than the text is long.
TEST(YamlKeys, AliasesAreWalkedOnce) {
  std::string text = "l0: &l0 {a: 1, b: 2}\n";
  for (int i = 1; i <= 9; ++i) {
    text += "l" + std::to_string(i) + ": &l" + std::to_string(i) + " [";
    for (int k = 0; k < 10; ++k) text += (k ? ", *l" : "*l") + std::to_string(i - 1);
    text += "]\n";
  }
  const auto start = std::chrono::steady_clock::now();
  EXPECT_TRUE(CheckYaml(text).ok());
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5));
  EXPECT_FALSE(CheckYaml(text + "l0: 3\n").ok());
}

}  // namespace
}  // namespace gpucost
