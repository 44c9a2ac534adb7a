// OpenCost's filter language over records: fields, operators, value lists, groups, and errors
// that say where.
#include "serve/opencost_filter.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace gpucost::serve {
namespace {

class Filter : public ::testing::Test {
 protected:
  void SetUp() override {
    inv_.nodes.push_back(Node{});
    inv_.nodes[0].cluster = "east";
    inv_.nodes[0].name = "gpu-node-7";
    inv_.units.push_back(GpuUnit{});
    inv_.units[0].node = 0;
    Holder train;
    train.cluster = "east";
    train.namespace_name = "ml-research";
    train.pod = "train-0";
    train.container = "main";
    train.workload = "train";
    train.workload_kind = "Job";
    train.team = "ml";
    train.labels = LabelSet{{"app", "trainer"}, {"app.kubernetes.io/name", "llm"}};
    Holder notebook = train;
    notebook.namespace_name = "notebooks";
    notebook.pod = "jupyter-ana-0";
    notebook.workload = "jupyter-ana";
    notebook.workload_kind = "StatefulSet";
    notebook.team = "analytics";
    notebook.labels = LabelSet{{"app", "jupyter"}};
    inv_.holders = {train, notebook};
  }

  // Which of train (t), notebook (n) and the idle record (i) the filter keeps.
  std::string Kept(const std::string& text) {
    Result<AllocationFilter> f = AllocationFilter::Parse(text);
    EXPECT_TRUE(f.ok()) << text << ": " << f.status().ToString();
    if (!f.ok()) return "error";
    std::string kept;
    CostRecord r;
    r.unit = 0;
    for (const auto& [holder, name] :
         {std::pair<HolderIndex, char>{0, 't'}, {1, 'n'}, {kNoIndex, 'i'}}) {
      r.holder = holder;
      if (f->Matches(inv_, r)) kept += name;
    }
    return kept;
  }

  Inventory inv_;
};

TEST_F(Filter, FieldsAndOperators) {
  EXPECT_EQ(Kept(""), "tni");
  EXPECT_EQ(Kept("namespace:\"ml-research\""), "t");
  EXPECT_EQ(Kept("namespace!:\"ml-research\""), "n");  // idle has no namespace: no match
  EXPECT_EQ(Kept("cluster:\"east\""), "tni");
  EXPECT_EQ(Kept("node:\"gpu-node-7\""), "tni");
  EXPECT_EQ(Kept("controllerKind:\"StatefulSet\""), "n");
  EXPECT_EQ(Kept("controllerKind:\"statefulset\""), "n");  // OpenCost's kinds are lowercase
  EXPECT_EQ(Kept("controllerKind:\"JOB\""), "t");
  EXPECT_EQ(Kept("controllerKind!:\"job\""), "n");
  EXPECT_EQ(Kept("controllerKind<~:\"state\""), "n");
  EXPECT_EQ(Kept("controllerName~:\"ana\""), "n");
  EXPECT_EQ(Kept("pod<~:\"train\""), "t");
  EXPECT_EQ(Kept("pod!<~:\"train\""), "n");
  EXPECT_EQ(Kept("pod~>:\"-0\""), "tn");
  EXPECT_EQ(Kept("pod!~>:\"ana-0\""), "t");
  EXPECT_EQ(Kept("container!~:\"mai\""), "");
  EXPECT_EQ(Kept("team:\"analytics\""), "n");
  EXPECT_EQ(Kept("label[app]:\"trainer\""), "t");
  EXPECT_EQ(Kept("label[app.kubernetes.io/name]:\"llm\""), "t");
  EXPECT_EQ(Kept("label[app_kubernetes_io_name]:\"llm\""), "t");  // Prometheus-sanitized key
  EXPECT_EQ(Kept("label[missing]:\"\""), "tn");
  // OpenCost's services and annotations: accepted, and gpucost keeps neither (no pod has a
  // service, every annotation is empty).
  EXPECT_EQ(Kept("services:\"web\""), "");
  EXPECT_EQ(Kept("services!:\"web\""), "tn");
  EXPECT_EQ(Kept("annotation[owner]:\"ana\""), "");
  EXPECT_EQ(Kept("annotation[owner]!:\"ana\""), "tn");
  EXPECT_EQ(Kept("namespace:\"notebooks\"+annotation[owner]!~:\"x\""), "n");
}

TEST_F(Filter, ValueListsGroupsAndParentheses) {
  EXPECT_EQ(Kept("namespace:\"notebooks\",\"ml-research\""), "tn");  // any of them
  EXPECT_EQ(Kept("namespace!:\"notebooks\",\"ml-research\""), "");   // none of them
  EXPECT_EQ(Kept("team:\"ml\"+label[app]:\"jupyter\""), "");
  EXPECT_EQ(Kept("team:\"ml\" | label[app]:\"jupyter\""), "tn");
  EXPECT_EQ(Kept("(team:\"ml\"|team:\"analytics\")+pod~>:\"ana-0\""), "n");
  EXPECT_EQ(Kept("node:\"gpu-node-7\"+(namespace:\"x\"|(cluster:\"east\"+pod<~:\"j\"))"), "n");
}

TEST_F(Filter, ErrorsSayWhere) {
  const struct {
    std::string text;
    std::string message;
  } cases[] = {
      {"colour:\"red\"", "filter: at 1: unknown field \"colour\""},
      {"namespace=\"a\"", "filter: at 10: expected an operator"},
      {"namespace:a", "filter: at 11: expected a \"quoted\" value"},
      {"namespace:\"a", "filter: at 11: unterminated \"value"},
      {"team:\"a\"+team:\"b\"|team:\"c\"", "filter: at 18: '|' after '+' in one group"},
      {"(team:\"a\"", "filter: at 10: '(' without ')'"},
      {"team:\"a\")", "filter: at 9: ')' without '('"},
      {"label:\"a\"", "filter: at 6: expected [KEY] after label"},
      {"annotation:\"a\"", "filter: at 11: expected [KEY] after annotation"},
      {"team:\"a\" team:\"b\"", "filter: at 10: expected '+', '|' or the end"},
  };
  for (const auto& [text, message] : cases) {
    Result<AllocationFilter> f = AllocationFilter::Parse(text);
    ASSERT_FALSE(f.ok()) << text;
    EXPECT_NE(f.status().message().find(message), std::string_view::npos)
        << text << ": " << f.status().message();
  }
}

}  // namespace
}  // namespace gpucost::serve
