// request_parser.h - the service's HTTP/1.1 request framing on http_parser
// (a bound on the body, Expect: 100-continue, pausing) and the routing of a
// request's path. Nothing here touches a socket or the loop, so the
// service's fuzz target (fuzz/service_fuzzer.cpp) runs the same code on
// bytes that the server runs on what it reads.
//
// Threading: a parser belongs to one connection and is used by one thread.
#ifndef STRATA_TOOLS_STRATA_SERVE_REQUEST_PARSER_H_
#define STRATA_TOOLS_STRATA_SERVE_REQUEST_PARSER_H_

#include <cstddef>
#include <string>

#include <http_parser.h>

namespace strata::service {

/// What a RequestParser reports while it parses, from inside feed().
class RequestEvents {
 public:
  virtual ~RequestEvents() = default;
  /// The first byte of a request has been parsed.
  virtual void onRequestBegin() {}
  /// The headers are complete and the body is not known to be too large;
  /// expect_continue: the client sent "Expect: 100-continue".
  virtual void onHeadersComplete(bool expect_continue) {
    (void)expect_continue;
  }
  /// The body is larger than the bound: its Content-Length says so, or a
  /// chunked body has grown past it (then what arrived is dropped). The
  /// rest of the body is not kept; onRequest still follows if it ends.
  virtual void onTooLarge() = 0;
  /// A whole request: the parser's url(), body(), method() and keepAlive()
  /// describe it until the next request begins.
  virtual void onRequest() = 0;
};

class RequestParser {
 public:
  enum class Result {
    kOk,        // every byte was parsed
    kPaused,    // pause(true) was called; the rest is unparsed
    kMalformed  // not HTTP (or an upgrade); *error says why
  };

  /// events is borrowed and must outlive the parser.
  RequestParser(size_t max_body, RequestEvents* events);
  RequestParser(const RequestParser&) = delete;
  RequestParser& operator=(const RequestParser&) = delete;

  /// Parses data[0, length); *parsed is how many bytes were consumed.
  Result feed(const char* data, size_t length, size_t* parsed,
              std::string* error);
  /// Stops (true) or resumes (false) parsing; callable from the events.
  void pause(bool paused);

  /// A request is being read (begun, not complete).
  bool inMessage() const { return in_message_; }
  /// Forgets the request being read (the connection answered and closes).
  void abandonMessage() { in_message_ = false; }
  /// The request being read has its headers.
  bool headersComplete() const { return headers_complete_; }
  /// The request's body went over the bound (see onTooLarge).
  bool tooLarge() const { return too_large_; }
  const std::string& url() const { return url_; }
  /// The body; the caller may take or clear it once the request is whole.
  std::string& body() { return body_; }
  /// The request's method (http_method).
  http_method method() const;
  /// Whether the connection stays open after this request.
  bool keepAlive() const;
  size_t maxBody() const { return max_body_; }
  /// The request's Inference-Header-Content-Length (the binary tensor data
  /// extension): kNoLength when absent, kBadLength when not a number (its
  /// text is headerLengthText()).
  static constexpr size_t kNoLength = static_cast<size_t>(-1);
  static constexpr size_t kBadLength = static_cast<size_t>(-2);
  size_t inferenceHeaderLength() const { return inference_header_length_; }
  const std::string& headerLengthText() const { return header_length_text_; }

 private:
  static int onMessageBegin(http_parser* parser);
  static int onUrl(http_parser* parser, const char* at, size_t length);
  static int onHeaderField(http_parser* parser, const char* at, size_t length);
  static int onHeaderValue(http_parser* parser, const char* at, size_t length);
  static int onHeadersDone(http_parser* parser);
  static int onBody(http_parser* parser, const char* at, size_t length);
  static int onMessageComplete(http_parser* parser);
  static const http_parser_settings& settings();
  // A header's field and value are complete: notes Expect: 100-continue.
  void finishHeader();

  http_parser parser_;
  RequestEvents* events_;
  size_t max_body_;
  std::string url_;
  std::string body_;
  // The header field being read (http_parser may hand it over in pieces),
  // kept up to one byte more than the longest name looked for.
  std::string field_;
  bool field_is_expect_ = false;
  bool field_is_header_length_ = false;
  // The value of Expect or Inference-Header-Content-Length, in pieces.
  std::string value_;
  std::string header_length_text_;
  size_t inference_header_length_ = kNoLength;
  bool in_message_ = false;
  bool headers_complete_ = false;
  bool too_large_ = false;
  bool expect_continue_ = false;
  bool in_value_ = false;
};

/// Where a request's path goes.
struct Route {
  enum Kind {
    kHealth,            // /healthz (the old route; /v2/health/ready answers)
    kMetrics,           // /metrics
    kInvoke,            // /v1/models/<model>:invoke/<function> (the old route)
    kLive,              // /v2/health/live
    kReady,             // /v2/health/ready
    kServerMetadata,    // /v2
    kModelMetadata,     // /v2/models/<model>[/versions/<version>]
    kModelReady,        // ... /ready
    kInfer,             // ... /infer
    kRepositoryIndex,   // /v2/repository/index
    kRepositoryLoad,    // /v2/repository/models/<model>/load
    kRepositoryUnload,  // /v2/repository/models/<model>/unload
    kNotFound           // anything else
  };
  Kind kind = kNotFound;
  /// The URL without its query.
  std::string path;
  std::string model;     // kInvoke and the /v2/models routes
  std::string function;  // kInvoke only
  std::string version;   // the /v2/models routes; "" when not given
};

/// Routes a request's URL (its query, after '?', is ignored).
Route routeRequest(const std::string& url);

}  // namespace strata::service

#endif  // STRATA_TOOLS_STRATA_SERVE_REQUEST_PARSER_H_
