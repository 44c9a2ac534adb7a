#include "agent/pod_resources.h"

#include <grpcpp/grpcpp.h>
#include <sys/stat.h>

#include <cerrno>
#include <mutex>
#include <utility>

#include "core/strings.h"
#include "podresources/api.grpc.pb.h"

namespace gpucost::agent {
namespace {

using Stub = v1::PodResourcesLister::Stub;

std::string_view GrpcCodeName(grpc::StatusCode code) {
  switch (code) {
    case grpc::StatusCode::OK: return "OK";
    case grpc::StatusCode::CANCELLED: return "CANCELLED";
    case grpc::StatusCode::UNKNOWN: return "UNKNOWN";
    case grpc::StatusCode::INVALID_ARGUMENT: return "INVALID_ARGUMENT";
    case grpc::StatusCode::DEADLINE_EXCEEDED: return "DEADLINE_EXCEEDED";
    case grpc::StatusCode::NOT_FOUND: return "NOT_FOUND";
    case grpc::StatusCode::ALREADY_EXISTS: return "ALREADY_EXISTS";
    case grpc::StatusCode::PERMISSION_DENIED: return "PERMISSION_DENIED";
    case grpc::StatusCode::RESOURCE_EXHAUSTED: return "RESOURCE_EXHAUSTED";
    case grpc::StatusCode::FAILED_PRECONDITION: return "FAILED_PRECONDITION";
    case grpc::StatusCode::ABORTED: return "ABORTED";
    case grpc::StatusCode::OUT_OF_RANGE: return "OUT_OF_RANGE";
    case grpc::StatusCode::UNIMPLEMENTED: return "UNIMPLEMENTED";
    case grpc::StatusCode::INTERNAL: return "INTERNAL";
    case grpc::StatusCode::UNAVAILABLE: return "UNAVAILABLE";
    case grpc::StatusCode::DATA_LOSS: return "DATA_LOSS";
    case grpc::StatusCode::UNAUTHENTICATED: return "UNAUTHENTICATED";
    default: break;
  }
  return "UNKNOWN_CODE";
}

StatusCode ToStatusCode(grpc::StatusCode code) {
  switch (code) {
    case grpc::StatusCode::UNAVAILABLE:
    case grpc::StatusCode::DEADLINE_EXCEEDED:
    case grpc::StatusCode::RESOURCE_EXHAUSTED:  // the kubelet rate-limits this API
    case grpc::StatusCode::CANCELLED:
    case grpc::StatusCode::ABORTED:
      return StatusCode::kUnavailable;
    case grpc::StatusCode::UNIMPLEMENTED: return StatusCode::kUnimplemented;
    case grpc::StatusCode::PERMISSION_DENIED:
    case grpc::StatusCode::UNAUTHENTICATED:
      return StatusCode::kFailedPrecondition;
    default: return StatusCode::kInternal;
  }
}

// What the socket file says about an UNAVAILABLE kubelet, or "".
std::string SocketHint(const std::string& path) {
  struct stat st{};
  if (::stat(path.c_str(), &st) != 0) {
    if (errno == ENOENT) {
      return StrCat(" (no socket at ", path,
                    ": is the kubelet running, and its pod-resources directory mounted?)");
    }
    return "";
  }
  if (!S_ISSOCK(st.st_mode)) return StrCat(" (", path, " is not a socket)");
  return "";
}

bool ResetsChannel(grpc::StatusCode code) {
  return code == grpc::StatusCode::UNAVAILABLE || code == grpc::StatusCode::DEADLINE_EXCEEDED;
}

ResourceDevices FromProto(const v1::ContainerDevices& in) {
  ResourceDevices out;
  out.resource_name = in.resource_name();
  out.device_ids.assign(in.device_ids().begin(), in.device_ids().end());
  for (const v1::NUMANode& node : in.topology().nodes()) out.numa_nodes.push_back(node.id());
  return out;
}

void AppendClaimDevices(const v1::DynamicResource& in, std::vector<ClaimDevice>& out) {
  for (const v1::ClaimResource& resource : in.claim_resources()) {
    ClaimDevice device;
    device.claim_namespace = in.claim_namespace();
    device.claim_name = in.claim_name();
    device.driver_name = resource.driver_name();
    device.pool_name = resource.pool_name();
    device.device_name = resource.device_name();
    if (resource.has_share_id()) device.share_id = resource.share_id();
    for (const v1::CDIDevice& cdi : resource.cdi_devices()) device.cdi_devices.push_back(cdi.name());
    out.push_back(std::move(device));
  }
}

PodResourcesList FromProto(const v1::ListPodResourcesResponse& in) {
  PodResourcesList out;
  for (const v1::PodResources& pod : in.pod_resources()) {
    PodDevices pod_devices;
    pod_devices.pod_namespace = pod.namespace_();
    pod_devices.pod_name = pod.name();
    for (const v1::ContainerResources& container : pod.containers()) {
      ContainerDevices devices;
      devices.container_name = container.name();
      for (const v1::ContainerDevices& group : container.devices()) {
        if (group.device_ids_size() > 0) devices.devices.push_back(FromProto(group));
      }
      for (const v1::DynamicResource& claim : container.dynamic_resources()) {
        AppendClaimDevices(claim, devices.claim_devices);
      }
      if (!devices.devices.empty() || !devices.claim_devices.empty()) {
        pod_devices.containers.push_back(std::move(devices));
      }
    }
    if (!pod_devices.containers.empty()) out.pods.push_back(std::move(pod_devices));
  }
  return out;
}

AllocatableDevices FromProto(const v1::AllocatableResourcesResponse& in) {
  AllocatableDevices out;
  for (const v1::ContainerDevices& group : in.devices()) {
    if (group.device_ids_size() > 0) out.devices.push_back(FromProto(group));
  }
  return out;
}

std::string TargetFor(const std::string& socket_path) {
  // "unix://" takes an absolute path only; "unix:" takes a relative one.
  return socket_path.starts_with('/') ? StrCat("unix://", socket_path)
                                      : StrCat("unix:", socket_path);
}

}  // namespace

struct PodResourcesClient::Impl {
  PodResourcesOptions options;
  std::string target;
  std::mutex mu;
  std::shared_ptr<Stub> stub;  // guarded by mu; null until first used and after a reset

  std::shared_ptr<Stub> GetStub() {
    std::lock_guard lock(mu);
    if (!stub) {
      grpc::ChannelArguments args;
      args.SetMaxReceiveMessageSize(options.max_receive_bytes);
      // A channel of its own: gRPC otherwise shares connections between channels to one
      // target, and a fresh channel would inherit the old one's reconnect backoff.
      args.SetInt(GRPC_ARG_USE_LOCAL_SUBCHANNEL_POOL, 1);
      stub = std::make_shared<Stub>(
          grpc::CreateCustomChannel(target, grpc::InsecureChannelCredentials(), args));
    }
    return stub;
  }

  // After a kubelet restart gRPC would wait out its reconnect backoff (up to two minutes) before
  // trying again; dropping the channel makes the next call connect at once.
  void Reset(const std::shared_ptr<Stub>& failed) {
    std::lock_guard lock(mu);
    if (stub == failed) stub.reset();
  }

  template <typename Request, typename Response, typename Method>
  Status Call(std::string_view name, Method method, Response& response) {
    const std::shared_ptr<Stub> current = GetStub();
    grpc::ClientContext context;
    context.set_deadline(std::chrono::system_clock::now() + options.deadline);
    const Request request;
    const grpc::Status status = ((*current).*method)(&context, request, &response);
    if (status.ok()) return Status::Ok();
    if (ResetsChannel(status.error_code())) Reset(current);
    const std::string hint =
        status.error_code() == grpc::StatusCode::UNAVAILABLE ? SocketHint(options.socket_path) : "";
    return Status(ToStatusCode(status.error_code()),
                  StrCat("kubelet pod-resources ", name, " on ", target, " failed: ",
                         GrpcCodeName(status.error_code()), ": ", status.error_message(), hint));
  }
};

PodResourcesClient::PodResourcesClient(PodResourcesOptions options)
    : impl_(std::make_unique<Impl>()) {
  impl_->target = TargetFor(options.socket_path);
  impl_->options = std::move(options);
}

namespace {
PodResourcesOptions MakeOptions(std::string socket_path, std::chrono::milliseconds deadline) {
  PodResourcesOptions options;
  options.socket_path = std::move(socket_path);
  options.deadline = deadline;
  return options;
}
}  // namespace

PodResourcesClient::PodResourcesClient(std::string socket_path, std::chrono::milliseconds deadline)
    : PodResourcesClient(MakeOptions(std::move(socket_path), deadline)) {}

PodResourcesClient::~PodResourcesClient() = default;

const std::string& PodResourcesClient::target() const { return impl_->target; }

Result<PodResourcesList> PodResourcesClient::List() {
  v1::ListPodResourcesResponse response;
  GPUCOST_RETURN_IF_ERROR((impl_->Call<v1::ListPodResourcesRequest>("List", &Stub::List, response)));
  return FromProto(response);
}

Result<AllocatableDevices> PodResourcesClient::GetAllocatableResources() {
  v1::AllocatableResourcesResponse response;
  GPUCOST_RETURN_IF_ERROR((impl_->Call<v1::AllocatableResourcesRequest>(
      "GetAllocatableResources", &Stub::GetAllocatableResources, response)));
  return FromProto(response);
}

}  // namespace gpucost::agent
