// main.cpp - strata-serve: an HTTP/1.1 inference server. Loads each
// --model into a session, runs the runtime's loop (strata_hal_loop_t) on a
// compute thread and serves HTTP on a libuv loop on the main thread; see
// README.md.
#include <sys/resource.h>

#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <memory>
#include <thread>
#include <vector>

#include "http_server.h"
#include "model_registry.h"
#include "strata/runtime.h"

namespace {

using strata::service::ModelRegistry;
using strata::service::Server;
using strata::service::ServerOptions;

const char kUsage[] =
    "usage: strata-serve --model NAME=PATH.vmfb [--model ...] [flags]\n"
    "\n"
    "Serves the models over HTTP/1.1:\n"
    "  POST /v1/models/<name>:invoke/<function>\n"
    "       body {\"inputs\": [{\"shape\": [4, 16], \"dtype\": \"f32\", "
    "\"data\": [...]}, ...]}\n"
    "       answer {\"outputs\": [...]} in the same form\n"
    "  GET  /healthz   GET /metrics (Prometheus text)\n"
    "\n"
    "flags:\n"
    "  --model NAME=PATH      a module to serve as NAME (repeatable; also\n"
    "                         --model=NAME=PATH). Compile it with\n"
    "                         strata-compile --async-exports.\n"
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

bool parseSize(const std::string &text, size_t *out) {
  if (text.empty()) {
    return false;
  }
  char *end = nullptr;
  unsigned long long value = std::strtoull(text.c_str(), &end, 10);
  if (*end != '\0' || text[0] == '-') {
    return false;
  }
  *out = static_cast<size_t>(value);
  return true;
}

int fail(const std::string &message) {
  std::fprintf(stderr, "strata-serve: %s\n", message.c_str());
  return 1;
}

void onKeepAliveDone(void *, strata_status_t status) {
  strata_status_free(status);
}

} // namespace

int main(int argc, char **argv) {
  ServerOptions options;
  std::string device = "local-task";
  size_t task_workers = 0;
  std::vector<std::pair<std::string, std::string>> models;
  std::string require_signature;

  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    auto value = [&](const char *flag, std::string *out) {
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
        return fail("--header-timeout takes positive milliseconds, got '" +
                    v + "'");
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
  if (models.empty()) {
    std::fputs(kUsage, stderr);
    return fail("give at least one --model NAME=PATH");
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

  strata_allocator_t allocator = strata_allocator_system();
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
  // its own compute loop and thread: a call that never ends (an endless
  // kernel, bytecode that loops) holds only its model, and a device lost
  // at a deadline is only that model's.
  struct Compute {
    strata_hal_loop_t *loop = nullptr;
    strata_hal_fence_t *keep_alive = nullptr;
    std::thread thread;
  };
  int exit_code = 0;
  ModelRegistry registry;
  std::vector<std::unique_ptr<Compute>> computes;
  for (const auto &[name, path] : models) {
    strata_runtime_instance_t *instance = nullptr;
    strata_status_t status =
        strata_runtime_instance_create(&instance_options, allocator, &instance);
    if (!status) {
      status = registry.add(instance, name, path);
    }
    // The model's session holds the instance.
    strata_runtime_instance_release(instance);
    auto compute = std::make_unique<Compute>();
    if (!status) {
      status = strata_hal_loop_create(allocator, &compute->loop);
    }
    if (!status) {
      status = strata_hal_fence_create_pending(allocator, &compute->keep_alive);
    }
    // The compute loop runs until this fence is signalled: without an
    // operation in flight strata_hal_loop_run would return at once.
    if (!status) {
      status = strata_hal_loop_wait_fence(compute->loop, compute->keep_alive, 0,
                                          onKeepAliveDone, nullptr);
    }
    if (status) {
      exit_code = fail("model '" + name +
                       "': " + strata::service::consumeStatusText(status));
      strata_hal_loop_destroy(compute->loop);
      strata_hal_fence_release(compute->keep_alive);
      break;
    }
    for (auto &[function_name, function] :
         registry.models().at(name)->functions) {
      function->loop = compute->loop;
    }
    computes.push_back(std::move(compute));
  }
  auto stopComputes = [&computes](bool join) {
    for (auto &compute : computes) {
      strata_status_t signal_status =
          strata_hal_fence_signal(compute->keep_alive);
      if (signal_status) {
        strata_status_free(signal_status);
      }
    }
    for (auto &compute : computes) {
      if (compute->thread.joinable() && join) {
        compute->thread.join();
      }
      strata_hal_loop_destroy(compute->loop);
      strata_hal_fence_release(compute->keep_alive);
    }
    computes.clear();
  };
  if (!exit_code) {
    Server server(&registry, options);
    std::string error;
    if (!server.start(&error)) {
      exit_code = fail(error);
    } else {
      for (auto &compute : computes) {
        strata_hal_loop_t *loop = compute->loop;
        compute->thread = std::thread([loop] {
          strata_status_t run_status = strata_hal_loop_run(loop);
          if (run_status) {
            std::fprintf(
                stderr, "strata-serve: compute loop: %s\n",
                strata::service::consumeStatusText(run_status).c_str());
          }
        });
      }
      std::printf("strata-serve: listening on http://%s:%d (%zu model%s, "
                  "device %s)\n",
                  options.host.c_str(), server.boundPort(), models.size(),
                  models.size() == 1 ? "" : "s", device.c_str());
      std::fflush(stdout);
      std::string abandoned = server.run();
      if (!abandoned.empty()) {
        // Calls still running cannot be stopped: report them and leave
        // without tearing down what they use.
        std::fprintf(stderr, "strata-serve: %s\n", abandoned.c_str());
        std::fflush(stderr);
        std::_Exit(1);
      }
      // Every call has been answered: let the compute loops finish.
      stopComputes(true);
      std::fprintf(stderr, "strata-serve: stopped\n");
    }
  }
  stopComputes(true);
  return exit_code;
}
