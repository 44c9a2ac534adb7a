// OpenCost's aggregations over report rows: controller kinds as OpenCost writes them, and the
// names and properties of holders' and idle rows.
#include "serve/opencost_grouping.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace gpucost::serve {
namespace {

TEST(OpenCostKinds, LowercaseWithCronJobsAsJobsAndBarePodsAsNone) {
  EXPECT_EQ(OpenCostControllerKind("Deployment"), "deployment");
  EXPECT_EQ(OpenCostControllerKind("StatefulSet"), "statefulset");
  EXPECT_EQ(OpenCostControllerKind("CronJob"), "job");
  EXPECT_EQ(OpenCostControllerKind("Job"), "job");
  EXPECT_EQ(OpenCostControllerKind("Pod"), "");
  EXPECT_EQ(OpenCostControllerKind(""), "");
  EXPECT_EQ(OpenCostControllerKind("__unallocated__"), "");
  EXPECT_EQ(OpenCostControllerKind("__idle__"), "");
}

// Rows hold the grouping's dimensions: cluster, node, namespace, workload kind, workload, pod,
// container, GPU model, then team and the labels asked for.
TEST(OpenCostGroupingNames, HoldersAndIdle) {
  const OpenCostGrouping g = OpenCostGrouping::Parse("cluster, Deployment ,label:app,colour");
  ASSERT_EQ(g.dimensions().size(), 9u);  // the fixed eight and label:app; colour dropped
  const std::vector<std::string> web = {"east",  "n1",   "shop", "Deployment", "web",
                                        "web-1", "main", "A100", "frontend"};
  const OpenCostGrouping::Allocation a = g.AllocationOf(web, false);
  EXPECT_EQ(a.name, "east/web/frontend");
  EXPECT_EQ(a.properties.at("controller"), "deployment:web");
  EXPECT_EQ(a.properties.at("controllerKind"), "deployment");
  EXPECT_EQ(a.properties.at("label:app"), "frontend");
  EXPECT_EQ(a.gpu_model, "A100");

  const std::vector<std::string> db = {"east", "n1",   "shop", "StatefulSet",    "db",
                                       "db-0", "main", "A100", "__unallocated__"};
  const OpenCostGrouping::Allocation b = g.AllocationOf(db, false);
  EXPECT_EQ(b.name, "east/__unallocated__/__unallocated__");
  EXPECT_EQ(b.properties.count("label:app"), 0u);

  // Idle keeps the capacity's parts (the cluster, a node label) and ends in __idle__.
  const std::vector<std::string> idle = {"east",     "n1",       "__idle__", "__idle__", "__idle__",
                                         "__idle__", "__idle__", "A100",     "__idle__"};
  const OpenCostGrouping::Allocation i = g.AllocationOf(idle, true);
  EXPECT_EQ(i.name, "east/__idle__");
  EXPECT_EQ(i.properties.at("cluster"), "east");
  EXPECT_EQ(i.properties.at("node"), "n1");
  EXPECT_EQ(i.properties.count("namespace"), 0u);
}

TEST(OpenCostGroupingNames, NothingKnownIsTheDefaultGrouping) {
  const OpenCostGrouping g = OpenCostGrouping::Parse("colour,,");
  ASSERT_EQ(g.dimensions().size(), 8u);
  const std::vector<std::string> row = {"east", "n1", "ml", "Pod", "train", "train", "main", ""};
  const OpenCostGrouping::Allocation a = g.AllocationOf(row, false);
  EXPECT_EQ(a.name, "east/n1/ml/train/main");
  EXPECT_EQ(a.properties.count("controller"), 0u);  // a bare pod has none
  EXPECT_EQ(a.gpu_model, "");
}

}  // namespace
}  // namespace gpucost::serve
