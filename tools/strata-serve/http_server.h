// http_server.h - the service's HTTP/1.1 front end on a libuv loop: accepts
// connections, parses requests (request_parser.h), answers /healthz and
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
#ifndef STRATA_TOOLS_STRATA_SERVE_HTTP_SERVER_H_
#define STRATA_TOOLS_STRATA_SERVE_HTTP_SERVER_H_

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_set>
#include <vector>

#include <uv.h>

#include "metrics.h"
#include "model_registry.h"
#include "oip.h"
#include "request_parser.h"

namespace strata::service {

struct ServerOptions {
  std::string host = "127.0.0.1";
  int port = 8080;
  size_t max_in_flight = 1024;
  size_t max_body = 16u << 20;
  /// A call's deadline after it starts (0: none); past it, 504.
  size_t request_timeout_ms = 0;
  /// After SIGTERM, how long calls in flight are awaited (0: for ever).
  size_t drain_timeout_ms = 0;
  /// From a request's first byte to the end of its headers, else 408.
  size_t header_timeout_ms = 10000;
  /// A connection with nothing in progress is closed after this long.
  size_t idle_timeout_ms = 60000;
  /// Open connections; beyond, a new one is answered 503 and closed.
  size_t max_connections = 10000;
  /// Answers queued on a connection (not yet written out) before it stops
  /// reading further requests until they drain.
  size_t max_pipeline = 64;
  /// strata-compile, which compiles a repository's model.onnx at load
  /// (model_compiler.h); "" when there is none, compiler_absent saying why.
  std::string compiler;
  std::string compiler_absent;
  /// Where compiled models go ("": beside their model.onnx).
  std::string compile_cache;
  /// A compile still running after this long is killed (0: no limit).
  size_t compile_timeout_ms = 600000;
};

struct Connection;
struct PendingCall;
struct BatchQueue;
struct CompileJob;
void closeConnection(Connection* conn);
void flushConnection(Connection* conn);
void onRead(uv_stream_t* stream, ssize_t nread, const uv_buf_t* buf);

class Server {
 public:
  /// registry is borrowed and must outlive the server; the models it
  /// holds run their compute loops on their own threads (load()).
  Server(ModelRegistry* registry, ServerOptions options);
  Server(const Server&) = delete;
  Server& operator=(const Server&) = delete;
  ~Server();

  /// The answer to an infer request made through inferAsync: code is the
  /// HTTP status the REST protocol would answer (200, 400, 500, 503, 504)
  /// and error its message; on success the outputs asked for, in order.
  struct InferAnswer {
    int code = 0;
    std::string error;
    std::string model_version;
    std::vector<std::string> names;
    std::vector<OipTensor> tensors;
  };
  using InferDone = std::function<void(InferAnswer)>;

  /// Runs task on the HTTP loop's thread; callable from any thread. False
  /// (task not run, nor kept) once the server has stopped.
  bool post(std::function<void()> task);

  // For the gRPC service, on the loop thread only (through post()):
  /// Whether the server is ready (every model, no drain).
  bool ready() const;
  /// The model.onnx compiles running.
  size_t compilesRunning() const { return compiles_.size(); }
  /// The function serving model name (version: "" for the served one);
  /// null with *error.
  Function* findModel(const std::string& name, const std::string& version,
                      const Model** model, std::string* error);
  /// Whether name is a model of the repository (loaded or not).
  bool knownModel(const std::string& name) const {
    return statuses_.count(name) != 0;
  }
  /// Submits an infer request in the REST form (body[0, json_length) the
  /// JSON, then binary data); done runs on the loop thread when answered.
  void inferAsync(const std::string& model_name, const std::string& version,
                  const std::string& body, size_t json_length, InferDone done);

  /// Loads every model of the repository dir (before start()): one that
  /// fails is reported (stderr, /v2/repository/index) and the others
  /// serve. False with *error only when dir cannot be read.
  bool loadRepository(const std::string& dir, std::string* error);
  /// Binds and listens. False with *error (naming the address) on failure.
  bool start(std::string* error);
  /// The port bound (useful with port 0).
  int boundPort() const { return bound_port_; }
  /// Serves until a SIGTERM/SIGINT has been handled and every call in
  /// flight has been answered; every handle is closed when it returns, and
  /// it returns "". When --drain-timeout passes first, it returns at once
  /// with a line naming the calls abandoned (still running; the caller
  /// must not tear down what they use).
  std::string run();

 private:
  friend struct Connection;
  static void onConnection(uv_stream_t* listener, int status);
  static void onCompletionsReady(uv_poll_t* poll, int status, int events);
  static void onSignal(uv_signal_t* signal, int signum);
  static void onDrainTimeout(uv_timer_t* timer);
  static void onDrainDeadline(uv_timer_t* timer);
  static void onCallDone(void* user, strata_runtime_call_t* call,
                         strata_status_t status);

  void handleRequest(Connection* conn);
  /// extra_headers: "\r\nName: value" lines added to the answer's.
  void answer(Connection* conn, uint64_t seq, int code,
              const char* content_type, const std::string& body,
              const std::string& extra_headers = "");
  /// The /v2 routes (the Open Inference Protocol).
  void handleOip(Connection* conn, uint64_t seq, const Route& route);
  /// The /v2/repository routes.
  void handleRepository(Connection* conn, uint64_t seq, const Route& route);
  /// Loads (or reloads) model name from the repository; "" or why not.
  /// A model.onnx is compiled off the loop: then *compiling (when given) is
  /// the compile (started, or running already) and the model loads when
  /// it ends (finishCompile).
  std::string loadFromRepository(const std::string& name,
                                 CompileJob** compiling = nullptr);
  /// A compile ended (on the loop): loads its module, answers the load
  /// requests that wait for it.
  void finishCompile(CompileJob* job);
  static void onCompileWork(uv_work_t* work);
  static void onCompileDone(uv_work_t* work, int status);
  /// Answers a request answered later than its handling (a load waiting
  /// for a compile), whose connection was kept (calls_pending).
  void answerDeferred(Connection* conn, uint64_t seq, int code,
                      const std::string& body);
  /// Dynamic batching: queues a decoded request of a batching model, and
  /// sends the queue's batches when they are full or their delay passed.
  void enqueue(PendingCall* pending);
  void flushQueue(BatchQueue* queue);
  /// Stops serving model `name` (an unload, or a reload before the new
  /// version loads): closes its batch queues, sending what waits, then
  /// retires it in the registry (freed when its last call is answered).
  void retireModel(const std::string& name);
  /// Submits one batch; false when it could not be (each member is then
  /// answered with the error).
  bool launch(std::vector<PendingCall*> members);
  static void onQueueDelay(uv_timer_t* timer);
  /// An OIP infer request: decoded, then queued for a batch or submitted;
  /// answered on conn (seq) or, when done is set, through done.
  void submitOip(Connection* conn, uint64_t seq, InferDone done,
                 Function* function, const std::string& model_name,
                 const Model* model, const std::string& body,
                 size_t json_length);
  /// Counts a call in flight (server, connection, model).
  void track(PendingCall* pending);
  /// Submits pending's call (its inputs pushed).
  void submit(PendingCall* pending, strata_runtime_call_t* call);
  /// Runs the tasks posted before the loop stopped and refuses later ones.
  void closeTasks();
  /// Counts a call of a model answered: frees a retired model's last one.
  void callAnswered(Function* function);
  /// The model and function a /v2/models route names ("m", or "m.f" for
  /// function f of a model with several); null with *code and *error.
  Function* resolveOip(const Route& route, const Model** model, int* code,
                       std::string* error);
  /// oip: an Open Inference Protocol request (model_name is the name the
  /// client used); otherwise the old /v1 form.
  void invoke(Connection* conn, uint64_t seq, Function* function,
              bool oip = false, const std::string& model_name = "",
              const Model* model = nullptr);
  void postCompletion(PendingCall* pending);
  void drainCompletions();
  void beginDrain();
  void checkDrained();
  void forgetConnection(Connection* conn);

  ModelRegistry* registry_;
  ServerOptions options_;
  int bound_port_ = 0;

  uv_loop_t loop_;
  uv_tcp_t listener_;
  uv_poll_t completions_poll_;
  uv_signal_t sigterm_;
  uv_signal_t sigint_;
  uv_timer_t drain_timer_;
  uv_timer_t drain_deadline_;
  std::string abandoned_;  // set when the drain deadline passed
  int event_fd_ = -1;
  bool draining_ = false;
  bool stopped_ = false;

  // The repository (its directory, "" for none) and the state of each
  // model known by name: READY, or UNAVAILABLE with the reason (a failed
  // load, or an unload asked for).
  struct ModelStatus {
    std::string version;
    bool ready = false;
    bool unloaded = false;  // by request, not by a failure
    std::string reason;
  };
  std::string repository_;
  std::map<std::string, ModelStatus> statuses_;
  // The compiles of model.onnx files running, by model name.
  std::map<std::string, std::unique_ptr<CompileJob>> compiles_;
  // The batching queue of each function that has one.
  std::map<Function*, std::unique_ptr<BatchQueue>> queues_;

  std::unordered_set<Connection*> connections_;
  size_t in_flight_ = 0;
  // Calls submitted and not yet answered (loop thread), to name them when a
  // drain gives up on them.
  std::unordered_set<PendingCall*> pending_;
  Metrics metrics_;

  // Completed calls from the compute thread, guarded by mutex_.
  std::mutex mutex_;
  std::vector<PendingCall*> completed_;
  // Tasks posted from other threads (post()), guarded by mutex_.
  std::vector<std::function<void()>> tasks_;
  bool tasks_closed_ = false;

  friend struct ConnectionHooks;
  friend void closeConnection(Connection* conn);
  friend void flushConnection(Connection* conn);
  friend void onRead(uv_stream_t* stream, ssize_t nread, const uv_buf_t* buf);
};

}  // namespace strata::service

#endif  // STRATA_TOOLS_STRATA_SERVE_HTTP_SERVER_H_
