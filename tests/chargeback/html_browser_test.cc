// The HTML statement as a reader sees it: Chromium (headless, the real browser) renders the page
// `gpucost chargeback --format html` writes, and the DOM it built is checked: the period reads as
// an inclusive range of days, waste is one figure under one label, workloads carry their
// namespace, and the "others" bar says how many it holds and the page lists them. The screenshot
// is kept as a test artifact: <build>/tests/artifacts/chargeback_statement.png.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>

#include "cli/cli_test_util.h"

namespace gpucost {
namespace {

namespace fs = std::filesystem;
using testing_util::Contains;
using testing_util::RunResult;
using testing_util::RunShell;

const std::string kGolden =
    std::string(GPUCOST_SOURCE_DIR) + "/tests/chargeback/golden/ml_research_2026_10";

std::string Chromium() {
  for (const char* name : {"chromium", "chromium-browser", "google-chrome"}) {
    const RunResult r = RunShell(std::string("command -v ") + name + " 2>/dev/null");
    if (r.exit_code == 0 && !r.output.empty()) return r.output.substr(0, r.output.find('\n'));
  }
  return "";
}

size_t Count(const std::string& text, const std::string& needle) {
  size_t n = 0;
  for (size_t p = text.find(needle); p != std::string::npos; p = text.find(needle, p + 1)) ++n;
  return n;
}

// Width and height from a PNG's IHDR chunk; {0, 0} when it is not a PNG.
std::pair<uint32_t, uint32_t> PngSize(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::string head(24, '\0');
  in.read(head.data(), 24);
  if (!in || head.compare(0, 8, "\x89PNG\r\n\x1a\n") != 0 || head.compare(12, 4, "IHDR") != 0) {
    return {0, 0};
  }
  const auto be32 = [&](size_t at) {
    uint32_t v = 0;
    for (size_t i = 0; i < 4; ++i) v = (v << 8) | static_cast<unsigned char>(head[at + i]);
    return v;
  };
  return {be32(16), be32(20)};
}

class HtmlStatementInChromium : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    artifacts_ = fs::current_path() / "artifacts";
    fs::create_directories(artifacts_);
    // Per process: ctest runs this suite's tests at once, each in a process of its own.
    page_ =
        (artifacts_ / ("chargeback_statement." + std::to_string(::getpid()) + ".html")).string();
    // The golden month, every team, the top 2 workloads drawn on their own: the rest is "others".
    const RunResult r =
        RunShell(kBinary + " chargeback --input " + kGolden +
                 "/input --month 2026-10 --step 1h --staleness 1h --prices " + kGolden +
                 "/prices.yaml --by team --top 2 --format html > " + page_ + " 2>/dev/null");
    ASSERT_EQ(r.exit_code, 0) << r.output;
  }
  static std::string Browser(const std::string& flags) {
    const std::string chromium = Chromium();
    if (chromium.empty()) return "";
    // Its own profile folder, so that a browser the user runs is left alone.
    const std::string profile =
        (artifacts_ / ("chromium-profile." + std::to_string(::getpid()))).string();
    const RunResult r =
        RunShell("timeout 120 " + chromium + " --headless --no-sandbox --disable-gpu " +
                 "--user-data-dir=" + profile + " " + flags + " file://" + page_ + " 2>/dev/null");
    EXPECT_EQ(r.exit_code, 0) << flags;
    return r.output;
  }

  static fs::path artifacts_;
  static std::string page_;
};
fs::path HtmlStatementInChromium::artifacts_;
std::string HtmlStatementInChromium::page_;

TEST_F(HtmlStatementInChromium, TheRenderedPageSaysEachFigureOnceAndReadably) {
  ASSERT_FALSE(Chromium().empty()) << "Chromium is needed (scripts/install-deps.sh installs it)";
  const std::string dom = Browser("--dump-dom");
  ASSERT_TRUE(Contains(dom, "<main>")) << dom.substr(0, 2000);
  const size_t sections = Count(dom, "<section>");
  ASSERT_GE(sections, 3u) << "statements and the cluster summary";
  const size_t statements = Count(dom, "<dl>");
  ASSERT_GE(statements, 2u);

  // The period: October, its last day included, in the heading and on every statement.
  EXPECT_EQ(Count(dom, "Oct 1\u2013Oct 31, 2026"), 1 + statements) << dom.substr(0, 3000);
  EXPECT_FALSE(Contains(dom, "Nov 1, 2026"));

  // One waste figure with one label per statement; no row called "Utilization" with another.
  EXPECT_EQ(Count(dom, "<dt>Waste</dt>"), statements);
  EXPECT_EQ(Count(dom, "<dt>Utilization</dt>"), 0u);
  EXPECT_EQ(Count(dom, "<dt>Idle time</dt>"), statements);
  const std::regex waste_dd("<dt>Waste</dt><dd[^>]*>([^<]*)</dd>");
  for (auto it = std::sregex_iterator(dom.begin(), dom.end(), waste_dd);
       it != std::sregex_iterator(); ++it) {
    const std::string dd = (*it)[1];
    if (dd.rfind("unknown", 0) == 0) continue;  // a team whose hours have no price
    EXPECT_EQ(Count(dd, "$"), 2u) << "the waste and the effective cost it is of: " << dd;
    EXPECT_TRUE(std::regex_search(dd, std::regex(R"(^\$[0-9]{1,3}(,[0-9]{3})*\.[0-9]{2} )"))) << dd;
  }
  EXPECT_FALSE(Contains(dom, "idle cost")) << "idle time is given in hours, not as a second waste";

  // Workloads with their namespace, in the chart and the top consumers.
  const std::regex qualified(R"(<td>[a-z0-9-]+/[a-z0-9.-]+</td>)");
  EXPECT_TRUE(std::regex_search(dom, qualified)) << "top consumers name namespace/workload";
  EXPECT_TRUE(std::regex_search(dom, std::regex(R"(<title>[a-z0-9-]+/[a-z0-9.-]+</title>)")))
      << "chart bars name namespace/workload";

  // "N other workloads": the bar says how many, the paragraph under the chart lists them all.
  const std::regex others_bar(R"(<title>([0-9]+) other workloads?</title>)");
  const std::regex others_list(R"(<p class="others">The ([0-9]+) other workloads?: ([^<]*)</p>)");
  std::smatch bar;
  std::smatch list;
  ASSERT_TRUE(std::regex_search(dom, bar, others_bar)) << "an others bar";
  ASSERT_TRUE(std::regex_search(dom, list, others_list)) << "the others listed";
  EXPECT_EQ(bar[1], list[1]);
  const std::string names = list[2];
  EXPECT_EQ(static_cast<size_t>(std::count(names.begin(), names.end(), ',') + 1),
            std::stoul(list[1].str()))
      << names;

  // A team none of whose hours has a price (platform, its gpu-burn-check) gets no chart of $0
  // bars, a sentence saying why, and an efficiency that says it comes from the hours.
  EXPECT_EQ(Count(dom, "<p class=\"nochart\">No cost charts: none of the team's "), 1u)
      << "platform has no price";
  EXPECT_EQ(Count(dom, ", of GPU-hours: no price</dd>"), 1u);
  EXPECT_FALSE(Contains(dom, ">$0.00</text>")) << "never a $0.00 bar";

  // Money for people: grouped thousands, two decimals; never "0.00 hrs" beside a share.
  EXPECT_TRUE(std::regex_search(dom, std::regex(R"(\$[0-9]{1,3},[0-9]{3}\.[0-9]{2})")));
  EXPECT_FALSE(std::regex_search(dom, std::regex(R"(\$[0-9]{4,}\.)"))) << "ungrouped money";
  EXPECT_FALSE(std::regex_search(dom, std::regex(R"(>0\.00 hrs \((?!0\.0%))")));
}

TEST_F(HtmlStatementInChromium, TheScreenshotIsKeptAsAnArtifact) {
  ASSERT_FALSE(Chromium().empty()) << "Chromium is needed (scripts/install-deps.sh installs it)";
  const std::string png = (artifacts_ / "chargeback_statement.png").string();
  fs::remove(png);
  Browser("--screenshot=" + png + " --window-size=1280,2000 --hide-scrollbars");
  ASSERT_TRUE(fs::exists(png));
  EXPECT_EQ(PngSize(png), (std::pair<uint32_t, uint32_t>{1280, 2000}));
  // A blank page compresses to almost nothing; a page of tables and charts does not.
  EXPECT_GT(fs::file_size(png), 40'000u) << png;
}

}  // namespace
}  // namespace gpucost
