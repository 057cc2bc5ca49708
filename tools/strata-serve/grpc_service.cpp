// grpc_service.cpp - inference.GRPCInferenceService on gRPC's synchronous
// server; see grpc_service.h. An infer request is turned into the REST
// form (its JSON with binary_data_size per input, then the raw bytes) and
// goes through the same decoding, checks, batching and call as a REST one;
// the answer's outputs travel as raw_output_contents.
#include "grpc_service.h"

#include <chrono>
#include <cstring>
#include <future>
#include <limits>
#include <type_traits>

#include <grpcpp/grpcpp.h>

#include "http_server.h"
#include "inference.grpc.pb.h"
#include "oip.h"
#include "tensor_json.h"

namespace strata::service {

namespace {

using inference::ModelInferRequest;

// A REST status as the gRPC one the protocol's errors map to.
grpc::Status statusOf(int code, const std::string& error) {
  grpc::StatusCode grpc_code = code == 400 ? grpc::StatusCode::INVALID_ARGUMENT
                               : code == 503 ? grpc::StatusCode::UNAVAILABLE
                               : code == 504
                                   ? grpc::StatusCode::DEADLINE_EXCEEDED
                                   : grpc::StatusCode::INTERNAL;
  return grpc::Status(grpc_code, error);
}

grpc::Status stopped() {
  return grpc::Status(grpc::StatusCode::UNAVAILABLE,
                      "the server is shutting down");
}

template <typename T>
void appendLittleEndian(std::string* out, T value) {
  char bytes[sizeof(T)];
  std::memcpy(bytes, &value, sizeof(T));
  out->append(bytes, sizeof(T));
}

// Appends values as elements of size bytes, each within [low, high].
template <typename Values>
bool appendNarrowed(const Values& values, size_t size, int64_t low,
                    uint64_t high, std::string* out) {
  for (auto value : values) {
    bool negative = false;
    if constexpr (std::is_signed_v<decltype(value)>) {
      negative = value < 0;
    }
    if ((negative && static_cast<int64_t>(value) < low) ||
        (!negative && static_cast<uint64_t>(value) > high)) {
      return false;
    }
    uint64_t bits = static_cast<uint64_t>(value);
    char bytes[8];
    std::memcpy(bytes, &bits, 8);  // little-endian: the low bytes first
    out->append(bytes, size);
  }
  return true;
}

// The bytes of a typed InferTensorContents as the datatype lays them out.
bool contentsBytes(const ModelInferRequest::InferInputTensor& input,
                   std::string* out, std::string* error) {
  const inference::InferTensorContents& c = input.contents();
  const std::string& type = input.datatype();
  auto range = [&] {
    *error = "input '" + input.name() + "' has a value out of range for " +
             type + " in its contents";
    return false;
  };
  if (type == "BOOL") {
    for (bool value : c.bool_contents()) {
      out->push_back(value ? 1 : 0);
    }
  } else if (type == "INT8") {
    if (!appendNarrowed(c.int_contents(), 1, -128, 127, out)) return range();
  } else if (type == "INT16") {
    if (!appendNarrowed(c.int_contents(), 2, -32768, 32767, out)) {
      return range();
    }
  } else if (type == "INT32") {
    for (int32_t value : c.int_contents()) appendLittleEndian(out, value);
  } else if (type == "INT64") {
    for (int64_t value : c.int64_contents()) appendLittleEndian(out, value);
  } else if (type == "UINT8") {
    if (!appendNarrowed(c.uint_contents(), 1, 0, 255, out)) return range();
  } else if (type == "UINT16") {
    if (!appendNarrowed(c.uint_contents(), 2, 0, 65535, out)) return range();
  } else if (type == "UINT32") {
    for (uint32_t value : c.uint_contents()) appendLittleEndian(out, value);
  } else if (type == "UINT64") {
    for (uint64_t value : c.uint64_contents()) appendLittleEndian(out, value);
  } else if (type == "FP32") {
    for (float value : c.fp32_contents()) appendLittleEndian(out, value);
  } else if (type == "FP64") {
    for (double value : c.fp64_contents()) appendLittleEndian(out, value);
  } else if (type == "FP16") {
    *error = "input '" + input.name() +
             "' is FP16, which travels only in raw_input_contents";
    return false;
  }
  // BYTES and unknown datatypes are refused by the decoding, by name.
  return true;
}

// The REST form of request: *body is its JSON then the inputs' bytes,
// *json_length the JSON's length.
bool toRestForm(const ModelInferRequest& request, std::string* body,
                size_t* json_length, std::string* error) {
  bool raw = request.raw_input_contents_size() > 0;
  if (raw && request.raw_input_contents_size() != request.inputs_size()) {
    *error = "raw_input_contents has " +
             std::to_string(request.raw_input_contents_size()) +
             " entries for " + std::to_string(request.inputs_size()) +
             " inputs";
    return false;
  }
  std::string json = "{";
  if (!request.id().empty()) {
    json += "\"id\": ";
    appendJsonString(&json, request.id());
    json += ", ";
  }
  json += "\"inputs\": [";
  std::string data;
  for (int i = 0; i < request.inputs_size(); ++i) {
    const ModelInferRequest::InferInputTensor& input = request.inputs(i);
    std::string bytes;
    if (raw) {
      if (input.has_contents()) {
        *error = "input '" + input.name() +
                 "' has contents beside raw_input_contents";
        return false;
      }
      bytes = request.raw_input_contents(i);
    } else if (!contentsBytes(input, &bytes, error)) {
      return false;
    }
    json += i ? ", {\"name\": " : "{\"name\": ";
    appendJsonString(&json, input.name());
    json += ", \"datatype\": ";
    appendJsonString(&json, input.datatype());
    json += ", \"shape\": [";
    for (int d = 0; d < input.shape_size(); ++d) {
      json += (d ? ", " : "") + std::to_string(input.shape(d));
    }
    json += "], \"parameters\": {\"binary_data_size\": " +
            std::to_string(bytes.size()) + "}}";
    data += bytes;
  }
  json += "]";
  if (request.outputs_size() > 0) {
    json += ", \"outputs\": [";
    for (int i = 0; i < request.outputs_size(); ++i) {
      json += i ? ", {\"name\": " : "{\"name\": ";
      appendJsonString(&json, request.outputs(i).name());
      json += "}";
    }
    json += "]";
  }
  json += "}";
  *json_length = json.size();
  *body = json + data;
  return true;
}

class Service final : public inference::GRPCInferenceService::Service {
 public:
  explicit Service(Server* server) : server_(server) {}

  grpc::Status ServerLive(grpc::ServerContext*,
                          const inference::ServerLiveRequest*,
                          inference::ServerLiveResponse* response) override {
    response->set_live(true);
    return grpc::Status::OK;
  }

  grpc::Status ServerReady(grpc::ServerContext*,
                           const inference::ServerReadyRequest*,
                           inference::ServerReadyResponse* response) override {
    return onLoop([&] {
      response->set_ready(server_->ready());
      return grpc::Status::OK;
    });
  }

  grpc::Status ModelReady(grpc::ServerContext*,
                          const inference::ModelReadyRequest* request,
                          inference::ModelReadyResponse* response) override {
    return onLoop([&] {
      const Model* model = nullptr;
      std::string error;
      Function* function = server_->findModel(
          request->name(), request->version(), &model, &error);
      if (!function && !server_->knownModel(request->name())) {
        return grpc::Status(grpc::StatusCode::INVALID_ARGUMENT, error);
      }
      response->set_ready(function != nullptr && server_->ready());
      return grpc::Status::OK;
    });
  }

  grpc::Status ServerMetadata(
      grpc::ServerContext*, const inference::ServerMetadataRequest*,
      inference::ServerMetadataResponse* response) override {
    response->set_name("strata-serve");
    response->set_version(STRATA_SERVE_VERSION);
    response->add_extensions("binary_tensor_data");
    response->add_extensions("model_repository");
    return grpc::Status::OK;
  }

  grpc::Status ModelMetadata(
      grpc::ServerContext*, const inference::ModelMetadataRequest* request,
      inference::ModelMetadataResponse* response) override {
    return onLoop([&] {
      const Model* model = nullptr;
      std::string error;
      Function* function = server_->findModel(
          request->name(), request->version(), &model, &error);
      if (!function) {
        return grpc::Status(grpc::StatusCode::INVALID_ARGUMENT, error);
      }
      response->set_name(request->name());
      if (!model->version.empty()) {
        response->add_versions(model->version);
      }
      response->set_platform("strata");
      for (int output = 0; output < 2; ++output) {
        size_t count = output ? function->result_kinds.size()
                              : function->argument_kinds.size();
        for (size_t i = 0; i < count; ++i) {
          auto* tensor =
              output ? response->add_outputs() : response->add_inputs();
          std::string datatype;
          std::vector<int64_t> shape;
          oipTensorMetadata(*function, output, i, &datatype, &shape);
          tensor->set_name(output ? oipOutputName(*function, i)
                                  : oipInputName(*function, i));
          tensor->set_datatype(datatype);
          for (int64_t d : shape) {
            tensor->add_shape(d);
          }
        }
      }
      return grpc::Status::OK;
    });
  }

  grpc::Status ModelInfer(grpc::ServerContext*,
                          const ModelInferRequest* request,
                          inference::ModelInferResponse* response) override {
    std::string body;
    size_t json_length = 0;
    std::string error;
    if (!toRestForm(*request, &body, &json_length, &error)) {
      return grpc::Status(grpc::StatusCode::INVALID_ARGUMENT, error);
    }
    auto promise = std::make_shared<std::promise<Server::InferAnswer>>();
    std::future<Server::InferAnswer> future = promise->get_future();
    Server* server = server_;
    std::string name = request->model_name();
    std::string version = request->model_version();
    bool posted = server_->post(
        [server, promise, name, version, body = std::move(body), json_length] {
          server->inferAsync(name, version, body, json_length,
                             [promise](Server::InferAnswer answer) {
                               promise->set_value(std::move(answer));
                             });
        });
    if (!posted) {
      return stopped();
    }
    Server::InferAnswer answer = future.get();
    if (answer.code != 200) {
      return statusOf(answer.code, answer.error);
    }
    response->set_model_name(name);
    response->set_model_version(answer.model_version);
    response->set_id(request->id());
    for (size_t i = 0; i < answer.tensors.size(); ++i) {
      const OipTensor& tensor = answer.tensors[i];
      auto* output = response->add_outputs();
      output->set_name(answer.names[i]);
      output->set_datatype(oipDatatype(tensor.type));
      for (int64_t d : tensor.shape) {
        output->add_shape(d);
      }
      response->add_raw_output_contents(
          reinterpret_cast<const char*>(tensor.bytes.data()),
          tensor.bytes.size());
    }
    return grpc::Status::OK;
  }

 private:
  // Runs f on the HTTP loop and waits for its status.
  template <typename F>
  grpc::Status onLoop(F f) {
    auto promise = std::make_shared<std::promise<grpc::Status>>();
    std::future<grpc::Status> future = promise->get_future();
    if (!server_->post([promise, &f] { promise->set_value(f()); })) {
      return stopped();
    }
    return future.get();
  }

  Server* server_;
};

}  // namespace

struct GrpcService::Impl {
  explicit Impl(Server* server) : service(server) {}
  Service service;
  std::unique_ptr<grpc::Server> server;
};

GrpcService::GrpcService(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

GrpcService::~GrpcService() { shutdown(); }

std::unique_ptr<GrpcService> GrpcService::start(Server* server,
                                                const std::string& address,
                                                size_t max_message_bytes,
                                                int* bound_port,
                                                std::string* error) {
  auto impl = std::make_unique<Impl>(server);
  grpc::ServerBuilder builder;
  *bound_port = 0;
  builder.AddListeningPort(address, grpc::InsecureServerCredentials(),
                           bound_port);
  builder.RegisterService(&impl->service);
  int limit =
      max_message_bytes > static_cast<size_t>(std::numeric_limits<int>::max())
          ? std::numeric_limits<int>::max()
          : static_cast<int>(max_message_bytes);
  builder.SetMaxReceiveMessageSize(limit);
  impl->server = builder.BuildAndStart();
  if (!impl->server || *bound_port == 0) {
    *error = "cannot listen for gRPC on " + address;
    return nullptr;
  }
  return std::unique_ptr<GrpcService>(new GrpcService(std::move(impl)));
}

void GrpcService::shutdown() {
  if (impl_ && impl_->server) {
    impl_->server->Shutdown(std::chrono::system_clock::now() +
                            std::chrono::seconds(5));
    impl_->server->Wait();
    impl_->server.reset();
  }
}

}  // namespace strata::service
