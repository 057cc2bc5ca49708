// grpc_service.h - the Open Inference Protocol over gRPC
// (inference.GRPCInferenceService, inference.proto) beside the REST one:
// ServerLive, ServerReady, ModelReady, ServerMetadata, ModelMetadata and
// ModelInfer. Built when grpc++ and protoc's gRPC plugin are found.
//
// Threading: gRPC's own threads run the handlers; each hands its work to
// the HTTP loop (Server::post) and waits for the answer, so the server's
// state is touched only by the loop thread, as for REST requests.
#ifndef STRATA_TOOLS_STRATA_SERVE_GRPC_SERVICE_H_
#define STRATA_TOOLS_STRATA_SERVE_GRPC_SERVICE_H_

#include <memory>
#include <string>

namespace strata::service {

class Server;

class GrpcService {
 public:
  /// Listens on address ("host:port"; port 0 picks one, *bound_port says
  /// which) with the handlers of server (borrowed; it must outlive the
  /// service). Null with *error when the address cannot be bound.
  static std::unique_ptr<GrpcService> start(Server* server,
                                            const std::string& address,
                                            size_t max_message_bytes,
                                            int* bound_port,
                                            std::string* error);
  /// Stops taking requests and waits (up to a few seconds) for the ones in
  /// progress; call once Server::run has returned.
  void shutdown();
  ~GrpcService();

 private:
  struct Impl;
  explicit GrpcService(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace strata::service

#endif  // STRATA_TOOLS_STRATA_SERVE_GRPC_SERVICE_H_
