// make_seeds.cpp - writes a fuzz target's seed corpus: for module_fuzzer,
// small valid modules made with the builder that together touch every
// opcode family and call hal.* and check.* imports; for the others, inputs
// in each target's own encoding (see the targets).
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "kernel_bytecode.h"
#include "module_builder.h"
#include "npy.h"
#include "tensor_io.h"

using namespace strata::vm;
using namespace strata::vm::testing;

namespace {

bool write(const std::string& dir, const std::string& name,
           ModuleBuilder& builder) {
  std::vector<uint8_t> bytes = builder.build();
  std::string path = dir + "/" + name + ".vmfb";
  FILE* file = std::fopen(path.c_str(), "wb");
  if (!file) {
    std::fprintf(stderr, "make_seeds: cannot write %s\n", path.c_str());
    return false;
  }
  bool ok = std::fwrite(bytes.data(), 1, bytes.size(), file) == bytes.size();
  return std::fclose(file) == 0 && ok;
}

void arithmetic(ModuleBuilder& mb) {
  auto& f = mb.addFunction("arith", "0iI_iIfF");
  f.location("seed.mlir", 1, 1);
  f.op(Opcode::AddI32).reg(prim(0)).reg(prim(0)).reg(prim(2));
  f.op(Opcode::DivSI32).reg(prim(2)).reg(prim(0)).reg(prim(3));
  f.op(Opcode::MulI64).reg(prim(1)).reg(prim(1)).reg(prim(4));
  f.op(Opcode::RemUI64).reg(prim(4)).reg(prim(1)).reg(prim(5));
  f.op(Opcode::CastSI32F32).reg(prim(3)).reg(prim(6));
  f.op(Opcode::SqrtF32).reg(prim(6)).reg(prim(6));
  f.op(Opcode::CastSI64F64).reg(prim(5)).reg(prim(7));
  f.op(Opcode::TanhF64).reg(prim(7)).reg(prim(7));
  f.op(Opcode::FmaF64).reg(prim(7)).reg(prim(7)).reg(prim(7)).reg(prim(7));
  f.op(Opcode::CtlzI32).reg(prim(3)).reg(prim(3));
  f.op(Opcode::CmpLtSI64).reg(prim(4)).reg(prim(5)).reg(prim(8));
  f.op(Opcode::Select).reg(prim(8)).reg(prim(4)).reg(prim(5)).reg(prim(4));
  f.op(Opcode::Return).list({prim(3), prim(4), prim(6), prim(7)});
  mb.addExport("arith", f.index());
}

void control(ModuleBuilder& mb) {
  auto& f = mb.addFunction("control", "0i_i");
  uint32_t a = f.newBlock(), b = f.newBlock(), c = f.newBlock();
  f.op(Opcode::ConstI32).i32(7).reg(prim(1));
  f.op(Opcode::BrTable)
      .reg(prim(0))
      .block(c)
      .remap({})
      .cases({{a, {{prim(1), prim(2)}}}, {b, {}}});
  f.bind(a);
  f.op(Opcode::CondBr).reg(prim(2)).block(b).remap({}).block(c).remap({});
  f.bind(b);
  f.op(Opcode::ConstI32).i32(3).reg(prim(2));
  f.op(Opcode::CondFail).reg(prim(0)).reg(prim(2)).str("seed failure");
  f.op(Opcode::Br).block(c).remap({});
  f.bind(c);
  f.op(Opcode::Return).list({prim(2)});
  mb.addExport("control", f.index());
  auto& callee = mb.addFunction("leaf", "0i_i");
  callee.op(Opcode::NegI32).reg(prim(0)).reg(prim(0));
  callee.op(Opcode::Return).list({prim(0)});
  auto& caller = mb.addFunction("caller", "0i_i");
  caller.op(Opcode::Call).u32(callee.index()).list({prim(0)}).list({prim(1)});
  caller.op(Opcode::Return).list({prim(1)});
  // caller has a higher index than leaf; make a DAG entry below both.
  mb.addExport("caller", caller.index());
  auto& loop = mb.addFunction("loop", "0i_i");
  uint32_t head = loop.newBlock();
  loop.op(Opcode::Br).block(head).remap({});
  loop.bind(head);
  loop.op(Opcode::SubI32).reg(prim(0)).reg(prim(0)).reg(prim(0));
  loop.op(Opcode::CondBr).reg(prim(0)).block(head).remap({}).block(head).remap(
      {});
  mb.addExport("loop", loop.index());
}

void memory(ModuleBuilder& mb) {
  mb.setGlobals(16, 2);
  uint32_t ro = mb.addRodata({1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12});
  uint32_t type = mb.addType("vm.buffer");
  auto& f = mb.addFunction("memory", "0rI_rI");
  f.op(Opcode::ConstRefRodata).u32(ro).reg(ref(1));
  f.op(Opcode::BufferLength).reg(ref(1)).reg(prim(1));
  f.op(Opcode::BufferAlloc).reg(prim(1)).reg(ref(2));
  f.op(Opcode::ConstI64).i64(0).reg(prim(2));
  f.op(Opcode::BufferCopy)
      .reg(ref(1)).reg(prim(2)).reg(ref(2)).reg(prim(2)).reg(prim(1));
  f.op(Opcode::BufferLoadI32).reg(ref(2)).reg(prim(0)).reg(prim(3));
  f.op(Opcode::BufferStoreI16).reg(ref(0)).reg(prim(0)).reg(prim(3));
  f.op(Opcode::BufferFillI32).reg(ref(0)).reg(prim(2)).reg(prim(0)).reg(prim(3));
  f.op(Opcode::BufferCompare)
      .reg(ref(0)).reg(prim(2)).reg(ref(2)).reg(prim(2)).reg(prim(0))
      .reg(prim(4));
  f.op(Opcode::GlobalStoreI64).reg(prim(1)).u32(8);
  f.op(Opcode::GlobalLoadI64).u32(8).reg(prim(5));
  f.op(Opcode::GlobalStoreRef).reg(ref(2)).u32(1);
  f.op(Opcode::GlobalLoadRef).u32(1).reg(ref(3));
  f.op(Opcode::CastRef).reg(ref(3)).u32(type).reg(ref(3));
  f.op(Opcode::ConstI32).i32(2).reg(prim(6));
  f.op(Opcode::ListAlloc).reg(prim(6)).reg(ref(4));
  f.op(Opcode::ListResize).reg(ref(4)).reg(prim(6));
  f.op(Opcode::ConstI32).i32(1).reg(prim(7));
  f.op(Opcode::ListSetRef).reg(ref(4)).reg(prim(7)).reg(ref(3, true));
  f.op(Opcode::ListGetRef).reg(ref(4)).reg(prim(7)).reg(ref(5));
  f.op(Opcode::ListSetI64).reg(ref(4)).reg(prim(2)).reg(prim(5));
  f.op(Opcode::ListGetI64).reg(ref(4)).reg(prim(2)).reg(prim(5));
  f.op(Opcode::Print).str("memory").list({prim(5), ref(5)});
  f.op(Opcode::Return).list({ref(5, true), prim(5)});
  mb.addExport("memory", f.index());
}

void imports(ModuleBuilder& mb) {
  mb.addDependency("custom", 1, /*optional=*/true);
  uint32_t imp = mb.addImport("custom.add", "0ii_i", /*optional=*/true);
  uint32_t var = mb.addImport("custom.sum", "0CiD_i", /*optional=*/true);
  auto& f = mb.addFunction("imports", "0ii_i");
  f.op(Opcode::ImportResolved).u32(imp).reg(prim(2));
  f.op(Opcode::CallImport).u32(imp).list({prim(0), prim(1)}).list({prim(2)});
  f.op(Opcode::CallVariadic)
      .u32(var)
      .sizes({2})
      .list({prim(0), prim(1)})
      .list({prim(2)});
  f.op(Opcode::Return).list({prim(2)});
  mb.addExport("imports", f.index());
}

// hal.* and check.* through the real modules: a fence on device 0, awaited
// after it is signalled, and a check of the answer.
void halCalls(ModuleBuilder& mb) {
  mb.addType("hal.device");
  mb.addType("hal.fence");
  uint32_t get = mb.addImport("hal.devices.get", "0i_r");
  uint32_t create = mb.addImport("hal.fence.create", "0ri_r");
  uint32_t signal = mb.addImport("hal.fence.signal", "0r_");
  uint32_t await = mb.addImport("hal.fence.await", "0iCrD_i");
  uint32_t expect = mb.addImport("check.expect_true", "0i_");
  auto& f = mb.addFunction("fence", "0i_i");
  f.op(Opcode::ConstI32).i32(0).reg(prim(1));
  f.op(Opcode::CallImport).u32(get).list({prim(1)}).list({ref(0)});
  f.op(Opcode::CallImport).u32(create).list({ref(0), prim(1)}).list({ref(1)});
  f.op(Opcode::CallImport).u32(signal).list({ref(1)}).list({});
  f.op(Opcode::ConstI32).i32(100).reg(prim(2));
  f.op(Opcode::CallVariadic)
      .u32(await)
      .sizes({1})
      .list({prim(2), ref(1)})
      .list({prim(3)});
  f.op(Opcode::CmpEqI32).reg(prim(3)).reg(prim(1)).reg(prim(4));
  f.op(Opcode::CallImport).u32(expect).list({prim(4)}).list({});
  f.op(Opcode::Return).list({prim(3)});
  mb.addExport("fence", f.index());
}

bool writeBytes(const std::string& dir, const std::string& name,
                const std::vector<uint8_t>& bytes) {
  std::string path = dir + "/" + name;
  FILE* file = std::fopen(path.c_str(), "wb");
  if (!file) {
    std::fprintf(stderr, "make_seeds: cannot write %s\n", path.c_str());
    return false;
  }
  bool ok = std::fwrite(bytes.data(), 1, bytes.size(), file) == bytes.size();
  return std::fclose(file) == 0 && ok;
}

std::vector<uint8_t> bytesOf(const std::string& text) {
  return std::vector<uint8_t>(text.begin(), text.end());
}

// library_fuzzer: flags, name, imports, exports (library_fuzzer.cpp).
bool librarySeeds(const std::string& dir) {
  bool ok = true;
  // A valid library: two named exports with attributes, no imports.
  ok &= writeBytes(dir, "two_exports",
                   {0x00, 4, 'l', 'i', 'b', '0', 0, 2,
                    0x01, 3, 'a', 'd', 'd', 3, 1,
                    0x01, 3, 'm', 'u', 'l', 3, 1,
                    1, 1, 1,
                    0, 3, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1});
  // An optional import and one export without a name.
  ok &= writeBytes(dir, "import", {0x00, 1, 'x', 1, 2, '?', 'f', 1, 1,
                                   0x01, 0, 0, 0, 0, 0});
  // A NULL export pointer.
  ok &= writeBytes(dir, "null_export", {0x00, 0, 0, 1, 0x00, 0, 0, 0, 1, 1});
  return ok;
}

// tensor_fuzzer: 1 + a .npy file, or 0 + tensor text.
bool tensorSeeds(const std::string& dir) {
  bool ok = true;
  const char* texts[] = {"2x3xf32=1 2 3 4 5 6", "i32=5", "2x2xi1=1 0 1 0",
                         "3xf16=[0.5 1 -2]", "2x2xui8=7", "f64=-1e-3"};
  int i = 0;
  for (const char* text : texts) {
    ok &= writeBytes(dir, "text" + std::to_string(i++),
                     bytesOf(std::string(1, '\0') + text));
    strata::tools::HostTensor tensor;
    std::string error;
    std::vector<uint8_t> npy;
    if (strata::tools::parseTensorText(text, &tensor, &error) &&
        strata::tools::writeNpy(tensor, &npy, &error)) {
      npy.insert(npy.begin(), 1);
      ok &= writeBytes(dir, "npy" + std::to_string(i), npy);
    }
  }
  return ok;
}

// embedding_fuzzer: a program of ops (embedding_fuzzer.cpp).
bool embeddingSeeds(const std::string& dir) {
  bool ok = true;
  // add(2xf32, 2xf32), invoke, read result 0 as a view.
  ok &= writeBytes(dir, "add", {5, 0, 1, 2, 8, 5, 0, 1, 2, 8, 6, 7, 0, 4, 8});
  // Wrong kinds and counts, a bad name, then a reset.
  ok &= writeBytes(dir, "mistakes", {1, 7, 0, 0, 0, 6, 0, 3, 'n', 'o', 'p',
                                     8, 5, 3, 2, 2, 3, 24, 6, 7, 1, 0});
  return ok;
}

// service_fuzzer: a piece size, then what a client sends
// (service_fuzzer.cpp).
std::string post(const std::string& path, const std::string& body,
                 const std::string& headers = "") {
  return "POST " + path + " HTTP/1.1\r\nHost: x\r\n" + headers +
         "Content-Type: application/json\r\nContent-Length: " +
         std::to_string(body.size()) + "\r\n\r\n" + body;
}

bool serviceSeeds(const std::string& dir) {
  const std::string two =
      "{\"inputs\": [{\"shape\": [2], \"dtype\": \"f32\", "
      "\"data\": [1, 2.5]}, {\"shape\": [2], \"dtype\": \"f32\", "
      "\"data\": [-3, 4e2]}]}";
  struct Seed {
    const char* name;
    char piece;
    std::string bytes;
  };
  const Seed seeds[] = {
      {"add", 0, post("/v1/models/m:invoke/add", two)},
      {"add_pieces", 5, post("/v1/models/m:invoke/add?trace=1", two)},
      {"typed", 0,
       post("/v1/models/x:invoke/typed",
            "{\"inputs\": [{\"shape\": [2, 1], \"dtype\": \"f32\", "
            "\"data\": [1, 2]}, {\"shape\": [1], \"dtype\": \"f32\", "
            "\"data\": [0.5]}]}")},
      {"ints", 0,
       post("/v1/models/x:invoke/ints",
            "{\"inputs\": [{\"shape\": [3], \"dtype\": \"i8\", "
            "\"data\": [-128, 0, 255]}, {\"shape\": [2, 2], \"dtype\": "
            "\"ui16\", \"data\": [0, 1, 65535, 7]}]}")},
      {"bools", 0,
       post("/v1/models/x:invoke/bools",
            "{\"inputs\": [{\"shape\": [2], \"dtype\": \"i1\", "
            "\"data\": [true, 0]}, {\"shape\": [], \"dtype\": \"f64\", "
            "\"data\": [1e300]}]}")},
      {"scalars", 0,
       post("/v1/models/x:invoke/scalars",
            "{\"inputs\": [{\"shape\": [], \"dtype\": \"i32\", "
            "\"data\": [7]}, {\"shape\": [], \"dtype\": \"f64\", "
            "\"data\": [-0.25]}]}")},
      {"pipeline", 7,
       "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n"
       "GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n" +
           post("/v1/models/m:invoke/add", two) +
           "GET /nowhere HTTP/1.0\r\n\r\n"},
      {"chunked", 0,
       "POST /v1/models/m:invoke/add HTTP/1.1\r\nHost: x\r\n"
       "Expect: 100-continue\r\nTransfer-Encoding: chunked\r\n\r\n"
       "10\r\n{\"inputs\": [{\"sh\r\n" +
           std::string("0\r\n\r\n")},
      {"oip_infer", 0,
       post("/v2/models/m/infer",
            "{\"id\": \"7\", \"inputs\": [{\"name\": \"input0\", "
            "\"shape\": [2], \"datatype\": \"FP32\", \"data\": [1, 2.5]}, "
            "{\"name\": \"input1\", \"shape\": [1, 2], \"datatype\": "
            "\"FP32\", \"data\": [[-3, 4e2]]}], \"outputs\": [{\"name\": "
            "\"output0\", \"parameters\": {\"binary_data\": true}}]}")},
      {"oip_typed", 3,
       post("/v2/models/x.typed/versions/1/infer",
            "{\"inputs\": [{\"name\": \"b\", \"shape\": [1], "
            "\"datatype\": \"FP32\", \"data\": [0.5]}, {\"name\": \"a\", "
            "\"shape\": [2, 1], \"datatype\": \"FP32\", \"data\": [[1], "
            "[2]]}], \"parameters\": {\"binary_data_output\": true}}")},
      {"oip_binary", 0,
       post("/v2/models/m/infer",
            "{\"inputs\": [{\"name\": \"input0\", \"shape\": [2], "
            "\"datatype\": \"FP32\", \"parameters\": {\"binary_data_size\": "
            "8}}, {\"name\": \"input1\", \"shape\": [2], \"datatype\": "
            "\"FP32\", \"data\": [1, 2]}]}" +
                std::string("\0\0\x80\x3f\0\0\0\x40", 8),
            "Inference-Header-Content-Length: 175\r\n")},
      {"oip_get", 0,
       "GET /v2/models/x.ints HTTP/1.1\r\nHost: x\r\n\r\n"
       "GET /v2/health/ready HTTP/1.1\r\n\r\n"
       "GET /v2 HTTP/1.1\r\n\r\n"},
      {"too_large", 0,
       "POST /v1/models/m:invoke/add HTTP/1.1\r\nContent-Length: "
       "99999999\r\n\r\n{}"},
  };
  bool ok = true;
  for (const Seed& seed : seeds) {
    ok &= writeBytes(dir, seed.name,
                     bytesOf(std::string(1, seed.piece) + seed.bytes));
  }
  // Whole inputs that the repository's config.json reader takes (the
  // fuzzer gives it every input as it is).
  const char* configs[][2] = {
      {"config",
       "{\"max_batch_size\": 8, \"dynamic_batching\": "
       "{\"max_queue_delay_microseconds\": 500, "
       "\"preferred_batch_size\": [4, 8]}, \"instance_count\": 2, "
       "\"request_timeout_ms\": 1000, \"inputs\": [{\"name\": "
       "\"input\", \"shape\": [-1, 3, 224, 224]}]}"},
      {"config_bad", "{\"instance_count\": 65, \"max_batch_size\": -1}"},
  };
  for (const auto& config : configs) {
    ok &= writeBytes(dir, config[0], bytesOf(config[1]));
  }
  return ok;
}

// onnx_fuzzer: .onnx models. A few written here field by field (protobuf
// wire format), so the target has seeds without libonnx-testdata, then
// small models of ONNX's backend node tests when they are installed.
struct Proto {
  std::string bytes;
  Proto& varint(uint32_t field, uint64_t value) {
    key(field, 0);
    put(value);
    return *this;
  }
  Proto& text(uint32_t field, const std::string& value) {
    key(field, 2);
    put(value.size());
    bytes += value;
    return *this;
  }
  Proto& message(uint32_t field, const Proto& value) {
    return text(field, value.bytes);
  }
  void key(uint32_t field, uint32_t wire) { put(uint64_t{field} << 3 | wire); }
  void put(uint64_t value) {
    do {
      uint8_t byte = value & 0x7F;
      value >>= 7;
      bytes += static_cast<char>(value ? byte | 0x80 : byte);
    } while (value);
  }
};

// ValueInfoProto of a tensor (float unless elem_type says) of dims.
Proto valueInfo(const std::string& name, const std::vector<int64_t>& dims,
                int elem_type = 1) {
  Proto shape;
  for (int64_t d : dims) {
    // -1: a symbolic dimension (dim_param "n").
    shape.message(1, d < 0 ? Proto().text(2, "n") : Proto().varint(1, d));
  }
  Proto tensor;
  tensor.varint(1, elem_type).message(2, shape);
  return Proto().text(1, name).message(2, Proto().message(1, tensor));
}

Proto node(const std::string& op, const std::vector<std::string>& inputs,
           const std::vector<std::string>& outputs) {
  Proto n;
  for (const std::string& in : inputs) n.text(1, in);
  for (const std::string& out : outputs) n.text(2, out);
  return n.text(3, op + "_0").text(4, op);
}

std::vector<uint8_t> model(const Proto& graph, int opset) {
  Proto m;
  m.varint(1, 8).text(2, "make_seeds");
  m.message(7, graph);
  m.message(8, Proto().text(1, "").varint(2, opset));
  return bytesOf(m.bytes);
}

bool onnxSeeds(const std::string& dir) {
  bool ok = true;
  // y = relu(x + w) with w an initializer (raw data), then a reshape by a
  // constant shape.
  Proto w;
  w.varint(1, 2).varint(1, 3).varint(2, 1).text(8, "w");
  std::string raw(6 * 4, '\0');
  for (int i = 0; i < 6; ++i) raw[i * 4 + 3] = 0x3F;  // 0.5 as f32
  w.text(9, raw);
  Proto shape;
  shape.varint(1, 1).varint(2, 7).text(8, "shape");
  shape.text(9, std::string("\x06\0\0\0\0\0\0\0", 8));
  Proto graph;
  graph.message(1, node("Add", {"x", "w"}, {"s"}))
      .message(1, node("Relu", {"s"}, {"r"}))
      .message(1, node("Reshape", {"r", "shape"}, {"y"}))
      .text(2, "seed")
      .message(5, w)
      .message(5, shape)
      .message(11, valueInfo("x", {2, 3}))
      .message(12, valueInfo("y", {6}));
  ok &= writeBytes(dir, "add_relu_reshape.onnx", model(graph, 13));
  // A matmul with a symbolic dimension.
  Proto g2;
  g2.message(1, node("MatMul", {"a", "b"}, {"c"}))
      .text(2, "mm")
      .message(11, valueInfo("a", {-1, 8}))
      .message(11, valueInfo("b", {8, 5}))
      .message(12, valueInfo("c", {-1, 5}));
  ok &= writeBytes(dir, "matmul.onnx", model(g2, 17));
  // What onnx_fuzzer found, replayed from every seed corpus (UBSan
  // reported both). A Range from +inf down to 5: -inf steps were cast to
  // int64.
  auto scalar = [](const std::string& name, uint32_t bits) {
    std::string raw(4, '\0');
    for (int i = 0; i < 4; ++i) raw[i] = static_cast<char>(bits >> (8 * i));
    return Proto().varint(2, 1).text(8, name).text(9, raw);
  };
  Proto g3;
  g3.message(1, node("Range", {"start", "limit", "delta"}, {"y"}))
      .text(2, "range_inf")
      .message(5, scalar("start", 0x7F800000))  // +inf
      .message(5, scalar("limit", 0x40A00000))  // 5.0
      .message(5, scalar("delta", 0x0A000000))  // 6.2e-33
      .message(12, valueInfo("y", {0}));
  ok &= writeBytes(dir, "regression_range_inf.onnx", model(g3, 13));
  // Gather indices without elements whose other dimensions' product
  // overflows int64: their strides overflowed in the constant folder.
  Proto indices;
  for (int64_t d :
       {int64_t{3}, int64_t{0}, int64_t{144115188075855871}, int64_t{147455}}) {
    indices.varint(1, static_cast<uint64_t>(d));
  }
  indices.varint(2, 7).text(8, "indices").text(9, "");
  Proto g4;
  g4.message(1, node("Gather", {"x", "indices"}, {"y"}))
      .text(2, "gather_empty")
      .message(5, indices)
      .message(11, valueInfo("x", {5, 4, 3}))
      .message(12, valueInfo("y", {3, 0, 144115188075855871, 147455, 4, 3}));
  ok &= writeBytes(dir, "regression_gather_empty.onnx", model(g4, 13));
#ifdef STRATA_ONNX_TESTDATA
  const char* tests[] = {"test_add",
                         "test_conv_with_strides_padding",
                         "test_gather_0",
                         "test_reshape_extended_dims",
                         "test_slice",
                         "test_matmul_2d",
                         "test_resize_upsample_scales_nearest",
                         "test_lstm_defaults",
                         "test_softmax_axis_0",
                         "test_reduce_sum_keepdims_example",
                         "test_transpose_default",
                         "test_concat_1d_axis_0",
                         "test_expand_dim_changed",
                         "test_qlinearconv",
                         "test_if",
                         "test_range_float_type_positive_delta",
                         "test_constantofshape_int_zeros",
                         "test_shape",
                         "test_where_example",
                         "test_batchnorm_example",
                         "test_maxpool_2d_default",
                         "test_gemm_default_no_bias",
                         "test_split_equal_parts_1d",
                         "test_gathernd_example_int32",
                         "test_scatter_elements_with_axis",
                         "test_argmax_default_axis_example",
                         "test_mod_int64_fmod",
                         "test_einsum_batch_matmul",
                         "test_averagepool_2d_pads",
                         "test_squeeze",
                         "test_unsqueeze_axis_0",
                         "test_tile",
                         "test_clip",
                         "test_gru_defaults",
                         "test_loop11",
                         "test_onehot_with_axis",
                         "test_cumsum_1d"};
  auto readFile = [](const std::string& path, std::string* out) {
    FILE* file = std::fopen(path.c_str(), "rb");
    if (!file) return false;
    char buffer[4096];
    size_t n;
    while ((n = std::fread(buffer, 1, sizeof(buffer), file)) > 0) {
      out->append(buffer, n);
    }
    std::fclose(file);
    return true;
  };
  for (const char* test : tests) {
    std::string folder = std::string(STRATA_ONNX_TESTDATA) + "/node/" + test;
    std::string bytes;
    if (!readFile(folder + "/model.onnx", &bytes)) {
      continue;  // not installed: the written seeds only
    }
    ok &= writeBytes(dir, std::string(test) + ".onnx", bytesOf(bytes));
    // The importer needs shapes, axes and the like as constants: variants
    // with the test's inputs after the first (then all of them) as
    // initializers, appended as a second graph field, which protobuf
    // merges into the first.
    std::vector<std::string> inputs;
    for (int i = 0;; ++i) {
      std::string tensor;
      if (!readFile(
              folder + "/test_data_set_0/input_" + std::to_string(i) + ".pb",
              &tensor)) {
        break;
      }
      inputs.push_back(tensor);
    }
    for (size_t first : {size_t{1}, size_t{0}}) {
      if (inputs.size() <= first) continue;
      Proto initializers;
      for (size_t i = first; i < inputs.size(); ++i) {
        initializers.text(5, inputs[i]);
      }
      std::string variant = bytes + Proto().message(7, initializers).bytes;
      if (variant.size() > 4096) continue;  // run_fuzzer.sh's -max_len
      ok &= writeBytes(
          dir,
          std::string(test) + (first ? "_consts" : "_all_consts") + ".onnx",
          bytesOf(variant));
    }
  }
#endif
  return ok;
}

// portable_fuzzer: portable-bytecode programs (schemas/kernel_bytecode.h):
// a chunked elementwise body with casts, compares and a push constant over
// constant data and a temporary, a reduction, and a strided matmul.
bool portableSeeds(const std::string& dir) {
  namespace k = strata::kernel;
  auto ty = [](k::Type t) { return static_cast<uint32_t>(t); };
  auto op = [](k::Op o, k::Type t, uint32_t aux = 0) {
    return static_cast<uint32_t>(o) | (static_cast<uint32_t>(t) << 8) |
           (aux << 16);
  };
  auto program = [](const char* name, uint32_t bindings,
                    std::vector<uint64_t> binding_bytes,
                    std::vector<uint64_t> temps, uint32_t constants,
                    uint32_t data_words, uint32_t registers,
                    const std::vector<uint32_t>& code) {
    std::vector<uint32_t> w = {k::kMagic, k::kVersion, k::kTableDigest, 1};
    size_t length = std::strlen(name);
    w.push_back(static_cast<uint32_t>(length));
    size_t at = w.size();
    w.resize(at + (length + 3) / 4, 0);
    std::memcpy(w.data() + at, name, length);
    w.push_back(bindings);
    w.push_back(constants);
    for (uint64_t b : binding_bytes) {
      w.push_back(static_cast<uint32_t>(b));
      w.push_back(static_cast<uint32_t>(b >> 32));
    }
    w.push_back(static_cast<uint32_t>(temps.size()));
    for (uint64_t b : temps) {
      w.push_back(static_cast<uint32_t>(b));
      w.push_back(static_cast<uint32_t>(b >> 32));
    }
    w.push_back(data_words ? 1 : 0);
    if (data_words) {
      w.push_back(data_words * 4);
      w.push_back(0);
      bool pad = (w.size() + 1) % 2 != 0;
      w.push_back(pad ? 1 : 0);
      if (pad) w.push_back(0);
      for (uint32_t i = 0; i < data_words; ++i) w.push_back(0x3F800000u + i);
    }
    w.push_back(registers);
    w.push_back(static_cast<uint32_t>(code.size()));
    w.insert(w.end(), code.begin(), code.end());
    std::vector<uint8_t> bytes(w.size() * 4);
    std::memcpy(bytes.data(), w.data(), bytes.size());
    return bytes;
  };
  uint32_t F32 = ty(k::Type::F32), I32 = ty(k::Type::I32);
  uint32_t GEN = static_cast<uint32_t>(k::Inst::Generic);
  uint32_t MM = static_cast<uint32_t>(k::Inst::Matmul);
  // out[i, j] = select(data[j] > a[i, j], exp(a[i, j]), float(i32 push))
  std::vector<uint32_t> elementwise = {GEN,
                                       2,
                                       3,
                                       70,
                                       0,
                                       1,
                                       1,
                                       3,
                                       1,
                                       0,
                                       F32,
                                       0,
                                       0,
                                       70,
                                       0,
                                       1,
                                       0,  // a: 3x70
                                       2,
                                       F32,
                                       0,
                                       0,
                                       0,
                                       0,
                                       1,
                                       0,  // data: 70, broadcast over rows
                                       1,
                                       F32,
                                       0,
                                       0,
                                       70,
                                       0,
                                       1,
                                       0,  // out
                                       7,
                                       op(k::Op::Load, k::Type::F32),
                                       0,
                                       0,
                                       0,
                                       0,
                                       op(k::Op::Load, k::Type::F32),
                                       1,
                                       1,
                                       0,
                                       0,
                                       op(k::Op::CmpF, k::Type::F32, 2),
                                       2,
                                       1,
                                       0,
                                       0,
                                       op(k::Op::Exp, k::Type::F32),
                                       3,
                                       0,
                                       0,
                                       0,
                                       op(k::Op::Push, k::Type::I32),
                                       4,
                                       0,
                                       0,
                                       0,
                                       op(k::Op::SIToFP, k::Type::F32, I32),
                                       5,
                                       4,
                                       0,
                                       0,
                                       op(k::Op::Select, k::Type::F32),
                                       6,
                                       2,
                                       3,
                                       5,
                                       6};
  // sums[i] = sum_j a[i, j], through a temporary copy of the row sums
  std::vector<uint32_t> reduction = {GEN,
                                     2,
                                     3,
                                     70,
                                     1,
                                     0,
                                     1,
                                     2,
                                     1,
                                     0,
                                     F32,
                                     0,
                                     0,
                                     70,
                                     0,
                                     1,
                                     0,
                                     2,
                                     F32,
                                     0,
                                     0,
                                     1,
                                     0,
                                     0,
                                     0,
                                     3,
                                     op(k::Op::Load, k::Type::F32),
                                     0,
                                     0,
                                     0,
                                     0,
                                     op(k::Op::Load, k::Type::F32),
                                     1,
                                     1,
                                     0,
                                     0,
                                     op(k::Op::AddF, k::Type::F32),
                                     2,
                                     0,
                                     1,
                                     0,
                                     2,
                                     GEN,
                                     1,
                                     3,
                                     0,
                                     1,
                                     2,
                                     1,
                                     2,
                                     F32,
                                     0,
                                     0,
                                     1,
                                     0,
                                     1,
                                     F32,
                                     0,
                                     0,
                                     1,
                                     0,
                                     1,
                                     op(k::Op::Load, k::Type::F32),
                                     0,
                                     0,
                                     0,
                                     0,
                                     0};
  // C (4x5) += A (4x3) * B^T (B stored 5x3)
  std::vector<uint32_t> matmul = {MM, 1, 4,   5, 3,   0, F32, 0, 0, 0, 0, 3,
                                  0,  1, 0,   1, F32, 0, 0,   0, 0, 1, 0, 3,
                                  0,  2, F32, 0, 0,   0, 0,   5, 0, 1, 0};
  // Dynamic shapes: C (Mx5) += A (Mx3) * B (3x5), M the i64 push constant
  // (words 0, 1); A and C must hold 12M and 20M bytes (shape
  // requirements); the shape (25 words) patches M, word 27.
  uint32_t SHAPE = static_cast<uint32_t>(k::Inst::Shape);
  auto val = [](k::Value v) { return static_cast<uint32_t>(v); };
  std::vector<uint32_t> dynamic = {SHAPE,
                                   5,
                                   val(k::Value::Push),
                                   0,
                                   0,  // V0 = M
                                   val(k::Value::Const),
                                   12,
                                   0,  // V1 = 12
                                   val(k::Value::Mul),
                                   0,
                                   1,  // V2 = 12M
                                   val(k::Value::Const),
                                   20,
                                   0,  // V3 = 20
                                   val(k::Value::Mul),
                                   0,
                                   3,  // V4 = 20M
                                   2,
                                   0,
                                   2,
                                   2,
                                   4,  // A needs V2 bytes, C V4
                                   1,
                                   27,
                                   0,  // M <- V0
                                   MM,
                                   1,
                                   0,
                                   5,
                                   3,  // batch, M, N, K
                                   0,
                                   F32,
                                   0,
                                   0,
                                   0,
                                   0,
                                   3,
                                   0,
                                   1,
                                   0,  // A
                                   1,
                                   F32,
                                   0,
                                   0,
                                   0,
                                   0,
                                   5,
                                   0,
                                   1,
                                   0,  // B
                                   2,
                                   F32,
                                   0,
                                   0,
                                   0,
                                   0,
                                   5,
                                   0,
                                   1,
                                   0};  // C
  // f16 and bf16 memory: out (bf16) = roundf16(in (f16) * in) over 8.
  uint32_t F16 = ty(k::Type::F16), BF16 = ty(k::Type::BF16);
  std::vector<uint32_t> half = {GEN,
                                1,
                                8,
                                0,
                                1,
                                2,
                                1,
                                0,
                                F16,
                                0,
                                0,
                                1,
                                0,  // in
                                1,
                                BF16,
                                0,
                                0,
                                1,
                                0,  // out
                                3,
                                op(k::Op::Load, k::Type::F32),
                                0,
                                0,
                                0,
                                0,
                                op(k::Op::MulF, k::Type::F32),
                                1,
                                0,
                                0,
                                0,
                                op(k::Op::RoundF16, k::Type::F32),
                                0,
                                1,
                                0,
                                0,
                                0};
  bool ok = true;
  ok &=
      writeBytes(dir, "half", program("half", 2, {16, 16}, {}, 0, 0, 2, half));
  ok &= writeBytes(dir, "dynamic",
                   program("dynamic", 3, {0, 60, 0}, {}, 2, 0, 0, dynamic));
  ok &= writeBytes(
      dir, "elementwise",
      program("elementwise", 2, {840, 840}, {}, 1, 70, 7, elementwise));
  ok &=
      writeBytes(dir, "reduction",
                 program("reduction", 2, {840, 12}, {12}, 0, 0, 3, reduction));
  ok &= writeBytes(dir, "matmul",
                   program("matmul", 3, {48, 60, 80}, {}, 0, 0, 0, matmul));
  return ok;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: make_seeds TARGET OUTPUT_DIR\n");
    return 2;
  }
  std::string target = argv[1];
  std::string dir = argv[2];
  if (target == "library_fuzzer") {
    return librarySeeds(dir) ? 0 : 1;
  }
  if (target == "portable_fuzzer") {
    return portableSeeds(dir) ? 0 : 1;
  }
  if (target == "tensor_fuzzer") {
    return tensorSeeds(dir) ? 0 : 1;
  }
  if (target == "embedding_fuzzer") {
    return embeddingSeeds(dir) ? 0 : 1;
  }
  if (target == "service_fuzzer") {
    return serviceSeeds(dir) ? 0 : 1;
  }
  if (target == "onnx_fuzzer") {
    return onnxSeeds(dir) ? 0 : 1;
  }
  if (target != "module_fuzzer") {
    std::fprintf(stderr, "make_seeds: unknown target '%s'\n", target.c_str());
    return 2;
  }
  bool ok = true;
  {
    ModuleBuilder mb("hal_calls");
    halCalls(mb);
    ok &= write(dir, "hal_calls", mb);
  }
  {
    ModuleBuilder mb("arith");
    arithmetic(mb);
    ok &= write(dir, "arith", mb);
  }
  {
    ModuleBuilder mb("control");
    control(mb);
    ok &= write(dir, "control", mb);
  }
  {
    ModuleBuilder mb("memory");
    memory(mb);
    ok &= write(dir, "memory", mb);
  }
  {
    ModuleBuilder mb("imports");
    imports(mb);
    ok &= write(dir, "imports", mb);
  }
  {
    ModuleBuilder mb("everything");
    mb.setCompiler("make_seeds", "1", {"--seed"});
    arithmetic(mb);
    control(mb);
    memory(mb);
    imports(mb);
    ok &= write(dir, "everything", mb);
  }
  return ok ? 0 : 1;
}
