// ProcTable over a fake /proc tree: each cgroup format, an exited process, a reused PID, command
// names with spaces and parentheses, caching and pruning, unreadable and malformed files; and
// once over the real /proc.
#include <unistd.h>

#include <fstream>
#include <sstream>
#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "agent/fake_proc.h"
#include "agent/proc_table.h"
#include "core/strings.h"

namespace gpucost::agent {
namespace {

using ::testing::HasSubstr;
using testing_util::FakeProc;
using testing_util::FakeStatLine;

constexpr char kProcIdA[] = "5dd96d5394ca930a854a390ea46f7515a8bc930123eb3251ba20f2708a38fc61";
constexpr char kProcIdB[] = "d6d725b909f37c3e232aadfbafa950a58bfe7baa579ba8c47a12be88bb921607";

const std::string kContainerdV1 =
    std::string("12:pids:/kubepods/besteffort/poda36d0c1d-0b26-4451-8d80-9c195e004afa/") +
    kProcIdA + "\n11:memory:/kubepods/besteffort/poda36d0c1d-0b26-4451-8d80-9c195e004afa/" +
    kProcIdA + "\n1:name=systemd:/kubepods/besteffort/poda36d0c1d-0b26-4451-8d80-9c195e004afa/" +
    kProcIdA + "\n";
const std::string kCrioV1 =
    std::string(
        "3:memory:/kubepods.slice/kubepods-besteffort.slice/"
        "kubepods-besteffort-pod8ca306fa_3c03_47fa_97dd_19979c345572.slice/crio-") +
    kProcIdB + ".scope\n6:rdma:/\n";
const std::string kContainerdV2 =
    "0::/kubepods.slice/kubepods-burstable.slice/"
    "kubepods-burstable-poda9c80282_3f6b_4d5b_84d5_a137a6668011.slice/cri-containerd-" +
    std::string(kProcIdA) + ".scope\n";
const std::string kColonForm =
    "8:cpu,cpuacct:/system.slice/containerd.service/"
    "kubepods-besteffort-pod2105e389_7471_476e_a50f_6074cef29bbd.slice:cri-containerd:" +
    std::string(kProcIdB) +
    "\n7:cpuset:/kubepods-besteffort-pod2105e389_7471_476e_a50f_6074cef29bbd.slice:"
    "cri-containerd:" +
    kProcIdB + "\n";
const std::string kSlurmV2 = "0::/system.slice/slurmstepd.scope/job_3385/step_0/user/task_0\n";
const std::string kHost = "0::/user.slice/user-1000.slice/session-3.scope\n";

ProcessInfo MustIdentify(ProcTable& table, uint32_t pid) {
  auto r = table.Identify(pid);
  EXPECT_TRUE(r.ok()) << r.status().ToString();
  return r.ok() ? *r : ProcessInfo{};
}

TEST(ProcTable, IdentifiesEachFormat) {
  FakeProc proc;
  proc.Add(101, kContainerdV1, 1001);
  proc.Add(102, kCrioV1, 1002);
  proc.Add(103, kContainerdV2, 1003);
  proc.Add(104, kColonForm, 1004);
  proc.Add(105, kSlurmV2, 1005);
  proc.Add(106, kHost, 1006);
  ProcTable table(proc.root().string());

  ProcessInfo p = MustIdentify(table, 101);
  EXPECT_TRUE(p.exists);
  EXPECT_EQ(p.start_time_ticks, 1001u);
  EXPECT_EQ(p.identity.pod_uid, "a36d0c1d-0b26-4451-8d80-9c195e004afa");
  EXPECT_EQ(p.identity.container_id, kProcIdA);
  EXPECT_EQ(p.identity.runtime, "containerd");

  p = MustIdentify(table, 102);
  EXPECT_EQ(p.start_time_ticks, 1002u);
  EXPECT_EQ(p.identity.pod_uid, "8ca306fa-3c03-47fa-97dd-19979c345572");
  EXPECT_EQ(p.identity.container_id, kProcIdB);
  EXPECT_EQ(p.identity.runtime, "cri-o");

  p = MustIdentify(table, 103);
  EXPECT_EQ(p.identity.pod_uid, "a9c80282-3f6b-4d5b-84d5-a137a6668011");
  EXPECT_EQ(p.identity.container_id, kProcIdA);
  EXPECT_EQ(p.identity.qos, "burstable");

  p = MustIdentify(table, 104);
  EXPECT_EQ(p.identity.pod_uid, "2105e389-7471-476e-a50f-6074cef29bbd");
  EXPECT_EQ(p.identity.container_id, kProcIdB);

  p = MustIdentify(table, 105);
  EXPECT_TRUE(p.exists);
  EXPECT_FALSE(p.identity.kubernetes());
  EXPECT_EQ(p.identity.slurm_job, "3385");
  EXPECT_EQ(p.identity.slurm_step, "0");

  p = MustIdentify(table, 106);
  EXPECT_TRUE(p.exists);
  EXPECT_EQ(p.identity, ProcessIdentity{});
}

TEST(ProcTable, MissingProcessIsNotFoundNotAnError) {
  FakeProc proc;
  proc.Add(201, kContainerdV1, 500);
  ProcTable table(proc.root().string());
  ProcessInfo p = MustIdentify(table, 999);
  EXPECT_FALSE(p.exists);
  EXPECT_EQ(p.identity, ProcessIdentity{});

  // Seen once, then it exits: not found, and its cache entry goes.
  EXPECT_TRUE(MustIdentify(table, 201).exists);
  EXPECT_EQ(table.cached(), 1u);
  proc.Remove(201);
  p = MustIdentify(table, 201);
  EXPECT_FALSE(p.exists);
  EXPECT_EQ(p.identity, ProcessIdentity{});
  EXPECT_EQ(table.cached(), 0u);
}

TEST(ProcTable, ReusedPidIsReadAgain) {
  FakeProc proc;
  proc.Add(301, kContainerdV1, 1000);
  ProcTable table(proc.root().string());
  EXPECT_EQ(MustIdentify(table, 301).identity.container_id, kProcIdA);

  proc.Add(301, kCrioV1, 2000);  // the old process exited; a new one got its PID
  const ProcessInfo p = MustIdentify(table, 301);
  EXPECT_EQ(p.start_time_ticks, 2000u);
  EXPECT_EQ(p.identity.container_id, kProcIdB);
  EXPECT_EQ(p.identity.pod_uid, "8ca306fa-3c03-47fa-97dd-19979c345572");
  EXPECT_EQ(table.cached(), 1u);
}

TEST(ProcTable, CachesBySameStartTimeUntilPruned) {
  FakeProc proc;
  proc.Add(401, kContainerdV1, 700);
  proc.Add(402, kContainerdV2, 800);
  ProcTable table(proc.root().string());
  EXPECT_EQ(MustIdentify(table, 401).identity.container_id, kProcIdA);
  EXPECT_EQ(MustIdentify(table, 402).identity.container_id, kProcIdA);
  EXPECT_EQ(table.cached(), 2u);

  // Same start time: the cached identity answers, the cgroup file is not read again.
  proc.WriteFile(401, "cgroup", kCrioV1);
  EXPECT_EQ(MustIdentify(table, 401).identity.container_id, kProcIdA);

  table.Prune({402, 12345});
  EXPECT_EQ(table.cached(), 1u);
  EXPECT_EQ(MustIdentify(table, 401).identity.container_id, kProcIdB);  // read afresh
  table.Prune({});
  EXPECT_EQ(table.cached(), 0u);
}

TEST(ProcTable, IdentitiesWithoutContainerAreNotCached) {
  // A process not yet moved into its container's cgroup must not keep a host identity.
  FakeProc proc;
  proc.Add(501, kHost, 42);
  ProcTable table(proc.root().string());
  EXPECT_EQ(MustIdentify(table, 501).identity, ProcessIdentity{});
  EXPECT_EQ(table.cached(), 0u);
  proc.WriteFile(501, "cgroup", kContainerdV2);
  EXPECT_EQ(MustIdentify(table, 501).identity.container_id, kProcIdA);
  EXPECT_EQ(table.cached(), 1u);
}

TEST(ProcTable, CommandNamesWithSpacesAndParentheses) {
  FakeProc proc;
  proc.Add(601, kContainerdV2, 123456789, "python (worker) 1");
  proc.Add(602, kCrioV1, 987654321, ") S 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 (");
  proc.Add(603, kColonForm, 5, "a)b) c");
  ProcTable table(proc.root().string());
  EXPECT_EQ(MustIdentify(table, 601).start_time_ticks, 123456789u);
  EXPECT_EQ(MustIdentify(table, 602).start_time_ticks, 987654321u);
  EXPECT_EQ(MustIdentify(table, 602).identity.container_id, kProcIdB);
  EXPECT_EQ(MustIdentify(table, 603).start_time_ticks, 5u);
}

TEST(ProcTable, UnreadableAndMalformedFilesAreErrorsNamingTheFile) {
  FakeProc proc;
  ProcTable table(proc.root().string());

  // A cgroup "file" that cannot be read (a directory: EISDIR even for root).
  proc.WriteFile(701, "stat", FakeStatLine(701, "x", 1));
  std::filesystem::create_directories(proc.root() / "701" / "cgroup");
  auto r = table.Identify(701);
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(std::string(r.status().message()), HasSubstr((proc.root() / "701" / "cgroup").string()));

  proc.Add(702, kContainerdV1, 1);
  proc.WriteFile(702, "stat", "garbage without parentheses");
  r = table.Identify(702);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kParseError);
  EXPECT_THAT(std::string(r.status().message()), HasSubstr((proc.root() / "702" / "stat").string()));

  proc.WriteFile(702, "stat", "702 (x) S 1 2 3\n");
  r = table.Identify(702);
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(std::string(r.status().message()), HasSubstr("field 22"));

  // A process whose stat is there but whose cgroup is gone exited between the reads.
  proc.WriteFile(703, "stat", FakeStatLine(703, "x", 1));
  EXPECT_FALSE(MustIdentify(table, 703).exists);
}

TEST(ProcTable, MissingProcRootIsAnError) {
  ProcTable table("/nonexistent/gpucost-proc-root");
  auto r = table.Identify(1);
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(std::string(r.status().message()), HasSubstr("/nonexistent/gpucost-proc-root"));
}

TEST(ProcTable, TrailingSlashInRoot) {
  FakeProc proc;
  proc.Add(801, kContainerdV1, 9);
  ProcTable table(proc.root().string() + "/");
  EXPECT_EQ(MustIdentify(table, 801).identity.container_id, kProcIdA);
}

TEST(StartTimeFromStat, CountsFieldsFromTheLastParenthesis) {
  auto r = StartTimeFromStat(FakeStatLine(7, "a) (b", 31337), "s");
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(*r, 31337u);
  r = StartTimeFromStat(FakeStatLine(7, "", 1), "s");
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(*r, 1u);
}

TEST(StartTimeFromStat, ErrorsNameTheSource) {
  for (const char* bad : {"", "no parens 1 2 3", ") before (", "1 (x) S 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 -5 20",
                          "1 (x) S 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 x 20",
                          "1 (x) S 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 99999999999999999999999"}) {
    auto r = StartTimeFromStat(bad, "/proc/7/stat");
    ASSERT_FALSE(r.ok()) << bad;
    EXPECT_THAT(std::string(r.status().message()), HasSubstr("/proc/7/stat")) << bad;
  }
}

TEST(ProcTable, RealProcSelf) {
  std::ifstream in("/proc/self/stat");
  std::stringstream text;
  text << in.rdbuf();
  const std::string stat = text.str();
  // Field 22 counted independently: 20 fields after the command name's closing parenthesis.
  std::istringstream fields(stat.substr(stat.rfind(')') + 2));
  std::string field;
  for (int i = 3; i <= 22; ++i) fields >> field;

  ProcTable table;
  EXPECT_EQ(table.proc_root(), "/proc");
  const ProcessInfo p = MustIdentify(table, static_cast<uint32_t>(::getpid()));
  EXPECT_TRUE(p.exists);
  EXPECT_EQ(std::to_string(p.start_time_ticks), field);
  std::ifstream cg("/proc/self/cgroup");
  std::stringstream cgroup;
  cgroup << cg.rdbuf();
  EXPECT_EQ(p.identity, ParseCgroup(cgroup.str()));
}

}  // namespace
}  // namespace gpucost::agent
