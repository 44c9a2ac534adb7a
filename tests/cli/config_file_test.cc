// Configuration files (config_file.h): keys are flag names, the command line wins, mistakes are
// named by file and line; the printed defaults are a valid file of every setting; docs/config.md
// is what `gpucost config docs serve` prints.
#include "cli/config_file.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "cli/cli_test_util.h"

namespace gpucost::cli {
namespace {

using testing_util::Contains;
using testing_util::RunShell;
using testing_util::TempDir;

struct Flags {
  std::string config;
  std::string interval = "1m";
  int warnings = 20;
  std::vector<std::string> inputs;
  bool kube = false;
  std::string listen = "127.0.0.1:9464";
};

// A command shaped like serve's, parsed from `args`, then given the file.
class Command {
 public:
  Command() {
    cmd_ = app_.add_subcommand("serve");
    AddConfigFileOption(*cmd_, flags.config);
    cmd_->add_option("--interval", flags.interval, "How often")->capture_default_str();
    cmd_->add_option("--max-warnings", flags.warnings, "Warnings")->capture_default_str();
    cmd_->add_option("--input", flags.inputs, "Files");
    cmd_->add_flag("--kube", flags.kube, "Kubernetes API");
    cmd_->add_option("--listen", flags.listen, "Where")->capture_default_str()->group("Server");
    cmd_->add_flag("--check-config", check_, "Check")->configurable(false);
  }
  Status Apply(std::vector<std::string> args, ConfigOrigins* origins = nullptr) {
    args.insert(args.begin(), "serve");
    std::reverse(args.begin(), args.end());
    app_.parse(args);
    return ApplyConfigFile(*cmd_, flags.config, origins);
  }
  const CLI::App& cmd() const { return *cmd_; }
  Flags flags;

 private:
  CLI::App app_;
  CLI::App* cmd_;
  bool check_ = false;
};

TEST(ConfigFile, SetsTheFlagsItNamesAndTheCommandLineWins) {
  TempDir dir;
  const std::string file = dir.Write(
      "serve.yaml",
      "# comment\ninterval: 5m\nmax-warnings: 3\ninput: [a.prom, b.prom]\nkube: true\n"
      "listen: 0.0.0.0:9000\n");
  Command c;
  ASSERT_TRUE(c.Apply({"--config", file, "--listen", "127.0.0.1:1"}).ok());
  EXPECT_EQ(c.flags.interval, "5m");
  EXPECT_EQ(c.flags.warnings, 3);
  EXPECT_EQ(c.flags.inputs, (std::vector<std::string>{"a.prom", "b.prom"}));
  EXPECT_TRUE(c.flags.kube);
  EXPECT_EQ(c.flags.listen, "127.0.0.1:1");  // the command line wins
}

TEST(ConfigFile, AKeyWithoutValueKeepsTheDefaultAndNoFileChangesNothing) {
  TempDir dir;
  Command c;
  ASSERT_TRUE(c.Apply({"--config", dir.Write("a.yaml", "interval:\n")}).ok());
  EXPECT_EQ(c.flags.interval, "1m");
  Command empty;
  ASSERT_TRUE(empty.Apply({"--config", dir.Write("b.yaml", "")}).ok());
  Command none;
  ASSERT_TRUE(none.Apply({}).ok());
  EXPECT_EQ(none.flags.warnings, 20);
}

TEST(ConfigFile, MistakesAreNamedByFileAndLine) {
  TempDir dir;
  const struct {
    std::string text;
    std::string message;
  } cases[] = {
      {"interval: 1m\nintervall: 2m\n", "b.yaml:2: intervall: no such setting of gpucost serve "
                                        "(did you mean interval?)"},
      {"interval: [1m, 2m]\n", "b.yaml:1: interval: takes one value, not a list"},
      {"listen:\n  host: a\n", "b.yaml:1: listen: a value or a list of values is expected, not a "
                               "map"},
      {"max-warnings: many\n", "b.yaml:1: max-warnings: "},
      {"interval: 1m\n listen: x: y\n", "b.yaml:2:"},
      {"- interval\n", "a map of settings (key: value) is expected"},
      {"check-config: true\n", "b.yaml:1: check-config: no such setting"},
      {"config: other.yaml\n", "b.yaml:1: config: no such setting"},
  };
  for (const auto& [text, message] : cases) {
    Command c;
    const Status s = c.Apply({"--config", dir.Write("b.yaml", text)});
    EXPECT_FALSE(s.ok()) << text;
    EXPECT_TRUE(Contains(std::string(s.message()), message)) << s.message();
  }
  Command missing;
  EXPECT_TRUE(Contains(std::string(missing.Apply({"--config", "/nonexistent.yaml"}).message()),
                       "/nonexistent.yaml: cannot read"));
}

// yaml-cpp keeps both entries of a repeated key; the first used to win silently.
TEST(ConfigFile, AKeyGivenTwiceIsAnErrorNamingBothLines) {
  TempDir dir;
  Command c;
  const std::string file =
      dir.Write("twice.yaml", "interval: 5m\nmax-warnings: 3\ninterval: 10m\n");
  const Status s = c.Apply({"--config", file});
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(s.message(), file + ":3: interval: duplicate key, first given on line 1");
}

// A value the command refuses once it reads its flags is named by the line that gave it; the
// same message about a flag from the command line (or about another flag) is left as it is.
TEST(ConfigFile, OriginsNameTheLineOfAValueTheCommandRefusesLater) {
  TempDir dir;
  const std::string file =
      dir.Write("c3.yaml", "# serve\ninterval: banana\nmax-warnings: 3\nlisten: 0.0.0.0:1\n");
  Command c;
  ConfigOrigins origins;
  ASSERT_TRUE(c.Apply({"--config", file, "--listen", "x"}, &origins).ok());
  const auto located = [&origins](std::string message) {
    return std::string(origins.Locate(Status::InvalidArgument(std::move(message))).message());
  };
  EXPECT_EQ(located("--interval \"banana\": a positive duration (1m)"),
            file + ":2: interval: \"banana\": a positive duration (1m)");
  EXPECT_EQ(located("--max-warnings: must be at most 10"),
            file + ":3: max-warnings: must be at most 10");
  EXPECT_EQ(located("--max-warnings must be more than --interval"),
            file + ":3: max-warnings: must be more than --interval");
  EXPECT_EQ(located("--listen x: no port"), "--listen x: no port");    // the command line won
  EXPECT_EQ(located("--input FILE: needed"), "--input FILE: needed");  // not in the file
  EXPECT_EQ(located("cannot open the ledger: --interval"), "cannot open the ledger: --interval");
  EXPECT_EQ(origins.Locate(Status::IoError("--interval: x")).code(), StatusCode::kIoError);
  EXPECT_TRUE(origins.Locate(Status::Ok()).ok());
}

TEST(ConfigFile, TheDefaultsFileListsEverySettingAndReadsBackUnchanged) {
  Command c;
  const std::string yaml = DefaultsYaml(c.cmd());
  for (const std::string key : {"interval: 1m", "max-warnings: 20", "# input: []",
                                "kube: false", "listen: 127.0.0.1:9464", "# --- Server ---"}) {
    EXPECT_TRUE(Contains(yaml, "\n" + key + "\n")) << key << " in\n" << yaml;
  }
  EXPECT_FALSE(Contains(yaml, "check-config"));
  TempDir dir;
  Command back;
  ASSERT_TRUE(back.Apply({"--config", dir.Write("d.yaml", yaml)}).ok());
  EXPECT_EQ(back.flags.interval, "1m");
  EXPECT_EQ(back.flags.warnings, 20);
  EXPECT_FALSE(back.flags.kube);
}

TEST(ConfigCommand, ServesDefaultsAreAValidConfigurationOnceALedgerAndASourceAreNamed) {
  TempDir dir;
  const auto printed = RunShell(kBinary + " config print-defaults serve");
  ASSERT_EQ(printed.exit_code, 0);
  for (const std::string key : {"interval: 1m", "grace: auto", "listen: 127.0.0.1:9464",
                                "# prometheus:", "# tls-cert-file:", "cluster: default"}) {
    EXPECT_TRUE(Contains(printed.output, "\n" + key + "\n")) << key;
  }
  const std::string file =
      dir.Write("serve.yaml", printed.output + "ledger: " + (dir.path() / "c.db").string() +
                                  "\nprometheus: http://prometheus:9090\n");
  const auto checked = RunShell(kBinary + " serve --config " + file + " --check-config 2>&1");
  EXPECT_EQ(checked.exit_code, 0) << checked.output;
  // Validation covers values from the file, and --check-config creates no ledger.
  const std::string bad = dir.Write("bad.yaml", "ledger: x.db\nread-only: true\ngrace: soon\n");
  const auto refused = RunShell(kBinary + " serve --config " + bad + " --check-config 2>&1");
  EXPECT_EQ(refused.exit_code, 2);
  EXPECT_TRUE(Contains(refused.output, bad + ":3: grace: \"soon\"")) << refused.output;
  EXPECT_FALSE(std::filesystem::exists(dir.path() / "c.db"));
  const auto other = RunShell(kBinary + " config print-defaults report 2>&1");
  EXPECT_EQ(other.exit_code, 2);
  EXPECT_TRUE(Contains(other.output, "gpucost report takes no configuration file"));
}

// `serve --check-config` names the file and line of a value it refuses, as it does an unknown
// key; before, it named the flag only ("--interval \"banana\": ..."), and a key given twice was
// valid with its first value.
TEST(ConfigCommand, ServeNamesTheFileAndLineOfARefusedValue) {
  TempDir dir;
  const std::string base =
      "ledger: " + (dir.path() / "c.db").string() + "\nprometheus: http://prometheus:9090\n";
  const struct {
    std::string line;
    std::string says;
  } cases[] = {
      {"interval: banana", ":3: interval: \"banana\": a positive duration (1m)"},
      {"retention: -5d", ":3: retention: \"-5d\": a duration (10m, 0s)"},
      {"step: 0s", ":3: step: \"0s\": a positive duration (1m)"},
      {"price-per-gpu-hour: -5", ":3: price-per-gpu-hour: must be a finite number >= 0, got -5"},
      {"price-per-gpu-hour: 1e306",
       ":3: price-per-gpu-hour: must be at most 1000000 USD an hour (docs/pricing.md, "
       "\"Limits\"), got 1e+306"},
      {"price-per-gpu-hour: 2\nprice-per-gpu-hour: 3",
       ":4: price-per-gpu-hour: duplicate key, first given on line 3"},
  };
  for (const auto& [line, says] : cases) {
    const std::string file = dir.Write("c3.yaml", base + line + "\n");
    const auto r = RunShell(kBinary + " serve --config " + file + " --check-config 2>&1");
    EXPECT_EQ(r.exit_code, 2) << line << "\n" << r.output;
    EXPECT_TRUE(Contains(r.output, file + says)) << line << "\n" << r.output;
  }
  // The same value on the command line is named by its flag.
  const std::string file = dir.Write("ok.yaml", base);
  const auto flag =
      RunShell(kBinary + " serve --config " + file + " --interval banana --check-config 2>&1");
  EXPECT_EQ(flag.exit_code, 2);
  EXPECT_TRUE(Contains(flag.output, "--interval \"banana\": a positive duration (1m)"))
      << flag.output;
  EXPECT_FALSE(std::filesystem::exists(dir.path() / "c.db"));
}

TEST(ConfigCommand, DocsConfigMdIsWhatTheCommandPrints) {
  const auto printed = RunShell(kBinary + " config docs serve");
  ASSERT_EQ(printed.exit_code, 0);
  std::ifstream in(std::string(GPUCOST_SOURCE_DIR) + "/docs/config.md");
  std::stringstream doc;
  doc << in.rdbuf();
  EXPECT_EQ(doc.str(), printed.output)
      << "docs/config.md is stale: run `gpucost config docs serve > docs/config.md`";
  EXPECT_TRUE(Contains(printed.output, "| `interval` | `1m` |"));
  EXPECT_TRUE(Contains(printed.output, "## Server"));
}

}  // namespace
}  // namespace gpucost::cli
