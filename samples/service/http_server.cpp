// http_server.cpp - connections, request parsing (http_parser), routing,
// ordered answers and the drain on SIGTERM; see http_server.h.
#include "http_server.h"

#include <sys/eventfd.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstring>
#include <deque>
#include <strings.h>

#include <http_parser.h>

namespace strata::service {

namespace {

const char *reasonPhrase(int code) {
  switch (code) {
  case 200:
    return "OK";
  case 400:
    return "Bad Request";
  case 404:
    return "Not Found";
  case 405:
    return "Method Not Allowed";
  case 413:
    return "Payload Too Large";
  case 500:
    return "Internal Server Error";
  case 503:
    return "Service Unavailable";
  default:
    return "Unknown";
  }
}

constexpr const char *kJson = "application/json";
constexpr const char *kPrometheus = "text/plain; version=0.0.4; charset=utf-8";
constexpr const char *kInvokePrefix = "/v1/models/";
constexpr const char *kInvokeSeparator = ":invoke/";

// How long a drain waits for connections that are in the middle of sending
// a request before it closes them (calls in flight are always awaited).
constexpr uint64_t kDrainGraceMs = 10000;

} // namespace

// One answer, in request order.
struct Slot {
  bool ready = false;
  bool close = false; // close the connection once this is written
  std::string data;
};

struct Connection {
  uv_tcp_t handle;
  Server *server = nullptr;
  http_parser parser;
  std::string url;
  std::string body;
  bool in_message = false;
  bool too_large = false;
  bool header_is_expect = false; // the header being read is Expect
  bool expect_continue = false;  // Expect: 100-continue
  bool closing = false;          // uv_close called
  bool handle_closed = false;    // its close callback ran
  bool close_after_flush = false;
  size_t writes_pending = 0;
  size_t calls_pending = 0;
  uint64_t first_seq = 0; // seq of slots.front()
  uint64_t next_seq = 0;
  std::deque<Slot> slots;
};

// A call between its submission and its answer.
struct PendingCall {
  Server *server = nullptr;
  Connection *conn = nullptr;
  uint64_t seq = 0;
  Function *function = nullptr;
  strata_runtime_call_t *call = nullptr;
  uint64_t start_ns = 0;
  int code = 0;
  std::string body;
};

namespace {

struct WriteRequest {
  uv_write_t req;
  std::string data;
  Connection *conn;
};

void maybeFree(Connection *conn) {
  if (conn->handle_closed && conn->calls_pending == 0) {
    delete conn;
  }
}

void onClosed(uv_handle_t *handle) {
  Connection *conn = static_cast<Connection *>(handle->data);
  conn->handle_closed = true;
  maybeFree(conn);
}

void onAlloc(uv_handle_t *, size_t, uv_buf_t *buf) {
  // One buffer serves every read: reads happen one at a time on the loop
  // thread, and onRead parses the bytes before it returns.
  static char buffer[64 * 1024];
  buf->base = buffer;
  buf->len = sizeof(buffer);
}

int onMessageBegin(http_parser *parser) {
  Connection *conn = static_cast<Connection *>(parser->data);
  conn->in_message = true;
  conn->too_large = false;
  conn->expect_continue = false;
  conn->url.clear();
  conn->body.clear();
  return 0;
}

int onUrl(http_parser *parser, const char *at, size_t length) {
  Connection *conn = static_cast<Connection *>(parser->data);
  conn->url.append(at, length);
  return 0;
}

int onHeaderField(http_parser *parser, const char *at, size_t length) {
  Connection *conn = static_cast<Connection *>(parser->data);
  conn->header_is_expect = length == 6 && strncasecmp(at, "expect", 6) == 0;
  return 0;
}

int onHeaderValue(http_parser *parser, const char *at, size_t length) {
  Connection *conn = static_cast<Connection *>(parser->data);
  if (conn->header_is_expect && length == 12 &&
      strncasecmp(at, "100-continue", 12) == 0) {
    conn->expect_continue = true;
  }
  return 0;
}

} // namespace

void closeConnection(Connection *conn) {
  if (conn->closing) {
    return;
  }
  conn->closing = true;
  conn->server->forgetConnection(conn);
  uv_close(reinterpret_cast<uv_handle_t *>(&conn->handle), onClosed);
}

namespace {

void onWritten(uv_write_t *req, int status) {
  WriteRequest *write = reinterpret_cast<WriteRequest *>(req);
  Connection *conn = write->conn;
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
    closeConnection(conn);
  }
}

size_t maxBody(http_parser *parser);

int onHeadersComplete(http_parser *parser) {
  Connection *conn = static_cast<Connection *>(parser->data);
  // Without a Content-Length, http_parser reports ULLONG_MAX; a chunked
  // body is then bounded as it arrives (onBody).
  if (parser->content_length != ULLONG_MAX &&
      parser->content_length > maxBody(parser)) {
    conn->too_large = true;
  }
  // A client that asked to be told to go on (curl does for large bodies)
  // is told so at once, unless earlier answers are still queued before it;
  // a body that is too large is refused when it has arrived.
  if (conn->expect_continue && !conn->too_large && conn->slots.empty() &&
      conn->writes_pending == 0) {
    static const char kContinue[] = "HTTP/1.1 100 Continue\r\n\r\n";
    uv_buf_t buf =
        uv_buf_init(const_cast<char *>(kContinue), sizeof(kContinue) - 1);
    uv_try_write(reinterpret_cast<uv_stream_t *>(&conn->handle), &buf, 1);
  }
  return 0;
}

int onBody(http_parser *parser, const char *at, size_t length) {
  Connection *conn = static_cast<Connection *>(parser->data);
  if (conn->too_large) {
    return 0; // read and dropped, so the client can read the 413
  }
  if (conn->body.size() + length > maxBody(parser)) {
    conn->too_large = true;
    conn->body.clear();
    conn->body.shrink_to_fit();
    return 0;
  }
  conn->body.append(at, length);
  return 0;
}

} // namespace

// Friend of Server for its options and its handleRequest.
struct ParserHooks {
  static size_t maxBody(Connection *conn) {
    return conn->server->options_.max_body;
  }
  static int onMessageComplete(http_parser *parser) {
    Connection *conn = static_cast<Connection *>(parser->data);
    conn->in_message = false;
    conn->server->handleRequest(conn);
    return 0;
  }
};

namespace {

size_t maxBody(http_parser *parser) {
  return ParserHooks::maxBody(static_cast<Connection *>(parser->data));
}

const http_parser_settings &parserSettings() {
  static const http_parser_settings settings = [] {
    http_parser_settings s;
    http_parser_settings_init(&s);
    s.on_message_begin = onMessageBegin;
    s.on_url = onUrl;
    s.on_header_field = onHeaderField;
    s.on_header_value = onHeaderValue;
    s.on_headers_complete = onHeadersComplete;
    s.on_body = onBody;
    s.on_message_complete = ParserHooks::onMessageComplete;
    return s;
  }();
  return settings;
}

std::string formatResponse(int code, const char *content_type,
                           const std::string &body, bool close) {
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
  out += close ? "\r\nConnection: close\r\n\r\n" : "\r\n\r\n";
  out += body;
  return out;
}

} // namespace

void flushConnection(Connection *conn) {
  // Every answer ready at the front goes out in one write: tried at once
  // (uv_try_write), and whatever the socket does not take is queued.
  std::string out;
  while (!conn->closing && !conn->slots.empty() && conn->slots.front().ready) {
    Slot &slot = conn->slots.front();
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
    auto *stream = reinterpret_cast<uv_stream_t *>(&conn->handle);
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
      WriteRequest *write = new WriteRequest;
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
    uv_read_stop(reinterpret_cast<uv_stream_t *>(&conn->handle));
    if (conn->slots.empty() && conn->writes_pending == 0) {
      closeConnection(conn);
    }
  } else if (conn->server->draining_ && conn->slots.empty() &&
             !conn->in_message) {
    // Draining: nothing more will be read from an idle connection.
    conn->close_after_flush = true;
    uv_read_stop(reinterpret_cast<uv_stream_t *>(&conn->handle));
    if (conn->writes_pending == 0) {
      closeConnection(conn);
    }
  }
}

// Friend of Server (its metrics).
void onRead(uv_stream_t *stream, ssize_t nread, const uv_buf_t *buf) {
  Connection *conn = static_cast<Connection *>(stream->data);
  if (nread > 0 && !conn->close_after_flush && !conn->closing) {
    size_t parsed = http_parser_execute(&conn->parser, &parserSettings(),
                                        buf->base, static_cast<size_t>(nread));
    if (conn->parser.http_errno != HPE_OK ||
        parsed != static_cast<size_t>(nread)) {
      // Not HTTP (or an upgrade): answer once and close.
      std::string message =
          std::string("malformed HTTP request: ") +
          http_errno_description(HTTP_PARSER_ERRNO(&conn->parser));
      Slot slot;
      slot.ready = true;
      slot.close = true;
      slot.data = formatResponse(400, kJson, errorBody(message), true);
      conn->slots.push_back(std::move(slot));
      ++conn->next_seq;
      conn->in_message = false;
      conn->server->metrics_.countResponse(400);
      flushConnection(conn);
    }
  } else if (nread < 0) {
    closeConnection(conn); // EOF or an error; pending answers are dropped
  }
}

Server::Server(ModelRegistry *registry, strata_hal_loop_t *compute_loop,
               ServerOptions options)
    : registry_(registry), compute_loop_(compute_loop),
      options_(std::move(options)) {
  uv_loop_init(&loop_);
}

Server::~Server() {
  if (event_fd_ >= 0) {
    close(event_fd_);
  }
  uv_loop_close(&loop_);
}

bool Server::start(std::string *error) {
  struct sockaddr_storage address;
  int rc;
  bool v6 = options_.host.find(':') != std::string::npos;
  if (v6) {
    rc = uv_ip6_addr(options_.host.c_str(), options_.port,
                     reinterpret_cast<sockaddr_in6 *>(&address));
  } else {
    rc = uv_ip4_addr(options_.host.c_str(), options_.port,
                     reinterpret_cast<sockaddr_in *>(&address));
  }
  std::string where = options_.host + ":" + std::to_string(options_.port);
  if (rc < 0) {
    *error = "cannot parse the address " + where + ": " + uv_strerror(rc);
    return false;
  }
  uv_tcp_init(&loop_, &listener_);
  listener_.data = this;
  rc = uv_tcp_bind(&listener_, reinterpret_cast<const sockaddr *>(&address), 0);
  if (rc >= 0) {
    rc = uv_listen(reinterpret_cast<uv_stream_t *>(&listener_), 4096,
                   onConnection);
  }
  if (rc < 0) {
    *error = "cannot listen on " + where + ": " + uv_strerror(rc);
    uv_close(reinterpret_cast<uv_handle_t *>(&listener_), nullptr);
    uv_run(&loop_, UV_RUN_DEFAULT);
    return false;
  }
  struct sockaddr_storage bound;
  int length = sizeof(bound);
  uv_tcp_getsockname(&listener_, reinterpret_cast<sockaddr *>(&bound), &length);
  bound_port_ = ntohs(bound.ss_family == AF_INET6
                          ? reinterpret_cast<sockaddr_in6 *>(&bound)->sin6_port
                          : reinterpret_cast<sockaddr_in *>(&bound)->sin_port);

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
  return true;
}

void Server::run() {
  uv_run(&loop_, UV_RUN_DEFAULT);
  // Drained: from here on SIGTERM and SIGINT are ignored (libuv restores
  // the default action when their handles close).
  uv_close(reinterpret_cast<uv_handle_t *>(&sigterm_), nullptr);
  uv_close(reinterpret_cast<uv_handle_t *>(&sigint_), nullptr);
  uv_run(&loop_, UV_RUN_DEFAULT);
  std::signal(SIGTERM, SIG_IGN);
  std::signal(SIGINT, SIG_IGN);
}

void Server::onConnection(uv_stream_t *listener, int status) {
  Server *server = static_cast<Server *>(listener->data);
  if (status < 0 || server->draining_) {
    return;
  }
  Connection *conn = new Connection;
  conn->server = server;
  uv_tcp_init(&server->loop_, &conn->handle);
  conn->handle.data = conn;
  if (uv_accept(listener, reinterpret_cast<uv_stream_t *>(&conn->handle)) < 0) {
    conn->closing = true;
    uv_close(reinterpret_cast<uv_handle_t *>(&conn->handle), onClosed);
    return;
  }
  uv_tcp_nodelay(&conn->handle, 1);
  http_parser_init(&conn->parser, HTTP_REQUEST);
  conn->parser.data = conn;
  server->connections_.insert(conn);
  uv_read_start(reinterpret_cast<uv_stream_t *>(&conn->handle), onAlloc,
                onRead);
}

void Server::forgetConnection(Connection *conn) {
  connections_.erase(conn);
  checkDrained();
}

void Server::answer(Connection *conn, uint64_t seq, int code,
                    const char *content_type, const std::string &body) {
  metrics_.countResponse(code);
  if (conn->closing) {
    return;
  }
  Slot &slot = conn->slots[seq - conn->first_seq];
  bool close = slot.close || draining_;
  slot.data = formatResponse(code, content_type, body, close);
  slot.close = close;
  slot.ready = true;
  flushConnection(conn);
}

void Server::handleRequest(Connection *conn) {
  uint64_t seq = conn->next_seq++;
  Slot slot;
  slot.close = !http_should_keep_alive(&conn->parser);
  conn->slots.push_back(std::move(slot));

  std::string path = conn->url.substr(0, conn->url.find('?'));
  auto method = static_cast<http_method>(conn->parser.method);
  if (conn->too_large) {
    conn->slots.back().close = true; // the body may be cut short
    answer(conn, seq, 413, kJson,
           errorBody("the request body exceeds --max-body=" +
                     std::to_string(options_.max_body) + " bytes"));
    return;
  }
  if (path == "/healthz") {
    if (method != HTTP_GET) {
      answer(conn, seq, 405, kJson, errorBody("use GET /healthz"));
    } else if (draining_) {
      answer(conn, seq, 503, kJson, "{\"status\": \"draining\"}\n");
    } else {
      answer(conn, seq, 200, kJson, "{\"status\": \"ok\"}\n");
    }
    return;
  }
  if (path == "/metrics") {
    if (method != HTTP_GET) {
      answer(conn, seq, 405, kJson, errorBody("use GET /metrics"));
      return;
    }
    // Counted before rendering, so the answer includes itself.
    std::string text = metrics_.render(in_flight_, options_.max_in_flight);
    answer(conn, seq, 200, kPrometheus, text);
    return;
  }
  size_t prefix = std::strlen(kInvokePrefix);
  size_t separator = path.find(kInvokeSeparator);
  if (path.compare(0, prefix, kInvokePrefix) != 0 ||
      separator == std::string::npos || separator < prefix) {
    answer(conn, seq, 404, kJson,
           errorBody("no such endpoint: " + path +
                     " (POST /v1/models/<name>:invoke/<function>, GET "
                     "/healthz, GET /metrics)"));
    return;
  }
  if (method != HTTP_POST) {
    answer(conn, seq, 405, kJson,
           errorBody("use POST /v1/models/<name>:invoke/<function>"));
    return;
  }
  std::string model_name = path.substr(prefix, separator - prefix);
  std::string function_name =
      path.substr(separator + std::strlen(kInvokeSeparator));
  const Model *model = registry_->findModel(model_name);
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

void Server::invoke(Connection *conn, uint64_t seq, Function *function) {
  strata_runtime_call_t *call = nullptr;
  strata_status_t status = registry_->takeCall(function, &call);
  if (status) {
    answer(conn, seq, 500, kJson, errorBody(consumeStatusText(status)));
    return;
  }
  std::string error;
  if (!pushInputs(*function, conn->body, call, &error)) {
    ModelRegistry::returnCall(function, call);
    answer(conn, seq, 400, kJson, errorBody(error));
    return;
  }
  conn->body.clear();
  PendingCall *pending = new PendingCall;
  pending->server = this;
  pending->conn = conn;
  pending->seq = seq;
  pending->function = function;
  pending->call = call;
  pending->start_ns = uv_hrtime();
  ++in_flight_;
  ++conn->calls_pending;
  status = strata_runtime_call_invoke_async(call, compute_loop_, nullptr,
                                            onCallDone, pending);
  if (status) {
    --in_flight_;
    --conn->calls_pending;
    delete pending;
    bool bad_input =
        strata_status_code(status) == STRATA_STATUS_INVALID_ARGUMENT;
    ModelRegistry::returnCall(function, call);
    answer(conn, seq, bad_input ? 400 : 500, kJson,
           errorBody(consumeStatusText(status)));
  }
}

// Compute thread: encode the answer here, off the HTTP loop.
void Server::onCallDone(void *user, strata_runtime_call_t *call,
                        strata_status_t status) {
  PendingCall *pending = static_cast<PendingCall *>(user);
  std::string error;
  if (status) {
    pending->code = 500;
    pending->body = errorBody(consumeStatusText(status));
  } else if (!encodeOutputs(call, &pending->body, &error)) {
    pending->code = 500;
    pending->body = errorBody(error);
  } else {
    pending->code = 200;
  }
  pending->server->postCompletion(pending);
}

void Server::postCompletion(PendingCall *pending) {
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

void Server::onCompletionsReady(uv_poll_t *poll, int, int) {
  static_cast<Server *>(poll->data)->drainCompletions();
}

void Server::drainCompletions() {
  uint64_t value;
  while (read(event_fd_, &value, sizeof(value)) < 0 && errno == EINTR) {
  }
  std::vector<PendingCall *> batch;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    batch.swap(completed_);
  }
  uint64_t now = uv_hrtime();
  for (PendingCall *pending : batch) {
    --in_flight_;
    metrics_.observeInvokeLatency(now - pending->start_ns);
    ModelRegistry::returnCall(pending->function, pending->call);
    Connection *conn = pending->conn;
    --conn->calls_pending;
    answer(conn, pending->seq, pending->code, kJson, pending->body);
    if (conn->handle_closed) {
      maybeFree(conn);
    }
    delete pending;
  }
  checkDrained();
}

void Server::onSignal(uv_signal_t *signal, int) {
  static_cast<Server *>(signal->data)->beginDrain();
}

void Server::beginDrain() {
  if (draining_) {
    return;
  }
  draining_ = true;
  std::fprintf(stderr,
               "strata-service: draining (%zu calls in flight), then exiting\n",
               in_flight_);
  uv_close(reinterpret_cast<uv_handle_t *>(&listener_), nullptr);
  uv_timer_start(&drain_timer_, onDrainTimeout, kDrainGraceMs, 0);
  std::vector<Connection *> open(connections_.begin(), connections_.end());
  for (Connection *conn : open) {
    flushConnection(conn); // closes the idle ones
  }
  checkDrained();
}

void Server::onDrainTimeout(uv_timer_t *timer) {
  Server *server = static_cast<Server *>(timer->data);
  std::vector<Connection *> open(server->connections_.begin(),
                                 server->connections_.end());
  for (Connection *conn : open) {
    if (conn->calls_pending == 0) {
      closeConnection(conn);
    }
  }
}

void Server::checkDrained() {
  if (!draining_ || stopped_ || in_flight_ != 0 || !connections_.empty()) {
    return;
  }
  stopped_ = true;
  uv_close(reinterpret_cast<uv_handle_t *>(&completions_poll_), nullptr);
  uv_close(reinterpret_cast<uv_handle_t *>(&drain_timer_), nullptr);
  // The signal handles stay open (unreferenced, so the loop can end) until
  // run() returns: closing them here would restore the default action, and
  // a second SIGTERM during the last writes would kill the process.
  uv_unref(reinterpret_cast<uv_handle_t *>(&sigterm_));
  uv_unref(reinterpret_cast<uv_handle_t *>(&sigint_));
}

} // namespace strata::service
