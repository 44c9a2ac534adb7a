#include "inventory/neuron_shapes.h"

#include <array>

namespace gpucost {
namespace {

// Devices per instance: the Neuron documentation's Trn1/Trn1n, Trn2 and Inf2 architecture pages.
// Inf1's Inferentia has four NeuronCore-v1 (the Inf1 architecture page).
constexpr std::array<NeuronShape, 12> kNeuronShapes = {{
    {"inf1.xlarge", 1, 4, "AWS Inferentia"},
    {"inf1.2xlarge", 1, 4, "AWS Inferentia"},
    {"inf1.6xlarge", 4, 4, "AWS Inferentia"},
    {"inf1.24xlarge", 16, 4, "AWS Inferentia"},
    {"trn1.2xlarge", 1, 2, "AWS Trainium"},
    {"trn1.32xlarge", 16, 2, "AWS Trainium"},
    {"trn1n.32xlarge", 16, 2, "AWS Trainium"},
    {"trn2.48xlarge", 16, 4, "AWS Trainium2"},
    {"inf2.xlarge", 1, 2, "AWS Inferentia2"},
    {"inf2.8xlarge", 1, 2, "AWS Inferentia2"},
    {"inf2.24xlarge", 6, 2, "AWS Inferentia2"},
    {"inf2.48xlarge", 12, 2, "AWS Inferentia2"},
}};

}  // namespace

const NeuronShape* FindNeuronShape(std::string_view instance_type) {
  for (const NeuronShape& s : kNeuronShapes) {
    if (s.instance_type == instance_type) return &s;
  }
  return nullptr;
}

std::string NeuronDeviceModel(std::string_view instance_type) {
  if (const NeuronShape* s = FindNeuronShape(instance_type)) return std::string(s->device_model);
  const std::string_view family = instance_type.substr(0, instance_type.find('.'));
  if (family.starts_with("trn2")) return "AWS Trainium2";
  if (family.starts_with("trn1")) return "AWS Trainium";
  if (family.starts_with("inf2")) return "AWS Inferentia2";
  if (family.starts_with("inf1")) return "AWS Inferentia";
  return "AWS Neuron";
}

}  // namespace gpucost
