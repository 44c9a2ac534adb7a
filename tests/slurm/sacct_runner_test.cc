// Running sacct: the argument vector and environment gpucost gives it (checked by a fake sacct
// script that records them), stdout returned, stderr and the exit status in errors, no shell.
#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "core/strings.h"
#include "slurm/local_time.h"
#include "slurm/sacct_runner.h"

namespace gpucost::slurm {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

namespace fs = std::filesystem;

class TempDir {
 public:
  TempDir() {
    std::string pattern = (fs::temp_directory_path() / "gpucost-sacct-XXXXXX").string();
    path_ = ::mkdtemp(pattern.data());
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  const fs::path& path() const { return path_; }

 private:
  fs::path path_;
};

std::string Read(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// A fake sacct: records its arguments (one a line) and two environment variables, writes
// `stderr_text` to stderr, prints `stdout_text` and exits with `code`.
fs::path FakeSacct(const fs::path& dir, const std::string& stdout_text, int code = 0,
                   const std::string& stderr_text = "") {
  const fs::path script = dir / "sacct";
  std::ofstream out(script);
  out << "#!/bin/sh\n"
      << "printf '%s\\n' \"$@\" > '" << (dir / "argv").string() << "'\n"
      << "printf 'TZ=%s\\nSLURM_TIME_FORMAT=%s\\n' \"$TZ\" \"$SLURM_TIME_FORMAT\" > '"
      << (dir / "env").string() << "'\n"
      << "printf '%s' '" << stderr_text << "' >&2\n"
      << "cat <<'EOF'\n" << stdout_text << "EOF\n"
      << "exit " << code << "\n";
  out.close();
  ::chmod(script.c_str(), 0755);
  return script;
}

constexpr int64_t kT0 = 1790812800;  // 2026-10-01T00:00:00Z

TEST(SacctRunnerTest, ArgvAsksForAllUsersAllStatesAndTheParsersFields) {
  SacctRunOptions o;
  o.binary = "/opt/slurm/bin/sacct";
  o.window = {InstantFromUnixMs(kT0 * 1000), InstantFromUnixMs((kT0 + 600) * 1000)};
  o.time_zone = "Europe/Berlin";
  o.clusters = {"hpc1", "hpc2"};
  auto argv = SacctArgv(o);
  ASSERT_TRUE(argv.ok()) << argv.status().ToString();
  EXPECT_THAT(
      *argv,
      ElementsAre("/opt/slurm/bin/sacct", "--parsable2", "--noheader", "--allusers", "--duplicates",
                  "--noconvert", "--starttime=2026-10-01T02:00:00", "--endtime=2026-10-01T02:10:00",
                  "--format=JobID,JobIDRaw,Cluster,User,Account,Partition,QOS,JobName,"
                  "AllocTRES,Start,End,Elapsed,State,NodeList,NTasks,TRESUsageInTot",
                  "--clusters=hpc1,hpc2"));
  for (const std::string& a : *argv) EXPECT_FALSE(a.starts_with("--state")) << a;
  o.window = {};
  EXPECT_FALSE(SacctArgv(o).ok());
}

TEST(SacctRunnerTest, TzValuesForEachKindOfSetting) {
  EXPECT_EQ(*TzForSetting("local"), "");
  EXPECT_EQ(*TzForSetting("UTC"), "UTC0");
  EXPECT_EQ(*TzForSetting("Europe/Berlin"), "Europe/Berlin");
  EXPECT_EQ(*TzForSetting("+02:00"), "<+0200>-02:00");
  EXPECT_EQ(*TzForSetting("-0530"), "<-0530>+05:30");
  EXPECT_EQ(*TzForSetting("+2"), "<+0200>-02:00");
  EXPECT_FALSE(TzForSetting("Mars/Olympus").ok());
}

TEST(SacctRunnerTest, FormatIsTheInverseOfToInstant) {
  for (const char* zone : {"UTC", "+05:30", "Europe/Berlin", "America/New_York"}) {
    auto tz = LocalTimeZone::Make(zone);
    ASSERT_TRUE(tz.ok());
    for (int64_t s : {kT0, kT0 + 86400 * 40 + 3725}) {
      const Instant t = InstantFromUnixMs(s * 1000);
      auto text = tz->Format(t);
      ASSERT_TRUE(text.ok());
      EXPECT_EQ(*tz->ToInstant(*text), t) << zone << " " << *text;
    }
  }
  auto utc = LocalTimeZone::Make("UTC");
  EXPECT_EQ(*utc->Format(InstantFromUnixMs(kT0 * 1000 + 999)), "2026-10-01T00:00:00");
}

TEST(SacctRunnerTest, RunsTheBinaryWithoutAShellAndReturnsItsOutput) {
  TempDir dir;
  const std::string lines =
      "501|501|hpc1|alice|physics|gpu|normal|a;b $(x)|billing=8,gres/gpu=1|2026-10-01T02:00:00|"
      "2026-10-01T02:05:00|00:05:00|COMPLETED|gpu01||\n";
  SacctRunOptions o;
  o.binary = FakeSacct(dir.path(), lines).string();
  o.window = {InstantFromUnixMs(kT0 * 1000), InstantFromUnixMs((kT0 + 600) * 1000)};
  o.time_zone = "Europe/Berlin";
  auto out = RunSacct(o);
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ(*out, lines);
  EXPECT_EQ(Read(dir.path() / "env"), "TZ=Europe/Berlin\nSLURM_TIME_FORMAT=standard\n");
  const std::string argv = Read(dir.path() / "argv");
  EXPECT_THAT(argv, HasSubstr("--starttime=2026-10-01T02:00:00\n"));
  EXPECT_THAT(argv, HasSubstr("--allusers\n"));
}

TEST(SacctRunnerTest, NonZeroExitIsAnErrorCarryingStderr) {
  TempDir dir;
  SacctRunOptions o;
  o.binary = FakeSacct(dir.path(), "", 1,
                       "sacct: error: Problem talking to the database: Connection refused")
                 .string();
  o.window = {InstantFromUnixMs(kT0 * 1000), InstantFromUnixMs((kT0 + 600) * 1000)};
  o.time_zone = "UTC";
  auto out = RunSacct(o);
  ASSERT_FALSE(out.ok());
  const std::string m(out.status().message());
  EXPECT_THAT(m, HasSubstr("exited with status 1"));
  EXPECT_THAT(m, HasSubstr("Connection refused"));
  EXPECT_THAT(m, HasSubstr(o.binary));
}

TEST(SacctRunnerTest, MissingBinaryAndSignalsAreErrors) {
  SacctRunOptions o;
  o.binary = "/nonexistent/sacct";
  o.window = {InstantFromUnixMs(kT0 * 1000), InstantFromUnixMs((kT0 + 600) * 1000)};
  o.time_zone = "UTC";
  auto out = RunSacct(o);
  ASSERT_FALSE(out.ok());
  EXPECT_THAT(std::string(out.status().message()), HasSubstr("cannot run /nonexistent/sacct"));
  auto killed = RunCommand({"/bin/sh", "-c", "kill -TERM $$"}, {});
  ASSERT_FALSE(killed.ok());
  EXPECT_THAT(std::string(killed.status().message()), HasSubstr("killed by signal 15"));
  // Large output on both streams does not dead-lock.
  auto big = RunCommand({"/bin/sh", "-c", "head -c 300000 /dev/zero | tr '\\0' a; "
                                          "head -c 300000 /dev/zero | tr '\\0' b >&2"},
                        {"X=1"});
  ASSERT_TRUE(big.ok()) << big.status().ToString();
  EXPECT_EQ(big->out.size(), 300000u);
  EXPECT_EQ(big->err.size(), 300000u);
}

}  // namespace
}  // namespace gpucost::slurm
