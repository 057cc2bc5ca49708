// http_server.cpp - connections, requests (parsed by request_parser.h),
// ordered answers and the drain on SIGTERM; see http_server.h.
#include "http_server.h"

#include <sys/eventfd.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <deque>
#include <functional>
#include <map>

#include <http_parser.h>

#include "model_compiler.h"
#include "oip.h"
#include "repository.h"
#include "request_parser.h"
#include "tensor_json.h"

namespace strata::service {

namespace {

const char* reasonPhrase(int code) {
  switch (code) {
    case 200: return "OK";
    case 400: return "Bad Request";
    case 404: return "Not Found";
    case 405: return "Method Not Allowed";
    case 408: return "Request Timeout";
    case 413: return "Payload Too Large";
    case 500: return "Internal Server Error";
    case 503: return "Service Unavailable";
    case 504: return "Gateway Timeout";
    default: return "Unknown";
  }
}

constexpr const char* kJson = "application/json";
// An answer of the binary tensor data extension: JSON, then raw bytes.
constexpr const char* kOctets = "application/octet-stream";
constexpr const char* kPrometheus = "text/plain; version=0.0.4; charset=utf-8";

// How long a drain waits for connections that are in the middle of sending
// a request before it closes them (calls in flight are always awaited).
constexpr uint64_t kDrainGraceMs = 10000;
// After the last answer of a connection that is being closed, input is
// read and dropped for this long (or until the client closes), so that a
// client still sending a body it was refused (413) reads the answer
// instead of a reset.
constexpr uint64_t kLingerMs = 2000;

}  // namespace

// One answer, in request order.
struct Slot {
  bool ready = false;
  bool close = false;  // close the connection once this is written
  std::string data;
};

struct Connection : RequestEvents {
  Connection(Server* owner, size_t max_body)
      : server(owner), request(max_body, this) {}
  void onRequestBegin() override;
  void onHeadersComplete(bool expect_continue) override;
  void onTooLarge() override;
  void onRequest() override;

  uv_tcp_t handle;
  uv_timer_t timer;  // header, idle and linger timeouts
  uv_shutdown_t shutdown_req;
  Server* server = nullptr;
  RequestParser request;
  bool closing = false;        // uv_close called
  bool handle_closed = false;  // its close callback ran
  bool timer_closed = false;   // the timer's close callback ran
  bool close_after_flush = false;
  uint64_t message_start_ms = 0;  // uv_now when its first byte arrived
  bool peer_closed = false;       // EOF read: the client sends no more
  bool lingering = false;         // answered; reading and dropping input
  bool paused = false;            // too many answers queued: not parsing
  std::string unparsed;           // read while paused, parsed on resume
  size_t writes_pending = 0;
  size_t calls_pending = 0;
  uint64_t first_seq = 0;  // seq of slots.front()
  uint64_t next_seq = 0;
  std::deque<Slot> slots;
};

// A call between its submission and its answer.
struct PendingCall {
  Server* server = nullptr;
  Connection* conn = nullptr;
  uint64_t seq = 0;
  Function* function = nullptr;
  strata_runtime_call_t* call = nullptr;
  // The instance of the model call belongs to and runs on.
  size_t instance = 0;
  uint64_t start_ns = 0;
  int code = 0;
  std::string body;
  // An Open Inference Protocol request (else the old /v1 one): the name the
  // client used, the model, and what the answer must hold.
  bool oip = false;
  std::string model_name;
  const Model* model = nullptr;
  OipRequest oip_request;
  size_t json_length = 0;  // of body, when binary outputs follow the JSON
  // Dynamic batching: the decoded inputs and their rows (dimension 0)
  // while queued; the members of the batch this call ran (on the leader,
  // the one that owns call; empty when not batched).
  std::vector<OipTensor> inputs;
  int64_t rows = 0;
  std::vector<PendingCall*> members;
  // A gRPC request: answered through done (on the HTTP loop) with the
  // results kept here, instead of an HTTP answer on conn (null).
  Server::InferDone done;
  std::string error;               // the failure's message
  std::vector<OipTensor> results;  // the answer's outputs (gRPC)
  uint64_t launch_ns = 0;          // the call's submission
  uint64_t done_ns = 0;            // its completion (compute thread)
  bool ran = false;  // its call ran (succeeded or failed at run time)
  // Its batch failed with an error its data may have caused: it runs again
  // alone (once; see drainCompletions).
  bool rerun = false;
};

// The requests of one batching function waiting for their batch.
struct BatchQueue {
  Server* server = nullptr;
  Function* function = nullptr;
  std::deque<PendingCall*> waiting;
  uv_timer_t timer;
  bool armed = false;
  // Batches of this queue running: up to the model's instance_count; the
  // next one forms while they run and goes when one is done.
  size_t executing = 0;
  // Draining or unloading: what waits goes without waiting for a batch.
  bool flush_all = false;
};

// A model.onnx being compiled (compileModel on libuv's thread pool) and
// the load requests waiting for it.
struct CompileJob {
  uv_work_t work;
  Server* server = nullptr;
  std::string name;
  std::string version;
  ModelConfig config;
  CompileRequest request;
  CompileResult result;  // written by the worker, read after it ends
  std::atomic<bool> cancel{false};
  struct Waiter {
    Connection* conn;
    uint64_t seq;
  };
  std::vector<Waiter> waiters;
};

namespace {

// Requests batch together when their inputs agree on everything but the
// size of dimension 0: the kinds, element types and the other dimensions.
bool sameSignature(const PendingCall* a, const PendingCall* b) {
  if (a->inputs.size() != b->inputs.size()) {
    return false;
  }
  for (size_t i = 0; i < a->inputs.size(); ++i) {
    const OipTensor& x = a->inputs[i];
    const OipTensor& y = b->inputs[i];
    if (x.kind != y.kind || x.type != y.type ||
        x.shape.size() != y.shape.size() ||
        !std::equal(x.shape.begin() + 1, x.shape.end(), y.shape.begin() + 1)) {
      return false;
    }
  }
  return true;
}

// The rows a request brings to a batch: the common size of dimension 0 of
// its inputs; -1 when they have none or disagree (it is then not batched).
int64_t batchRows(const std::vector<OipTensor>& inputs) {
  int64_t rows = -1;
  for (const OipTensor& input : inputs) {
    if (input.kind != STRATA_RUNTIME_VALUE_BUFFER_VIEW || input.shape.empty() ||
        (rows >= 0 && input.shape[0] != rows)) {
      return -1;
    }
    rows = input.shape[0];
  }
  return rows;
}

}  // namespace

// Friend of Server: the connection-level answers and flow control.
struct ConnectionHooks {
  // Answers the request being read with code and closes the connection
  // after it (malformed, too large, too slow, too many connections).
  static void answerAndClose(Connection* conn, int code,
                             const std::string& message);
  static void rejectTooLarge(Connection* conn);
  // A whole request has been parsed.
  static void onRequest(Connection* conn);
  // Parses bytes read from the client.
  static void parseInput(Connection* conn, const char* data, size_t length);
  // Parses again once the answers queued have drained below the bound.
  static void maybeResume(Connection* conn);
  // Arms the connection's timer for its state.
  static void updateTimer(Connection* conn);
  static void onHeaderTimeout(uv_timer_t* timer);
  static void onIdleTimeout(uv_timer_t* timer);
};

void finishConnection(Connection* conn);

namespace {

struct WriteRequest {
  uv_write_t req;
  std::string data;
  Connection* conn;
};

void maybeFree(Connection* conn) {
  if (conn->handle_closed && conn->timer_closed && conn->calls_pending == 0) {
    delete conn;
  }
}

void onClosed(uv_handle_t* handle) {
  Connection* conn = static_cast<Connection*>(handle->data);
  conn->handle_closed = true;
  maybeFree(conn);
}

void onTimerClosed(uv_handle_t* handle) {
  Connection* conn = static_cast<Connection*>(handle->data);
  conn->timer_closed = true;
  maybeFree(conn);
}

void onAlloc(uv_handle_t*, size_t, uv_buf_t* buf) {
  // One buffer serves every read: reads happen one at a time on the loop
  // thread, and onRead parses the bytes before it returns.
  static char buffer[64 * 1024];
  buf->base = buffer;
  buf->len = sizeof(buffer);
}

}  // namespace

void closeConnection(Connection* conn) {
  if (conn->closing) {
    return;
  }
  conn->closing = true;
  conn->server->forgetConnection(conn);
  uv_close(reinterpret_cast<uv_handle_t*>(&conn->timer), onTimerClosed);
  uv_close(reinterpret_cast<uv_handle_t*>(&conn->handle), onClosed);
}

namespace {

void onLingerTimeout(uv_timer_t* timer) {
  closeConnection(static_cast<Connection*>(timer->data));
}

void onShutdown(uv_shutdown_t*, int) {}

}  // namespace

// Ends a connection whose last answer is written: at once when the client
// has closed its side; otherwise after a half-close and a short linger that
// drops whatever the client still sends.
void finishConnection(Connection* conn) {
  if (conn->closing || conn->lingering) {
    return;
  }
  if (conn->peer_closed) {
    closeConnection(conn);
    return;
  }
  conn->lingering = true;
  auto* stream = reinterpret_cast<uv_stream_t*>(&conn->handle);
  if (uv_shutdown(&conn->shutdown_req, stream, onShutdown) < 0) {
    closeConnection(conn);
    return;
  }
  uv_timer_start(&conn->timer, onLingerTimeout, kLingerMs, 0);
  uv_read_start(stream, onAlloc, onRead);
}

namespace {

void onWritten(uv_write_t* req, int status) {
  WriteRequest* write = reinterpret_cast<WriteRequest*>(req);
  Connection* conn = write->conn;
  delete write;
  --conn->writes_pending;
  if (conn->closing) {
    return;
  }
  if (status < 0) {
    closeConnection(conn);
    return;
  }
  if (conn->close_after_flush && conn->slots.empty() &&
      conn->writes_pending == 0) {
    finishConnection(conn);
    return;
  }
  ConnectionHooks::maybeResume(conn);
  if (!conn->closing) {
    ConnectionHooks::updateTimer(conn);
  }
}

}  // namespace

void Connection::onRequestBegin() { message_start_ms = uv_now(handle.loop); }

void Connection::onHeadersComplete(bool expect_continue) {
  // A client that asked to be told to go on (curl does for large bodies)
  // is told so at once, unless earlier answers are still queued before it;
  // a body that is too large is refused when it has arrived.
  if (expect_continue && slots.empty() && writes_pending == 0) {
    static const char kContinue[] = "HTTP/1.1 100 Continue\r\n\r\n";
    uv_buf_t buf =
        uv_buf_init(const_cast<char*>(kContinue), sizeof(kContinue) - 1);
    uv_try_write(reinterpret_cast<uv_stream_t*>(&handle), &buf, 1);
  }
}

void Connection::onTooLarge() { ConnectionHooks::rejectTooLarge(this); }

void Connection::onRequest() { ConnectionHooks::onRequest(this); }

namespace {

std::string formatResponse(int code, const char* content_type,
                           const std::string& body, bool close,
                           const std::string& extra_headers = "") {
  std::string out;
  out.reserve(body.size() + 160);
  out += "HTTP/1.1 ";
  out += std::to_string(code);
  out += ' ';
  out += reasonPhrase(code);
  out += "\r\nContent-Type: ";
  out += content_type;
  out += "\r\nContent-Length: ";
  out += std::to_string(body.size());
  out += extra_headers;
  out += close ? "\r\nConnection: close\r\n\r\n" : "\r\n\r\n";
  out += body;
  return out;
}

}  // namespace

void flushConnection(Connection* conn) {
  // Every answer ready at the front goes out in one write: tried at once
  // (uv_try_write), and whatever the socket does not take is queued.
  std::string out;
  while (!conn->closing && !conn->slots.empty() && conn->slots.front().ready) {
    Slot& slot = conn->slots.front();
    if (out.empty()) {
      out = std::move(slot.data);
    } else {
      out += slot.data;
    }
    if (slot.close) {
      conn->close_after_flush = true;
    }
    conn->slots.pop_front();
    ++conn->first_seq;
  }
  if (!out.empty() && !conn->closing) {
    auto* stream = reinterpret_cast<uv_stream_t*>(&conn->handle);
    size_t written = 0;
    if (conn->writes_pending == 0) {
      uv_buf_t buf = uv_buf_init(out.data(), static_cast<unsigned>(out.size()));
      int rc = uv_try_write(stream, &buf, 1);
      if (rc > 0) {
        written = static_cast<size_t>(rc);
      } else if (rc != UV_EAGAIN) {
        closeConnection(conn);
        return;
      }
    }
    if (written < out.size()) {
      WriteRequest* write = new WriteRequest;
      write->data = out.substr(written);
      write->conn = conn;
      uv_buf_t buf = uv_buf_init(write->data.data(),
                                 static_cast<unsigned>(write->data.size()));
      if (uv_write(&write->req, stream, &buf, 1, onWritten) < 0) {
        delete write;
        closeConnection(conn);
        return;
      }
      ++conn->writes_pending;
    }
  }
  if (conn->closing) {
    return;
  }
  if (conn->close_after_flush) {
    if (!conn->lingering) {
      uv_read_stop(reinterpret_cast<uv_stream_t*>(&conn->handle));
    }
    if (conn->slots.empty() && conn->writes_pending == 0) {
      finishConnection(conn);
      return;
    }
  } else if (conn->server->draining_ && conn->slots.empty() &&
             !conn->request.inMessage()) {
    // Draining: nothing more will be read from an idle connection.
    conn->close_after_flush = true;
    uv_read_stop(reinterpret_cast<uv_stream_t*>(&conn->handle));
    if (conn->writes_pending == 0) {
      closeConnection(conn);
      return;
    }
  }
  ConnectionHooks::updateTimer(conn);
}

void ConnectionHooks::answerAndClose(Connection* conn, int code,
                                     const std::string& message) {
  Slot slot;
  slot.ready = true;
  slot.close = true;
  slot.data = formatResponse(code, kJson, errorBody(message), true);
  conn->slots.push_back(std::move(slot));
  ++conn->next_seq;
  conn->request.abandonMessage();
  conn->server->metrics_.countResponse(code);
  conn->close_after_flush = true;
  flushConnection(conn);
}

void ConnectionHooks::rejectTooLarge(Connection* conn) {
  answerAndClose(conn, 413,
                 "the request body exceeds --max-body=" +
                     std::to_string(conn->server->options_.max_body) +
                     " bytes");
  // Nothing after the headers is parsed (the linger drops it).
  conn->request.pause(true);
}

void ConnectionHooks::onRequest(Connection* conn) {
  conn->server->handleRequest(conn);
  // Too many answers queued: parse nothing more until they drain.
  if (!conn->closing && conn->slots.size() + conn->writes_pending >=
                            conn->server->options_.max_pipeline) {
    conn->paused = true;
    conn->request.pause(true);
  }
}

void ConnectionHooks::parseInput(Connection* conn, const char* data,
                                 size_t length) {
  size_t parsed = 0;
  std::string error;
  RequestParser::Result result =
      conn->request.feed(data, length, &parsed, &error);
  if (result == RequestParser::Result::kPaused) {
    if (conn->paused && !conn->closing && !conn->close_after_flush) {
      // Keep the rest for maybeResume; read nothing more meanwhile.
      conn->unparsed.append(data + parsed, length - parsed);
      uv_read_stop(reinterpret_cast<uv_stream_t*>(&conn->handle));
    }
    return;
  }
  if (result == RequestParser::Result::kMalformed) {
    // Not HTTP (or an upgrade): answer once and close.
    answerAndClose(conn, 400, "malformed HTTP request: " + error);
  }
}

void ConnectionHooks::maybeResume(Connection* conn) {
  if (!conn->paused || conn->closing || conn->close_after_flush ||
      conn->slots.size() + conn->writes_pending >=
          conn->server->options_.max_pipeline) {
    return;
  }
  conn->paused = false;
  conn->request.pause(false);
  std::string rest;
  rest.swap(conn->unparsed);
  if (!rest.empty()) {
    parseInput(conn, rest.data(), rest.size());
  }
  if (!conn->paused && !conn->closing && !conn->close_after_flush &&
      !conn->peer_closed) {
    uv_read_start(reinterpret_cast<uv_stream_t*>(&conn->handle), onAlloc,
                  onRead);
  }
}

void ConnectionHooks::updateTimer(Connection* conn) {
  if (conn->closing || conn->lingering) {
    return;
  }
  const ServerOptions& options = conn->server->options_;
  if (conn->request.inMessage() && !conn->request.headersComplete()) {
    // The headers must be complete this long after the request's first
    // byte, however slowly they trickle in.
    uint64_t elapsed = uv_now(conn->handle.loop) - conn->message_start_ms;
    uint64_t left = options.header_timeout_ms > elapsed
                        ? options.header_timeout_ms - elapsed
                        : 0;
    uv_timer_start(&conn->timer, onHeaderTimeout, left, 0);
  } else if (conn->request.inMessage() ||
             (conn->slots.empty() && conn->calls_pending == 0 &&
              conn->writes_pending == 0)) {
    // A body in progress, or nothing at all: reads restart the clock.
    uv_timer_start(&conn->timer, onIdleTimeout, options.idle_timeout_ms, 0);
  } else {
    uv_timer_stop(&conn->timer);  // the client waits for us
  }
}

void ConnectionHooks::onHeaderTimeout(uv_timer_t* timer) {
  Connection* conn = static_cast<Connection*>(timer->data);
  if (conn->closing || conn->close_after_flush) {
    return;
  }
  answerAndClose(conn, 408,
                 "the request headers did not arrive within "
                 "--header-timeout=" +
                     std::to_string(conn->server->options_.header_timeout_ms) +
                     " ms");
}

void ConnectionHooks::onIdleTimeout(uv_timer_t* timer) {
  closeConnection(static_cast<Connection*>(timer->data));
}

void onRead(uv_stream_t* stream, ssize_t nread, const uv_buf_t* buf) {
  Connection* conn = static_cast<Connection*>(stream->data);
  if (conn->closing) {
    return;
  }
  if (conn->lingering) {
    if (nread < 0) {
      closeConnection(conn);  // the client is done too
    }
    return;  // dropped
  }
  if (nread > 0 && !conn->close_after_flush) {
    ConnectionHooks::parseInput(conn, buf->base, static_cast<size_t>(nread));
  } else if (nread < 0) {
    conn->peer_closed = true;
    uv_read_stop(stream);
    if (nread == UV_EOF && (!conn->slots.empty() || conn->calls_pending > 0 ||
                            conn->writes_pending > 0)) {
      // A half-close: the client sends no more but still reads. Its
      // answers go out, then the connection closes.
      conn->close_after_flush = true;
      conn->request.abandonMessage();
      flushConnection(conn);
      return;
    }
    closeConnection(conn);
    return;
  }
  if (!conn->closing) {
    ConnectionHooks::updateTimer(conn);
  }
}

Server::Server(ModelRegistry* registry, ServerOptions options)
    : registry_(registry), options_(std::move(options)) {
  uv_loop_init(&loop_);
}

Server::~Server() {
  if (event_fd_ >= 0) {
    close(event_fd_);
  }
  uv_loop_close(&loop_);
}

bool Server::start(std::string* error) {
  struct sockaddr_storage address;
  int rc;
  bool v6 = options_.host.find(':') != std::string::npos;
  if (v6) {
    rc = uv_ip6_addr(options_.host.c_str(), options_.port,
                     reinterpret_cast<sockaddr_in6*>(&address));
  } else {
    rc = uv_ip4_addr(options_.host.c_str(), options_.port,
                     reinterpret_cast<sockaddr_in*>(&address));
  }
  std::string where = options_.host + ":" + std::to_string(options_.port);
  if (rc < 0) {
    *error = "cannot parse the address " + where + ": " + uv_strerror(rc);
    return false;
  }
  uv_tcp_init(&loop_, &listener_);
  listener_.data = this;
  rc = uv_tcp_bind(&listener_, reinterpret_cast<const sockaddr*>(&address), 0);
  if (rc >= 0) {
    rc = uv_listen(reinterpret_cast<uv_stream_t*>(&listener_), 4096,
                   onConnection);
  }
  if (rc < 0) {
    *error = "cannot listen on " + where + ": " + uv_strerror(rc);
    uv_close(reinterpret_cast<uv_handle_t*>(&listener_), nullptr);
    uv_run(&loop_, UV_RUN_DEFAULT);
    return false;
  }
  struct sockaddr_storage bound;
  int length = sizeof(bound);
  uv_tcp_getsockname(&listener_, reinterpret_cast<sockaddr*>(&bound), &length);
  bound_port_ = ntohs(bound.ss_family == AF_INET6
                          ? reinterpret_cast<sockaddr_in6*>(&bound)->sin6_port
                          : reinterpret_cast<sockaddr_in*>(&bound)->sin_port);

  // Completions arrive through an eventfd watched by a uv_poll_t rather
  // than a uv_async_t, for the reason README.md gives for the hal loop.
  event_fd_ = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
  if (event_fd_ < 0) {
    *error = std::string("cannot create an eventfd: ") + std::strerror(errno);
    return false;
  }
  uv_poll_init(&loop_, &completions_poll_, event_fd_);
  completions_poll_.data = this;
  uv_poll_start(&completions_poll_, UV_READABLE, onCompletionsReady);
  uv_signal_init(&loop_, &sigterm_);
  sigterm_.data = this;
  uv_signal_start(&sigterm_, onSignal, SIGTERM);
  uv_signal_init(&loop_, &sigint_);
  sigint_.data = this;
  uv_signal_start(&sigint_, onSignal, SIGINT);
  uv_timer_init(&loop_, &drain_timer_);
  drain_timer_.data = this;
  uv_timer_init(&loop_, &drain_deadline_);
  drain_deadline_.data = this;
  return true;
}

std::string Server::run() {
  uv_run(&loop_, UV_RUN_DEFAULT);
  closeTasks();
  if (!abandoned_.empty()) {
    return abandoned_;  // the loop was stopped with calls still running
  }
  // Drained: from here on SIGTERM and SIGINT are ignored (libuv restores
  // the default action when their handles close).
  uv_close(reinterpret_cast<uv_handle_t*>(&sigterm_), nullptr);
  uv_close(reinterpret_cast<uv_handle_t*>(&sigint_), nullptr);
  uv_run(&loop_, UV_RUN_DEFAULT);
  std::signal(SIGTERM, SIG_IGN);
  std::signal(SIGINT, SIG_IGN);
  return "";
}

void Server::onConnection(uv_stream_t* listener, int status) {
  Server* server = static_cast<Server*>(listener->data);
  if (status < 0 || server->draining_) {
    return;
  }
  Connection* conn = new Connection(server, server->options_.max_body);
  uv_tcp_init(&server->loop_, &conn->handle);
  conn->handle.data = conn;
  if (uv_accept(listener, reinterpret_cast<uv_stream_t*>(&conn->handle)) < 0) {
    conn->closing = true;
    conn->timer_closed = true;  // never initialized
    uv_close(reinterpret_cast<uv_handle_t*>(&conn->handle), onClosed);
    return;
  }
  uv_tcp_nodelay(&conn->handle, 1);
  uv_timer_init(&server->loop_, &conn->timer);
  conn->timer.data = conn;
  bool over = server->connections_.size() >= server->options_.max_connections;
  server->connections_.insert(conn);
  uv_read_start(reinterpret_cast<uv_stream_t*>(&conn->handle), onAlloc, onRead);
  if (over) {
    ConnectionHooks::answerAndClose(
        conn, 503,
        "too many connections (--max-connections=" +
            std::to_string(server->options_.max_connections) + ")");
    return;
  }
  ConnectionHooks::updateTimer(conn);
}

void Server::forgetConnection(Connection* conn) {
  connections_.erase(conn);
  checkDrained();
}

void Server::answer(Connection* conn, uint64_t seq, int code,
                    const char* content_type, const std::string& body,
                    const std::string& extra_headers) {
  metrics_.countResponse(code);
  if (conn->closing) {
    return;
  }
  Slot& slot = conn->slots[seq - conn->first_seq];
  bool close = slot.close || draining_;
  slot.data = formatResponse(code, content_type, body, close, extra_headers);
  slot.close = close;
  slot.ready = true;
  flushConnection(conn);
}

void Server::handleRequest(Connection* conn) {
  uint64_t seq = conn->next_seq++;
  Slot slot;
  slot.close = !conn->request.keepAlive();
  conn->slots.push_back(std::move(slot));

  Route route = routeRequest(conn->request.url());
  const std::string& path = route.path;
  http_method method = conn->request.method();
  if (conn->request.tooLarge()) {
    conn->slots.back().close = true;  // the body may be cut short
    answer(conn, seq, 413, kJson,
           errorBody("the request body exceeds --max-body=" +
                     std::to_string(options_.max_body) + " bytes"));
    return;
  }
  if (route.kind == Route::kHealth) {
    if (method != HTTP_GET) {
      answer(conn, seq, 405, kJson, errorBody("use GET /healthz"));
    } else if (draining_) {
      answer(conn, seq, 503, kJson, "{\"status\": \"draining\"}\n");
    } else {
      answer(conn, seq, 200, kJson, "{\"status\": \"ok\"}\n");
    }
    return;
  }
  if (route.kind == Route::kMetrics) {
    if (method != HTTP_GET) {
      answer(conn, seq, 405, kJson, errorBody("use GET /metrics"));
      return;
    }
    // Counted before rendering, so the answer includes itself.
    std::string text = metrics_.render(in_flight_, options_.max_in_flight);
    std::map<std::pair<std::string, std::string>, size_t> pending;
    for (const auto& [name, model] : registry_->models()) {
      pending[{name, model->version}] = model->in_flight;
    }
    text += metrics_.renderModels(pending);
    answer(conn, seq, 200, kPrometheus, text);
    return;
  }
  if (route.kind != Route::kInvoke && route.kind != Route::kNotFound) {
    handleOip(conn, seq, route);
    return;
  }
  if (route.kind != Route::kInvoke) {
    answer(conn, seq, 404, kJson,
           errorBody("no such endpoint: " + path +
                     " (GET /v2, /v2/health/live, /v2/health/ready, "
                     "/v2/models/<name>[/versions/<v>][/ready], POST "
                     "/v2/models/<name>[/versions/<v>]/infer, GET /metrics; "
                     "the old POST /v1/models/<name>:invoke/<function>, GET "
                     "/healthz)"));
    return;
  }
  if (method != HTTP_POST) {
    answer(conn, seq, 405, kJson,
           errorBody("use POST /v1/models/<name>:invoke/<function>"));
    return;
  }
  const std::string& model_name = route.model;
  const std::string& function_name = route.function;
  const Model* model = registry_->findModel(model_name);
  if (!model) {
    answer(conn, seq, 400, kJson,
           errorBody("unknown model '" + model_name +
                     "'; models: " + registry_->modelNames()));
    return;
  }
  auto function_it = model->functions.find(function_name);
  if (function_it == model->functions.end()) {
    answer(conn, seq, 400, kJson,
           errorBody("model '" + model_name + "' has no function '" +
                     function_name +
                     "'; functions: " + ModelRegistry::functionNames(*model)));
    return;
  }
  if (draining_) {
    answer(conn, seq, 503, kJson, errorBody("the server is shutting down"));
    return;
  }
  if (in_flight_ >= options_.max_in_flight) {
    answer(conn, seq, 503, kJson,
           errorBody("too many calls in flight (--max-inflight=" +
                     std::to_string(options_.max_in_flight) + ")"));
    return;
  }
  invoke(conn, seq, function_it->second.get());
}

Function* Server::resolveOip(const Route& route, const Model** model, int* code,
                             std::string* error) {
  // The specification's errors are 400s ("typically 400"), an unknown
  // model or version too.
  *code = 400;
  std::string function_name;
  const Model* found = registry_->findModel(route.model);
  if (!found) {
    // "m.f": function f of model m.
    size_t dot = route.model.rfind('.');
    if (dot != std::string::npos && dot > 0) {
      found = registry_->findModel(route.model.substr(0, dot));
      function_name = route.model.substr(dot + 1);
    }
    if (!found || !found->functions.count(function_name)) {
      auto status = statuses_.find(route.model);
      if (status != statuses_.end()) {
        *error = "model '" + route.model +
                 "' is not ready: " + status->second.reason;
        return nullptr;
      }
      *error = "unknown model '" + route.model +
               "'; models: " + registry_->modelNames();
      return nullptr;
    }
  }
  if (!route.version.empty() && route.version != found->version) {
    *error = found->version.empty()
                 ? "model '" + found->name +
                       "' has no versions (it was given by --model); ask "
                       "for /v2/models/" +
                       route.model
                 : "model '" + found->name + "' has no version '" +
                       route.version + "'; its version: " + found->version;
    return nullptr;
  }
  if (function_name.empty()) {
    auto main = found->functions.find("main");
    if (main != found->functions.end()) {
      function_name = "main";
    } else if (found->functions.size() == 1) {
      function_name = found->functions.begin()->first;
    } else {
      *error = "model '" + found->name +
               "' has several functions and none is 'main'; name one as "
               "'" +
               found->name +
               ".<function>': " + ModelRegistry::functionNames(*found);
      return nullptr;
    }
  }
  *model = found;
  return found->functions.at(function_name).get();
}

void Server::handleOip(Connection* conn, uint64_t seq, const Route& route) {
  http_method method = conn->request.method();
  bool post = route.kind == Route::kInfer ||
              route.kind == Route::kRepositoryIndex ||
              route.kind == Route::kRepositoryLoad ||
              route.kind == Route::kRepositoryUnload;
  if (method != (post ? HTTP_POST : HTTP_GET)) {
    answer(conn, seq, 405, kJson,
           errorBody(std::string("use ") + (post ? "POST " : "GET ") +
                     route.path));
    return;
  }
  switch (route.kind) {
    case Route::kLive:
      answer(conn, seq, 200, kJson, "{\"live\": true}\n");
      return;
    case Route::kReady: {
      // Ready when every model is (a model unloaded on request does not
      // count) and until a drain begins: then 503, so that a Kubernetes
      // readiness probe takes the replica out of its service.
      if (!ready()) {
        answer(conn, seq, 503, kJson, "{\"ready\": false}\n");
      } else {
        answer(conn, seq, 200, kJson, "{\"ready\": true}\n");
      }
      return;
    }
    case Route::kServerMetadata:
      answer(conn, seq, 200, kJson, oipServerMetadata());
      return;
    default: break;
  }
  if (route.kind == Route::kRepositoryIndex ||
      route.kind == Route::kRepositoryLoad ||
      route.kind == Route::kRepositoryUnload) {
    handleRepository(conn, seq, route);
    return;
  }
  const Model* model = nullptr;
  int code = 0;
  std::string error;
  Function* function = resolveOip(route, &model, &code, &error);
  if (!function) {
    auto status = statuses_.find(route.model);
    if (route.kind == Route::kModelReady && status != statuses_.end() &&
        !status->second.ready) {
      // Known, not ready: the model ready object, with 503 for probes.
      std::string body = "{\"name\": ";
      appendJsonString(&body, route.model);
      body += ", \"ready\": false}\n";
      answer(conn, seq, 503, kJson, body);
      return;
    }
    answer(conn, seq, code, kJson, errorBody(error));
    return;
  }
  if (route.kind == Route::kModelReady) {
    std::string body = "{\"name\": ";
    appendJsonString(&body, route.model);
    body += draining_ ? ", \"ready\": false}\n" : ", \"ready\": true}\n";
    answer(conn, seq, draining_ ? 503 : 200, kJson, body);
    return;
  }
  if (route.kind == Route::kModelMetadata) {
    answer(conn, seq, 200, kJson,
           oipModelMetadata(route.model, *model, *function));
    return;
  }
  if (draining_) {
    answer(conn, seq, 503, kJson, errorBody("the server is shutting down"));
    return;
  }
  if (in_flight_ >= options_.max_in_flight) {
    answer(conn, seq, 503, kJson,
           errorBody("too many calls in flight (--max-inflight=" +
                     std::to_string(options_.max_in_flight) + ")"));
    return;
  }
  invoke(conn, seq, function, true, route.model, model);
}

bool Server::loadRepository(const std::string& dir, std::string* error) {
  repository_ = dir;
  std::vector<RepositoryModel> found;
  if (!scanRepository(dir, &found, error)) {
    return false;
  }
  for (const RepositoryModel& entry : found) {
    CompileJob* compiling = nullptr;
    std::string why = loadFromRepository(entry.name, &compiling);
    if (compiling) {
      std::fprintf(stderr, "strata-serve: model '%s': compiling %s\n",
                   entry.name.c_str(), entry.path.c_str());
    } else if (!why.empty()) {
      std::fprintf(stderr, "strata-serve: model '%s' is not served: %s\n",
                   entry.name.c_str(), why.c_str());
    }
  }
  return true;
}

std::string Server::loadFromRepository(const std::string& name,
                                       CompileJob** compiling) {
  RepositoryModel entry = findInRepository(repository_, name);
  if (!entry.exists && !statuses_.count(name)) {
    return entry.error;  // a name the repository never had
  }
  ModelStatus& status = statuses_[name];
  auto running = compiles_.find(name);
  if (running != compiles_.end() && !running->second->cancel.load()) {
    // Compiling already: the load ends with that compile.
    if (compiling) {
      *compiling = running->second.get();
    }
    return "";
  }
  status.unloaded = false;
  if (entry.error.empty() && entry.onnx) {
    if (options_.compiler.empty() || running != compiles_.end()) {
      std::string why =
          running != compiles_.end()
              ? "the previous compile of " + entry.path +
                    " is being cancelled; load it again when it has ended"
              : entry.path + ": " + options_.compiler_absent;
      if (!registry_->findModel(name)) {
        status.version = entry.version;
        status.ready = false;
        status.reason = why;
      }
      return why;
    }
    // Compiled off the loop; the version served (if any) serves until the
    // new one is loaded.
    auto job = std::make_unique<CompileJob>();
    job->server = this;
    job->name = name;
    job->version = entry.version;
    job->config = entry.config;
    job->request.compiler = options_.compiler;
    job->request.onnx_path = entry.path;
    job->request.cache_dir = options_.compile_cache;
    job->request.label = name;
    job->request.timeout_ms = options_.compile_timeout_ms;
    job->work.data = job.get();
    if (!registry_->findModel(name)) {
      status.version = entry.version;
      status.ready = false;
      status.reason = "compiling " + entry.path;
    }
    CompileJob* started = job.get();
    int rc =
        uv_queue_work(&loop_, &started->work, onCompileWork, onCompileDone);
    if (rc < 0) {
      std::string why =
          entry.path + ": cannot start its compile: " + uv_strerror(rc);
      if (!registry_->findModel(name)) {
        status.reason = why;
      }
      return why;
    }
    compiles_[name] = std::move(job);
    if (compiling) {
      *compiling = started;
    }
    return "";
  }
  status.version = entry.version;
  if (entry.error.empty() && registry_->findModel(name)) {
    // A reload: the running version stops taking requests first.
    status.ready = false;
    retireModel(name);
  }
  std::string why = entry.error;
  if (why.empty()) {
    strata_status_t load_status =
        registry_->load(name, entry.path, entry.version, entry.config);
    if (load_status) {
      why = entry.path + ": " + consumeStatusText(load_status);
    }
  }
  status.ready = why.empty();
  status.reason = why;
  return why;
}

void Server::onCompileWork(uv_work_t* work) {
  CompileJob* job = static_cast<CompileJob*>(work->data);
  job->result = compileModel(job->request, job->cancel);
}

void Server::onCompileDone(uv_work_t* work, int) {
  CompileJob* job = static_cast<CompileJob*>(work->data);
  job->server->finishCompile(job);
}

void Server::finishCompile(CompileJob* job) {
  std::unique_ptr<CompileJob> owned = std::move(compiles_[job->name]);
  compiles_.erase(job->name);
  ModelStatus& status = statuses_[job->name];
  std::string why = job->result.error;
  int code = 400;
  if (draining_) {
    why = "the server is shutting down";
    code = 503;
  } else if (job->cancel.load() && status.unloaded) {
    why = "unloaded while compiling";
  } else if (why.empty()) {
    if (registry_->findModel(job->name)) {
      retireModel(job->name);  // the version served until now
    }
    strata_status_t load_status = registry_->load(
        job->name, job->result.vmfb_path, job->version, job->config);
    if (load_status) {
      why = job->result.vmfb_path + " (compiled from " +
            job->request.onnx_path + "): " + consumeStatusText(load_status);
    }
  }
  if (why.empty()) {
    status.version = job->version;
    status.ready = true;
    status.unloaded = false;
    status.reason.clear();
    std::fprintf(stderr, "strata-serve: model '%s' version %s: %s %s\n",
                 job->name.c_str(), job->version.c_str(),
                 job->result.cached ? "loaded the cached compile" : "compiled",
                 job->result.vmfb_path.c_str());
  } else {
    if (!registry_->findModel(job->name) && !status.unloaded) {
      status.version = job->version;
      status.ready = false;
      status.reason = why;
    }
    std::fprintf(stderr, "strata-serve: model '%s' is not served: %s\n",
                 job->name.c_str(), why.c_str());
  }
  for (const CompileJob::Waiter& waiter : job->waiters) {
    if (why.empty()) {
      answerDeferred(waiter.conn, waiter.seq, 200, "{}\n");
    } else {
      answerDeferred(waiter.conn, waiter.seq, code,
                     errorBody("failed to load '" + job->name + "': " + why));
    }
  }
  checkDrained();
}

void Server::answerDeferred(Connection* conn, uint64_t seq, int code,
                            const std::string& body) {
  --conn->calls_pending;
  answer(conn, seq, code, kJson, body);
  if (conn->handle_closed) {
    maybeFree(conn);
  } else if (!conn->closing) {
    ConnectionHooks::maybeResume(conn);
    if (!conn->closing) {
      ConnectionHooks::updateTimer(conn);
    }
  }
}

void Server::handleRepository(Connection* conn, uint64_t seq,
                              const Route& route) {
  if (route.kind == Route::kRepositoryIndex) {
    // Every model of the repository on disk, and the ones given by
    // --model: [{"name", "version", "state", "reason"}].
    std::vector<RepositoryModel> found;
    std::string error;
    if (!repository_.empty() && !scanRepository(repository_, &found, &error)) {
      answer(conn, seq, 500, kJson, errorBody(error));
      return;
    }
    std::map<std::string, std::pair<std::string, std::string>> rows;
    for (const RepositoryModel& entry : found) {
      rows[entry.name] = {entry.version, "UNAVAILABLE"};
    }
    std::string body = "[";
    for (const auto& [name, model] : registry_->models()) {
      rows[name] = {model->version, "READY"};
    }
    bool first = true;
    for (const auto& [name, row] : rows) {
      body += first ? "" : ", ";
      first = false;
      body += "{\"name\": ";
      appendJsonString(&body, name);
      auto status = statuses_.find(name);
      std::string version = row.first;
      std::string reason;
      if (row.second != "READY") {
        reason =
            status != statuses_.end() ? status->second.reason : "not loaded";
        if (status != statuses_.end() && !status->second.version.empty()) {
          version = status->second.version;
        }
      }
      if (!version.empty()) {
        body += ", \"version\": ";
        appendJsonString(&body, version);
      }
      body += ", \"state\": \"" + row.second + "\"";
      if (!reason.empty()) {
        body += ", \"reason\": ";
        appendJsonString(&body, reason);
      }
      body += "}";
    }
    body += "]\n";
    answer(conn, seq, 200, kJson, body);
    return;
  }
  if (repository_.empty()) {
    answer(conn, seq, 400, kJson,
           errorBody("the server has no model repository "
                     "(--model-repository) to load from or unload to"));
    return;
  }
  if (draining_) {
    answer(conn, seq, 503, kJson, errorBody("the server is shutting down"));
    return;
  }
  if (route.kind == Route::kRepositoryLoad) {
    // Loaded on the HTTP loop: the loop waits for the module to be read
    // and verified (milliseconds for a small model). A model.onnx is
    // compiled off the loop, and answered when its compile ends.
    CompileJob* compiling = nullptr;
    std::string why = loadFromRepository(route.model, &compiling);
    if (compiling) {
      compiling->waiters.push_back({conn, seq});
      ++conn->calls_pending;  // keeps the connection until it is answered
      ConnectionHooks::updateTimer(conn);
      return;
    }
    if (!why.empty()) {
      answer(conn, seq, 400, kJson,
             errorBody("failed to load '" + route.model + "': " + why));
      return;
    }
    answer(conn, seq, 200, kJson, "{}\n");
    return;
  }
  // Unload: new requests are refused at once; the model's queued and
  // running calls are answered, then it is freed. A compile of it running
  // is cancelled.
  auto compile = compiles_.find(route.model);
  if (compile != compiles_.end()) {
    compile->second->cancel = true;
  }
  const Model* model = registry_->findModel(route.model);
  if (!model && compile != compiles_.end()) {
    ModelStatus& status = statuses_[route.model];
    status.ready = false;
    status.unloaded = true;
    status.reason = "unloaded";
    answer(conn, seq, 200, kJson, "{}\n");
    return;
  }
  if (!model) {
    answer(conn, seq, 400, kJson,
           errorBody("model '" + route.model + "' is not loaded"));
    return;
  }
  ModelStatus& status = statuses_[route.model];
  status.version = model->version;
  status.ready = false;
  status.unloaded = true;
  status.reason = "unloaded";
  retireModel(route.model);
  answer(conn, seq, 200, kJson, "{}\n");
}

void Server::invoke(Connection* conn, uint64_t seq, Function* function,
                    bool oip, const std::string& model_name,
                    const Model* model) {
  if (oip) {
    size_t json_length = conn->request.inferenceHeaderLength();
    if (json_length == RequestParser::kBadLength) {
      answer(conn, seq, 400, kJson,
             errorBody("Inference-Header-Content-Length must be a byte "
                       "count, got '" +
                       conn->request.headerLengthText() + "'"));
      return;
    }
    if (json_length == RequestParser::kNoLength) {
      json_length = conn->request.body().size();
    }
    submitOip(conn, seq, nullptr, function, model_name, model,
              conn->request.body(), json_length);
    conn->request.body().clear();
    return;
  }
  strata_runtime_call_t* call = nullptr;
  size_t instance = function->owner->pickInstance();
  strata_status_t status = registry_->takeCall(function, &call, instance);
  if (status) {
    answer(conn, seq, 500, kJson, errorBody(consumeStatusText(status)));
    return;
  }
  std::string error;
  if (!pushInputs(*function, conn->request.body(), call, &error)) {
    ModelRegistry::returnCall(function, call, instance);
    answer(conn, seq, 400, kJson, errorBody(error));
    return;
  }
  conn->request.body().clear();
  PendingCall* pending = new PendingCall;
  pending->server = this;
  pending->conn = conn;
  pending->seq = seq;
  pending->function = function;
  pending->instance = instance;
  submit(pending, call);
}

void Server::submitOip(Connection* conn, uint64_t seq, InferDone done,
                       Function* function, const std::string& model_name,
                       const Model* model, const std::string& body,
                       size_t json_length) {
  auto fail = [&](int code, const std::string& message) {
    if (model) {
      metrics_.countModelFailure(model->name, model->version);
    }
    if (done) {
      InferAnswer failure;
      failure.code = code;
      failure.error = message;
      done(std::move(failure));
    } else {
      answer(conn, seq, code, kJson, errorBody(message));
    }
  };
  OipRequest oip_request;
  std::vector<OipTensor> inputs;
  std::string error;
  if (!oipDecodeInfer(*function, body, json_length, &oip_request, &inputs,
                      &error)) {
    fail(400, error);
    return;
  }
  PendingCall* pending = new PendingCall;
  pending->server = this;
  pending->conn = conn;
  pending->seq = seq;
  pending->function = function;
  pending->oip = true;
  pending->model_name = model_name;
  pending->model = model;
  pending->oip_request = std::move(oip_request);
  pending->done = std::move(done);
  const ModelConfig& config = model->config;
  int64_t rows = batchRows(inputs);
  if (config.dynamic_batching && rows >= 0) {
    if (static_cast<uint64_t>(rows) > config.max_batch_size) {
      done = std::move(pending->done);
      delete pending;
      fail(400, "the request's batch of " + std::to_string(rows) +
                    " rows exceeds max_batch_size " +
                    std::to_string(config.max_batch_size) + " of model '" +
                    model->name + "'");
      return;
    }
    pending->inputs = std::move(inputs);
    pending->rows = rows;
    pending->start_ns = uv_hrtime();
    track(pending);
    enqueue(pending);
    return;
  }
  strata_runtime_call_t* call = nullptr;
  pending->instance = function->owner->pickInstance();
  strata_status_t status =
      registry_->takeCall(function, &call, pending->instance);
  if (!status && !oipPushInputs(*function, inputs, call, &error)) {
    ModelRegistry::returnCall(function, call, pending->instance);
    done = std::move(pending->done);
    delete pending;
    fail(400, error);
    return;
  }
  if (status) {
    done = std::move(pending->done);
    delete pending;
    fail(500, consumeStatusText(status));
    return;
  }
  submit(pending, call);
}

void Server::track(PendingCall* pending) {
  ++in_flight_;
  if (pending->conn) {
    ++pending->conn->calls_pending;
  }
  ++pending->function->owner->in_flight;
  pending_.insert(pending);
}

void Server::submit(PendingCall* pending, strata_runtime_call_t* call) {
  Function* function = pending->function;
  ModelInstance* instance = function->owner->instances[pending->instance].get();
  pending->call = call;
  ++instance->running;
  pending->start_ns = uv_hrtime();
  pending->launch_ns = pending->start_ns;
  track(pending);
  uint64_t timeout_ms = function->owner->config.request_timeout_ms
                            ? function->owner->config.request_timeout_ms
                            : options_.request_timeout_ms;
  strata_runtime_call_set_deadline(
      call, timeout_ms ? strata_hal_deadline_after_ns(
                             static_cast<int64_t>(timeout_ms) * 1000000)
                       : 0);
  metrics_.countExecution(function->owner->name, function->owner->version,
                          pending->instance);
  strata_status_t status = strata_runtime_call_invoke_async(
      call, instance->loop, nullptr, onCallDone, pending);
  if (status) {
    // Not submitted: answered through the completion queue like any call.
    bool bad_input =
        strata_status_code(status) == STRATA_STATUS_INVALID_ARGUMENT;
    pending->code = bad_input ? 400 : 500;
    pending->error = consumeStatusText(status);
    pending->body = errorBody(pending->error);
    postCompletion(pending);
  }
}

void Server::enqueue(PendingCall* pending) {
  std::unique_ptr<BatchQueue>& slot = queues_[pending->function];
  if (!slot) {
    slot = std::make_unique<BatchQueue>();
    slot->server = this;
    slot->function = pending->function;
    uv_timer_init(&loop_, &slot->timer);
    slot->timer.data = slot.get();
  }
  BatchQueue* queue = slot.get();
  queue->waiting.push_back(pending);
  const ModelConfig& config = pending->function->owner->config;
  // The rows waiting that would batch with this request.
  uint64_t rows = 0;
  for (PendingCall* waiting : queue->waiting) {
    if (sameSignature(waiting, pending)) {
      rows += static_cast<uint64_t>(waiting->rows);
    }
  }
  size_t largest_preferred = 0;
  for (size_t size : config.preferred_batch_sizes) {
    largest_preferred = std::max(largest_preferred, size);
  }
  if (rows >= config.max_batch_size ||
      (largest_preferred && rows >= largest_preferred) ||
      config.max_queue_delay_us == 0 || draining_) {
    flushQueue(queue);
    return;
  }
  if (!queue->armed) {
    queue->armed = true;
    // libuv's timers count milliseconds: the delay is rounded up.
    uv_timer_start(&queue->timer, onQueueDelay,
                   (config.max_queue_delay_us + 999) / 1000, 0);
  }
}

void Server::retireModel(const std::string& name) {
  // Its batch queues go first: what waits is sent at once (to this
  // version, which lives until its last call is answered), and their
  // timers close, so that none fires after the model is freed.
  if (const Model* model = registry_->findModel(name)) {
    for (const auto& [function_name, function] : model->functions) {
      auto queue = queues_.find(function.get());
      if (queue == queues_.end()) {
        continue;
      }
      queue->second->flush_all = true;
      flushQueue(queue->second.get());
      uv_close(reinterpret_cast<uv_handle_t*>(&queue->second->timer),
               [](uv_handle_t* handle) {
                 delete static_cast<BatchQueue*>(handle->data);
               });
      queue->second.release();
      queues_.erase(queue);
    }
  }
  registry_->retire(name);
}

void Server::onQueueDelay(uv_timer_t* timer) {
  BatchQueue* queue = static_cast<BatchQueue*>(timer->data);
  queue->server->flushQueue(queue);
}

void Server::flushQueue(BatchQueue* queue) {
  if (queue->armed) {
    uv_timer_stop(&queue->timer);
    queue->armed = false;
  }
  const ModelConfig& config = queue->function->owner->config;
  // One batch runs at a time per model instance: with every instance busy,
  // the requests that arrive gather into the next batch, which goes when
  // one ends (see drainCompletions). A drain or an unload sends
  // everything at once.
  // Batches in arrival order: the first waiting request and every later
  // one of its signature that still fits under max_batch_size.
  while (!queue->waiting.empty() &&
         (queue->executing < config.instance_count || queue->flush_all)) {
    std::vector<PendingCall*> batch;
    uint64_t rows = 0;
    PendingCall* first = queue->waiting.front();
    for (auto it = queue->waiting.begin(); it != queue->waiting.end();) {
      PendingCall* candidate = *it;
      if (sameSignature(candidate, first) &&
          rows + static_cast<uint64_t>(candidate->rows) <=
              config.max_batch_size) {
        rows += static_cast<uint64_t>(candidate->rows);
        batch.push_back(candidate);
        it = queue->waiting.erase(it);
      } else {
        ++it;
      }
    }
    if (launch(std::move(batch))) {
      ++queue->executing;
    }
  }
}

bool Server::launch(std::vector<PendingCall*> members) {
  PendingCall* leader = members.front();
  Function* function = leader->function;
  uint64_t now = uv_hrtime();
  for (PendingCall* member : members) {
    member->launch_ns = now;
  }
  // The inputs, concatenated along dimension 0 (row-major: the bytes of
  // each request's rows follow the previous request's).
  std::vector<OipTensor> inputs;
  if (members.size() == 1) {
    inputs = std::move(leader->inputs);
  } else {
    inputs.resize(leader->inputs.size());
    for (size_t i = 0; i < inputs.size(); ++i) {
      OipTensor& input = inputs[i];
      input.kind = leader->inputs[i].kind;
      input.type = leader->inputs[i].type;
      input.shape = leader->inputs[i].shape;
      input.shape[0] = 0;
      size_t bytes = 0;
      for (PendingCall* member : members) {
        bytes += member->inputs[i].bytes.size();
      }
      input.bytes.reserve(bytes);
      for (PendingCall* member : members) {
        input.shape[0] += member->inputs[i].shape[0];
        input.bytes.insert(input.bytes.end(), member->inputs[i].bytes.begin(),
                           member->inputs[i].bytes.end());
      }
    }
    // Each member keeps its inputs until the batch succeeds: when it fails
    // with an error its data may have caused, each runs again alone.
  }
  std::string error;
  strata_runtime_call_t* call = nullptr;
  // A free instance of the model (flushQueue launches no more batches than
  // the model has instances).
  size_t instance = function->owner->pickInstance();
  strata_status_t status = registry_->takeCall(function, &call, instance);
  if (status) {
    error = consumeStatusText(status);
  } else if (!oipPushInputs(*function, inputs, call, &error)) {
    ModelRegistry::returnCall(function, call, instance);
    call = nullptr;
  }
  if (call) {
    ModelInstance* runner = function->owner->instances[instance].get();
    leader->call = call;
    leader->instance = instance;
    leader->members = members;
    uint64_t timeout_ms = function->owner->config.request_timeout_ms
                              ? function->owner->config.request_timeout_ms
                              : options_.request_timeout_ms;
    strata_runtime_call_set_deadline(
        call, timeout_ms ? strata_hal_deadline_after_ns(
                               static_cast<int64_t>(timeout_ms) * 1000000)
                         : 0);
    metrics_.countExecution(function->owner->name, function->owner->version,
                            instance);
    status = strata_runtime_call_invoke_async(call, runner->loop, nullptr,
                                              onCallDone, leader);
    if (!status) {
      ++runner->running;
      return true;
    }
    error = consumeStatusText(status);
    leader->call = nullptr;
    leader->members.clear();
    ModelRegistry::returnCall(function, call, instance);
  }
  // Not submitted: every member fails with the error.
  for (PendingCall* member : members) {
    member->code = 500;
    member->error = error;
    member->body = errorBody(error);
    postCompletion(member);
  }
  return false;
}

bool Server::post(std::function<void()> task) {
  bool wake;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (tasks_closed_) {
      return false;
    }
    wake = completed_.empty() && tasks_.empty();
    tasks_.push_back(std::move(task));
  }
  if (wake) {
    uint64_t one = 1;
    while (write(event_fd_, &one, sizeof(one)) < 0 && errno == EINTR) {
    }
  }
  return true;
}

void Server::closeTasks() {
  std::vector<std::function<void()>> tasks;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    tasks_closed_ = true;
    tasks.swap(tasks_);
  }
  // Posted before the loop stopped: they run now and see it stopped.
  for (std::function<void()>& task : tasks) {
    task();
  }
}

bool Server::ready() const {
  if (draining_) {
    return false;
  }
  for (const auto& [name, status] : statuses_) {
    if (!status.ready && !status.unloaded) {
      return false;
    }
  }
  return true;
}

Function* Server::findModel(const std::string& name, const std::string& version,
                            const Model** model, std::string* error) {
  Route route;
  route.model = name;
  route.version = version;
  int code = 0;
  return resolveOip(route, model, &code, error);
}

void Server::inferAsync(const std::string& model_name,
                        const std::string& version, const std::string& body,
                        size_t json_length, InferDone done) {
  const Model* model = nullptr;
  std::string error;
  Function* function = findModel(model_name, version, &model, &error);
  int code = 400;
  if (function && draining_) {
    code = 503;
    error = "the server is shutting down";
    function = nullptr;
  } else if (function && in_flight_ >= options_.max_in_flight) {
    code = 503;
    error = "too many calls in flight (--max-inflight=" +
            std::to_string(options_.max_in_flight) + ")";
    function = nullptr;
  }
  if (!function) {
    InferAnswer failure;
    failure.code = code;
    failure.error = error;
    done(std::move(failure));
    return;
  }
  submitOip(nullptr, 0, std::move(done), function, model_name, model, body,
            json_length);
}

void Server::callAnswered(Function* function) {
  Model* model = function->owner;
  if (--model->in_flight == 0) {
    registry_->releaseRetired();
  }
}

namespace {

// Rows [begin, begin + rows) of result, whose dimension 0 is the batch's.
OipTensor sliceRows(const OipTensor& result, int64_t begin, int64_t rows) {
  OipTensor out;
  out.kind = result.kind;
  out.type = result.type;
  out.shape = result.shape;
  out.shape[0] = rows;
  size_t row_bytes = result.shape[0] ? result.bytes.size() /
                                           static_cast<size_t>(result.shape[0])
                                     : 0;
  auto start =
      result.bytes.begin() + static_cast<std::ptrdiff_t>(row_bytes * begin);
  out.bytes.assign(start, start + static_cast<std::ptrdiff_t>(
                                      row_bytes * static_cast<size_t>(rows)));
  return out;
}

}  // namespace

namespace {

// Whether a call failing with code may have failed because of its inputs'
// values (a check or assertion, an index out of range, memory a large
// batch exhausts), so that its batch's requests, each run alone, may
// fare differently. A timeout, a lost device or a function the module
// lacks fails whatever the data: those are not run again.
bool canDependOnData(strata_status_code_t code) {
  switch (code) {
    case STRATA_STATUS_CANCELLED:
    case STRATA_STATUS_DEADLINE_EXCEEDED:
    case STRATA_STATUS_NOT_FOUND:
    case STRATA_STATUS_ALREADY_EXISTS:
    case STRATA_STATUS_PERMISSION_DENIED:
    case STRATA_STATUS_UNIMPLEMENTED:
    case STRATA_STATUS_UNAVAILABLE: return false;
    default: return true;
  }
}

}  // namespace

// Compute thread: a batch's results are split per request, and each
// answer is encoded here, off the HTTP loop.
void Server::onCallDone(void* user, strata_runtime_call_t* call,
                        strata_status_t status) {
  PendingCall* pending = static_cast<PendingCall*>(user);
  uint64_t now = uv_hrtime();
  if (!pending->members.empty() && pending->members.size() > 1 && status &&
      canDependOnData(strata_status_code(status))) {
    // Which request's data failed the batch cannot be told from one call:
    // each runs again alone (the HTTP loop resubmits them).
    strata_status_free(status);
    std::vector<PendingCall*> members = pending->members;
    for (PendingCall* member : members) {
      member->rerun = true;
    }
    Server* server = pending->server;
    for (PendingCall* member : members) {
      server->postCompletion(member);
    }
    return;
  }
  if (!pending->members.empty()) {
    std::vector<PendingCall*> members = pending->members;
    int code = 200;
    std::string error;
    std::vector<OipTensor> results;
    if (status) {
      strata_status_code_t status_code = strata_status_code(status);
      code = status_code == STRATA_STATUS_DEADLINE_EXCEEDED ? 504
             : status_code == STRATA_STATUS_UNAVAILABLE     ? 503
                                                            : 500;
      // A lone request's own error, or one that does not depend on the
      // data (canDependOnData): each member gets it.
      error = consumeStatusText(status);
      if (members.size() > 1) {
        error = "a batch of " + std::to_string(members.size()) +
                " requests failed: " + error;
      }
    } else if (!oipReadResults(*pending->function, call, &results, &error)) {
      code = 500;
    }
    int64_t total = 0;
    for (PendingCall* member : members) {
      total += member->rows;
    }
    for (size_t r = 0; code == 200 && r < results.size(); ++r) {
      if (results[r].shape.empty() || results[r].shape[0] != total) {
        code = 500;
        error = "output '" + oipOutputName(*pending->function, r) +
                "' of a batch of " + std::to_string(total) +
                " rows does not have " + std::to_string(total) +
                " rows along dimension 0; it cannot be split per request";
      }
    }
    int64_t begin = 0;
    for (PendingCall* member : members) {
      member->done_ns = now;
      member->ran = true;
      if (code != 200) {
        member->code = code;
        member->error = error;
        member->body = errorBody(error);
      } else {
        member->inputs.clear();
        std::vector<OipTensor> mine;
        mine.reserve(results.size());
        for (const OipTensor& result : results) {
          mine.push_back(sliceRows(result, begin, member->rows));
        }
        member->code = 200;
        if (member->done) {
          member->results = std::move(mine);
        } else {
          oipEncodeInfer(member->model_name, *member->model, *member->function,
                         member->oip_request, mine, &member->body,
                         &member->json_length);
        }
      }
      begin += member->rows;
    }
    // Once posted, a member may be answered and freed by the HTTP loop at
    // once, the leader too: nothing of theirs is read after.
    Server* server = pending->server;
    for (PendingCall* member : members) {
      server->postCompletion(member);
    }
    return;
  }
  pending->done_ns = now;
  pending->ran = true;
  std::string error;
  if (status) {
    // Past --request-timeout: 504; a device lost at an earlier deadline
    // (its model cannot run until restarted): 503.
    strata_status_code_t code = strata_status_code(status);
    pending->code = code == STRATA_STATUS_DEADLINE_EXCEEDED ? 504
                    : code == STRATA_STATUS_UNAVAILABLE     ? 503
                                                            : 500;
    pending->error = consumeStatusText(status);
    pending->body = errorBody(pending->error);
  } else if (pending->oip) {
    std::vector<OipTensor> results;
    if (!oipReadResults(*pending->function, call, &results, &error)) {
      pending->code = 500;
      pending->error = error;
      pending->body = errorBody(error);
    } else if (pending->done) {
      pending->code = 200;
      pending->results = std::move(results);
    } else {
      oipEncodeInfer(pending->model_name, *pending->model, *pending->function,
                     pending->oip_request, results, &pending->body,
                     &pending->json_length);
      pending->code = 200;
    }
  } else if (!encodeOutputs(call, &pending->body, &error)) {
    pending->code = 500;
    pending->body = errorBody(error);
  } else {
    pending->code = 200;
  }
  pending->server->postCompletion(pending);
}

void Server::postCompletion(PendingCall* pending) {
  bool wake;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    wake = completed_.empty();
    completed_.push_back(pending);
  }
  if (wake) {
    uint64_t one = 1;
    while (write(event_fd_, &one, sizeof(one)) < 0 && errno == EINTR) {
    }
  }
}

void Server::onCompletionsReady(uv_poll_t* poll, int, int) {
  static_cast<Server*>(poll->data)->drainCompletions();
}

void Server::drainCompletions() {
  uint64_t value;
  while (read(event_fd_, &value, sizeof(value)) < 0 && errno == EINTR) {
  }
  std::vector<PendingCall*> batch;
  std::vector<std::function<void()>> tasks;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    batch.swap(completed_);
    tasks.swap(tasks_);
  }
  for (std::function<void()>& task : tasks) {
    task();
  }
  uint64_t now = uv_hrtime();
  std::vector<BatchQueue*> finished_queues;
  std::vector<PendingCall*> reruns;
  for (PendingCall* pending : batch) {
    if (pending->rerun) {
      // Its batch failed: it is still in flight, and runs again alone.
      pending->rerun = false;
      if (pending->call) {
        ModelRegistry::returnCall(pending->function, pending->call,
                                  pending->instance);
        --pending->function->owner->instances[pending->instance]->running;
        pending->call = nullptr;
      }
      if (!pending->members.empty()) {
        auto queue = queues_.find(pending->function);
        if (queue != queues_.end() && queue->second->executing > 0) {
          --queue->second->executing;
          finished_queues.push_back(queue->second.get());
        }
        pending->members.clear();
      }
      reruns.push_back(pending);
      continue;
    }
    --in_flight_;
    pending_.erase(pending);
    metrics_.observeInvokeLatency(now - pending->start_ns);
    if (pending->oip) {
      const Model* model = pending->function->owner;
      metrics_.observeModel(
          model->name, model->version, pending->code == 200,
          now - pending->start_ns, pending->launch_ns - pending->start_ns,
          pending->done_ns - pending->launch_ns, pending->ran);
    }
    if (pending->call) {
      ModelRegistry::returnCall(pending->function, pending->call,
                                pending->instance);
      ModelInstance* instance =
          pending->function->owner->instances[pending->instance].get();
      --instance->running;
      if (pending->ran && pending->code == 503) {
        instance->lost = true;  // the model's other instances take its calls
      }
    }
    if (!pending->members.empty()) {
      // A batch ended (its leader is answered first): the next one goes.
      auto queue = queues_.find(pending->function);
      if (queue != queues_.end() && queue->second->executing > 0) {
        --queue->second->executing;
        finished_queues.push_back(queue->second.get());
      }
    }
    if (pending->done) {
      // A gRPC request: its outputs, named and in the order asked.
      InferAnswer result;
      result.code = pending->code;
      result.error = pending->error;
      result.model_version = pending->function->owner->version;
      if (pending->code == 200) {
        for (const OipRequest::Output& output : pending->oip_request.outputs) {
          result.names.push_back(
              oipOutputName(*pending->function, output.result));
          result.tensors.push_back(pending->results[output.result]);
        }
      }
      callAnswered(pending->function);
      pending->done(std::move(result));
      delete pending;
      continue;
    }
    callAnswered(pending->function);
    Connection* conn = pending->conn;
    --conn->calls_pending;
    if (pending->code == 200 && pending->json_length) {
      answer(conn, pending->seq, 200, kOctets, pending->body,
             "\r\nInference-Header-Content-Length: " +
                 std::to_string(pending->json_length));
    } else {
      answer(conn, pending->seq, pending->code, kJson, pending->body);
    }
    if (conn->handle_closed) {
      maybeFree(conn);
    } else if (!conn->closing) {
      ConnectionHooks::maybeResume(conn);
      if (!conn->closing) {
        ConnectionHooks::updateTimer(conn);
      }
    }
    delete pending;
  }
  // The requests of failed batches go first, each alone (as batches of
  // one, which are never run again): they count against their queue's
  // instances like any batch.
  for (PendingCall* pending : reruns) {
    Function* function = pending->function;
    metrics_.countRerun(function->owner->name, function->owner->version);
    if (launch({pending})) {
      auto queue = queues_.find(function);
      if (queue != queues_.end()) {
        ++queue->second->executing;
      }
    }
  }
  for (BatchQueue* queue : finished_queues) {
    flushQueue(queue);
  }
  checkDrained();
}

void Server::onSignal(uv_signal_t* signal, int) {
  static_cast<Server*>(signal->data)->beginDrain();
}

void Server::beginDrain() {
  if (draining_) {
    return;
  }
  draining_ = true;
  std::fprintf(stderr,
               "strata-serve: draining (%zu calls in flight), then exiting\n",
               in_flight_);
  uv_close(reinterpret_cast<uv_handle_t*>(&listener_), nullptr);
  uv_timer_start(&drain_timer_, onDrainTimeout, kDrainGraceMs, 0);
  if (options_.drain_timeout_ms) {
    uv_timer_start(&drain_deadline_, onDrainDeadline, options_.drain_timeout_ms,
                   0);
  }
  // Compiles are cancelled (their load requests are answered 503).
  for (auto& [name, job] : compiles_) {
    job->cancel = true;
  }
  // Requests waiting for a batch go now.
  for (auto& [function, queue] : queues_) {
    queue->flush_all = true;
    flushQueue(queue.get());
  }
  std::vector<Connection*> open(connections_.begin(), connections_.end());
  for (Connection* conn : open) {
    flushConnection(conn);  // closes the idle ones
  }
  checkDrained();
}

void Server::onDrainTimeout(uv_timer_t* timer) {
  Server* server = static_cast<Server*>(timer->data);
  std::vector<Connection*> open(server->connections_.begin(),
                                server->connections_.end());
  for (Connection* conn : open) {
    if (conn->calls_pending == 0) {
      closeConnection(conn);
    }
  }
}

void Server::onDrainDeadline(uv_timer_t* timer) {
  Server* server = static_cast<Server*>(timer->data);
  if (server->pending_.empty()) {
    return;  // only connections remain; they close on their own
  }
  // Name what is abandoned: each function and how many of its calls.
  std::map<std::string, size_t> counts;
  for (PendingCall* pending : server->pending_) {
    ++counts[pending->function->model + "." + pending->function->name];
  }
  std::string names;
  for (const auto& [name, count] : counts) {
    names += (names.empty() ? "" : ", ") + name +
             (count > 1 ? " (x" + std::to_string(count) + ")" : "");
  }
  server->abandoned_ = "the drain timed out after --drain-timeout=" +
                       std::to_string(server->options_.drain_timeout_ms) +
                       " ms; abandoned " +
                       std::to_string(server->pending_.size()) +
                       " call(s) still running: " + names;
  uv_stop(&server->loop_);
}

void Server::checkDrained() {
  if (!draining_ || stopped_ || in_flight_ != 0 || !connections_.empty() ||
      !compiles_.empty()) {
    return;
  }
  stopped_ = true;
  uv_close(reinterpret_cast<uv_handle_t*>(&completions_poll_), nullptr);
  uv_close(reinterpret_cast<uv_handle_t*>(&drain_timer_), nullptr);
  uv_close(reinterpret_cast<uv_handle_t*>(&drain_deadline_), nullptr);
  for (auto& [function, queue] : queues_) {
    uv_close(reinterpret_cast<uv_handle_t*>(&queue->timer),
             [](uv_handle_t* handle) {
               delete static_cast<BatchQueue*>(handle->data);
             });
    queue.release();
  }
  queues_.clear();
  // The signal handles stay open (unreferenced, so the loop can end) until
  // run() returns: closing them here would restore the default action, and
  // a second SIGTERM during the last writes would kill the process.
  uv_unref(reinterpret_cast<uv_handle_t*>(&sigterm_));
  uv_unref(reinterpret_cast<uv_handle_t*>(&sigint_));
}

}  // namespace strata::service
