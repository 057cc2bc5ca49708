// json_writer.cpp - the streaming JSON emitter used by the tools.
#include "json_writer.h"

#include "utf8.h"

#include <cassert>
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace strata::tools {


std::string JsonWriter::quote(std::string_view text) {
  std::string out = "\"";
  char buffer[8];
  for (size_t i = 0; i < text.size();) {
    char c = text[i];
    unsigned char u = static_cast<unsigned char>(c);
    switch (c) {
      case '"':
        out += "\\\"";
        ++i;
        continue;
      case '\\':
        out += "\\\\";
        ++i;
        continue;
      case '\n':
        out += "\\n";
        ++i;
        continue;
      case '\r':
        out += "\\r";
        ++i;
        continue;
      case '\t':
        out += "\\t";
        ++i;
        continue;
      case '\b':
        out += "\\b";
        ++i;
        continue;
      case '\f':
        out += "\\f";
        ++i;
        continue;
      default:
        break;
    }
    if (u < 0x20 || u == 0x7F) {
      std::snprintf(buffer, sizeof(buffer), "\\u%04x", u);
      out += buffer;
      ++i;
      continue;
    }
    size_t n = utf8SequenceLength(text, i);
    if (n == 0) {
      std::snprintf(buffer, sizeof(buffer), "\\u%04x", u);
      out += buffer;
      ++i;
      continue;
    }
    out.append(text.data() + i, n);
    i += n;
  }
  out += '"';
  return out;
}

void JsonWriter::newline() {
  out_ += '\n';
  out_.append(2 * stack_.size(), ' ');
}

void JsonWriter::beforeValue() {
  if (after_key_) {
    after_key_ = false;
    return;
  }
  if (stack_.empty()) {
    assert(out_.empty() && "one top-level value only");
    return;
  }
  assert(!stack_.back().object && "object members need a key first");
  if (stack_.back().members++) {
    out_ += ',';
  }
  newline();
}

JsonWriter& JsonWriter::beginObject() {
  beforeValue();
  out_ += '{';
  stack_.push_back({true, 0});
  return *this;
}

JsonWriter& JsonWriter::endObject() {
  assert(!stack_.empty() && stack_.back().object && !after_key_);
  bool empty = stack_.back().members == 0;
  stack_.pop_back();
  if (!empty) {
    newline();
  }
  out_ += '}';
  return *this;
}

JsonWriter& JsonWriter::beginArray() {
  beforeValue();
  out_ += '[';
  stack_.push_back({false, 0});
  return *this;
}

JsonWriter& JsonWriter::endArray() {
  assert(!stack_.empty() && !stack_.back().object);
  bool empty = stack_.back().members == 0;
  stack_.pop_back();
  if (!empty) {
    newline();
  }
  out_ += ']';
  return *this;
}

JsonWriter& JsonWriter::key(std::string_view name) {
  assert(!stack_.empty() && stack_.back().object && !after_key_);
  if (stack_.back().members++) {
    out_ += ',';
  }
  newline();
  out_ += quote(name);
  out_ += ": ";
  after_key_ = true;
  return *this;
}

JsonWriter& JsonWriter::value(std::string_view text) {
  beforeValue();
  out_ += quote(text);
  return *this;
}

JsonWriter& JsonWriter::value(const char* text) {
  if (!text) {
    return null();
  }
  return value(std::string_view(text));
}

JsonWriter& JsonWriter::value(int64_t number) {
  beforeValue();
  char buffer[32];
  std::snprintf(buffer, sizeof(buffer), "%" PRId64, number);
  out_ += buffer;
  return *this;
}

JsonWriter& JsonWriter::value(uint64_t number) {
  beforeValue();
  char buffer[32];
  std::snprintf(buffer, sizeof(buffer), "%" PRIu64, number);
  out_ += buffer;
  return *this;
}

JsonWriter& JsonWriter::value(double number) {
  if (!std::isfinite(number)) {
    return null();
  }
  beforeValue();
  char buffer[64];
  for (int precision = 1; precision <= 17; ++precision) {
    std::snprintf(buffer, sizeof(buffer), "%.*g", precision, number);
    if (std::strtod(buffer, nullptr) == number) {
      break;
    }
  }
  out_ += buffer;
  return *this;
}

JsonWriter& JsonWriter::value(bool flag) {
  beforeValue();
  out_ += flag ? "true" : "false";
  return *this;
}

JsonWriter& JsonWriter::null() {
  beforeValue();
  out_ += "null";
  return *this;
}

std::string JsonWriter::take() {
  std::string out = std::move(out_);
  if (stack_.empty() && !out.empty()) {
    out += '\n';
  }
  out_.clear();
  stack_.clear();
  after_key_ = false;
  return out;
}

}  // namespace strata::tools
