// request_parser.cpp - request framing and routing; see request_parser.h.
#include "request_parser.h"

#include <strings.h>
#include <algorithm>
#include <climits>
#include <cstring>
#include <vector>

namespace strata::service {

namespace {

constexpr const char* kInvokePrefix = "/v1/models/";
constexpr const char* kModelsPrefix = "/v2/models/";
constexpr const char* kRepositoryPrefix = "/v2/repository/models/";
constexpr const char* kInvokeSeparator = ":invoke/";
constexpr const char kExpect[] = "expect";
constexpr const char kContinue[] = "100-continue";
// The binary tensor data extension: the JSON part's length in the body.
constexpr const char kInferenceHeader[] = "inference-header-content-length";
// Enough digits for any size_t, and one more to tell it is too long.
constexpr size_t kMaxLengthDigits = 20;

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
  p->field_is_header_length_ = false;
  p->header_length_text_.clear();
  p->inference_header_length_ = kNoLength;
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
  appendBounded(&p->field_, at, length, sizeof(kInferenceHeader) - 1);
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
    p->field_is_header_length_ =
        p->field_.size() == sizeof(kInferenceHeader) - 1 &&
        strncasecmp(p->field_.data(), kInferenceHeader,
                    sizeof(kInferenceHeader) - 1) == 0;
    p->value_.clear();
  }
  if (p->field_is_expect_) {
    appendBounded(&p->value_, at, length, sizeof(kContinue) - 1);
  } else if (p->field_is_header_length_) {
    appendBounded(&p->value_, at, length, kMaxLengthDigits);
  }
  return 0;
}

void RequestParser::finishHeader() {
  in_value_ = false;
  if (field_is_expect_ && value_.size() == sizeof(kContinue) - 1 &&
      strncasecmp(value_.data(), kContinue, sizeof(kContinue) - 1) == 0) {
    expect_continue_ = true;
  }
  if (field_is_header_length_) {
    // Kept as text: a bad value is refused with the request, by name.
    header_length_text_ = value_;
    inference_header_length_ = kBadLength;
    size_t value = 0;
    bool digits = !value_.empty() && value_.size() < kMaxLengthDigits;
    for (char c : value_) {
      digits = digits && c >= '0' && c <= '9';
      value = value * 10 + static_cast<size_t>(c - '0');
    }
    if (digits) {
      inference_header_length_ = value;
    }
  }
  field_is_expect_ = false;
  field_is_header_length_ = false;
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
  if (path == "/v2" || path == "/v2/") {
    route.kind = Route::kServerMetadata;
    return route;
  }
  if (path == "/v2/health/live") {
    route.kind = Route::kLive;
    return route;
  }
  if (path == "/v2/health/ready") {
    route.kind = Route::kReady;
    return route;
  }
  if (path == "/v2/repository/index") {
    route.kind = Route::kRepositoryIndex;
    return route;
  }
  if (path.compare(0, std::strlen(kRepositoryPrefix), kRepositoryPrefix) == 0) {
    std::string rest = path.substr(std::strlen(kRepositoryPrefix));
    size_t slash = rest.find('/');
    if (slash == std::string::npos || slash == 0) {
      return route;
    }
    std::string action = rest.substr(slash + 1);
    if (action == "load") {
      route.kind = Route::kRepositoryLoad;
    } else if (action == "unload") {
      route.kind = Route::kRepositoryUnload;
    } else {
      return route;
    }
    route.model = rest.substr(0, slash);
    return route;
  }
  if (path.compare(0, std::strlen(kModelsPrefix), kModelsPrefix) == 0) {
    // <model>[/versions/<version>][/ready|/infer]; names are single path
    // segments, never empty.
    std::vector<std::string> parts;
    size_t start = std::strlen(kModelsPrefix);
    for (;;) {
      size_t slash = path.find('/', start);
      parts.push_back(path.substr(start, slash == std::string::npos
                                             ? std::string::npos
                                             : slash - start));
      if (slash == std::string::npos) {
        break;
      }
      start = slash + 1;
    }
    Route::Kind kind = Route::kModelMetadata;
    if (parts.size() == 2 || parts.size() == 4) {
      if (parts.back() == "ready") {
        kind = Route::kModelReady;
      } else if (parts.back() == "infer") {
        kind = Route::kInfer;
      } else {
        return route;
      }
      parts.pop_back();
    }
    if (parts.size() == 3 && parts[1] == "versions" && !parts[2].empty()) {
      route.version = parts[2];
    } else if (parts.size() != 1) {
      return route;
    }
    if (parts[0].empty()) {
      return route;
    }
    route.kind = kind;
    route.model = parts[0];
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
