#include "promsource/matrix_parser.h"

#include <charconv>
#include <cmath>
#include <limits>
#include <nlohmann/json.hpp>

#include "core/strings.h"
#include "promsource/prometheus_client.h"

namespace gpucost::promsource {

using nlohmann::json;

Result<double> ParseApiValue(std::string_view text) {
  if (text == "NaN") return std::numeric_limits<double>::quiet_NaN();
  if (text == "+Inf" || text == "Inf") return std::numeric_limits<double>::infinity();
  if (text == "-Inf") return -std::numeric_limits<double>::infinity();
  double v = 0;
  const char* end = text.data() + text.size();
  const auto [ptr, ec] = std::from_chars(text.data(), end, v);
  if (ec != std::errc() || ptr != end || text.empty()) {
    return Status::ParseError(StrCat("bad sample value \"", text, "\""));
  }
  return v;
}

Result<MatrixStats> StreamMatrix(std::string_view body, Window keep, std::string_view fallback_name,
                                 ExpositionHandler& handler) {
  const json doc = json::parse(body, nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded() || !doc.is_object()) {
    return Status::ParseError("response is not a JSON object");
  }
  if (const std::string err = ApiErrorOf(body); !err.empty()) {
    return Status::InvalidArgument(StrCat("Prometheus error (", err, ")"));
  }
  const auto status = doc.find("status");
  if (status == doc.end() || *status != "success") {
    return Status::ParseError("response has no \"status\":\"success\"");
  }
  MatrixStats stats;
  if (const auto w = doc.find("warnings"); w != doc.end() && w->is_array()) {
    for (const json& s : *w) {
      if (s.is_string()) stats.warnings.push_back(s.get<std::string>());
    }
  }
  const auto data = doc.find("data");
  if (data == doc.end() || !data->is_object()) return Status::ParseError("response has no data");
  const auto type = data->find("resultType");
  if (type == data->end() || *type != "matrix") {
    return Status::ParseError(StrCat("expected a matrix result, got ",
                                     type == data->end() ? std::string("none") : type->dump()));
  }
  const auto result = data->find("result");
  if (result == data->end() || !result->is_array()) {
    return Status::ParseError("matrix response has no result array");
  }
  const int64_t keep_start = UnixMs(keep.start);
  const int64_t keep_end = UnixMs(keep.end);
  std::vector<LabelView> labels;
  for (const json& series : *result) {
    const auto metric = series.find("metric");
    const auto values = series.find("values");
    if (!series.is_object() || metric == series.end() || !metric->is_object()) {
      return Status::ParseError("matrix series without a metric object");
    }
    ++stats.series;
    if (values == series.end()) continue;  // e.g. a native-histogram-only series
    if (!values->is_array()) return Status::ParseError("matrix series values is not an array");
    std::string_view name = fallback_name;
    labels.clear();
    for (const auto& [k, v] : metric->items()) {
      if (!v.is_string()) return Status::ParseError(StrCat("label ", k, " is not a string"));
      const std::string& value = v.get_ref<const std::string&>();
      if (k == "__name__") {
        name = value;
      } else {
        labels.push_back(LabelView{k, value});
      }
    }
    SampleView sample;
    sample.name = name;
    sample.labels = labels;
    sample.has_timestamp = true;
    sample.series = NewSeriesId();
    for (const json& pair : *values) {
      if (!pair.is_array() || pair.size() != 2 || !pair[0].is_number() || !pair[1].is_string()) {
        return Status::ParseError(StrCat("bad sample in series ", name, ": ", pair.dump()));
      }
      ++stats.samples;
      const auto t_ms = static_cast<int64_t>(std::llround(pair[0].get<double>() * 1000.0));
      if (t_ms < keep_start || t_ms >= keep_end) continue;
      GPUCOST_ASSIGN_OR_RETURN(sample.value, ParseApiValue(pair[1].get_ref<const std::string&>()));
      sample.timestamp_ms = t_ms;
      handler.OnSample(sample);
      ++stats.kept;
    }
  }
  return stats;
}

}  // namespace gpucost::promsource
