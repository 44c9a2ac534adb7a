// A fake kubelet for tests: a real gRPC server on a unix socket serving v1.PodResourcesLister
// from the same proto as the agent's client, with a scripted node. Each call can be answered,
// refused as UNIMPLEMENTED (an older kubelet), failed with a status, or left hanging until the
// client gives up. The node is given as protobuf text format (what the kubelet would send, every
// field included) or as the message itself. Starts in Start(), stops in its destructor.
// Thread-safe: the script can change while clients call.
#pragma once

#include <google/protobuf/text_format.h>
#include <grpcpp/grpcpp.h>

#include <atomic>
#include <chrono>
#include <memory>
#include <mutex>
#include <string>
#include <utility>

#include "podresources/api.grpc.pb.h"

namespace gpucost::testing_util {

class FakeKubelet {
 public:
  enum class Mode {
    kServe,          // answer with the scripted message
    kUnimplemented,  // UNIMPLEMENTED, as a kubelet without the call answers
    kFail,           // fail_code with fail_message
    kHang,           // never answer; the call ends when the client's deadline cancels it
  };

  struct Script {
    v1::ListPodResourcesResponse list;
    v1::AllocatableResourcesResponse allocatable;
    Mode list_mode = Mode::kServe;
    Mode allocatable_mode = Mode::kServe;
    grpc::StatusCode fail_code = grpc::StatusCode::INTERNAL;
    std::string fail_message = "scripted failure";
  };

  // Parses protobuf text format into `script` (list and allocatable); "" on success, else why not.
  static std::string ParseText(const std::string& list_text, const std::string& allocatable_text,
                               Script& script) {
    if (!google::protobuf::TextFormat::ParseFromString(list_text, &script.list)) {
      return "ListPodResourcesResponse text does not parse";
    }
    if (!google::protobuf::TextFormat::ParseFromString(allocatable_text, &script.allocatable)) {
      return "AllocatableResourcesResponse text does not parse";
    }
    return "";
  }

  // Listens on `socket_path` (a path, not a URI); null when the server does not start.
  static std::unique_ptr<FakeKubelet> Start(const std::string& socket_path, Script script) {
    auto kubelet = std::unique_ptr<FakeKubelet>(new FakeKubelet(std::move(script)));
    grpc::ServerBuilder builder;
    builder.AddListeningPort("unix:" + socket_path, grpc::InsecureServerCredentials());
    builder.RegisterService(&kubelet->service_);
    kubelet->server_ = builder.BuildAndStart();
    if (!kubelet->server_) return nullptr;
    return kubelet;
  }

  ~FakeKubelet() {
    // Calls still hanging are cancelled when the grace period ends.
    server_->Shutdown(std::chrono::system_clock::now() + std::chrono::seconds(2));
    server_->Wait();
  }
  FakeKubelet(const FakeKubelet&) = delete;
  FakeKubelet& operator=(const FakeKubelet&) = delete;

  void SetScript(Script script) {
    std::lock_guard lock(service_.mu);
    service_.script = std::move(script);
  }
  int list_calls() const { return service_.list_calls.load(); }
  int allocatable_calls() const { return service_.allocatable_calls.load(); }

 private:
  // Ends only when the call is cancelled: by the client's deadline or by server shutdown.
  class HangingReactor : public grpc::ServerUnaryReactor {
   public:
    void OnCancel() override { Finish(grpc::Status::CANCELLED); }
    void OnDone() override { delete this; }
  };

  class Service final : public v1::PodResourcesLister::CallbackService {
   public:
    using v1::PodResourcesLister::CallbackService::GetAllocatableResources;
    using v1::PodResourcesLister::CallbackService::List;

    grpc::ServerUnaryReactor* List(grpc::CallbackServerContext* context,
                                   const v1::ListPodResourcesRequest* /*request*/,
                                   v1::ListPodResourcesResponse* response) override {
      ++list_calls;
      std::lock_guard lock(mu);
      return Answer(context, script.list_mode, "List", [&] { *response = script.list; });
    }

    grpc::ServerUnaryReactor* GetAllocatableResources(
        grpc::CallbackServerContext* context, const v1::AllocatableResourcesRequest* /*request*/,
        v1::AllocatableResourcesResponse* response) override {
      ++allocatable_calls;
      std::lock_guard lock(mu);
      return Answer(context, script.allocatable_mode, "GetAllocatableResources",
                    [&] { *response = script.allocatable; });
    }

    std::mutex mu;
    Script script;  // guarded by mu
    std::atomic<int> list_calls{0};
    std::atomic<int> allocatable_calls{0};

   private:
    template <typename Fill>
    grpc::ServerUnaryReactor* Answer(grpc::CallbackServerContext* context, Mode mode,
                                     const std::string& method, Fill fill) {
      if (mode == Mode::kHang) return new HangingReactor();
      grpc::ServerUnaryReactor* reactor = context->DefaultReactor();
      switch (mode) {
        case Mode::kServe:
          fill();
          reactor->Finish(grpc::Status::OK);
          break;
        case Mode::kUnimplemented:  // the message grpc-go sends for a method it does not know
          reactor->Finish(grpc::Status(grpc::StatusCode::UNIMPLEMENTED,
                                       "unknown method " + method +
                                           " for service v1.PodResourcesLister"));
          break;
        default:
          reactor->Finish(grpc::Status(script.fail_code, script.fail_message));
          break;
      }
      return reactor;
    }
  };

  explicit FakeKubelet(Script script) { service_.script = std::move(script); }

  Service service_;
  std::unique_ptr<grpc::Server> server_;
};

}  // namespace gpucost::testing_util
