// request_parser.cpp - request framing and routing; see request_parser.h.
#include "request_parser.h"

#include <strings.h>
#include <algorithm>
#include <climits>
#include <cstring>

namespace strata::service {

namespace {

constexpr const char* kInvokePrefix = "/v1/models/";
constexpr const char* kInvokeSeparator = ":invoke/";
constexpr const char kExpect[] = "expect";
constexpr const char kContinue[] = "100-continue";

RequestParser* self(http_parser* parser) {
  return static_cast<RequestParser*>(parser->data);
}

// Appends at[0, length) to *text while it stays at most limit + 1 bytes:
// enough to tell whether the whole equals a string of limit bytes.
void appendBounded(std::string* text, const char* at, size_t length,
                   size_t limit) {
  if (text->size() <= limit) {
    text->append(at, std::min(length, limit + 1 - text->size()));
  }
}

}  // namespace

RequestParser::RequestParser(size_t max_body, RequestEvents* events)
    : events_(events), max_body_(max_body) {
  http_parser_init(&parser_, HTTP_REQUEST);
  parser_.data = this;
}

const http_parser_settings& RequestParser::settings() {
  static const http_parser_settings settings = [] {
    http_parser_settings s;
    http_parser_settings_init(&s);
    s.on_message_begin = onMessageBegin;
    s.on_url = onUrl;
    s.on_header_field = onHeaderField;
    s.on_header_value = onHeaderValue;
    s.on_headers_complete = onHeadersDone;
    s.on_body = onBody;
    s.on_message_complete = onMessageComplete;
    return s;
  }();
  return settings;
}

RequestParser::Result RequestParser::feed(const char* data, size_t length,
                                          size_t* parsed, std::string* error) {
  *parsed = http_parser_execute(&parser_, &settings(), data, length);
  enum http_errno code = HTTP_PARSER_ERRNO(&parser_);
  if (code == HPE_PAUSED) {
    return Result::kPaused;
  }
  if (code != HPE_OK || *parsed != length) {
    *error = http_errno_description(code);
    return Result::kMalformed;
  }
  return Result::kOk;
}

void RequestParser::pause(bool paused) {
  http_parser_pause(&parser_, paused ? 1 : 0);
}

http_method RequestParser::method() const {
  return static_cast<http_method>(parser_.method);
}

bool RequestParser::keepAlive() const {
  return http_should_keep_alive(&parser_) != 0;
}

int RequestParser::onMessageBegin(http_parser* parser) {
  RequestParser* p = self(parser);
  p->in_message_ = true;
  p->headers_complete_ = false;
  p->too_large_ = false;
  p->expect_continue_ = false;
  p->in_value_ = false;
  p->field_is_expect_ = false;
  p->field_.clear();
  p->value_.clear();
  p->url_.clear();
  p->body_.clear();
  p->events_->onRequestBegin();
  return 0;
}

int RequestParser::onUrl(http_parser* parser, const char* at, size_t length) {
  self(parser)->url_.append(at, length);
  return 0;
}

int RequestParser::onHeaderField(http_parser* parser, const char* at,
                                 size_t length) {
  RequestParser* p = self(parser);
  if (p->in_value_) {
    // A new header begins: the previous one is complete.
    p->finishHeader();
    p->field_.clear();
  }
  appendBounded(&p->field_, at, length, sizeof(kExpect) - 1);
  return 0;
}

int RequestParser::onHeaderValue(http_parser* parser, const char* at,
                                 size_t length) {
  RequestParser* p = self(parser);
  if (!p->in_value_) {
    p->in_value_ = true;
    p->field_is_expect_ =
        p->field_.size() == sizeof(kExpect) - 1 &&
        strncasecmp(p->field_.data(), kExpect, sizeof(kExpect) - 1) == 0;
    p->value_.clear();
  }
  if (p->field_is_expect_) {
    appendBounded(&p->value_, at, length, sizeof(kContinue) - 1);
  }
  return 0;
}

void RequestParser::finishHeader() {
  in_value_ = false;
  if (field_is_expect_ && value_.size() == sizeof(kContinue) - 1 &&
      strncasecmp(value_.data(), kContinue, sizeof(kContinue) - 1) == 0) {
    expect_continue_ = true;
  }
  field_is_expect_ = false;
}

int RequestParser::onHeadersDone(http_parser* parser) {
  RequestParser* p = self(parser);
  p->headers_complete_ = true;
  if (p->in_value_) {
    p->finishHeader();
  }
  // Without a Content-Length, http_parser reports ULLONG_MAX; a chunked
  // body is then bounded as it arrives (onBody).
  if (parser->content_length != ULLONG_MAX &&
      parser->content_length > p->max_body_) {
    // Refused now, before the body arrives (and without a 100 Continue).
    p->too_large_ = true;
    p->events_->onTooLarge();
    return 0;
  }
  p->events_->onHeadersComplete(p->expect_continue_);
  return 0;
}

int RequestParser::onBody(http_parser* parser, const char* at, size_t length) {
  RequestParser* p = self(parser);
  if (p->too_large_) {
    return 0;  // read and dropped, so the client can read the 413
  }
  if (p->body_.size() + length > p->max_body_) {
    p->too_large_ = true;
    p->body_.clear();
    p->body_.shrink_to_fit();
    p->events_->onTooLarge();
    return 0;
  }
  p->body_.append(at, length);
  return 0;
}

int RequestParser::onMessageComplete(http_parser* parser) {
  RequestParser* p = self(parser);
  p->in_message_ = false;
  p->events_->onRequest();
  return 0;
}

Route routeRequest(const std::string& url) {
  Route route;
  route.path = url.substr(0, url.find('?'));
  const std::string& path = route.path;
  if (path == "/healthz") {
    route.kind = Route::kHealth;
    return route;
  }
  if (path == "/metrics") {
    route.kind = Route::kMetrics;
    return route;
  }
  size_t prefix = std::strlen(kInvokePrefix);
  size_t separator = path.find(kInvokeSeparator);
  if (path.compare(0, prefix, kInvokePrefix) != 0 ||
      separator == std::string::npos || separator < prefix) {
    return route;
  }
  route.kind = Route::kInvoke;
  route.model = path.substr(prefix, separator - prefix);
  route.function = path.substr(separator + std::strlen(kInvokeSeparator));
  return route;
}

}  // namespace strata::service
