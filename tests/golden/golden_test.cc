// Walks tests/golden/cases/*/: each case holds `input/` (exposition files), `args` (extra
// `gpucost report` flags, one line), `expected.json` and a README saying what the case proves.
// Runs the real binary and compares its JSON with the expected document: every key the expected
// document names must match (strings, booleans and nulls exactly, numbers to 1e-9 relative; arrays
// element by element and of the same length); keys it does not name are not checked, so an
// expected file states exactly the facts its case proves. Expected files are computed
// independently of the C++ code (tests/golden/generate.py) and checked by hand. GPUCOST_GOLDEN_SHOW=1 prints the full output.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "common/sanitizer.h"

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

const fs::path kCases = fs::path(GPUCOST_SOURCE_DIR) / "tests" / "golden" / "cases";

std::string ReadFile(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

struct RunResult {
  int exit_code = -1;
  std::string out;
};

RunResult RunCommand(const std::string& command) {
  RunResult r;
  FILE* pipe = ::popen(gpucost::testing_util::OneShotCommand(command).c_str(), "r");
  if (!pipe) return r;
  char buf[65536];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, pipe)) > 0) r.out.append(buf, n);
  const int status = ::pclose(pipe);
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

void Compare(const json& got, const json& want, const std::string& path,
             std::vector<std::string>& diffs) {
  if (diffs.size() > 20) return;
  if (want.is_number() && got.is_number()) {
    const double a = got.get<double>(), b = want.get<double>();
    if (std::fabs(a - b) > 1e-9 * std::max({1.0, std::fabs(a), std::fabs(b)})) {
      diffs.push_back(path + ": got " + got.dump() + ", want " + want.dump());
    }
    return;
  }
  if (got.type() != want.type()) {
    diffs.push_back(path + ": got " + got.dump() + ", want " + want.dump());
    return;
  }
  if (want.is_object()) {
    for (const auto& [k, v] : want.items()) {
      if (!got.contains(k)) {
        diffs.push_back(path + "." + k + ": missing");
      } else {
        Compare(got[k], v, path + "." + k, diffs);
      }
    }
  } else if (want.is_array()) {
    if (got.size() != want.size()) {
      diffs.push_back(path + ": got " + std::to_string(got.size()) + " elements, want " +
                      std::to_string(want.size()) + "; got " + got.dump());
      return;
    }
    for (size_t i = 0; i < want.size(); ++i) {
      Compare(got[i], want[i], path + "[" + std::to_string(i) + "]", diffs);
    }
  } else if (got != want) {
    diffs.push_back(path + ": got " + got.dump() + ", want " + want.dump());
  }
}

std::vector<std::string> CaseNames() {
  std::vector<std::string> names;
  if (!fs::exists(kCases)) return names;
  for (const auto& e : fs::directory_iterator(kCases)) {
    if (e.is_directory()) names.push_back(e.path().filename().string());
  }
  std::sort(names.begin(), names.end());
  return names;
}

// The case's report of the files in `input` compared with its expected document.
void ExpectReport(const fs::path& dir, const fs::path& input) {
  std::string args = fs::exists(dir / "args") ? ReadFile(dir / "args") : "";
  while (!args.empty() && (args.back() == '\n' || args.back() == ' ')) args.pop_back();
  // `${CASE}` in args names the case's own folder (for files such as prices.yaml).
  for (size_t p = args.find("${CASE}"); p != std::string::npos; p = args.find("${CASE}")) {
    args.replace(p, 7, dir.string());
  }
  const std::string cmd = std::string(GPUCOST_BINARY) + " report --input '" + input.string() +
                          "' --format json " + args + " 2>/dev/null";
  const RunResult r = RunCommand(cmd);
  ASSERT_EQ(r.exit_code, 0) << cmd << "\n" << r.out;
  json got;
  ASSERT_NO_THROW(got = json::parse(r.out)) << r.out;
  if (std::getenv("GPUCOST_GOLDEN_SHOW")) std::cout << got.dump(2) << "\n";
  ASSERT_TRUE(fs::exists(dir / "expected.json"));
  const json want = json::parse(ReadFile(dir / "expected.json"));
  std::vector<std::string> diffs;
  Compare(got, want, "$", diffs);
  std::string all;
  for (const auto& d : diffs) all += "  " + d + "\n";
  EXPECT_TRUE(diffs.empty()) << cmd << "\n" << all;
}

// The last space-separated field of a sample line: its timestamp (the line itself when none).
std::string TimestampOf(const std::string& line) {
  const size_t close = line.rfind('}');
  const size_t sp = line.rfind(' ');
  return sp == std::string::npos || (close != std::string::npos && sp < close)
             ? std::string()
             : line.substr(sp + 1);
}

// `text` with each run of sample lines (between metadata lines) ordered by timestamp, stably:
// series interleaved as scrapes write them, where the case files list each series' samples
// together.
std::string TimeMajor(const std::string& text) {
  std::istringstream in(text);
  std::vector<std::string> out, run;
  const auto flush = [&] {
    std::stable_sort(run.begin(), run.end(), [](const std::string& a, const std::string& b) {
      const std::string ta = TimestampOf(a), tb = TimestampOf(b);
      return ta.size() != tb.size() ? ta.size() < tb.size() : ta < tb;
    });
    out.insert(out.end(), run.begin(), run.end());
    run.clear();
  };
  for (std::string line; std::getline(in, line);) {
    if (line.empty() || line[0] == '#') {
      flush();
      out.push_back(line);
    } else {
      run.push_back(line);
    }
  }
  flush();
  std::string joined;
  for (const std::string& l : out) joined += l + "\n";
  return joined;
}

class Golden : public testing::TestWithParam<std::string> {};

TEST_P(Golden, ReportMatchesExpected) {
  const fs::path dir = kCases / GetParam();
  ASSERT_TRUE(fs::exists(dir / "README.md")) << "every golden case says what it proves";
  ExpectReport(dir, dir / "input");
}

// The same report whichever order the samples come in: grouped by series (as a remote-read
// response streams them, and as the case files are written) or interleaved by scrape.
TEST_P(Golden, ReportDoesNotDependOnTheOrderOfSamples) {
  const fs::path dir = kCases / GetParam();
  const fs::path input = fs::temp_directory_path() /
                         ("gpucost-golden-" + GetParam() + "-" + std::to_string(::getpid()));
  fs::remove_all(input);
  fs::create_directories(input);
  for (const auto& e : fs::directory_iterator(dir / "input")) {
    std::ofstream(input / e.path().filename()) << TimeMajor(ReadFile(e.path()));
  }
  ExpectReport(dir, input);
  fs::remove_all(input);
}

INSTANTIATE_TEST_SUITE_P(Cases, Golden, testing::ValuesIn(CaseNames()),
                         [](const testing::TestParamInfo<std::string>& param_info) {
                           std::string n = param_info.param;
                           for (char& c : n) {
                             if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
                           }
                           return n;
                         });
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(Golden);

}  // namespace
