// sacct --parsable2 / -p parsing: fields, steps, arrays, het jobs, states, pending and malformed
// lines (tests/slurm/data holds files shaped like real sacct output).
#include "slurm/sacct_parser.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "core/strings.h"
#include "slurm/slurm_test_util.h"

namespace gpucost::slurm {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

std::string ReadData(std::string_view name) {
  std::ifstream in(DataPath(name));
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

SacctParse Parse(std::string_view text, SacctFormat format = {}, std::string source = "t.txt") {
  if (format.time_zone == "local") format.time_zone = "UTC";
  auto r = ParseSacct(text, format, std::move(source));
  EXPECT_TRUE(r.ok()) << r.status().ToString();
  return r.ok() ? std::move(*r) : SacctParse{};
}

const SacctJob* FindJob(const SacctParse& p, std::string_view id) {
  for (const SacctJob& j : p.jobs) {
    if (j.job_id == id) return &j;
  }
  return nullptr;
}

std::vector<std::string> JobIds(const SacctParse& p) {
  std::vector<std::string> out;
  for (const SacctJob& j : p.jobs) out.push_back(j.job_id);
  return out;
}

int64_t UnixS(Instant t) { return UnixMs(t) / 1000; }

class BasicFileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    SacctFormat f;
    f.time_zone = "Europe/Berlin";
    parsed_ = Parse(ReadData("basic.txt"), f);
  }
  SacctParse parsed_;
};

TEST_F(BasicFileTest, KeepsAllocationRowsAndSkipsStepsPendingAndCpuJobs) {
  EXPECT_THAT(JobIds(parsed_), ElementsAre("1001", "2736118_0", "2736118_1", "77+0", "77+1",
                                           "48412394", "1003", "1005", "1006"));
  EXPECT_EQ(parsed_.lines, 17u);
  EXPECT_EQ(parsed_.steps_skipped, 5u);    // 1001.batch/.extern/.0, 2736118_0.batch, 77+1.0
  EXPECT_EQ(parsed_.pending_skipped, 2u);  // 2736118_[2-9%2], 1002
  EXPECT_EQ(parsed_.no_gpu_skipped, 1u);   // 1004
  EXPECT_EQ(parsed_.malformed_lines, 0u);
  EXPECT_TRUE(parsed_.warnings.empty());
}

TEST_F(BasicFileTest, DoubleCountedTresIsOneGpu) {
  const SacctJob* j = FindJob(parsed_, "1001");
  ASSERT_NE(j, nullptr);
  EXPECT_EQ(j->gpus.total(), 1);
  EXPECT_EQ(j->user, "alice");
  EXPECT_EQ(j->account, "physics");
  EXPECT_EQ(j->partition, "gpu");
  EXPECT_EQ(j->qos, "normal");
  EXPECT_EQ(j->cluster, "hpc1");
  EXPECT_EQ(j->job_name, "train-a");
  EXPECT_EQ(j->elapsed, std::chrono::hours(2));
  EXPECT_THAT(j->nodes, ElementsAre("gpu01"));
}

TEST_F(BasicFileTest, StartAndEndAreReadInTheClusterTimeZone) {
  const SacctJob* j = FindJob(parsed_, "1001");
  ASSERT_NE(j, nullptr);
  // 2026-03-02T10:00:00 in Berlin (CET, +01:00) is 09:00Z.
  EXPECT_EQ(UnixS(j->start), 1772409600 + 9 * 3600);
  ASSERT_TRUE(j->end.has_value());
  EXPECT_EQ(UnixS(*j->end), 1772409600 + 11 * 3600);
}

TEST_F(BasicFileTest, ArrayTasksAreOwnJobsWithArrayIds) {
  const SacctJob* t0 = FindJob(parsed_, "2736118_0");
  const SacctJob* t1 = FindJob(parsed_, "2736118_1");
  ASSERT_NE(t0, nullptr);
  ASSERT_NE(t1, nullptr);
  EXPECT_EQ(t0->array_job_id, "2736118");
  EXPECT_EQ(t0->array_task_id, "0");
  EXPECT_EQ(t0->job_id_raw, "2736118");
  EXPECT_EQ(t1->array_task_id, "1");
  EXPECT_EQ(t1->job_id_raw, "2736119");
  EXPECT_EQ(t0->gpus.total(), 1);
}

TEST_F(BasicFileTest, HetJobComponentsKeepTheirOwnTresAndNodes) {
  const SacctJob* c0 = FindJob(parsed_, "77+0");
  const SacctJob* c1 = FindJob(parsed_, "77+1");
  ASSERT_NE(c0, nullptr);
  ASSERT_NE(c1, nullptr);
  EXPECT_EQ(c0->het_job_id, "77");
  EXPECT_EQ(c0->het_job_offset, 0);
  EXPECT_EQ(c1->het_job_offset, 1);
  EXPECT_EQ(c0->gpus.total(), 2);
  EXPECT_EQ(c1->gpus.total(), 1);
  EXPECT_THAT(c0->nodes, ElementsAre("gpu03"));
  EXPECT_THAT(c1->nodes, ElementsAre("gpu04"));
}

TEST_F(BasicFileTest, StatesDropTheirSuffix) {
  EXPECT_EQ(FindJob(parsed_, "48412394")->state, "CANCELLED");
  EXPECT_EQ(FindJob(parsed_, "1006")->state, "COMPLETED");
  EXPECT_EQ(FindJob(parsed_, "1005")->state, "TIMEOUT");
}

TEST_F(BasicFileTest, RunningJobHasNoEnd) {
  const SacctJob* j = FindJob(parsed_, "1003");
  ASSERT_NE(j, nullptr);
  EXPECT_EQ(j->state, "RUNNING");
  EXPECT_FALSE(j->end.has_value());
}

TEST_F(BasicFileTest, MultiNodeNodeLists) {
  EXPECT_THAT(FindJob(parsed_, "1005")->nodes, ElementsAre("gpu05", "gpu06"));
  EXPECT_EQ(FindJob(parsed_, "1005")->gpus.total(), 8);
  EXPECT_THAT(FindJob(parsed_, "1006")->nodes, ElementsAre("gpu05", "gpu06"));
}

TEST(SacctParserTest, TrailingDelimiterOfDashP) {
  const SacctParse p = Parse(ReadData("mig_p.txt"));
  EXPECT_THAT(JobIds(p), ElementsAre("501", "502", "503"));
  EXPECT_EQ(p.malformed_lines, 0u);
  EXPECT_THAT(p.jobs[0].nodes, ElementsAre("mig01"));
  EXPECT_EQ(p.jobs[0].state, "COMPLETED");
}

TEST(SacctParserTest, ParsableTwoKeepsAnEmptyLastField) {
  const SacctParse p = Parse(
      "JobID|AllocTRES|Start|End|NodeList|JobName\n"
      "9|gres/gpu=1|2026-03-02T00:00:00|2026-03-02T01:00:00|n1|\n");
  ASSERT_EQ(p.jobs.size(), 1u);
  EXPECT_EQ(p.jobs[0].job_name, "");
  EXPECT_EQ(p.malformed_lines, 0u);
}

TEST(SacctParserTest, FieldsInAnyOrderAnyCaseAndMissingOptionalOnes) {
  const SacctParse p = Parse(
      "nodelist|end|start|alloctres|jobid\n"
      "gpu[1-2]|2026-03-02T01:00:00|2026-03-02T00:00:00|gres/gpu=4|42\n");
  ASSERT_EQ(p.jobs.size(), 1u);
  EXPECT_EQ(p.jobs[0].job_id, "42");
  EXPECT_EQ(p.jobs[0].job_id_raw, "42");
  EXPECT_EQ(p.jobs[0].gpus.total(), 4);
  EXPECT_THAT(p.jobs[0].nodes, ElementsAre("gpu1", "gpu2"));
  EXPECT_EQ(p.jobs[0].account, "");
}

TEST(SacctParserTest, HeaderlessOutputWithAnotherDelimiter) {
  SacctFormat f;
  f.delimiter = ',';
  f.fields = {"JobID", "AllocTRES", "Start", "End", "NodeList", "State"};
  const SacctParse p = Parse(
      "7;gres/gpu=1;2026-03-02T00:00:00;2026-03-02T01:00:00;n1;COMPLETED\n", f);
  EXPECT_TRUE(p.jobs.empty());  // wrong delimiter: a column-count warning
  EXPECT_EQ(p.malformed_lines, 1u);
  const SacctParse q = Parse(
      "JobID,AllocTRES,Start,End,NodeList,State\n"
      "7,\"cpu=1\",2026-03-02T00:00:00,2026-03-02T01:00:00,n1,COMPLETED\n"
      "8,gres/gpu=2,2026-03-02T00:00:00,2026-03-02T01:00:00,n1,COMPLETED\n",
      f);
  // A TRES list holds commas, so ',' as delimiter breaks lines that have more than one TRES:
  // those are column-count warnings, the rest is read.
  ASSERT_EQ(q.jobs.size(), 1u);
  EXPECT_EQ(q.jobs[0].job_id, "8");
  EXPECT_EQ(q.no_gpu_skipped, 1u);
  SacctFormat semi;
  semi.delimiter = ';';
  semi.fields = f.fields;
  const SacctParse r = Parse(
      "7;billing=1,cpu=1,gres/gpu=1;2026-03-02T00:00:00;2026-03-02T01:00:00;n1;COMPLETED\n", semi);
  ASSERT_EQ(r.jobs.size(), 1u);
  EXPECT_EQ(r.jobs[0].gpus.total(), 1);
}

TEST(SacctParserTest, MissingRequiredFieldIsAnErrorNamingIt) {
  SacctFormat f;
  f.time_zone = "UTC";
  auto r = ParseSacct("JobID|AllocTRES|Start|End|State\n1|gres/gpu=1|x|y|RUNNING\n", f, "a.txt");
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(std::string(r.status().message()), HasSubstr("NodeList"));
  EXPECT_THAT(std::string(r.status().message()), HasSubstr("a.txt:1"));
  auto empty = ParseSacct("\n# only a comment\n", f, "b.txt");
  ASSERT_FALSE(empty.ok());
  EXPECT_THAT(std::string(empty.status().message()), HasSubstr("header"));
  f.time_zone = "Nowhere/Atlantis";
  EXPECT_FALSE(ParseSacct("JobID|AllocTRES|Start|End|NodeList\n", f).ok());
}

TEST(SacctParserTest, MalformedLinesAreWarningsWithFileLineAndField) {
  const std::string path = DataPath("malformed.txt");
  const SacctParse p = Parse(ReadData("malformed.txt"), {}, path);
  EXPECT_THAT(JobIds(p), ElementsAre("601", "607"));
  EXPECT_EQ(p.malformed_lines, 6u);
  std::vector<std::string> text;
  for (const InputWarning& w : p.warnings) text.push_back(w.ToString());
  ASSERT_EQ(text.size(), 7u);
  EXPECT_THAT(text[0], HasSubstr(path + ":3: AllocTRES"));
  EXPECT_THAT(text[1], HasSubstr(path + ":4: Start"));
  EXPECT_THAT(text[2], HasSubstr(path + ":5: NodeList"));
  EXPECT_THAT(text[3], HasSubstr(path + ":6: line has 7 fields, the header names 8"));
  EXPECT_THAT(text[4], HasSubstr(path + ":7: End"));
  EXPECT_THAT(text[4], HasSubstr("before Start"));
  EXPECT_THAT(text[5], HasSubstr(path + ":8: JobID"));
  EXPECT_THAT(text[6], HasSubstr(path + ":9: Elapsed"));  // kept: Elapsed is informational
}

TEST(SacctParserTest, RepeatedProblemsAreListedThenCounted) {
  std::string text = "JobID|AllocTRES|Start|End|NodeList\n";
  for (int i = 0; i < 25; ++i) text += StrCat(i + 1, "|gres/gpu=1|bad|Unknown|n1\n");
  const SacctParse p = Parse(text);
  EXPECT_EQ(p.malformed_lines, 25u);
  ASSERT_EQ(p.warnings.size(), 10u);
  EXPECT_EQ(p.warnings[0].line, 2u);
  EXPECT_EQ(p.warnings[9].line, 11u);
  EXPECT_EQ(p.warnings[9].count, 16u);
}

// Rows no job could write are skipped with their file, line and field, and the rest kept: GPU
// counts past any job (a billion GPUs took all memory; a million on one node cost $2,000,004 for
// an hour), and times outside 2000-2100 (End=9999-12-31 took minutes, then failed).
TEST(SacctParserTest, AbsurdCountsAndTimesAreCorruptRowsNotJobs) {
  const std::string text =
      "JobID|AllocTRES|Start|End|NodeList\n"
      "1|gres/gpu=1000000000|2026-10-01T00:00:00|2026-10-01T01:00:00|n1\n"
      "2|gres/gpu=99999999999|2026-10-01T00:00:00|2026-10-01T01:00:00|n1\n"
      "3|gres/gpu=1000000|2026-10-01T00:00:00|2026-10-01T01:00:00|n1\n"
      "4|gres/gpu=1|2026-10-01T00:00:00|9999-12-31T23:59:59|n1\n"
      "5|gres/gpu=1|1900-01-01T00:00:00|2026-10-01T01:00:00|n1\n"
      "6|gres/gpu=1|1970-01-01T00:00:00|2026-10-01T01:00:00|n1\n"
      "7|gres/gpu=8|2026-10-01T00:00:00|2026-10-01T01:00:00|n1\n"
      "8|gres/gpu:a100=700000,gres/"
      "gpu:h100=700000|2026-10-01T00:00:00|2026-10-01T01:00:00|n[1-40]\n";
  const SacctParse p = Parse(text);
  EXPECT_THAT(JobIds(p), ElementsAre("7"));
  EXPECT_EQ(p.malformed_lines, 7u);
  std::vector<std::string> said;
  for (const InputWarning& w : p.warnings) said.push_back(w.ToString());
  ASSERT_EQ(said.size(), 7u);
  EXPECT_THAT(said[0], HasSubstr("t.txt:2: AllocTRES"));
  EXPECT_THAT(said[0], HasSubstr("more GPUs than a job holds"));
  EXPECT_THAT(said[1], HasSubstr("t.txt:3: AllocTRES"));
  EXPECT_THAT(said[1], HasSubstr("more GPUs than a job holds"));
  EXPECT_THAT(said[2], HasSubstr("t.txt:4: AllocTRES: 1000000 GPUs on 1 node(s)"));
  EXPECT_THAT(said[3], HasSubstr("t.txt:5: End"));
  EXPECT_THAT(said[3], HasSubstr("outside 2000-01-01 to 2100-01-01"));
  EXPECT_THAT(said[4], HasSubstr("t.txt:6: Start"));
  EXPECT_THAT(said[5], HasSubstr("t.txt:7: Start"));
  EXPECT_THAT(said[6], HasSubstr("t.txt:9: AllocTRES: the typed GPU counts add up"));
}

// Accounting records what happened: a Start or End after now (a day's slack for clocks) is a
// corrupt row, said with its line (End=2096 for 2026 billed 70 years of every node: $18 M).
TEST(SacctParserTest, TimesInTheFutureAreCorruptRows) {
  SacctFormat format;
  format.not_after = *ParseInstant("2026-10-02T00:00:00Z");
  const SacctParse p = Parse(
      "JobID|AllocTRES|Start|End|NodeList\n"
      "1|gres/gpu=1|2026-10-01T00:00:00|2096-10-01T01:00:00|n1\n"
      "2|gres/gpu=1|2026-10-03T00:00:00|Unknown|n1\n"
      "3|gres/gpu=1|2026-10-01T00:00:00|2026-10-02T00:00:00|n1\n"
      "4|gres/gpu=1|2026-10-01T00:00:00|Unknown|n1\n",
      format);
  EXPECT_THAT(JobIds(p), ElementsAre("3", "4"));
  EXPECT_EQ(p.malformed_lines, 2u);
  ASSERT_EQ(p.warnings.size(), 2u);
  EXPECT_THAT(p.warnings[0].ToString(),
              HasSubstr("t.txt:2: End: \"2096-10-01T01:00:00\" is in the future (after "
                        "2026-10-02T00:00:00Z); line skipped"));
  EXPECT_THAT(p.warnings[1].ToString(), HasSubstr("t.txt:3: Start"));
}

// A RUNNING job without a Start is a damaged row, said; a job cancelled while pending is pending.
TEST(SacctParserTest, ARunningJobWithoutAStartIsSaid) {
  const SacctParse p = Parse(
      "JobID|State|AllocTRES|Start|End|NodeList\n"
      "1|RUNNING|gres/gpu=1|Unknown|Unknown|n1\n"
      "2|CANCELLED by 0|gres/gpu=1|None|2026-10-01T01:00:00|None assigned\n"
      "3|COMPLETED|gres/gpu=1|Unknown|2026-10-01T01:00:00|n1\n");
  EXPECT_TRUE(p.jobs.empty());
  EXPECT_EQ(p.pending_skipped, 1u);
  ASSERT_EQ(p.warnings.size(), 2u);
  EXPECT_THAT(p.warnings[0].ToString(), HasSubstr("t.txt:2: Start: \"Unknown\" for a RUNNING job"));
  EXPECT_THAT(p.warnings[1].ToString(),
              HasSubstr("t.txt:4: Start: \"Unknown\" for a COMPLETED job"));
}

// A file saved with a UTF-8 byte order mark: the header's first field is JobID all the same.
TEST(SacctParserTest, AByteOrderMarkIsNotPartOfTheHeader) {
  const SacctParse p = Parse(
      "\xEF\xBB\xBFJobID|AllocTRES|Start|End|NodeList\n"
      "1|gres/gpu=1|2026-10-01T00:00:00|2026-10-01T01:00:00|n1\n");
  EXPECT_THAT(JobIds(p), ElementsAre("1"));
  EXPECT_TRUE(p.warnings.empty());
}

// One job written twice (overlapping sacct dumps put together) is held once, with a warning: the
// row that says when it ended wins over the one taken while it ran; a requeued job (another
// Start) and another cluster's job of the same id are other jobs.
TEST(SacctParserTest, AJobWrittenTwiceIsHeldOnce) {
  const std::string text =
      "JobID|JobIDRaw|Cluster|AllocTRES|Start|End|NodeList\n"
      "10|10|c1|gres/gpu=1|2026-10-01T00:00:00|2026-10-01T02:00:00|n1\n"
      "10|10|c1|gres/gpu=1|2026-10-01T00:00:00|2026-10-01T02:00:00|n1\n"
      "11|11|c1|gres/gpu=2|2026-10-01T00:00:00|Unknown|n2\n"
      "11|11|c1|gres/gpu=2|2026-10-01T00:00:00|2026-10-01T03:00:00|n2\n"
      "12|12|c1|gres/gpu=1|2026-10-01T00:00:00|2026-10-01T01:00:00|n3\n"
      "12|12|c1|gres/gpu=1|2026-10-01T05:00:00|2026-10-01T06:00:00|n3\n"
      "12|12|c2|gres/gpu=1|2026-10-01T00:00:00|2026-10-01T01:00:00|n3\n"
      "13|13|c1|gres/gpu=1|2026-10-01T00:00:00|2026-10-01T04:00:00|n4\n"
      "13|13|c1|gres/gpu=1|2026-10-01T00:00:00|2026-10-01T02:00:00|n4\n";
  const SacctParse p = Parse(text);
  EXPECT_THAT(JobIds(p), ElementsAre("10", "11", "12", "12", "12", "13"));
  ASSERT_TRUE(p.jobs.back().end.has_value());  // of two Ends the later, whatever the order
  EXPECT_EQ(FormatRfc3339(*p.jobs.back().end), "2026-10-01T04:00:00Z");
  ASSERT_GE(p.jobs.size(), 2u);
  ASSERT_TRUE(p.jobs[1].end.has_value());
  EXPECT_EQ(FormatRfc3339(*p.jobs[1].end), "2026-10-01T03:00:00Z");
  std::vector<std::string> said;
  for (const InputWarning& w : p.warnings) said.push_back(w.ToString());
  ASSERT_EQ(said.size(), 3u);
  EXPECT_THAT(said[2], HasSubstr("t.txt:10: job 13"));
  EXPECT_THAT(said[2], HasSubstr("held once, as on line 9"));
  EXPECT_THAT(said[0],
              HasSubstr("t.txt:3: job 10 started at 2026-10-01T00:00:00Z is on line 2 too; "
                        "held once, as on line 2"));
  EXPECT_THAT(said[1], HasSubstr("t.txt:5: job 11"));
  EXPECT_THAT(said[1], HasSubstr("held once, as on line 5"));
}

}  // namespace
}  // namespace gpucost::slurm
