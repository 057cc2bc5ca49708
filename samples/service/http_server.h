// http_server.h - the service's HTTP/1.1 front end on a libuv loop: accepts
// connections, parses requests with http_parser, answers /healthz and
// /metrics itself and hands invocations to the runtime
// (strata_runtime_call_invoke_async on the compute loop, which another
// thread runs), then writes each answer in request order when its call
// completes. SIGTERM or SIGINT stops accepting, drains the calls in flight
// and returns from run().
//
// Threading: everything here runs on the thread that calls run(), except
// the call completion callback, which runs on the compute loop's thread and
// only encodes the results and posts them back through a mutex-guarded
// queue and an eventfd.
#ifndef STRATA_SAMPLES_SERVICE_HTTP_SERVER_H_
#define STRATA_SAMPLES_SERVICE_HTTP_SERVER_H_

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_set>
#include <vector>

#include <uv.h>

#include "metrics.h"
#include "model_registry.h"

namespace strata::service {

struct ServerOptions {
  std::string host = "127.0.0.1";
  int port = 8080;
  size_t max_in_flight = 1024;
  size_t max_body = 16u << 20;
};

struct Connection;
struct PendingCall;
struct ParserHooks;
void closeConnection(Connection *conn);
void flushConnection(Connection *conn);
void onRead(uv_stream_t *stream, ssize_t nread, const uv_buf_t *buf);

class Server {
public:
  /// registry and compute_loop are borrowed and must outlive the server;
  /// compute_loop must be run by another thread while run() runs.
  Server(ModelRegistry *registry, strata_hal_loop_t *compute_loop,
         ServerOptions options);
  Server(const Server &) = delete;
  Server &operator=(const Server &) = delete;
  ~Server();

  /// Binds and listens. False with *error (naming the address) on failure.
  bool start(std::string *error);
  /// The port bound (useful with port 0).
  int boundPort() const { return bound_port_; }
  /// Serves until a SIGTERM/SIGINT has been handled and every call in
  /// flight has been answered; every handle is closed when it returns.
  void run();

private:
  friend struct Connection;
  friend struct ParserHooks;
  static void onConnection(uv_stream_t *listener, int status);
  static void onCompletionsReady(uv_poll_t *poll, int status, int events);
  static void onSignal(uv_signal_t *signal, int signum);
  static void onDrainTimeout(uv_timer_t *timer);
  static void onCallDone(void *user, strata_runtime_call_t *call,
                         strata_status_t status);

  void handleRequest(Connection *conn);
  void answer(Connection *conn, uint64_t seq, int code,
              const char *content_type, const std::string &body);
  void invoke(Connection *conn, uint64_t seq, Function *function);
  void postCompletion(PendingCall *pending);
  void drainCompletions();
  void beginDrain();
  void checkDrained();
  void forgetConnection(Connection *conn);

  ModelRegistry *registry_;
  strata_hal_loop_t *compute_loop_;
  ServerOptions options_;
  int bound_port_ = 0;

  uv_loop_t loop_;
  uv_tcp_t listener_;
  uv_poll_t completions_poll_;
  uv_signal_t sigterm_;
  uv_signal_t sigint_;
  uv_timer_t drain_timer_;
  int event_fd_ = -1;
  bool draining_ = false;
  bool stopped_ = false;

  std::unordered_set<Connection *> connections_;
  size_t in_flight_ = 0;
  Metrics metrics_;

  // Completed calls from the compute thread, guarded by mutex_.
  std::mutex mutex_;
  std::vector<PendingCall *> completed_;

  friend void closeConnection(Connection *conn);
  friend void flushConnection(Connection *conn);
  friend void onRead(uv_stream_t *stream, ssize_t nread, const uv_buf_t *buf);
};

} // namespace strata::service

#endif // STRATA_SAMPLES_SERVICE_HTTP_SERVER_H_
