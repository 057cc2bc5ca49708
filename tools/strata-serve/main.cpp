// main.cpp - strata-serve: an inference server speaking the Open Inference
// Protocol over HTTP/1.1. Loads each model (--model, --model-repository)
// with its own device and compute thread and serves HTTP on a libuv loop on
// the main thread; see docs/serving.md.
#include <sys/resource.h>

#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#ifdef STRATA_SERVE_GRPC
#include "grpc_service.h"
#endif
#include "http_server.h"
#include "model_registry.h"
#include "strata/runtime.h"

namespace {

using strata::service::ModelRegistry;
using strata::service::Server;
using strata::service::ServerOptions;

const char kUsage[] =
    "usage: strata-serve [--model-repository=DIR] [--model NAME=PATH.vmfb "
    "...] [flags]\n"
    "\n"
    "Serves the models over HTTP/1.1 with the Open Inference Protocol\n"
    "(KServe v2; docs/serving.md):\n"
    "  GET  /v2/health/live  /v2/health/ready  /v2\n"
    "  GET  /v2/models/<name>[/versions/<v>][/ready]\n"
    "  POST /v2/models/<name>[/versions/<v>]/infer\n"
    "  POST /v2/repository/index  /v2/repository/models/<name>/load|unload\n"
    "  GET  /metrics (Prometheus text)\n"
    "and the older routes POST /v1/models/<name>:invoke/<function> and\n"
    "GET /healthz.\n"
    "\n"
    "flags:\n"
    "  --model-repository=DIR serve DIR/<model>/<version>/model.vmfb (or\n"
    "                         model.onnx, compiled at load), the newest\n"
    "                         version of each, with its optional\n"
    "                         DIR/<model>/config.json\n"
    "  --compiler=PATH        the strata-compile that compiles a model.onnx\n"
    "                         at load (default: this build's, when it has\n"
    "                         the compiler; --compiler= turns it off)\n"
    "  --compile-cache=DIR    where compiled model.onnx files go (default:\n"
    "                         beside each model.onnx)\n"
    "  --compile-timeout=MS   a compile running longer is killed and its\n"
    "                         model not served (default 600000; 0: none)\n"
    "  --model NAME=PATH      a module to serve as NAME (repeatable; also\n"
    "                         --model=NAME=PATH). Compile it with\n"
    "                         strata-compile --async-exports.\n"
    "  --grpc-listen=HOST:PORT\n"
    "                         also serve the protocol over gRPC\n"
    "                         (inference.GRPCInferenceService) there; port 0\n"
    "                         picks a free one (default: no gRPC)\n"
    "  --listen=HOST:PORT     address to listen on (default 127.0.0.1:8080;\n"
    "                         port 0 picks a free one, printed on start)\n"
    "  --device=NAME          local-task (default) or local-sync\n"
    "  --task_workers=N       local-task worker threads (0: one per core)\n"
    "  --max-inflight=N       calls in flight before answering 503 "
    "(default 1024)\n"
    "  --max-body=BYTES       largest request body before answering 413\n"
    "                         (default 16777216)\n"
    "  --request-timeout=MS   a call still running MS ms after it started is\n"
    "                         answered 504 (default 0: none); a kernel that\n"
    "                         never returns then loses its model's device\n"
    "  --drain-timeout=MS     on SIGTERM, wait at most MS ms for calls in\n"
    "                         flight, then exit 1 naming the ones abandoned\n"
    "                         (default 0: wait for all)\n"
    "  --header-timeout=MS    a request's headers must arrive within MS ms of\n"
    "                         its first byte, else 408 (default 10000)\n"
    "  --idle-timeout=MS      an idle connection is closed after MS ms\n"
    "                         (default 60000)\n"
    "  --max-connections=N    connections beyond N are answered 503 and\n"
    "                         closed (default 10000)\n"
    "  --max-pipeline=N       answers queued per connection before it stops\n"
    "                         reading requests until they drain (default 64)\n"
    "  --require-signature=PUBKEY_FILE\n"
    "                         refuse any model not signed by this Ed25519\n"
    "                         public key (docs/security.md)\n"
    "  --help                 this text\n"
    "\n"
    "Each model has its own device and compute thread: a call stuck in one\n"
    "model never delays another's.\n"
    "SIGTERM or SIGINT stops accepting, answers the calls in flight and "
    "exits 0.\n";

bool parseSize(const std::string& text, size_t* out) {
  if (text.empty()) {
    return false;
  }
  char* end = nullptr;
  unsigned long long value = std::strtoull(text.c_str(), &end, 10);
  if (*end != '\0' || text[0] == '-') {
    return false;
  }
  *out = static_cast<size_t>(value);
  return true;
}

int fail(const std::string& message) {
  std::fprintf(stderr, "strata-serve: %s\n", message.c_str());
  return 1;
}

}  // namespace

int main(int argc, char** argv) {
  ServerOptions options;
#ifdef STRATA_SERVE_COMPILER
  options.compiler = STRATA_SERVE_COMPILER;
#else
  options.compiler_absent =
      "this strata-serve was built without the compiler (or its ONNX "
      "import), so it cannot compile model.onnx at load: compile it to "
      "model.vmfb with strata-compile, or give --compiler=PATH";
#endif
  std::string device = "local-task";
  size_t task_workers = 0;
  std::vector<std::pair<std::string, std::string>> models;
  std::string repository;
  std::string grpc_listen;
  std::string require_signature;

  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    auto value = [&](const char* flag, std::string* out) {
      std::string prefix = std::string(flag) + "=";
      if (arg.compare(0, prefix.size(), prefix) == 0) {
        *out = arg.substr(prefix.size());
        return true;
      }
      if (arg == flag && i + 1 < argc) {
        *out = argv[++i];
        return true;
      }
      return false;
    };
    std::string v;
    if (arg == "--help" || arg == "-h") {
      std::fputs(kUsage, stdout);
      return 0;
    } else if (value("--model", &v)) {
      size_t eq = v.find('=');
      if (eq == std::string::npos || eq == 0 || eq + 1 == v.size()) {
        return fail("--model takes NAME=PATH, got '" + v + "'");
      }
      models.emplace_back(v.substr(0, eq), v.substr(eq + 1));
    } else if (value("--model-repository", &v)) {
      repository = v;
    } else if (value("--compiler", &v)) {
      options.compiler = v;
      options.compiler_absent =
          "compiling model.onnx at load is off (--compiler=); compile it "
          "to model.vmfb with strata-compile";
    } else if (value("--compile-cache", &v)) {
      if (v.empty()) {
        return fail("--compile-cache takes a directory");
      }
      options.compile_cache = v;
    } else if (value("--compile-timeout", &v)) {
      if (!parseSize(v, &options.compile_timeout_ms)) {
        return fail("--compile-timeout takes milliseconds, got '" + v + "'");
      }
    } else if (value("--grpc-listen", &v)) {
      size_t colon = v.rfind(':');
      size_t port = 0;
      if (colon == std::string::npos || colon == 0 ||
          !parseSize(v.substr(colon + 1), &port) || port > 65535) {
        return fail("--grpc-listen takes HOST:PORT, got '" + v + "'");
      }
      grpc_listen = v;
    } else if (value("--listen", &v)) {
      size_t colon = v.rfind(':');
      size_t port = 0;
      if (colon == std::string::npos ||
          !parseSize(v.substr(colon + 1), &port) || port > 65535) {
        return fail("--listen takes HOST:PORT, got '" + v + "'");
      }
      std::string host = v.substr(0, colon);
      if (host.size() >= 2 && host.front() == '[' && host.back() == ']') {
        host = host.substr(1, host.size() - 2);
      }
      options.host = host;
      options.port = static_cast<int>(port);
    } else if (value("--device", &v)) {
      device = v;
    } else if (value("--task_workers", &v)) {
      if (!parseSize(v, &task_workers)) {
        return fail("--task_workers takes a count, got '" + v + "'");
      }
    } else if (value("--max-inflight", &v)) {
      if (!parseSize(v, &options.max_in_flight) || options.max_in_flight == 0) {
        return fail("--max-inflight takes a positive count, got '" + v + "'");
      }
    } else if (value("--require-signature", &v)) {
      require_signature = v;
    } else if (value("--request-timeout", &v)) {
      if (!parseSize(v, &options.request_timeout_ms)) {
        return fail("--request-timeout takes milliseconds, got '" + v + "'");
      }
    } else if (value("--drain-timeout", &v)) {
      if (!parseSize(v, &options.drain_timeout_ms)) {
        return fail("--drain-timeout takes milliseconds, got '" + v + "'");
      }
    } else if (value("--header-timeout", &v)) {
      if (!parseSize(v, &options.header_timeout_ms) ||
          options.header_timeout_ms == 0) {
        return fail("--header-timeout takes positive milliseconds, got '" + v +
                    "'");
      }
    } else if (value("--idle-timeout", &v)) {
      if (!parseSize(v, &options.idle_timeout_ms) ||
          options.idle_timeout_ms == 0) {
        return fail("--idle-timeout takes positive milliseconds, got '" + v +
                    "'");
      }
    } else if (value("--max-connections", &v)) {
      if (!parseSize(v, &options.max_connections) ||
          options.max_connections == 0) {
        return fail("--max-connections takes a positive count, got '" + v +
                    "'");
      }
    } else if (value("--max-pipeline", &v)) {
      if (!parseSize(v, &options.max_pipeline) || options.max_pipeline == 0) {
        return fail("--max-pipeline takes a positive count, got '" + v + "'");
      }
    } else if (value("--max-body", &v)) {
      if (!parseSize(v, &options.max_body)) {
        return fail("--max-body takes a byte count, got '" + v + "'");
      }
    } else {
      std::fputs(kUsage, stderr);
      return fail("unknown argument '" + arg + "'");
    }
  }
  if (models.empty() && repository.empty()) {
    std::fputs(kUsage, stderr);
    return fail(
        "give --model-repository=DIR or at least one --model "
        "NAME=PATH");
  }

  // A write to a client that went away must be an error, not a signal; and
  // every client needs a descriptor.
  std::signal(SIGPIPE, SIG_IGN);
  struct rlimit limit;
  if (getrlimit(RLIMIT_NOFILE, &limit) == 0 &&
      limit.rlim_cur < limit.rlim_max) {
    limit.rlim_cur = limit.rlim_max;
    setrlimit(RLIMIT_NOFILE, &limit);
  }

  strata_runtime_instance_options_t instance_options;
  strata_runtime_instance_options_initialize(&instance_options);
  instance_options.device = device.c_str();
  instance_options.task_worker_count = static_cast<uint32_t>(task_workers);
  uint8_t public_key[STRATA_RUNTIME_PUBLIC_KEY_SIZE];
  if (!require_signature.empty()) {
    strata_status_t key_status = strata_vm_key_file_read(
        require_signature.c_str(), public_key, sizeof(public_key));
    if (key_status) {
      return fail("--require-signature: " +
                  strata::service::consumeStatusText(key_status));
    }
    instance_options.required_public_key = public_key;
  }

  // Each model runs on its own instance (its own device and workers) and
  // its own compute loop and thread (ModelRegistry::load): a call that
  // never ends (an endless kernel, bytecode that loops) holds only its
  // model, and a device lost at a deadline is only that model's.
  ModelRegistry registry;
  registry.setInstanceOptions(instance_options);
  for (const auto& [name, path] : models) {
    strata_status_t status =
        registry.load(name, path, "", strata::service::ModelConfig());
    if (status) {
      return fail("model '" + name +
                  "': " + strata::service::consumeStatusText(status));
    }
  }
  Server server(&registry, options);
  // The repository's models: one that fails to load is reported (at start,
  // and by /v2/repository/index and its ready endpoints) while the others
  // serve.
  if (!repository.empty()) {
    std::string error;
    if (!server.loadRepository(repository, &error)) {
      return fail(error);
    }
  }
  std::string error;
  if (!server.start(&error)) {
    return fail(error);
  }
  std::string grpc_line;
#ifdef STRATA_SERVE_GRPC
  std::unique_ptr<strata::service::GrpcService> grpc;
  if (!grpc_listen.empty()) {
    int grpc_port = 0;
    grpc = strata::service::GrpcService::start(
        &server, grpc_listen, options.max_body, &grpc_port, &error);
    if (!grpc) {
      return fail(error);
    }
    grpc_line = ", gRPC on " +
                grpc_listen.substr(0, grpc_listen.rfind(':') + 1) +
                std::to_string(grpc_port);
  }
#else
  if (!grpc_listen.empty()) {
    return fail(
        "--grpc-listen: this strata-serve was built without gRPC "
        "(it needs libgrpc++-dev and protobuf-compiler-grpc)");
  }
#endif
  std::string compiling;
  if (server.compilesRunning()) {
    compiling = ", " + std::to_string(server.compilesRunning()) + " compiling";
  }
  std::printf(
      "strata-serve: listening on http://%s:%d%s (%zu model%s%s, "
      "device %s)\n",
      options.host.c_str(), server.boundPort(), grpc_line.c_str(),
      registry.models().size(), registry.models().size() == 1 ? "" : "s",
      compiling.c_str(), device.c_str());
  std::fflush(stdout);
  std::string abandoned = server.run();
#ifdef STRATA_SERVE_GRPC
  if (grpc && abandoned.empty()) {
    grpc->shutdown();
  }
#endif
  if (!abandoned.empty()) {
    // Calls still running cannot be stopped: report them and leave
    // without tearing down what they use.
    std::fprintf(stderr, "strata-serve: %s\n", abandoned.c_str());
    std::fflush(stderr);
    std::_Exit(1);
  }
  // Every call has been answered: the registry stops the compute loops.
  std::fprintf(stderr, "strata-serve: stopped\n");
  return 0;
}
