// `gpucost prices`: what one GPU-hour costs on each node of a cluster over a window, and why
// (source, effective date, list price and discount, the catalog entry or rule that applied);
// `--catalog` prints the built-in catalog instead.
#include <algorithm>
#include <iomanip>
#include <iostream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "cli/commands.h"
#include "cli/format_flag.h"
#include "cli/kube_flags.h"
#include "cli/price_flags.h"
#include "core/log.h"
#include "core/money.h"
#include "core/strings.h"
#include "inventory/timeline_loader.h"
#include "pipeline/input_diagnosis.h"
#include "pricing/catalog.h"
#include "pricing/price_fn.h"
#include "pricing/reconcile.h"

namespace gpucost::cli {
namespace {

struct PricesFlags {
  std::vector<std::string> inputs;
  std::string untimestamped_at;
  std::string window;
  std::string cluster = "default";
  PriceOptions price;
  KubeFlags kube;
  bool catalog = false;
};

// A rate column's figure without its dollar sign (the header says USD), with the column's
// decimals (RateDecimals, core/money.h); "-" for none.
std::string Rate(double v, int decimals) {
  if (std::isnan(v)) return "-";
  const std::string text = FormatRateUsd(v, decimals);
  return text.front() == '$' ? text.substr(1) : text;
}

void PrintCatalog(std::ostream& out) {
  const Catalog& c = BuiltinCatalog();
  int decimals = 2;
  for (const CatalogInstance& in : c.instances) {
    for (const CatalogPrice& p : in.prices) {
      decimals =
          std::max({decimals, RateDecimals(p.usd_per_hour), RateDecimals(p.spot_usd_per_hour)});
    }
  }
  out << "Built-in price catalog, " << c.date << " (USD per instance-hour, on-demand Linux)\n\n";
  out << std::left << std::setw(10) << "provider" << std::setw(14) << "region" << std::setw(27)
      << "instance_type" << std::setw(5) << "gpus" << std::setw(24) << "gpu" << std::setw(12)
      << "usd_per_hr" << std::setw(10) << "spot" << std::setw(12) << "from" << std::setw(12)
      << "until"
      << "source\n";
  for (const CatalogInstance& in : c.instances) {
    for (const CatalogPrice& p : in.prices) {
      out << std::setw(10) << in.provider << std::setw(14) << in.region << std::setw(27) << in.type
          << std::setw(5) << in.gpus << std::setw(24) << in.gpu_model << std::setw(12)
          << Rate(p.usd_per_hour, decimals) << std::setw(10) << Rate(p.spot_usd_per_hour, decimals)
          << std::setw(12) << (p.from ? FormatRfc3339(*p.from).substr(0, 10) : "-") << std::setw(12)
          << (p.until ? FormatRfc3339(*p.until).substr(0, 10) : "-") << p.source << "\n";
    }
  }
  out << "\nTypical spot discounts (used when no spot price is known):\n";
  for (const auto& [provider, d] : c.spot_discounts) {
    out << "  " << provider << ": " << FormatDouble(d.discount * 100) << " % (" << d.source
        << ")\n";
  }
  out << "\nSources:\n";
  for (const auto& [id, text] : c.sources) out << "  " << id << ": " << text << "\n";
}

void PrintReconciliation(const PriceBook& book, const LoadedTimeline& timeline, std::ostream& out) {
  const Reconciliation rec = Reconcile(book, timeline.inventory.nodes, timeline.window);
  out << "\nReconciliation with " << book.bill_source() << " (GPU cost, USD)\n";
  out << std::left << std::setw(34) << "node" << std::setw(22) << "instance" << std::right
      << std::setw(14) << "list" << std::setw(14) << "billed" << std::setw(14) << "charged"
      << std::setw(14) << "adjustment"
      << "\n";
  const auto row = [&](std::string_view node, std::string_view id, double list, double billed,
                       double charged) {
    out << std::left << std::setw(34) << node << std::setw(22) << (id.empty() ? "-" : id)
        << std::right << std::setw(14) << FormatUsd(list) << std::setw(14) << FormatUsd(billed)
        << std::setw(14) << FormatUsd(charged) << std::setw(14) << FormatUsd(charged - list)
        << "\n";
  };
  for (const NodeReconciliation& n : rec.nodes) {
    row(n.cluster + "/" + n.node, n.instance_id, n.list_usd, n.bill_gpu_usd, n.charged_usd);
  }
  row("total", "", rec.list_usd, rec.bill_gpu_usd, rec.charged_usd);
  out << "billed: the GPU share of the bill's instance-hours in the window; charged: what gpucost "
         "charges for the GPUs (of which "
      << FormatUsd(rec.from_bill_usd) << " priced from the bill); adjustment: charged - list.\n";
  for (const auto& [id, usd] : rec.unmatched_instances) {
    out << "not matched to any node: " << id << " " << FormatUsd(usd)
        << " (no node's provider_id names it)\n";
  }
}

Status Run(const PricesFlags& flags) {
  if (flags.catalog) {
    PrintCatalog(std::cout);
    return Status::Ok();
  }
  if (flags.inputs.empty() && !flags.kube.any()) {
    return Status::InvalidArgument(
        "give --input (the cluster's series), --kube, --kube-objects or --catalog");
  }
  GPUCOST_ASSIGN_OR_RETURN(std::shared_ptr<const PriceBook> book, MakePriceBook(flags.price));
  TimelineOptions topts;
  topts.cluster = flags.cluster;
  if (!flags.window.empty()) {
    GPUCOST_ASSIGN_OR_RETURN(Window w, ParseWindow(flags.window));
    topts.window = w;
  }
  GPUCOST_ASSIGN_OR_RETURN(std::optional<KubeState> kube_state,
                           ReadKubeState(flags.kube, flags.cluster, {}, {}));
  if (kube_state) topts.kube_states.push_back(std::move(*kube_state));
  GPUCOST_ASSIGN_OR_RETURN(topts.untimestamped_at,
                           ParseUntimestampedAt(flags.untimestamped_at, flags.inputs));
  LoadedTimeline timeline;
  if (flags.inputs.empty()) {
    InventoryBuilder builder(topts);
    GPUCOST_ASSIGN_OR_RETURN(timeline, builder.Build());
  } else {
    GPUCOST_ASSIGN_OR_RETURN(timeline, LoadTimelineFromFiles(flags.inputs, topts));
    if (timeline.samples == 0 || timeline.window.empty()) return NoTimeInFiles(timeline);
  }
  if (timeline.window.empty()) return Status::InvalidArgument("the input covers no time");
  std::ostream& out = std::cout;
  out << "Prices per GPU-hour, " << FormatRfc3339(timeline.window.start) << " to "
      << FormatRfc3339(timeline.window.end) << " (USD)\n";
  int unknown = 0;
  // Every rate of the answer prints with the same decimals (RateDecimals).
  std::vector<std::vector<PricePeriod>> prices;
  int decimals = 2;
  for (const Node& node : timeline.inventory.nodes) {
    prices.push_back(book->Prices(node, timeline.window));
    for (const PricePeriod& p : prices.back()) {
      if (!p.known()) continue;
      decimals = std::max(
          {decimals, RateDecimals(p.usd_per_gpu_hour), RateDecimals(p.list_usd_per_gpu_hour)});
    }
  }
  for (size_t n = 0; n < timeline.inventory.nodes.size(); ++n) {
    const Node& node = timeline.inventory.nodes[n];
    out << "\n" << node.cluster << "/" << node.name << "  "
        << (node.instance_type.empty() ? "(no instance type)" : node.instance_type) << "  "
        << (node.region.empty() ? "(no region)" : node.region) << "  "
        << (node.capacity_type.empty() ? "(capacity type unknown)" : node.capacity_type) << "  "
        << node.physical_gpus << " x " << (node.gpu_model.empty() ? "GPU" : node.gpu_model)
        << "\n";
    for (const PricePeriod& p : prices[n]) {
      out << "  " << FormatRfc3339(p.interval.start) << " .. " << FormatRfc3339(p.interval.end)
          << "  ";
      if (!p.known()) {
        ++unknown;
        out << "unknown  " << p.why << "\n";
        continue;
      }
      out << std::left << std::setw(10) << Rate(p.usd_per_gpu_hour, decimals) << std::setw(11)
          << PriceSourceName(p.source);
      if (!std::isnan(p.list_usd_per_gpu_hour) && p.list_usd_per_gpu_hour > 0) {
        const double off = 1 - p.usd_per_gpu_hour / p.list_usd_per_gpu_hour;
        out << "list " << Rate(p.list_usd_per_gpu_hour, decimals);
        // A price above list (a rate card's own figure) is "above list", never "-49.4 % off".
        if (std::abs(off) > 1e-9) {
          out << " (" << FormatDouble(std::round(std::abs(off) * 1000) / 10)
              << (off > 0 ? " % off)" : " % above list)");
        }
        out << "  ";
      }
      out << p.why << "\n";
    }
  }
  if (book->has_bill()) PrintReconciliation(*book, timeline, out);
  if (unknown > 0) {
    out << "\n" << unknown
        << " span(s) have no price: their money is reported as unknown. Add a rule, an override "
           "or --price-per-gpu-hour (docs/pricing.md).\n";
  }
  return Status::Ok();
}

}  // namespace

void AddPricesCommand(CLI::App& app, int& exit_code) {
  auto f = std::make_shared<PricesFlags>();
  CLI::App* cmd = app.add_subcommand(
      "prices", "Show the price of a GPU-hour on each node over a window, and why");
  cmd->add_option("--input", f->inputs,
                  "kube-state-metrics (+ dcgm-exporter) files or folders, as for `report`");
  cmd->add_option("--untimestamped-at", f->untimestamped_at,
                  "Take samples without a timestamp as one scrape at this time (or mtime), as "
                  "for `report`");
  cmd->add_option("--window", f->window, "START,END (default: the input's span)")
      ->check(WindowValue());
  cmd->add_option("--cluster", f->cluster, "Cluster name for series without a cluster label")
      ->capture_default_str();
  AddPriceFlags(*cmd, f->price);
  AddKubeFlags(*cmd, f->kube);
  AddKubeObjectsFlags(*cmd, f->kube);
  cmd->add_flag("--catalog", f->catalog, "Print the built-in catalog with its sources");
  cmd->footer("Exit status: 0 on success, 2 on bad flags or input.");
  SetStatusCallback(*cmd, exit_code, [f] { return Run(*f); });
}

}  // namespace gpucost::cli
