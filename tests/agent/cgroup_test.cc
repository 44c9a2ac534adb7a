// /proc/<pid>/cgroup -> pod UID, container id, runtime, QoS, Slurm job: the real strings of
// docs (containerd, CRI-O, cri-dockerd; cgroupfs and systemd drivers; v1, v2, hybrid; static
// pods; nested kubelets; cgroup namespaces), which line wins when v1 lines disagree, and garbage.
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "agent/cgroup.h"

namespace gpucost::agent {
namespace {

struct Expected {
  std::string pod_uid;
  std::string container_id;
  std::string runtime;
  std::string qos;
};

void ExpectPod(const ProcessIdentity& id, const Expected& want) {
  EXPECT_EQ(id.pod_uid, want.pod_uid);
  EXPECT_EQ(id.container_id, want.container_id);
  EXPECT_EQ(id.runtime, want.runtime);
  EXPECT_EQ(id.qos, want.qos);
  EXPECT_TRUE(id.kubernetes());
  EXPECT_FALSE(id.slurm());
  EXPECT_EQ(id.slurm_uid, -1);
}

void ExpectEmpty(const ProcessIdentity& id) {
  EXPECT_EQ(id, ProcessIdentity{});
  EXPECT_FALSE(id.kubernetes());
  EXPECT_FALSE(id.slurm());
}

// Ids made up for the forms that the reference shows with a placeholder.
constexpr char kIdA[] = "0a1b2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f60718293a4b5c6d7e8f9";
constexpr char kIdB[] = "ffeeddccbbaa99887766554433221100ffeeddccbbaa99887766554433221100";
constexpr char kUid[] = "1f2e3d4c-5b6a-4798-8a9b-0c1d2e3f4a5b";
constexpr char kUidSystemd[] = "1f2e3d4c_5b6a_4798_8a9b_0c1d2e3f4a5b";

// --- The reference's real strings ---------------------------------------------------------

TEST(ParseCgroup, ContainerdCgroupfsV1) {
  ExpectPod(ParseCgroup("11:pids:/kubepods/besteffort/poda36d0c1d-0b26-4451-8d80-9c195e004afa/"
                        "5dd96d5394ca930a854a390ea46f7515a8bc930123eb3251ba20f2708a38fc61\n"),
            {"a36d0c1d-0b26-4451-8d80-9c195e004afa",
             "5dd96d5394ca930a854a390ea46f7515a8bc930123eb3251ba20f2708a38fc61", "containerd",
             "besteffort"});
}

TEST(ParseCgroup, CrioSystemdV1WithRootLine) {
  ExpectPod(
      ParseCgroup("3:memory:/kubepods.slice/kubepods-besteffort.slice/"
                  "kubepods-besteffort-pod8ca306fa_3c03_47fa_97dd_19979c345572.slice/"
                  "crio-d6d725b909f37c3e232aadfbafa950a58bfe7baa579ba8c47a12be88bb921607.scope\n"
                  "6:rdma:/\n"),
      {"8ca306fa-3c03-47fa-97dd-19979c345572",
       "d6d725b909f37c3e232aadfbafa950a58bfe7baa579ba8c47a12be88bb921607", "cri-o", "besteffort"});
}

TEST(ParseCgroup, CrioStaticPodKeepsHashUid) {
  ExpectPod(
      ParseCgroup("4:cpu,cpuacct:/kubepods.slice/kubepods-burstable.slice/"
                  "kubepods-burstable-pod487a0dc6dccaeefbcfedba7a7ce1ca18.slice/"
                  "crio-7a1fd6fe8cdfbd44dc78c4cc85dad7031eaab4365801684cad0aabdeaf863f9e.scope\n"),
      {"487a0dc6dccaeefbcfedba7a7ce1ca18",
       "7a1fd6fe8cdfbd44dc78c4cc85dad7031eaab4365801684cad0aabdeaf863f9e", "cri-o", "burstable"});
}

TEST(ParseCgroup, ContainerdColonFormUnderSystemdKubelet) {
  const Expected want{"2105e389-7471-476e-a50f-6074cef29bbd",
                      "d3d8ccf5cca91931c6285c1d7472c413dd5a7700fddc0aa9f89a9ac7008b003e",
                      "containerd", "besteffort"};
  ExpectPod(ParseCgroup(
                "8:cpu,cpuacct:/system.slice/containerd.service/"
                "kubepods-besteffort-pod2105e389_7471_476e_a50f_6074cef29bbd.slice:cri-containerd:"
                "d3d8ccf5cca91931c6285c1d7472c413dd5a7700fddc0aa9f89a9ac7008b003e\n"
                "7:cpuset:/kubepods-besteffort-pod2105e389_7471_476e_a50f_6074cef29bbd.slice:"
                "cri-containerd:d3d8ccf5cca91931c6285c1d7472c413dd5a7700fddc0aa9f89a9ac7008b003e\n"),
            want);
  // Each line on its own, and with a systemd-scope line of the same container in the same file.
  ExpectPod(ParseCgroup("7:cpuset:/kubepods-besteffort-pod2105e389_7471_476e_a50f_6074cef29bbd."
                        "slice:cri-containerd:"
                        "d3d8ccf5cca91931c6285c1d7472c413dd5a7700fddc0aa9f89a9ac7008b003e"),
            want);
  ExpectPod(ParseCgroup("8:cpu,cpuacct:/system.slice/containerd.service/"
                        "kubepods-besteffort-pod2105e389_7471_476e_a50f_6074cef29bbd.slice:"
                        "cri-containerd:"
                        "d3d8ccf5cca91931c6285c1d7472c413dd5a7700fddc0aa9f89a9ac7008b003e\n"
                        "1:name=systemd:/kubepods.slice/kubepods-besteffort.slice/"
                        "kubepods-besteffort-pod2105e389_7471_476e_a50f_6074cef29bbd.slice/"
                        "cri-containerd-"
                        "d3d8ccf5cca91931c6285c1d7472c413dd5a7700fddc0aa9f89a9ac7008b003e.scope\n"),
            want);
}

TEST(ParseCgroup, ContainerdSystemdV2) {
  ExpectPod(ParseCgroup(std::string("0::/kubepods.slice/kubepods-besteffort.slice/"
                                    "kubepods-besteffort-poda9c80282_3f6b_4d5b_84d5_a137a6668011."
                                    "slice/cri-containerd-") +
                        kIdA + ".scope\n"),
            {"a9c80282-3f6b-4d5b-84d5-a137a6668011", kIdA, "containerd", "besteffort"});
}

TEST(ParseCgroup, NestedKubeletPrefix) {
  const std::string path =
      "/sys/fs/cgroup/unified/kubelet.slice/kubelet-kubepods.slice/"
      "kubelet-kubepods-burstable.slice/"
      "kubelet-kubepods-burstable-poda45947e4_314c_4694_8f05_5e1425a02de4.slice/"
      "cri-containerd-abb37780fc913b3720641a4039186adb06f5d1de0229de0e8707f12e2fde5a21.scope";
  const Expected want{"a45947e4-314c-4694-8f05-5e1425a02de4",
                      "abb37780fc913b3720641a4039186adb06f5d1de0229de0e8707f12e2fde5a21",
                      "containerd", "burstable"};
  // The reference shows the mount path; as /proc/<pid>/cgroup writes it the path starts at the
  // hierarchy's root.
  ExpectPod(ParseCgroupPath(path), want);
  ExpectPod(ParseCgroup("0::" + path), want);
  ExpectPod(ParseCgroup("1:name=systemd:" + path.substr(std::string("/sys/fs/cgroup/unified").size())),
            want);
  // The reference line as it stands is a path, not a cgroup file line.
  ExpectEmpty(ParseCgroup(path));
}

// --- Each driver, runtime and QoS ---------------------------------------------------------

TEST(ParseCgroup, GuaranteedHasNoQosLevel) {
  ExpectPod(ParseCgroup(std::string("5:memory:/kubepods/pod") + kUid + "/" + kIdA),
            {kUid, kIdA, "containerd", "guaranteed"});
  ExpectPod(ParseCgroup(std::string("0::/kubepods.slice/kubepods-pod") + kUidSystemd +
                        ".slice/cri-containerd-" + kIdA + ".scope"),
            {kUid, kIdA, "containerd", "guaranteed"});
  ExpectPod(ParseCgroup(std::string("0::/kubepods.slice/kubepods-pod487a0dc6dccaeefbcfedba7a7ce1ca18"
                                    ".slice/crio-") +
                        kIdB + ".scope"),
            {"487a0dc6dccaeefbcfedba7a7ce1ca18", kIdB, "cri-o", "guaranteed"});
}

TEST(ParseCgroup, CrioCgroupfs) {
  ExpectPod(ParseCgroup(std::string("9:devices:/kubepods/burstable/pod") + kUid + "/crio-" + kIdB),
            {kUid, kIdB, "cri-o", "burstable"});
}

TEST(ParseCgroup, CriDockerdSystemd) {
  ExpectPod(ParseCgroup(std::string("0::/kubepods.slice/kubepods-burstable.slice/"
                                    "kubepods-burstable-pod") +
                        kUidSystemd + ".slice/docker-" + kIdA + ".scope\n"),
            {kUid, kIdA, "docker", "burstable"});
}

TEST(ParseCgroup, CgroupNamespaceRelativePaths) {
  // The agent in its own cgroup namespace sees other processes' paths relative to its own.
  ExpectPod(ParseCgroup(std::string("0::/../../kubepods-besteffort.slice/kubepods-besteffort-pod") +
                        kUidSystemd + ".slice/cri-containerd-" + kIdA + ".scope\n"),
            {kUid, kIdA, "containerd", "besteffort"});
  ExpectPod(ParseCgroup(std::string("0::/../../../kubepods.slice/kubepods-burstable.slice/"
                                    "kubepods-burstable-pod") +
                        kUidSystemd + ".slice/cri-containerd-" + kIdA + ".scope\n"),
            {kUid, kIdA, "containerd", "burstable"});
  ExpectPod(ParseCgroup(std::string("0::/../besteffort/pod") + kUid + "/" + kIdB),
            {kUid, kIdB, "containerd", "besteffort"});
  // A sibling pod of the same QoS class: the QoS level is above the namespace root.
  ExpectPod(ParseCgroup(std::string("0::/../pod") + kUid + "/" + kIdB), {kUid, kIdB, "containerd", ""});
}

TEST(ParseCgroup, PodCgroupWithoutContainer) {
  ExpectPod(ParseCgroup(std::string("0::/kubepods.slice/kubepods-burstable.slice/"
                                    "kubepods-burstable-pod") +
                        kUidSystemd + ".slice\n"),
            {kUid, "", "", "burstable"});
  ExpectPod(ParseCgroup(std::string("4:memory:/kubepods/besteffort/pod") + kUid + "\n"),
            {kUid, "", "", "besteffort"});
  // A child that is not a container leaf.
  ExpectPod(ParseCgroup(std::string("4:memory:/kubepods/besteffort/pod") + kUid + "/not-a-container"),
            {kUid, "", "", "besteffort"});
}

TEST(ParseCgroup, CrioConmonIsNotAContainer) {
  ExpectPod(ParseCgroup(std::string("0::/kubepods.slice/kubepods-burstable.slice/"
                                    "kubepods-burstable-pod") +
                        kUidSystemd + ".slice/crio-conmon-" + kIdA + ".scope\n"),
            {kUid, "", "", "burstable"});
}

TEST(ParseCgroup, CgroupBelowTheContainerKeepsTheContainer) {
  // crun on cgroup v2 may put the container's processes in a "container" child.
  ExpectPod(ParseCgroup(std::string("0::/kubepods.slice/kubepods-besteffort.slice/"
                                    "kubepods-besteffort-pod") +
                        kUidSystemd + ".slice/crio-" + kIdA + ".scope/container\n"),
            {kUid, kIdA, "cri-o", "besteffort"});
}

TEST(ParseCgroup, KubeletInsideAPodDeepestPodWins) {
  const std::string outer = "00000000-1111-2222-3333-444444444444";
  ExpectPod(ParseCgroup("0::/kubepods/burstable/pod" + outer + "/" + kIdB +
                        "/kubelet.slice/kubelet-kubepods.slice/kubelet-kubepods-besteffort.slice/"
                        "kubelet-kubepods-besteffort-pod" + kUidSystemd +
                        ".slice/cri-containerd-" + kIdA + ".scope"),
            {kUid, kIdA, "containerd", "besteffort"});
}

TEST(ParseCgroup, UpperCaseHexIsCanonicalised) {
  ExpectPod(ParseCgroup("0::/kubepods/burstable/podA36D0C1D-0B26-4451-8D80-9C195E004AFA/"
                        "5DD96D5394CA930A854A390EA46F7515A8BC930123EB3251BA20F2708A38FC61"),
            {"a36d0c1d-0b26-4451-8d80-9c195e004afa",
             "5dd96d5394ca930a854a390ea46f7515a8bc930123eb3251ba20f2708a38fc61", "containerd",
             "burstable"});
}

// --- Hybrid and disagreeing v1 lines ------------------------------------------------------

TEST(ParseCgroup, HybridV1ControllersAndUnifiedLine) {
  // cgroupfs driver on a hybrid host: the unified line is systemd's view and names no pod.
  const std::string pod = std::string("/kubepods/burstable/pod") + kUid + "/" + kIdA;
  ExpectPod(ParseCgroup("12:pids:" + pod + "\n11:memory:" + pod + "\n10:cpu,cpuacct:" + pod +
                        "\n1:name=systemd:" + pod + "\n0::/system.slice/containerd.service\n"),
            {kUid, kIdA, "containerd", "burstable"});
}

TEST(ParseCgroup, LineWithContainerBeatsPodOnlyLine) {
  ExpectPod(ParseCgroup(std::string("1:name=systemd:/kubepods/burstable/pod") + kUid + "\n" +
                        "0::/kubepods/burstable/pod" + kUid + "/" + kIdA + "\n"),
            {kUid, kIdA, "containerd", "burstable"});
}

TEST(ParseCgroup, MostLinesWinThenFirstLine) {
  const std::string a = std::string("/kubepods/burstable/pod") + kUid + "/" + kIdA;
  const std::string b = std::string("/kubepods/burstable/pod") + kUid + "/" + kIdB;
  ExpectPod(ParseCgroup("9:pids:" + b + "\n8:memory:" + a + "\n7:cpuset:" + a + "\n"),
            {kUid, kIdA, "containerd", "burstable"});
  ExpectPod(ParseCgroup("9:pids:" + b + "\n8:memory:" + a + "\n"),
            {kUid, kIdB, "containerd", "burstable"});
}

TEST(ParseCgroup, QosFromAnotherLineOfTheSamePod) {
  ExpectPod(ParseCgroup(std::string("0::/../pod") + kUid + "/" + kIdA + "\n" +
                        "1:name=systemd:/kubepods/burstable/pod" + kUid + "\n"),
            {kUid, kIdA, "containerd", "burstable"});
}

// --- Slurm ----------------------------------------------------------------------------------

TEST(ParseCgroup, SlurmV1) {
  const ProcessIdentity id = ParseCgroup(
      "12:freezer:/slurm/uid_1000/job_4242/step_0/task_0\n"
      "11:memory:/slurm/uid_1000/job_4242/step_0/task_0\n"
      "4:cpuset:/slurm/uid_1000/job_4242/step_0\n"
      "3:devices:/slurm/uid_1000/job_4242/step_0\n"
      "1:name=systemd:/system.slice/slurmd.service\n");
  EXPECT_TRUE(id.slurm());
  EXPECT_FALSE(id.kubernetes());
  EXPECT_EQ(id.slurm_job, "4242");
  EXPECT_EQ(id.slurm_uid, 1000);
  EXPECT_EQ(id.slurm_step, "0");
}

TEST(ParseCgroup, SlurmV1BatchStepAndNodePrefix) {
  const ProcessIdentity id = ParseCgroup("5:memory:/slurm_node17/uid_0/job_9/step_batch/task_0\n");
  EXPECT_EQ(id.slurm_job, "9");
  EXPECT_EQ(id.slurm_uid, 0);
  EXPECT_EQ(id.slurm_step, "batch");
}

TEST(ParseCgroup, SlurmPrefersLineWithStep) {
  const ProcessIdentity id = ParseCgroup(
      "4:cpuset:/slurm/uid_1000/job_5\n5:memory:/slurm/uid_1000/job_5/step_extern/task_0\n");
  EXPECT_EQ(id.slurm_job, "5");
  EXPECT_EQ(id.slurm_step, "extern");
  const ProcessIdentity job_only = ParseCgroup("4:cpuset:/slurm/uid_1000/job_5\n");
  EXPECT_EQ(job_only.slurm_job, "5");
  EXPECT_EQ(job_only.slurm_step, "");
}

TEST(ParseCgroup, SlurmV2) {
  ProcessIdentity id = ParseCgroup("0::/system.slice/slurmstepd.scope/job_3385/step_0/user/task_0\n");
  EXPECT_TRUE(id.slurm());
  EXPECT_EQ(id.slurm_job, "3385");
  EXPECT_EQ(id.slurm_uid, -1);
  EXPECT_EQ(id.slurm_step, "0");
  id = ParseCgroup("0::/system.slice/node01_slurmstepd.scope/job_12/step_interactive/user/task_0");
  EXPECT_EQ(id.slurm_job, "12");
  EXPECT_EQ(id.slurm_step, "interactive");
  // The step daemons' own cgroup belongs to no job.
  ExpectEmpty(ParseCgroup("0::/system.slice/slurmstepd.scope/system\n"));
}

TEST(ParseCgroup, SlurmLookalikesAreNotJobs) {
  ExpectEmpty(ParseCgroup("0::/home/job_12/step_0\n"));
  ExpectEmpty(ParseCgroup("4:cpuset:/slurm/uid_x/job_5/step_0\n"));
  ExpectEmpty(ParseCgroup("4:cpuset:/slurm/uid_1000/job_abc/step_0\n"));
  ExpectEmpty(ParseCgroup("4:cpuset:/other/uid_1000/job_5/step_0\n"));
  ExpectEmpty(ParseCgroup("4:cpuset:/slurm/uid_99999999999999999999999/job_5\n"));
}

// --- Outside Kubernetes and Slurm, and garbage ----------------------------------------------

TEST(ParseCgroup, HostProcessesAreEmpty) {
  ExpectEmpty(ParseCgroup("0::/user.slice/user-1000.slice/session-3.scope\n"));
  ExpectEmpty(ParseCgroup("0::/init.scope\n"));
  ExpectEmpty(ParseCgroup("0::/\n"));
  // A Docker container that no kubelet started has no pod.
  ExpectEmpty(ParseCgroup(std::string("0::/system.slice/docker-") + kIdA + ".scope\n"));
  ExpectEmpty(ParseCgroup(std::string("12:pids:/docker/") + kIdA + "\n"));
  ExpectEmpty(ParseCgroup("12:pids:/kubepods/besteffort\n0::/kubepods.slice/kubepods-burstable.slice\n"));
}

TEST(ParseCgroup, GarbageNeverFailsAndIsSkipped) {
  ExpectEmpty(ParseCgroup(""));
  ExpectEmpty(ParseCgroup("\n\n\n"));
  ExpectEmpty(ParseCgroup("garbage"));
  ExpectEmpty(ParseCgroup(":::"));
  ExpectEmpty(ParseCgroup("x:y:z"));
  ExpectEmpty(ParseCgroup("12:pids"));
  ExpectEmpty(ParseCgroup(std::string(1000, ':')));
  ExpectEmpty(ParseCgroup(std::string(1000, '/')));
  ExpectEmpty(ParseCgroup(std::string("\0\0\0", 3)));
  // Not "<digits>:<controllers>:/<path>".
  ExpectEmpty(ParseCgroup(std::string("abc::/kubepods/besteffort/pod") + kUid + "/" + kIdA));
  ExpectEmpty(ParseCgroup(std::string("12:pids:kubepods/besteffort/pod") + kUid + "/" + kIdA));
  ExpectEmpty(ParseCgroup(std::string("::/kubepods/besteffort/pod") + kUid + "/" + kIdA));
  // UIDs of the wrong shape: short, mixed separators, not hex, empty.
  ExpectEmpty(ParseCgroup("0::/kubepods/besteffort/poda36d0c1d-0b26-4451-8d80-9c195e004af/x"));
  ExpectEmpty(ParseCgroup("0::/kubepods/besteffort/poda36d0c1d-0b26_4451-8d80-9c195e004afa"));
  ExpectEmpty(ParseCgroup("0::/kubepods/besteffort/podg36d0c1d-0b26-4451-8d80-9c195e004afa"));
  ExpectEmpty(ParseCgroup("0::/kubepods/besteffort/pod"));
  ExpectEmpty(ParseCgroup("0::/kubepods.slice/kubepods-besteffort.slice/kubepods-besteffort-pod.slice"));
  // A systemd pod slice outside any kubepods slice.
  ExpectEmpty(ParseCgroup(std::string("0::/user.slice/user-pod") + kUidSystemd + ".slice"));
  // A good line among garbage lines still counts; CRLF line ends are tolerated.
  ExpectPod(ParseCgroup(std::string("garbage\r\n12:pids\r\n\r\n5:memory:/kubepods/burstable/pod") +
                        kUid + "/" + kIdA + "\r\n\x01\x02\xff\n"),
            {kUid, kIdA, "containerd", "burstable"});
}

TEST(ParseCgroup, ContainerLeavesOfTheWrongShape) {
  const std::string pod = std::string("0::/kubepods/burstable/pod") + kUid + "/";
  const std::string short_id(63, 'a');
  const std::string long_id(65, 'a');
  for (const std::string& leaf : std::vector<std::string>{
           short_id, long_id, "cri-containerd-" + short_id + ".scope", "crio-" + long_id,
        "unknown-" + std::string(kIdA) + ".scope", std::string("-") + kIdA, ".scope",
        std::string(kIdA) + ".scope", "crio-" + std::string(64, 'g') + ".scope"}) {
    ExpectPod(ParseCgroup(pod + leaf), {kUid, "", "", "burstable"});
  }
}

}  // namespace
}  // namespace gpucost::agent
