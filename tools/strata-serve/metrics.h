// metrics.h - the service's Prometheus metrics: requests answered by status
// code, the latency histogram of invocations, and the calls in flight.
// Touched only by the HTTP loop thread, so nothing here is synchronized.
#ifndef STRATA_TOOLS_STRATA_SERVE_METRICS_H_
#define STRATA_TOOLS_STRATA_SERVE_METRICS_H_

#include <array>
#include <cstdint>
#include <cstdio>
#include <map>
#include <string>

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
    out += "# HELP strata_service_requests_total HTTP requests answered, by "
           "status code.\n"
           "# TYPE strata_service_requests_total counter\n";
    for (const auto &[code, count] : responses_) {
      out += "strata_service_requests_total{code=\"" + std::to_string(code) +
             "\"} " + std::to_string(count) + "\n";
    }
    out += "# HELP strata_service_invoke_duration_seconds Latency of "
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
    out += "# HELP strata_service_inflight_calls Invocations submitted and "
           "not yet answered.\n"
           "# TYPE strata_service_inflight_calls gauge\n"
           "strata_service_inflight_calls " +
           std::to_string(in_flight) + "\n";
    out += "# HELP strata_service_inflight_limit The --max-inflight bound "
           "(beyond it: 503).\n"
           "# TYPE strata_service_inflight_limit gauge\n"
           "strata_service_inflight_limit " +
           std::to_string(max_in_flight) + "\n";
    return out;
  }

private:
  static constexpr std::array<double, 14> kBounds = {
      0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01,
      0.025,  0.05,    0.1,    0.25,  0.5,    1,     5};
  std::map<int, uint64_t> responses_;
  std::array<uint64_t, kBounds.size()> buckets_{};
  uint64_t latency_count_ = 0;
  double latency_sum_ = 0;
};

} // namespace strata::service

#endif // STRATA_TOOLS_STRATA_SERVE_METRICS_H_
