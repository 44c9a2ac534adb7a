// deploy/base/rbac.yaml grants get/list/watch on exactly the resources the Kubernetes source
// reads (KubeResources()) and what `serve --scrape-endpoints` lists (src/scrape/
// endpoints_discovery.cc), and nothing more.
#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>

#include <set>
#include <string>
#include <utility>

#include "k8s/kube_source.h"

namespace gpucost::k8s {
namespace {

// "/api/v1/pods" -> ("", "pods"); "/apis/apps/v1/replicasets" -> ("apps", "replicasets").
std::pair<std::string, std::string> GroupAndResource(const std::string& path) {
  if (path.starts_with("/api/v1/")) return {"", path.substr(8)};
  const std::string rest = path.substr(6);  // after "/apis/"
  const size_t slash = rest.find('/');
  return {rest.substr(0, slash), rest.substr(rest.rfind('/') + 1)};
}

TEST(RbacManifestTest, ClusterRoleGrantsReadOnExactlyTheResourcesRead) {
  std::set<std::pair<std::string, std::string>> granted;
  bool bound = false;
  for (const YAML::Node& doc :
       YAML::LoadAllFromFile(std::string(GPUCOST_SOURCE_DIR) + "/deploy/base/rbac.yaml")) {
    const std::string kind = doc["kind"].as<std::string>();
    if (kind == "ClusterRoleBinding") {
      bound = doc["roleRef"]["name"].as<std::string>() == "gpucost-reader" &&
              doc["subjects"][0]["name"].as<std::string>() == "gpucost";
    }
    if (kind != "ClusterRole" && kind != "Role") continue;
    for (const YAML::Node& rule : doc["rules"]) {
      std::set<std::string> verbs;
      for (const YAML::Node& v : rule["verbs"]) verbs.insert(v.as<std::string>());
      EXPECT_EQ(verbs, (std::set<std::string>{"get", "list", "watch"}));
      for (const YAML::Node& g : rule["apiGroups"]) {
        for (const YAML::Node& r : rule["resources"]) {
          EXPECT_NE(r.as<std::string>(), "*");
          granted.insert({g.as<std::string>(), r.as<std::string>()});
        }
      }
    }
  }
  EXPECT_TRUE(bound);
  std::set<std::pair<std::string, std::string>> read;
  for (const ResourceType& t : KubeResources()) read.insert(GroupAndResource(t.path));
  read.insert({"discovery.k8s.io", "endpointslices"});
  read.insert({"", "endpoints"});
  EXPECT_EQ(granted, read);
}

}  // namespace
}  // namespace gpucost::k8s
