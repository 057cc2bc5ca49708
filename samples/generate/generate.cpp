// generate.cpp - greedy text generation with a decoder language model,
// from C++ through the embedding API (strata/runtime.hpp). The C++ twin of
// generate.py; see README.md.
//
// The key/value cache stays in the runtime: each call's result tensors are
// pushed into the next call as they are (the call retains them), and only
// the last position's logits are copied out to pick the next token.
//
//   strata-generate --decoder=decoder.vmfb [--prefill=prefill.vmfb]
//       --layers=N --heads=H --head-dim=D [--prompt=1,2,3] [--tokens=64]
//       [--expect=t1,t2,...] [--device=local-task] [--task-workers=0]
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include <strata/runtime.hpp>

namespace rt = strata::runtime;

namespace {

constexpr char kUsage[] =
    "usage: strata-generate --decoder=FILE.vmfb [--prefill=FILE.vmfb]\n"
    "    --layers=N --heads=H --head-dim=D [--prompt=IDS] [--tokens=N]\n"
    "    [--expect=IDS] [--device=local-task|local-sync] [--task-workers=N]\n"
    "\n"
    "Greedy generation with a decoder language model compiled by\n"
    "strata-compile (samples/generate/make_decoder.py writes one).\n"
    "  --decoder       input_ids[1,S] and a past key and value [1,H,P,D] per\n"
    "                  layer -> logits [1,S,V] and the presents [1,H,P+S,D]\n"
    "  --prefill       input_ids[1,S] -> logits and presents; without it the\n"
    "                  decoder takes the prompt with an empty cache (P=0)\n"
    "  --layers, --heads, --head-dim  the cache's shape\n"
    "  --prompt        prompt token ids, comma-separated\n"
    "                  (default 17,302,5,1999,42,7,1024,3)\n"
    "  --tokens        tokens to generate (default 64)\n"
    "  --expect        the tokens to expect (PyTorch's): exit 1 on the\n"
    "                  first difference\n"
    "  --device        local-task (threads, the default) or local-sync\n"
    "  --task-workers  local-task worker threads (default 0: one per core)\n";

struct Options {
  std::string decoder, prefill, device = "local-task";
  long layers = 0, heads = 0, head_dim = 0, tokens = 64, task_workers = 0;
  std::vector<int64_t> prompt = {17, 302, 5, 1999, 42, 7, 1024, 3};
  std::vector<int64_t> expect;
  bool has_expect = false;
};

bool parseIds(const char* text, std::vector<int64_t>* out) {
  out->clear();
  while (*text) {
    char* end = nullptr;
    long long value = std::strtoll(text, &end, 10);
    if (end == text || value < 0) {
      return false;
    }
    out->push_back(value);
    text = end;
    if (*text == ',') {
      ++text;
      if (!*text) {
        return false;
      }
    } else if (*text) {
      return false;
    }
  }
  return !out->empty();
}

bool parseCount(const char* text, long* out) {
  char* end = nullptr;
  long value = std::strtol(text, &end, 10);
  if (end == text || *end || value < 0 || value > (1L << 30)) {
    return false;
  }
  *out = value;
  return true;
}

// Returns 0 on success, 2 (with a message) on a bad command line, -1 for
// --help.
int parseOptions(int argc, char** argv, Options* options) {
  for (int i = 1; i < argc; ++i) {
    const char* arg = argv[i];
    if (!std::strcmp(arg, "--help") || !std::strcmp(arg, "-h")) {
      return -1;
    }
    const char* eq = std::strchr(arg, '=');
    if (std::strncmp(arg, "--", 2) || !eq) {
      std::fprintf(stderr, "strata-generate: unexpected argument '%s'\n%s", arg,
                   kUsage);
      return 2;
    }
    std::string name(arg + 2, eq);
    const char* value = eq + 1;
    bool ok = true;
    if (name == "decoder") {
      options->decoder = value;
    } else if (name == "prefill") {
      options->prefill = value;
    } else if (name == "device") {
      options->device = value;
    } else if (name == "layers") {
      ok = parseCount(value, &options->layers);
    } else if (name == "heads") {
      ok = parseCount(value, &options->heads);
    } else if (name == "head-dim") {
      ok = parseCount(value, &options->head_dim);
    } else if (name == "tokens") {
      ok = parseCount(value, &options->tokens);
    } else if (name == "task-workers") {
      ok = parseCount(value, &options->task_workers);
    } else if (name == "prompt") {
      ok = parseIds(value, &options->prompt);
    } else if (name == "expect") {
      ok = parseIds(value, &options->expect);
      options->has_expect = true;
    } else {
      std::fprintf(stderr, "strata-generate: unknown option --%s\n%s",
                   name.c_str(), kUsage);
      return 2;
    }
    if (!ok) {
      std::fprintf(stderr, "strata-generate: bad value for --%s: '%s'\n",
                   name.c_str(), value);
      return 2;
    }
  }
  if (options->decoder.empty() || !options->layers || !options->heads ||
      !options->head_dim) {
    std::fprintf(stderr,
                 "strata-generate: --decoder, --layers, --heads and "
                 "--head-dim are required\n%s",
                 kUsage);
    return 2;
  }
  return 0;
}

int fail(const char* what, const rt::Status& status) {
  std::fprintf(stderr, "strata-generate: %s: %s\n", what,
               status.toString().c_str());
  return 1;
}

// Invokes `function` of session on args; its results replace *results.
rt::Status run(const rt::Session& session, const std::vector<rt::Tensor*>& args,
               std::vector<rt::Tensor>* results) {
  rt::Result<rt::Call> call = session.call("main");
  if (!call.ok()) {
    return call.takeStatus();
  }
  for (rt::Tensor* arg : args) {
    rt::Status status = call->push(*arg);
    if (!status.ok()) {
      return status;
    }
  }
  rt::Status status = call->invoke();
  if (!status.ok()) {
    return status;
  }
  std::vector<rt::Tensor> out;
  for (size_t i = 0; i < call->resultCount(); ++i) {
    rt::Result<rt::Tensor> tensor = call->resultTensor(i);
    if (!tensor.ok()) {
      return tensor.takeStatus();
    }
    out.push_back(std::move(*tensor));
  }
  *results = std::move(out);
  return rt::Status();
}

// The best token at the last position of logits [1,S,V].
rt::Result<int64_t> nextToken(const rt::Tensor& logits) {
  std::vector<int64_t> shape = logits.shape();
  if (shape.size() != 3 || shape[0] != 1 || shape[1] < 1 || shape[2] < 1) {
    return rt::Status(strata_make_status(
        STRATA_STATUS_FAILED_PRECONDITION,
        "logits are %s; a decoder returns 1xSxV logits first",
        logits.typeString().c_str()));
  }
  rt::Result<std::vector<float>> values = logits.toVector<float>();
  if (!values.ok()) {
    return values.takeStatus();
  }
  const float* last = values->data() + (shape[1] - 1) * shape[2];
  int64_t best = 0;
  for (int64_t i = 1; i < shape[2]; ++i) {
    if (last[i] > last[best]) {
      best = i;
    }
  }
  return best;
}

}  // namespace

int main(int argc, char** argv) {
  Options options;
  int parsed = parseOptions(argc, argv, &options);
  if (parsed == -1) {
    std::fputs(kUsage, stdout);
    return 0;
  }
  if (parsed) {
    return parsed;
  }
  rt::Result<rt::Instance> instance = rt::Instance::create(
      options.device.c_str(), static_cast<uint32_t>(options.task_workers));
  if (!instance.ok()) {
    return fail("instance", instance.status());
  }
  rt::Result<rt::Session> decoder =
      rt::Session::fromFile(*instance, options.decoder.c_str());
  if (!decoder.ok()) {
    return fail(options.decoder.c_str(), decoder.status());
  }
  rt::Result<rt::Tensor> ids = rt::Tensor::fromHost<int64_t>(
      {1, static_cast<int64_t>(options.prompt.size())}, options.prompt);
  if (!ids.ok()) {
    return fail("prompt", ids.status());
  }

  auto start = std::chrono::steady_clock::now();
  std::vector<rt::Tensor> results;
  if (!options.prefill.empty()) {
    rt::Result<rt::Session> prefill =
        rt::Session::fromFile(*instance, options.prefill.c_str());
    if (!prefill.ok()) {
      return fail(options.prefill.c_str(), prefill.status());
    }
    rt::Status status = run(*prefill, {&*ids}, &results);
    if (!status.ok()) {
      return fail("prefill", status);
    }
  } else {
    // The single-graph form: the prompt with an empty cache.
    rt::Result<rt::Tensor> empty = rt::Tensor::fromHost<float>(
        {1, options.heads, 0, options.head_dim}, {});
    if (!empty.ok()) {
      return fail("empty cache", empty.status());
    }
    std::vector<rt::Tensor*> args = {&*ids};
    for (long i = 0; i < 2 * options.layers; ++i) {
      args.push_back(&*empty);
    }
    rt::Status status = run(*decoder, args, &results);
    if (!status.ok()) {
      return fail("decoder (prompt)", status);
    }
  }
  auto first = std::chrono::steady_clock::now();
  if (results.size() != static_cast<size_t>(1 + 2 * options.layers)) {
    std::fprintf(stderr,
                 "strata-generate: the model returned %zu results; "
                 "--layers=%ld means logits and %ld cache tensors\n",
                 results.size(), options.layers, 2 * options.layers);
    return 1;
  }

  std::vector<int64_t> tokens;
  for (long step = 0; step < options.tokens; ++step) {
    rt::Result<int64_t> token = nextToken(results[0]);
    if (!token.ok()) {
      return fail("logits", token.status());
    }
    tokens.push_back(*token);
    if (step + 1 == options.tokens) {
      break;
    }
    rt::Result<rt::Tensor> next =
        rt::Tensor::fromHost<int64_t>({1, 1}, {*token});
    if (!next.ok()) {
      return fail("token", next.status());
    }
    // The cache tensors go into the call as they are (no copy).
    std::vector<rt::Tensor*> args = {&*next};
    for (size_t i = 1; i < results.size(); ++i) {
      args.push_back(&results[i]);
    }
    std::vector<rt::Tensor> out;
    rt::Status status = run(*decoder, args, &out);
    if (!status.ok()) {
      return fail("decoder", status);
    }
    results = std::move(out);
  }
  auto end = std::chrono::steady_clock::now();

  std::printf("strata-generate:");
  for (int64_t token : tokens) {
    std::printf(" %lld", static_cast<long long>(token));
  }
  double prompt_ms =
      std::chrono::duration<double, std::milli>(first - start).count();
  double decode_ms =
      std::chrono::duration<double, std::milli>(end - first).count();
  std::printf(
      "\nstrata-generate: prompt of %zu tokens in %.1f ms, then %.2f "
      "ms per token\n",
      options.prompt.size(), prompt_ms,
      decode_ms /
          static_cast<double>(tokens.size() > 1 ? tokens.size() - 1 : 1));
  if (options.has_expect) {
    for (size_t i = 0; i < tokens.size(); ++i) {
      if (i >= options.expect.size() || tokens[i] != options.expect[i]) {
        std::fprintf(stderr,
                     "strata-generate: token %zu is %lld; expected %s\n", i,
                     static_cast<long long>(tokens[i]),
                     i < options.expect.size()
                         ? std::to_string(options.expect[i]).c_str()
                         : "no more tokens");
        return 1;
      }
    }
    std::printf("strata-generate: %zu tokens match\n", tokens.size());
  }
  return 0;
}
