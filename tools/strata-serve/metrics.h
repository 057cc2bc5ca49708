// metrics.h - strata-serve's Prometheus metrics: requests answered by
// status code, the latency histogram of invocations, the calls in flight,
// and per model and version the requests' outcomes, executions, durations
// (request, queue, compute) and pending requests.
// Touched only by the HTTP loop thread, so nothing here is synchronized.
#ifndef STRATA_TOOLS_STRATA_SERVE_METRICS_H_
#define STRATA_TOOLS_STRATA_SERVE_METRICS_H_

#include <array>
#include <cstdint>
#include <cstdio>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace strata::service {

class Metrics {
 public:
  /// Counts one answered request.
  void countResponse(int status_code) { ++responses_[status_code]; }

  /// Records the latency of one invocation request, from its last byte
  /// received to its answer being queued for writing.
  void observeInvokeLatency(uint64_t nanoseconds) {
    double seconds = static_cast<double>(nanoseconds) * 1e-9;
    for (size_t i = 0; i < kBounds.size(); ++i) {
      if (seconds <= kBounds[i]) {
        ++buckets_[i];
      }
    }
    ++latency_count_;
    latency_sum_ += seconds;
  }

  /// The text exposition format (version 0.0.4).
  std::string render(size_t in_flight, size_t max_in_flight) const {
    std::string out;
    out +=
        "# HELP strata_service_requests_total HTTP requests answered, by "
        "status code.\n"
        "# TYPE strata_service_requests_total counter\n";
    for (const auto& [code, count] : responses_) {
      out += "strata_service_requests_total{code=\"" + std::to_string(code) +
             "\"} " + std::to_string(count) + "\n";
    }
    out +=
        "# HELP strata_service_invoke_duration_seconds Latency of "
        "invocation requests, from the request's last byte to its "
        "answer.\n"
        "# TYPE strata_service_invoke_duration_seconds histogram\n";
    for (size_t i = 0; i < kBounds.size(); ++i) {
      char bound[32];
      std::snprintf(bound, sizeof(bound), "%g", kBounds[i]);
      out += "strata_service_invoke_duration_seconds_bucket{le=\"" +
             std::string(bound) + "\"} " + std::to_string(buckets_[i]) + "\n";
    }
    out += "strata_service_invoke_duration_seconds_bucket{le=\"+Inf\"} " +
           std::to_string(latency_count_) + "\n";
    char sum[64];
    std::snprintf(sum, sizeof(sum), "%.9g", latency_sum_);
    out +=
        "strata_service_invoke_duration_seconds_sum " + std::string(sum) + "\n";
    out += "strata_service_invoke_duration_seconds_count " +
           std::to_string(latency_count_) + "\n";
    out +=
        "# HELP strata_service_inflight_calls Invocations submitted and "
        "not yet answered.\n"
        "# TYPE strata_service_inflight_calls gauge\n"
        "strata_service_inflight_calls " +
        std::to_string(in_flight) + "\n";
    out +=
        "# HELP strata_service_inflight_limit The --max-inflight bound "
        "(beyond it: 503).\n"
        "# TYPE strata_service_inflight_limit gauge\n"
        "strata_service_inflight_limit " +
        std::to_string(max_in_flight) + "\n";
    return out;
  }

  /// A request of a model answered: ok (200) or not, and its durations:
  /// request (accepted to answered), queue (accepted to its call's
  /// submission; 0 when it never ran), compute (submission to completion).
  void observeModel(const std::string& model, const std::string& version,
                    bool ok, uint64_t request_ns, uint64_t queue_ns,
                    uint64_t compute_ns, bool ran) {
    ModelMetrics& m = models_[{model, version}];
    ++(ok ? m.success : m.failure);
    if (ran) {
      ++m.inferences;
      m.request.observe(request_ns);
      m.queue.observe(queue_ns);
      m.compute.observe(compute_ns);
    }
  }
  /// A request refused before it ran (400).
  void countModelFailure(const std::string& model, const std::string& version) {
    ++models_[{model, version}].failure;
  }
  /// One call of a model executed (a batch of several requests is one)
  /// on its instance `instance`.
  void countExecution(const std::string& model, const std::string& version,
                      size_t instance) {
    ModelMetrics& m = models_[{model, version}];
    ++m.executions;
    if (m.instance_executions.size() <= instance) {
      m.instance_executions.resize(instance + 1);
    }
    ++m.instance_executions[instance];
  }

  /// A request of a failed batch run again alone.
  void countRerun(const std::string& model, const std::string& version) {
    ++models_[{model, version}].reruns;
  }

  /// Per model and version, in the text exposition format; pending: the
  /// requests of each model accepted and not yet answered.
  std::string renderModels(const std::map<std::pair<std::string, std::string>,
                                          size_t>& pending) const {
    std::string out;
    auto labels = [](const std::pair<std::string, std::string>& key) {
      return "model=\"" + key.first + "\",version=\"" + key.second + "\"";
    };
    auto counter = [&](const char* name, const char* help,
                       uint64_t ModelMetrics::* field) {
      out += std::string("# HELP ") + name + " " + help + "\n# TYPE " + name +
             " counter\n";
      for (const auto& [key, m] : models_) {
        out += std::string(name) + "{" + labels(key) + "} " +
               std::to_string(m.*field) + "\n";
      }
    };
    counter("strata_serve_request_success_total",
            "Inference requests answered 200, per model.",
            &ModelMetrics::success);
    counter("strata_serve_request_failure_total",
            "Inference requests answered with an error, per model.",
            &ModelMetrics::failure);
    counter("strata_serve_inference_count_total",
            "Requests that ran (inference_count / execution_count is the "
            "mean batch).",
            &ModelMetrics::inferences);
    counter("strata_serve_execution_count_total",
            "Calls of the model run (a batch of requests is one).",
            &ModelMetrics::executions);
    counter("strata_serve_rerun_count_total",
            "Requests of a batch that failed, run again alone (each at most "
            "once).",
            &ModelMetrics::reruns);
    out +=
        "# HELP strata_serve_instance_execution_count_total Calls of the "
        "model run, per instance (config.json's instance_count).\n"
        "# TYPE strata_serve_instance_execution_count_total counter\n";
    for (const auto& [key, m] : models_) {
      for (size_t i = 0; i < m.instance_executions.size(); ++i) {
        out += "strata_serve_instance_execution_count_total{" + labels(key) +
               ",instance=\"" + std::to_string(i) + "\"} " +
               std::to_string(m.instance_executions[i]) + "\n";
      }
    }
    auto histogram = [&](const char* name, const char* help,
                         Histogram ModelMetrics::* field) {
      out += std::string("# HELP ") + name + " " + help + "\n# TYPE " + name +
             " histogram\n";
      for (const auto& [key, m] : models_) {
        (m.*field).render(&out, name, labels(key));
      }
    };
    histogram("strata_serve_request_duration_seconds",
              "From a request's last byte to its answer.",
              &ModelMetrics::request);
    histogram("strata_serve_queue_duration_seconds",
              "From a request's last byte to the submission of its call "
              "(the batching queue's wait).",
              &ModelMetrics::queue);
    histogram("strata_serve_compute_duration_seconds",
              "From a call's submission to its completion.",
              &ModelMetrics::compute);
    out +=
        "# HELP strata_serve_pending_requests Requests accepted and not "
        "yet answered, per model.\n# TYPE strata_serve_pending_requests "
        "gauge\n";
    for (const auto& [key, count] : pending) {
      out += "strata_serve_pending_requests{" + labels(key) + "} " +
             std::to_string(count) + "\n";
    }
    return out;
  }

 private:
  struct Histogram {
    std::array<uint64_t, 14> buckets{};
    uint64_t count = 0;
    double sum = 0;
    void observe(uint64_t nanoseconds) {
      double seconds = static_cast<double>(nanoseconds) * 1e-9;
      for (size_t i = 0; i < kBounds.size(); ++i) {
        if (seconds <= kBounds[i]) {
          ++buckets[i];
        }
      }
      ++count;
      sum += seconds;
    }
    void render(std::string* out, const char* name,
                const std::string& labels) const {
      for (size_t i = 0; i < kBounds.size(); ++i) {
        char bound[32];
        std::snprintf(bound, sizeof(bound), "%g", kBounds[i]);
        *out += std::string(name) + "_bucket{" + labels + ",le=\"" + bound +
                "\"} " + std::to_string(buckets[i]) + "\n";
      }
      *out += std::string(name) + "_bucket{" + labels + ",le=\"+Inf\"} " +
              std::to_string(count) + "\n";
      char text[64];
      std::snprintf(text, sizeof(text), "%.9g", sum);
      *out += std::string(name) + "_sum{" + labels + "} " + text + "\n";
      *out += std::string(name) + "_count{" + labels + "} " +
              std::to_string(count) + "\n";
    }
  };
  struct ModelMetrics {
    uint64_t success = 0;
    uint64_t failure = 0;
    uint64_t inferences = 0;
    uint64_t executions = 0;
    uint64_t reruns = 0;
    std::vector<uint64_t> instance_executions;
    Histogram request;
    Histogram queue;
    Histogram compute;
  };
  std::map<std::pair<std::string, std::string>, ModelMetrics> models_;
  static constexpr std::array<double, 14> kBounds = {
      0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01,
      0.025,  0.05,    0.1,    0.25,  0.5,    1,     5};
  std::map<int, uint64_t> responses_;
  std::array<uint64_t, kBounds.size()> buckets_{};
  uint64_t latency_count_ = 0;
  double latency_sum_ = 0;
};

}  // namespace strata::service

#endif  // STRATA_TOOLS_STRATA_SERVE_METRICS_H_
