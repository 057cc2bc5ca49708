// oip.h - the Open Inference Protocol (KServe v2) over REST, as
// kserve/open-inference-protocol's inference_rest.md defines it: model
// metadata, and infer requests and answers with JSON tensors (flat or
// nested) and the binary tensor data extension (binary_data_size,
// Inference-Header-Content-Length) both ways. The HTTP side (routes,
// status codes) is http_server.cpp's.
//
// Threading: pure functions of their arguments; a Function is read only.
#ifndef STRATA_TOOLS_STRATA_SERVE_OIP_H_
#define STRATA_TOOLS_STRATA_SERVE_OIP_H_

#include <cstddef>
#include <string>
#include <vector>

#include "model_registry.h"
#include "strata/runtime.h"

namespace strata::service {

/// What an infer request asks of its answer, kept from its decoding (HTTP
/// loop) to the encoding of its results (compute thread).
struct OipRequest {
  bool has_id = false;
  std::string id;
  struct Output {
    size_t result = 0;    // index of the function's result
    bool binary = false;  // sent as binary data (binary_data_size)
  };
  /// The outputs to answer with, in order: every result (in order) when the
  /// request names none, else those it names, in its order.
  std::vector<Output> outputs;
};

/// The protocol's datatype for an element type ("FP32", "UINT8", "BOOL");
/// "" when it has none (bf16 is "BF16", outside the specification's table).
std::string oipDatatype(strata_hal_element_type_t type);

/// The protocol name of input i / output i of function: its reflection name
/// (argN.name, resultN.name) or "input<i>" / "output<i>".
std::string oipInputName(const Function& function, size_t i);
std::string oipOutputName(const Function& function, size_t i);

/// The metadata of input i of function (output: false) or of output i:
/// its datatype ("" when the reflection does not give it) and its shape
/// (-1 for a dynamic dimension).
void oipTensorMetadata(const Function& function, bool output, size_t i,
                       std::string* datatype, std::vector<int64_t>* shape);

/// GET /v2: {"name", "version", "extensions"}.
std::string oipServerMetadata();

/// GET /v2/models/<model>: {"name", "versions", "platform", "inputs",
/// "outputs"}; each tensor {"name", "datatype", "shape"} with -1 for a
/// dynamic dimension. model_name is the name the client used.
std::string oipModelMetadata(const std::string& model_name, const Model& model,
                             const Function& function);

/// A tensor on its way in (decoded from a request) or out (read from a
/// call's results): scalars of the calling convention are rank-0 tensors.
struct OipTensor {
  strata_runtime_value_kind_t kind = STRATA_RUNTIME_VALUE_NONE;
  /// Inputs: the buffer view's element type (the function's own, signless
  /// where it was compiled so). Outputs: the protocol's (ui8 where the
  /// reflection records an unsigned type).
  strata_hal_element_type_t type = STRATA_HAL_ELEMENT_TYPE_NONE;
  std::vector<int64_t> shape;
  std::vector<uint8_t> bytes;
};

/// Decodes an infer request for function into *request and *inputs (one
/// per argument, in argument order). body[0, json_length) is the JSON; the
/// rest is binary tensor data for the inputs that give binary_data_size,
/// in the order they come. False with *error (for a 400 answer) naming
/// what is wrong: the JSON, an input (by name), its datatype, shape or
/// data, a requested output.
bool oipDecodeInfer(const Function& function, const std::string& body,
                    size_t json_length, OipRequest* request,
                    std::vector<OipTensor>* inputs, std::string* error);

/// Pushes inputs (from oipDecodeInfer, or concatenated from several) into
/// call, in order. False with *error.
bool oipPushInputs(const Function& function,
                   const std::vector<OipTensor>& inputs,
                   strata_runtime_call_t* call, std::string* error);

/// Reads every result of a completed call into *results. False with
/// *error when one cannot be read or has no protocol datatype.
bool oipReadResults(const Function& function, const strata_runtime_call_t* call,
                    std::vector<OipTensor>* results, std::string* error);

/// Encodes the answer to request from results into *out: {"model_name",
/// "model_version" (when the model has one), "id" (when the request had
/// one), "outputs"}. When an output is binary its bytes follow the JSON and
/// *json_length is the JSON's length (for the
/// Inference-Header-Content-Length header); otherwise *json_length is 0.
void oipEncodeInfer(const std::string& model_name, const Model& model,
                    const Function& function, const OipRequest& request,
                    const std::vector<OipTensor>& results, std::string* out,
                    size_t* json_length);

}  // namespace strata::service

#endif  // STRATA_TOOLS_STRATA_SERVE_OIP_H_
