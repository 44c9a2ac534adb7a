// The claims of the simulated DRA nodes: NVIDIA's DRA driver's static GPUs (exclusive, shared
// and consumable-capacity claims) and under DynamicMIG (MIG devices of several profiles and whole
// GPUs), and AWS's Neuron DRA driver (groups of Neuron devices). Their pods run from the first
// scrape on.
#include <string_view>
#include <vector>

#include "core/strings.h"
#include "simulate/sim_dra_slices.h"
#include "simulate/sim_impl.h"

namespace gpucost::simulate {
namespace {

// A DynamicMIG claim: the MIG device of `profile` placed from memory slice `start`, or with no
// profile the whole GPU.
struct DynamicMigPick {
  std::string_view profile;
  int start = 0;
};

// The GPUs' claims in turn: 3g+2g+1g (a slice idle), the whole GPU, 4g+3g, 2g+2g+1g+1g (a slice
// idle), 7g.
const std::vector<std::vector<DynamicMigPick>> kDynamicMigLayouts = {
    {{"3g.40gb", 0}, {"2g.20gb", 4}, {"1g.10gb", 6}},
    {{"", 0}},
    {{"4g.40gb", 0}, {"3g.40gb", 4}},
    {{"2g.20gb", 0}, {"2g.20gb", 2}, {"1g.10gb", 4}, {"1g.10gb", 5}},
    {{"7g.80gb", 0}},
};

constexpr double kComputeSlices = 7;  // of an H100

}  // namespace

void ClusterSimulator::Impl::NvidiaDraClaims(Node& node, const AddSlot& add_slot) {
  // NVIDIA's DRA driver: every GPU is a device gpu-<n> of the node's ResourceSlice, handed
  // out by claims whose pods run from the first scrape on: gpu-0 to one training pod; gpu-1 to
  // two inference pods through one claim; gpu-2 (allowMultipleAllocations) a quarter of its
  // memory to a notebook (consumable capacity); the GPUs after that to one pod each, the last
  // of five or more left unclaimed (idle).
  auto claim = [&](int g, const std::vector<int>& slots, const std::string& share,
                   double fraction) {
    DraClaim c;
    c.name = StrCat(node.name, "-gpu-", g, share.empty() ? "" : StrCat("-", share));
    c.gpu = g;
    c.slots = slots;
    c.share_id = share;
    c.memory_fraction = fraction;
    Unit& u = node.units[static_cast<size_t>(g)];
    u.exclusive = slots.size() == 1 && share.empty();
    for (int si : slots) {
      Slot& s = node.slots[static_cast<size_t>(si)];
      s.fixed = true;
      s.claim = c.name;
      s.next_start_ms = origin_ms_;
      s.load_scale = share.empty() ? 1.0 / static_cast<double>(slots.size()) : fraction;
      u.slots.push_back(si);
    }
    node.claims.push_back(std::move(c));
  };
  for (int g = 0; g < node.gpus; ++g) {
    if (g == 0) {
      claim(g, {add_slot(Kind::kTraining)}, "", 0);
    } else if (g == 1) {
      const int a = add_slot(Kind::kInference);
      const int b = add_slot(Kind::kInference);
      Slot& second = node.slots[static_cast<size_t>(b)];
      second.ns = node.slots[static_cast<size_t>(a)].ns;  // a claim is its namespace's
      second.deployment = StrCat(node.slots[static_cast<size_t>(a)].deployment, "-canary");
      claim(g, {a, b}, "", 0);
    } else if (g == 2) {
      claim(g, {add_slot(Kind::kNotebook)}, "share-0", 0.25);
    } else if (g < node.gpus - 1 || node.gpus < 5) {
      claim(g, {add_slot(g % 2 == 1 ? Kind::kInference : Kind::kTraining)}, "", 0);
    }
  }
}

void ClusterSimulator::Impl::HoldClaim(Node& node, DraClaim c, double load_scale) {
  const std::vector<int> units = c.units.empty() ? std::vector<int>{c.gpu} : c.units;
  for (int si : c.slots) {
    Slot& s = node.slots[static_cast<size_t>(si)];
    s.fixed = true;
    s.claim = c.name;
    s.next_start_ms = origin_ms_;
    s.load_scale = load_scale;
    for (int u : units) node.units[static_cast<size_t>(u)].slots.push_back(si);
  }
  node.claims.push_back(std::move(c));
}

// A claim of one pod per MIG device, which uses the device's part of the GPU (its compute
// slices): 3g and more train, 2g serve, 1g host notebooks; a whole GPU trains. On nodes of five
// GPUs or more the last is unclaimed (idle).
void ClusterSimulator::Impl::DynamicMigClaims(Node& node, const AddSlot& add_slot) {
  for (int g = 0; g < node.gpus; ++g) {
    if (g == node.gpus - 1 && node.gpus >= 5) break;
    const std::vector<DynamicMigPick>& layout =
        kDynamicMigLayouts[static_cast<size_t>(g) % kDynamicMigLayouts.size()];
    for (const DynamicMigPick& pick : layout) {
      DraClaim c;
      c.gpu = g;
      const MigPlacements* p = FindMigPlacements(pick.profile);
      if (p == nullptr) {
        c.name = StrCat(node.name, "-gpu-", g);
        c.slots = {add_slot(Kind::kTraining)};
        HoldClaim(node, std::move(c), 1.0);
        continue;
      }
      c.mig_device = DynamicMigDeviceName(g, *p, pick.start);
      c.mig_profile = std::string(p->profile);
      c.name = StrCat(node.name, "-", c.mig_device);
      c.slots = {add_slot(p->compute_slices >= 3   ? Kind::kTraining
                          : p->compute_slices == 2 ? Kind::kInference
                                                   : Kind::kNotebook)};
      HoldClaim(node, std::move(c), p->compute_slices / kComputeSlices);
    }
    node.units[static_cast<size_t>(g)].exclusive = layout.size() == 1;
  }
}

// Groups of devices, halving (16 devices: 8, 4, 2, 1, 1), a claim of one pod each: groups of two
// or more train, single devices serve or host notebooks in turn. On nodes of five devices or more
// the last is unclaimed (idle).
void ClusterSimulator::Impl::NeuronDraClaims(Node& node, const AddSlot& add_slot) {
  int singles = 0;
  for (int d = 0; d < node.gpus;) {
    const int left = node.gpus - d;
    int n = 1;
    while (left >= 4 && n * 2 <= left / 2) n *= 2;
    if (left == 1 && node.gpus >= 5) break;
    DraClaim c;
    c.name = StrCat(node.name, "-neuron-", d, "-x", n);
    c.gpu = d;
    for (int k = 0; k < n; ++k) c.units.push_back(d + k);
    c.slots = {add_slot(n >= 2               ? Kind::kTraining
                        : singles++ % 2 == 0 ? Kind::kInference
                                             : Kind::kNotebook)};
    HoldClaim(node, std::move(c), 1.0);
    d += n;
  }
}

}  // namespace gpucost::simulate
