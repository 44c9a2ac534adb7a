// Reading /api/v1/query responses whose result is a range vector (resultType "matrix") as raw
// samples: every [timestamp, "value"] pair becomes a SampleView for an ExpositionHandler, the
// series' labels as its labels and __name__ as its name. The body is parsed with nlohmann::json
// into a document first, so memory is the body plus its document (one chunk of one metric).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "core/result.h"
#include "core/time.h"
#include "ingest/exposition.h"

namespace gpucost::promsource {

struct MatrixStats {
  uint64_t series = 0;
  uint64_t samples = 0;               // in the response
  uint64_t kept = 0;                  // handed to the handler (inside `keep`)
  std::vector<std::string> warnings;  // the response's "warnings"
};

// Hands the handler every sample with keep.start <= t < keep.end, series by series, each
// series in time order. Series without __name__ are named `fallback_name`. Fails on a body that
// is not a successful matrix response (a `"status":"error"` body fails with its errorType/error).
Result<MatrixStats> StreamMatrix(std::string_view body, Window keep, std::string_view fallback_name,
                                 ExpositionHandler& handler);

// A sample value as the API writes it: "1", "0.25", "1e+06", "NaN", "+Inf", "-Inf".
Result<double> ParseApiValue(std::string_view text);

}  // namespace gpucost::promsource
