// AWS Neuron instance shapes (docs/inputs.md "AWS Neuron"): per instance type, its Neuron
// devices, the NeuronCores the device plugin advertises per device under the default
// configuration, and the device's name. Used where a node's capacity does not tell both counts.
// Stateless and thread-safe.
#pragma once

#include <string>
#include <string_view>

namespace gpucost {

struct NeuronShape {
  std::string_view instance_type;  // "trn1.32xlarge"
  int devices = 0;
  // Logical NeuronCores per device by default: Trainium and Inferentia2 have two NeuronCore-v2;
  // Trainium2 has eight NeuronCore-v3, grouped in pairs by the default logical NeuronCore
  // configuration (LNC=2), so four.
  int cores_per_device = 0;
  std::string_view device_model;  // "AWS Trainium"
};

// The shape of `instance_type`, or nullptr when it is not a Neuron type we know.
const NeuronShape* FindNeuronShape(std::string_view instance_type);

// The device model of an instance family ("trn2.48xlarge" -> "AWS Trainium2"); "AWS Neuron" when
// the family is not known.
std::string NeuronDeviceModel(std::string_view instance_type);

}  // namespace gpucost
