// The DaemonSet in deploy/ asks for no more than the agent needs (docs/agent.md "Deployment").
#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <string>
#include <vector>

namespace {

YAML::Node DaemonSet() {
  for (const YAML::Node& doc :
       YAML::LoadAllFromFile(std::string(GPUCOST_SOURCE_DIR) + "/deploy/agent/daemonset.yaml")) {
    if (doc["kind"].as<std::string>() == "DaemonSet") return doc;
  }
  return {};
}

TEST(AgentDeployTest, DaemonSetIsLeastPrivilegeOnGpuNodes) {
  const YAML::Node ds = DaemonSet();
  ASSERT_TRUE(ds) << "no DaemonSet in deploy/agent/daemonset.yaml";
  const YAML::Node pod = ds["spec"]["template"]["spec"];
  EXPECT_TRUE(pod["hostPID"].as<bool>()) << "NVML reports host PIDs";
  EXPECT_FALSE(pod["hostNetwork"] && pod["hostNetwork"].as<bool>());
  EXPECT_EQ(pod["nodeSelector"]["nvidia.com/gpu.present"].as<std::string>(), "true");
  ASSERT_EQ(pod["containers"].size(), 1u);
  const YAML::Node c = pod["containers"][0];
  EXPECT_FALSE(c["securityContext"]["privileged"].as<bool>());
  EXPECT_FALSE(c["securityContext"]["allowPrivilegeEscalation"].as<bool>());
  EXPECT_EQ(c["securityContext"]["capabilities"]["drop"][0].as<std::string>(), "ALL");
  EXPECT_FALSE(c["securityContext"]["capabilities"]["add"]);
  EXPECT_TRUE(c["resources"]["requests"]["cpu"]);
  EXPECT_TRUE(c["resources"]["requests"]["memory"]);
  // Every host path is mounted read-only, and only the two the agent reads.
  std::vector<std::string> host_paths;
  for (const YAML::Node& v : pod["volumes"]) {
    if (v["hostPath"]) host_paths.push_back(v["hostPath"]["path"].as<std::string>());
  }
  EXPECT_EQ(host_paths, (std::vector<std::string>{"/var/lib/kubelet/pod-resources", "/proc"}));
  for (const YAML::Node& m : c["volumeMounts"]) {
    EXPECT_TRUE(m["readOnly"].as<bool>()) << m["mountPath"].as<std::string>();
  }
  // The flags point the agent at those mounts, and the node name comes from the downward API.
  EXPECT_EQ(c["command"][0].as<std::string>(), "gpucost-agent");
  std::vector<std::string> args;
  for (const YAML::Node& a : c["args"]) args.push_back(a.as<std::string>());
  EXPECT_NE(std::find(args.begin(), args.end(), "--proc-root=/host/proc"), args.end());
  bool node_name = false;
  for (const YAML::Node& e : c["env"]) {
    node_name = node_name || (e["name"].as<std::string>() == "NODE_NAME" &&
                              e["valueFrom"]["fieldRef"]["fieldPath"].as<std::string>() ==
                                  "spec.nodeName");
  }
  EXPECT_TRUE(node_name);
}

}  // namespace
