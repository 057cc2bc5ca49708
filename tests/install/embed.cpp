// embed.cpp - an out-of-tree C++ program built against the installed
// strata-runtime package (pkg-config only) with the RAII wrapper and
// -fno-exceptions: adds two tensors blocking and asynchronously.
//
//   embed_cpp MODULE.vmfb DEVICE
#include <cstdio>
#include <string>
#include <vector>

#include <strata/runtime.hpp>

namespace rt = strata::runtime;

namespace {

int fail(const char* what, const rt::Status& status) {
  std::fprintf(stderr, "embed_cpp: %s: %s\n", what, status.toString().c_str());
  return 1;
}

std::string show(const rt::Tensor& tensor) {
  std::string out = tensor.typeString() + "=";
  rt::Result<std::vector<float>> values = tensor.toVector<float>();
  if (!values.ok()) {
    return values.status().toString();
  }
  for (size_t i = 0; i < values->size(); ++i) {
    out += (i ? " " : "") + std::to_string(static_cast<int>((*values)[i]));
  }
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: embed_cpp MODULE.vmfb DEVICE\n");
    return 2;
  }
  rt::Result<rt::Instance> instance = rt::Instance::create(argv[2], 2);
  if (!instance.ok()) {
    return fail("instance", instance.status());
  }
  rt::Result<rt::Session> session = rt::Session::fromFile(*instance, argv[1]);
  if (!session.ok()) {
    return fail("session", session.status());
  }
  rt::Result<rt::Tensor> a =
      rt::Tensor::fromHost<float>({2, 2}, {1.0f, 2.0f, 3.0f, 4.0f});
  rt::Result<rt::Tensor> b =
      rt::Tensor::fromHost<float>({2, 2}, {5.0f, 6.0f, 7.0f, 8.0f});
  if (!a.ok() || !b.ok()) {
    return fail("inputs", a.ok() ? b.status() : a.status());
  }
  rt::Result<rt::Call> call = session->call("add");
  if (!call.ok()) {
    return fail("call", call.status());
  }
  rt::Status status = call->push(*a);
  if (status.ok()) {
    status = call->push(*b);
  }
  if (status.ok()) {
    status = call->invoke();
  }
  if (!status.ok()) {
    return fail("add", status);
  }
  rt::Result<rt::Tensor> sum = call->resultTensor(0);
  if (!sum.ok()) {
    return fail("result", sum.status());
  }
  std::printf("blocking: %s\n", show(*sum).c_str());

  rt::Result<rt::Loop> loop = rt::Loop::create();
  if (!loop.ok()) {
    return fail("loop", loop.status());
  }
  call->reset();
  status = call->push(*sum);
  if (status.ok()) {
    status = call->push(*sum);
  }
  if (status.ok()) {
    status = call->invokeAsync(*loop, [](rt::Call& done, rt::Status result) {
      if (!result.ok()) {
        fail("async add", result);
        return;
      }
      rt::Result<rt::Tensor> out = done.resultTensor(0);
      std::printf("async: %s\n", out.ok() ? show(*out).c_str()
                                          : out.status().toString().c_str());
    });
  }
  if (status.ok()) {
    status = loop->run();
  }
  if (!status.ok()) {
    return fail("async", status);
  }
  rt::Result<rt::Call> unknown = session->call("sub");
  std::printf("unknown: %s\n", unknown.ok() ? "found?" : "not found");
  return 0;
}
