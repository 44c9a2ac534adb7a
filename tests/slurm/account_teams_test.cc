// The account -> team mapping file (--slurm-account-teams).
#include "slurm/account_teams.h"

#include <gtest/gtest.h>

namespace gpucost::slurm {
namespace {

TEST(AccountTeamsTest, PairsWithAnySeparatorCommentsAndBlankLines) {
  auto m = ParseAccountTeams("# account team\n\nphysics sciences\nchem\tsciences\n"
                             "bio=life  # wet lab\nml,research\n",
                             "teams.txt");
  ASSERT_TRUE(m.ok()) << m.status().ToString();
  EXPECT_EQ(m->size(), 4u);
  EXPECT_EQ(m->at("physics"), "sciences");
  EXPECT_EQ(m->at("chem"), "sciences");
  EXPECT_EQ(m->at("bio"), "life");
  EXPECT_EQ(m->at("ml"), "research");
}

// A file saved with a UTF-8 byte order mark: its first account is "physics", not BOM + "physics".
TEST(AccountTeamsTest, AByteOrderMarkIsNotPartOfTheFirstAccount) {
  auto m = ParseAccountTeams("\xEF\xBB\xBFphysics sciences\nchem sciences\n", "teams.txt");
  ASSERT_TRUE(m.ok()) << m.status().ToString();
  EXPECT_EQ(m->size(), 2u);
  EXPECT_EQ(m->count("physics"), 1u);
}

TEST(AccountTeamsTest, ErrorsNameFileAndLine) {
  auto missing = ParseAccountTeams("a b\nlonely\n", "teams.txt");
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.status().message().find("teams.txt:2:"), std::string::npos);
  auto twice = ParseAccountTeams("a b\n\na c\n", "teams.txt");
  ASSERT_FALSE(twice.ok());
  EXPECT_NE(twice.status().message().find("teams.txt:3: account \"a\" is already mapped on line 1"),
            std::string::npos)
      << twice.status().message();
  auto extra = ParseAccountTeams("a b c\n", "teams.txt");
  EXPECT_FALSE(extra.ok());
  EXPECT_FALSE(LoadAccountTeams("/nonexistent/teams.txt").ok());
}

}  // namespace
}  // namespace gpucost::slurm
