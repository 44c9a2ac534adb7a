// Reading matrix responses: labels, __name__, NaN/Inf strings, error bodies, the keep window.
#include "promsource/matrix_parser.h"

#include <gtest/gtest.h>

#include <cmath>

#include "promsource/promsource_test_util.h"

namespace gpucost::promsource {
namespace {

using testing::RecordingHandler;

const Window kAll{InstantFromUnixMs(0), InstantFromUnixMs(INT64_C(1) << 50)};

TEST(ParseApiValue, NumbersAndSpecials) {
  EXPECT_EQ(*ParseApiValue("1"), 1.0);
  EXPECT_EQ(*ParseApiValue("0.25"), 0.25);
  EXPECT_EQ(*ParseApiValue("1e+06"), 1e6);
  EXPECT_EQ(*ParseApiValue("-3"), -3.0);
  EXPECT_TRUE(std::isnan(*ParseApiValue("NaN")));
  EXPECT_EQ(*ParseApiValue("+Inf"), INFINITY);
  EXPECT_EQ(*ParseApiValue("-Inf"), -INFINITY);
  EXPECT_FALSE(ParseApiValue("").ok());
  EXPECT_FALSE(ParseApiValue("1x").ok());
  EXPECT_FALSE(ParseApiValue("abc").ok());
}

TEST(StreamMatrix, SamplesWithLabelsAndName) {
  const std::string body = R"({"status":"success","data":{"resultType":"matrix","result":[
    {"metric":{"__name__":"kube_pod_info","namespace":"a","pod":"p"},
     "values":[[1790812800,"1"],[1790812830.5,"NaN"],[1790812860,"+Inf"],[1790812890,"-Inf"]]},
    {"metric":{"node":"n1"},"values":[[1790812800.001,"0.75"]]}]}})";
  RecordingHandler h;
  auto stats = StreamMatrix(body, kAll, "fallback", h);
  ASSERT_TRUE(stats.ok()) << stats.status().ToString();
  EXPECT_EQ(stats->series, 2u);
  EXPECT_EQ(stats->samples, 5u);
  EXPECT_EQ(stats->kept, 5u);
  ASSERT_EQ(h.samples.size(), 5u);
  EXPECT_EQ(h.samples[0].name, "kube_pod_info");
  ASSERT_EQ(h.samples[0].labels.size(), 2u);  // __name__ is the name, not a label
  EXPECT_EQ(h.samples[0].labels[0].first, "namespace");
  EXPECT_EQ(h.samples[0].labels[1].second, "p");
  EXPECT_EQ(h.samples[0].t_ms, 1790812800000);
  EXPECT_EQ(h.samples[1].t_ms, 1790812830500);
  EXPECT_TRUE(std::isnan(h.samples[1].value));
  EXPECT_EQ(h.samples[2].value, INFINITY);
  EXPECT_EQ(h.samples[3].value, -INFINITY);
  EXPECT_EQ(h.samples[4].name, "fallback");
  EXPECT_EQ(h.samples[4].t_ms, 1790812800001);
  EXPECT_EQ(h.samples[4].value, 0.75);
}

TEST(StreamMatrix, KeepsOnlyTheHalfOpenWindow) {
  const std::string body = R"({"status":"success","data":{"resultType":"matrix","result":[
    {"metric":{"__name__":"m"},"values":[[99.999,"1"],[100,"2"],[150,"3"],[199.999,"4"],[200,"5"]]}]}})";
  RecordingHandler h;
  auto stats =
      StreamMatrix(body, Window{InstantFromUnixMs(100000), InstantFromUnixMs(200000)}, "m", h);
  ASSERT_TRUE(stats.ok());
  EXPECT_EQ(stats->samples, 5u);
  ASSERT_EQ(h.samples.size(), 3u);
  EXPECT_EQ(h.samples[0].value, 2);
  EXPECT_EQ(h.samples[2].value, 4);
}

TEST(StreamMatrix, EmptyResultAndWarnings) {
  RecordingHandler h;
  auto stats = StreamMatrix(
      R"({"status":"success","data":{"resultType":"matrix","result":[]},"warnings":["w1"]})", kAll,
      "m", h);
  ASSERT_TRUE(stats.ok());
  EXPECT_EQ(stats->series, 0u);
  ASSERT_EQ(stats->warnings.size(), 1u);
  EXPECT_EQ(stats->warnings[0], "w1");
}

TEST(StreamMatrix, ErrorBodiesAndMalformedResponses) {
  RecordingHandler h;
  auto err = StreamMatrix(
      R"({"status":"error","errorType":"bad_data","error":"invalid parameter \"query\""})", kAll,
      "m", h);
  ASSERT_FALSE(err.ok());
  EXPECT_NE(err.status().ToString().find("bad_data: invalid parameter \"query\""),
            std::string::npos)
      << err.status().ToString();

  EXPECT_FALSE(StreamMatrix("not json", kAll, "m", h).ok());
  EXPECT_FALSE(StreamMatrix("[1,2]", kAll, "m", h).ok());
  auto vec = StreamMatrix(R"({"status":"success","data":{"resultType":"vector","result":[]}})",
                          kAll, "m", h);
  ASSERT_FALSE(vec.ok());
  EXPECT_NE(vec.status().ToString().find("expected a matrix"), std::string::npos);
  EXPECT_FALSE(StreamMatrix(R"({"status":"success","data":{"resultType":"matrix","result":[
    {"metric":{"__name__":"m"},"values":[[1,2]]}]}})",
                            kAll, "m", h)
                   .ok());  // value not a string
  EXPECT_FALSE(StreamMatrix(R"({"status":"success","data":{"resultType":"matrix","result":[
    {"metric":{"__name__":"m"},"values":[[1,"zz"]]}]}})",
                            kAll, "m", h)
                   .ok());
  EXPECT_TRUE(h.samples.empty());
}

}  // namespace
}  // namespace gpucost::promsource
