// main.cpp - strata-service: an HTTP/1.1 inference server. Loads each
// --model into a session, runs the runtime's loop (strata_hal_loop_t) on a
// compute thread and serves HTTP on a libuv loop on the main thread; see
// README.md.
#include <sys/resource.h>

#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
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
    "usage: strata-service --model NAME=PATH.vmfb [--model ...] [flags]\n"
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
    "  --require-signature=PUBKEY_FILE\n"
    "                         refuse any model not signed by this Ed25519\n"
    "                         public key (docs/security.md)\n"
    "  --help                 this text\n"
    "\n"
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
  std::fprintf(stderr, "strata-service: %s\n", message.c_str());
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
  strata_runtime_instance_t *instance = nullptr;
  strata_status_t status =
      strata_runtime_instance_create(&instance_options, allocator, &instance);
  if (status) {
    return fail(strata::service::consumeStatusText(status));
  }
  int exit_code = 0;
  {
    ModelRegistry registry;
    for (const auto &[name, path] : models) {
      status = registry.add(instance, name, path);
      if (status) {
        exit_code = fail("model '" + name +
                         "': " + strata::service::consumeStatusText(status));
        break;
      }
    }
    strata_hal_loop_t *compute_loop = nullptr;
    strata_hal_fence_t *keep_alive = nullptr;
    if (!exit_code) {
      status = strata_hal_loop_create(allocator, &compute_loop);
      if (!status) {
        status = strata_hal_fence_create_pending(allocator, &keep_alive);
      }
      // The compute loop runs until this fence is signalled: without an
      // operation in flight strata_hal_loop_run would return at once.
      if (!status) {
        status = strata_hal_loop_wait_fence(compute_loop, keep_alive, 0,
                                            onKeepAliveDone, nullptr);
      }
      if (status) {
        exit_code = fail(strata::service::consumeStatusText(status));
      }
    }
    if (!exit_code) {
      Server server(&registry, compute_loop, options);
      std::string error;
      if (!server.start(&error)) {
        exit_code = fail(error);
      } else {
        std::thread compute([compute_loop] {
          strata_status_t run_status = strata_hal_loop_run(compute_loop);
          if (run_status) {
            std::fprintf(
                stderr, "strata-service: compute loop: %s\n",
                strata::service::consumeStatusText(run_status).c_str());
          }
        });
        std::printf("strata-service: listening on http://%s:%d (%zu model%s, "
                    "device %s)\n",
                    options.host.c_str(), server.boundPort(), models.size(),
                    models.size() == 1 ? "" : "s", device.c_str());
        std::fflush(stdout);
        server.run();
        // Every call has been answered: let the compute loop finish.
        strata_status_t signal_status = strata_hal_fence_signal(keep_alive);
        if (signal_status) {
          strata_status_free(signal_status);
        }
        compute.join();
        std::fprintf(stderr, "strata-service: stopped\n");
      }
      if (exit_code) {
        strata_status_t signal_status = strata_hal_fence_signal(keep_alive);
        if (signal_status) {
          strata_status_free(signal_status);
        }
      }
    }
    strata_hal_loop_destroy(compute_loop);
    strata_hal_fence_release(keep_alive);
  }
  strata_runtime_instance_release(instance);
  return exit_code;
}
