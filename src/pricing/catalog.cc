#include "pricing/catalog.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "core/strings.h"
#include "pricing/yaml_util.h"

namespace gpucost {
namespace pricing_internal {
extern const std::string_view kBuiltinCatalogText;
}  // namespace pricing_internal

namespace {

Result<CatalogPrice> ReadPrice(const YamlContext& cx, const YAML::Node& node) {
  if (!node.IsMap()) return cx.Error(node, "expected a map with usd_per_hour");
  CatalogPrice p;
  bool have_price = false;
  for (const auto& e : node) {
    const std::string key = e.first.Scalar();
    if (key == "usd_per_hour") {
      GPUCOST_ASSIGN_OR_RETURN(p.usd_per_hour, cx.Price(e.second, key));
      have_price = true;
    } else if (key == "spot") {
      GPUCOST_ASSIGN_OR_RETURN(p.spot_usd_per_hour, cx.Price(e.second, key));
    } else if (key == "from") {
      GPUCOST_ASSIGN_OR_RETURN(p.from, cx.Time(e.second, key));
    } else if (key == "until") {
      GPUCOST_ASSIGN_OR_RETURN(p.until, cx.Time(e.second, key));
    } else if (key == "source") {
      GPUCOST_ASSIGN_OR_RETURN(p.source, cx.String(e.second, key));
    } else {
      return cx.Error(e.first, StrCat("unknown key \"", key,
                                      "\" (expected usd_per_hour, spot, from, until, source)"));
    }
  }
  if (!have_price) return cx.Error(node, "usd_per_hour: missing");
  if (p.from && p.until && *p.until <= *p.from) return cx.Error(node, "until must be after from");
  return p;
}

Result<CatalogInstance> ReadInstance(const YamlContext& cx, const YAML::Node& node,
                                     const std::map<std::string, std::string>& sources) {
  if (!node.IsMap()) return cx.Error(node, "expected a map describing an instance type");
  CatalogInstance in;
  for (const auto& e : node) {
    const std::string key = e.first.Scalar();
    if (key == "provider") {
      GPUCOST_ASSIGN_OR_RETURN(in.provider, cx.String(e.second, key));
    } else if (key == "region") {
      GPUCOST_ASSIGN_OR_RETURN(in.region, cx.String(e.second, key));
    } else if (key == "type") {
      GPUCOST_ASSIGN_OR_RETURN(in.type, cx.String(e.second, key));
    } else if (key == "gpu") {
      GPUCOST_ASSIGN_OR_RETURN(in.gpu_model, cx.String(e.second, key));
    } else if (key == "gpus") {
      GPUCOST_ASSIGN_OR_RETURN(double g, cx.NonNegative(e.second, key));
      if (g < 1 || g != std::floor(g)) return cx.Error(e.second, "gpus: expected a whole number >= 1");
      in.gpus = static_cast<int>(g);
    } else if (key == "vcpus") {
      GPUCOST_ASSIGN_OR_RETURN(double v, cx.NonNegative(e.second, key));
      in.vcpus = static_cast<int>(v);
    } else if (key == "memory_gib") {
      GPUCOST_ASSIGN_OR_RETURN(in.memory_gib, cx.NonNegative(e.second, key));
    } else if (key == "prices") {
      if (!e.second.IsSequence()) return cx.Error(e.second, "prices: expected a list");
      for (const YAML::Node& p : e.second) {
        GPUCOST_ASSIGN_OR_RETURN(CatalogPrice price, ReadPrice(cx, p));
        if (!price.source.empty() && !sources.contains(price.source)) {
          return cx.Error(p, StrCat("source \"", price.source, "\" is not listed under sources"));
        }
        in.prices.push_back(std::move(price));
      }
    } else {
      return cx.Error(e.first,
                      StrCat("unknown key \"", key,
                             "\" (expected provider, region, type, gpu, gpus, vcpus, memory_gib, "
                             "prices)"));
    }
  }
  if (in.type.empty()) return cx.Error(node, "type: missing");
  if (in.gpus == 0) return cx.Error(node, StrCat(in.type, ": gpus: missing"));
  if (in.prices.empty()) return cx.Error(node, StrCat(in.type, ": prices: missing"));
  std::sort(in.prices.begin(), in.prices.end(), [](const CatalogPrice& a, const CatalogPrice& b) {
    return a.from.value_or(Instant::min()) < b.from.value_or(Instant::min());
  });
  for (size_t i = 1; i < in.prices.size(); ++i) {
    const CatalogPrice& a = in.prices[i - 1];
    const CatalogPrice& b = in.prices[i];
    if (!a.until || !b.from || *a.until > *b.from) {
      return cx.Error(node, StrCat(in.type, ": prices overlap in time"));
    }
  }
  return in;
}

Result<Catalog> ReadCatalog(const YamlContext& cx, const YAML::Node& root) {
  if (!root.IsMap()) return cx.Error(root, "expected a map with sources and instances");
  Catalog c;
  c.source_name = std::string(cx.source);
  // Sources first: instances refer to them.
  if (const YAML::Node s = root["sources"]; s) {
    if (!s.IsMap()) return cx.Error(s, "sources: expected a map of id: description");
    for (const auto& e : s) c.sources[e.first.Scalar()] = e.second.Scalar();
  }
  for (const auto& e : root) {
    const std::string key = e.first.Scalar();
    if (key == "catalog_date") {
      GPUCOST_ASSIGN_OR_RETURN(c.date, cx.String(e.second, key));
    } else if (key == "sources") {
      continue;
    } else if (key == "spot_discounts") {
      if (!e.second.IsMap()) return cx.Error(e.second, "spot_discounts: expected a map");
      for (const auto& d : e.second) {
        SpotDiscount sd;
        GPUCOST_ASSIGN_OR_RETURN(sd.discount, cx.Fraction(d.second["discount"], "discount"));
        if (d.second["source"]) sd.source = d.second["source"].Scalar();
        c.spot_discounts[d.first.Scalar()] = std::move(sd);
      }
    } else if (key == "instances") {
      if (!e.second.IsSequence()) return cx.Error(e.second, "instances: expected a list");
      for (const YAML::Node& n : e.second) {
        GPUCOST_ASSIGN_OR_RETURN(CatalogInstance in, ReadInstance(cx, n, c.sources));
        c.instances.push_back(std::move(in));
      }
    } else {
      return cx.Error(e.first, StrCat("unknown key \"", key,
                                      "\" (expected catalog_date, sources, spot_discounts, "
                                      "instances)"));
    }
  }
  return c;
}

}  // namespace

CatalogMatch Catalog::Find(std::string_view type, std::string_view region) const {
  CatalogMatch m;
  for (const CatalogInstance& in : instances) {
    if (in.type != type) continue;
    if (in.region == region) return {&in, true};
    if (m.instance == nullptr) m.instance = &in;
  }
  return m;
}

Result<Catalog> ParseCatalog(std::string_view yaml_text, std::string_view source_name) {
  return ParseYaml<Catalog>(yaml_text, source_name, ReadCatalog);
}

const Catalog& BuiltinCatalog() {
  static const Catalog* const catalog = [] {
    auto parsed = ParseCatalog(pricing_internal::kBuiltinCatalogText, "built-in catalog");
    if (!parsed.ok()) {
      std::fprintf(stderr, "gpucost: the built-in price catalog is invalid: %s\n",
                   parsed.status().ToString().c_str());
      std::abort();
    }
    return new Catalog(std::move(parsed).value());
  }();
  return *catalog;
}

}  // namespace gpucost
