// The price catalog: dated on-demand prices of cloud GPU instance types with their GPU model and
// count, vCPUs and memory, observed spot prices, typical spot discounts per provider, and the
// source of every number. The built-in one is data/price-catalog.yaml compiled into the binary.
// Immutable once parsed; const methods are thread-safe.
//
//   const Catalog& BuiltinCatalog();
//   Result<Catalog> ParseCatalog(std::string_view yaml_text, std::string_view source_name);
//   CatalogMatch Catalog::Find(instance_type, region, Instant t) const;
#pragma once

#include <cmath>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.h"
#include "core/time.h"

namespace gpucost {

struct CatalogPrice {
  double usd_per_hour = 0;  // the instance, on-demand
  double spot_usd_per_hour = NAN;  // an observed spot price; NaN when none
  std::optional<Instant> from;   // inclusive; none: since ever
  std::optional<Instant> until;  // exclusive; none: still current
  std::string source;            // a key of Catalog::sources

  bool Covers(Instant t) const { return (!from || t >= *from) && (!until || t < *until); }
};

struct CatalogInstance {
  std::string provider;  // "aws", "gcp", "azure"
  std::string region;
  std::string type;      // "p5.48xlarge"
  std::string gpu_model;
  int gpus = 0;
  int vcpus = 0;             // 0 when the catalog does not know
  double memory_gib = 0;     // 0 when the catalog does not know
  std::vector<CatalogPrice> prices;  // sorted by from, disjoint
};

struct SpotDiscount {
  double discount = 0;  // fraction off on-demand, 0 <= d < 1
  std::string source;
};

struct CatalogMatch {
  const CatalogInstance* instance = nullptr;  // null: the type is not in the catalog
  bool region_exact = false;  // false: the type is priced in another region only
};

struct Catalog {
  std::string source_name;  // "built-in catalog" or the file
  std::string date;         // catalog_date
  std::map<std::string, std::string> sources;  // id -> description
  std::map<std::string, SpotDiscount> spot_discounts;  // provider -> typical discount
  std::vector<CatalogInstance> instances;

  // The entry for `type`, preferring `region`; types compare exactly.
  CatalogMatch Find(std::string_view type, std::string_view region) const;
};

// Errors name the source and line: "price-catalog.yaml:41: instances[3]: gpus: ...".
Result<Catalog> ParseCatalog(std::string_view yaml_text, std::string_view source_name);

// Parsed once on first use. The embedded file is tested, so a failure here is a build defect:
// it aborts with the parse error.
const Catalog& BuiltinCatalog();

}  // namespace gpucost
