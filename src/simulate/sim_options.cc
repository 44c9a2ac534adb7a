#include "simulate/sim_options.h"

#include <charconv>
#include <cmath>

#include "core/strings.h"
#include "simulate/gpu_catalog.h"

namespace gpucost::simulate {
namespace {

constexpr std::string_view kSharingNames[] = {"whole", "mig", "time-slicing", "mps", "hami"};

}  // namespace

std::string_view SharingName(Sharing s) { return kSharingNames[static_cast<size_t>(s)]; }

Result<std::vector<Weighted>> ParseMix(std::string_view text, std::string_view flag) {
  std::vector<Weighted> out;
  for (std::string_view item : Split(text, ',')) {
    item = Trim(item);
    if (item.empty()) continue;
    Weighted w;
    const size_t colon = item.find(':');
    w.key = std::string(Trim(item.substr(0, colon)));
    if (colon != std::string_view::npos) {
      const std::string_view num = Trim(item.substr(colon + 1));
      auto [p, ec] = std::from_chars(num.data(), num.data() + num.size(), w.weight);
      if (ec != std::errc() || p != num.data() + num.size() || !std::isfinite(w.weight) ||
          w.weight < 0) {
        return Status::InvalidArgument(
            StrCat(flag, ": bad weight in \"", item, "\" (want KEY:WEIGHT, WEIGHT >= 0)"));
      }
    }
    if (w.key.empty())
      return Status::InvalidArgument(StrCat(flag, ": empty key in \"", text, "\""));
    out.push_back(std::move(w));
  }
  if (out.empty()) return Status::InvalidArgument(StrCat(flag, ": empty list"));
  return out;
}

Status Validate(const SimOptions& o) {
  if (o.nodes < 1 || o.nodes > 100000) return Status::InvalidArgument("--nodes must be 1..100000");
  if (o.gpus_per_node < 0 || o.gpus_per_node > 64) {
    return Status::InvalidArgument("--gpus-per-node must be 0..64 (0: the model's usual count)");
  }
  if (o.replicas < 2 || o.replicas > 64) return Status::InvalidArgument("--replicas must be 2..64");
  if (!(o.spot_fraction >= 0 && o.spot_fraction <= 1)) {
    return Status::InvalidArgument("--spot-fraction must be 0..1");
  }
  if (o.namespaces < 1 || o.namespaces > 16) {
    return Status::InvalidArgument("--namespaces must be 1..16");
  }
  if (o.scrape_interval < std::chrono::seconds(1) || o.scrape_interval.count() % 1000 != 0) {
    return Status::InvalidArgument("--scrape-interval must be whole seconds, at least 1s");
  }
  double models = 0, mig_models = 0, nvidia_models = 0, modes = 0;
  for (const Weighted& w : o.gpu_models) {
    const GpuModelSpec* m = FindGpuModel(w.key);
    if (m == nullptr) {
      return Status::InvalidArgument(
          StrCat("--gpu-models: unknown model \"", w.key, "\" (known: ", GpuModelKeys(), ")"));
    }
    models += w.weight;
    // A DRA node's sharing is its claims' (whatever --sharing picks): it fits every mode.
    if (m->mig_capable() || m->dra) mig_models += w.weight;
    if (m->vendor == Vendor::kNvidia) nvidia_models += w.weight;
  }
  bool mig = false, shared = false;
  for (const Weighted& w : o.sharing) {
    bool known = false;
    for (std::string_view n : kSharingNames) known = known || n == w.key;
    if (!known) {
      return Status::InvalidArgument(StrCat("--sharing: unknown mode \"", w.key,
                                            "\" (known: whole, mig, time-slicing, mps, hami)"));
    }
    modes += w.weight;
    mig = mig || (w.key == "mig" && w.weight > 0);
    shared = shared || (w.key != "whole" && w.weight > 0);
  }
  if (models <= 0) return Status::InvalidArgument("--gpu-models: weights sum to 0");
  if (modes <= 0) return Status::InvalidArgument("--sharing: weights sum to 0");
  if (shared && nvidia_models <= 0) {
    return Status::InvalidArgument(
        "--sharing other than whole needs an NVIDIA model in --gpu-models: AMD and AWS Neuron "
        "nodes are simulated with whole devices only");
  }
  if (mig && mig_models <= 0) {
    return Status::InvalidArgument(
        "--sharing mig needs a MIG-capable model in --gpu-models (a100-80gb, a100-40gb, "
        "h100-80gb)");
  }
  return Status::Ok();
}

}  // namespace gpucost::simulate
