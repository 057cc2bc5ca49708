// status.cpp - heap records behind strata_status_t.
#include "strata/base/status.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>

struct strata_status_record_t {
  strata_status_code_t code;
  char* message;            // malloc'd, never NULL for heap records
  size_t annotation_count;
  char** annotations;       // malloc'd array of malloc'd strings
};

namespace {

// Records that are never allocated or freed: the deferred signal, and the
// fallbacks used when the heap cannot hold a new status.
char kEmpty[] = "";
strata_status_record_t kDeferred = {STRATA_STATUS_DEFERRED, kEmpty, 0, nullptr};
strata_status_record_t kOutOfMemory[16];
bool kOutOfMemoryReady = [] {
  for (int i = 0; i < 16; ++i) {
    kOutOfMemory[i] = {static_cast<strata_status_code_t>(i), kEmpty, 0, nullptr};
  }
  return true;
}();

bool isStatic(strata_status_t s) {
  return s == &kDeferred ||
         (s >= &kOutOfMemory[0] && s < &kOutOfMemory[16]);
}

char* formatV(const char* format, va_list args) {
  va_list copy;
  va_copy(copy, args);
  int n = std::vsnprintf(nullptr, 0, format, copy);
  va_end(copy);
  if (n < 0) {
    return nullptr;
  }
  char* out = static_cast<char*>(std::malloc(static_cast<size_t>(n) + 1));
  if (!out) {
    return nullptr;
  }
  std::vsnprintf(out, static_cast<size_t>(n) + 1, format, args);
  return out;
}

strata_status_t fallback(strata_status_code_t code) {
  (void)kOutOfMemoryReady;
  int i = static_cast<int>(code);
  return &kOutOfMemory[(i > 0 && i < 16) ? i : STRATA_STATUS_UNKNOWN];
}

}  // namespace

extern "C" {

strata_status_t strata_make_status_v(strata_status_code_t code,
                                     const char* format, va_list args) {
  if (code == STRATA_STATUS_OK) {
    code = STRATA_STATUS_UNKNOWN;
  }
  if (code == STRATA_STATUS_DEFERRED) {
    return &kDeferred;
  }
  auto* record = static_cast<strata_status_record_t*>(
      std::malloc(sizeof(strata_status_record_t)));
  if (!record) {
    return fallback(code);
  }
  record->code = code;
  record->message = formatV(format, args);
  if (!record->message) {
    std::free(record);
    return fallback(code);
  }
  record->annotation_count = 0;
  record->annotations = nullptr;
  return record;
}

strata_status_t strata_make_status(strata_status_code_t code,
                                   const char* format, ...) {
  va_list args;
  va_start(args, format);
  strata_status_t status = strata_make_status_v(code, format, args);
  va_end(args);
  return status;
}

strata_status_t strata_status_deferred(void) { return &kDeferred; }

strata_status_code_t strata_status_code(strata_status_t status) {
  return status ? status->code : STRATA_STATUS_OK;
}

const char* strata_status_message(strata_status_t status) {
  return status ? status->message : "";
}

size_t strata_status_annotation_count(strata_status_t status) {
  return status ? status->annotation_count : 0;
}

const char* strata_status_annotation(strata_status_t status, size_t i) {
  if (!status || i >= status->annotation_count) {
    return "";
  }
  return status->annotations[i];
}

strata_status_t strata_status_annotate(strata_status_t status,
                                       const char* format, ...) {
  if (!status || isStatic(status)) {
    return status;
  }
  va_list args;
  va_start(args, format);
  char* line = formatV(format, args);
  va_end(args);
  if (!line) {
    return status;
  }
  auto** grown = static_cast<char**>(std::realloc(
      status->annotations, (status->annotation_count + 1) * sizeof(char*)));
  if (!grown) {
    std::free(line);
    return status;
  }
  grown[status->annotation_count++] = line;
  status->annotations = grown;
  return status;
}

strata_status_t strata_status_clone(strata_status_t status) {
  if (!status || isStatic(status)) {
    return status;
  }
  strata_status_t copy = strata_make_status(status->code, "%s", status->message);
  for (size_t i = 0; i < status->annotation_count; ++i) {
    copy = strata_status_annotate(copy, "%s", status->annotations[i]);
  }
  return copy;
}

const char* strata_status_code_name(strata_status_code_t code) {
  switch (code) {
    case STRATA_STATUS_OK: return "OK";
    case STRATA_STATUS_CANCELLED: return "CANCELLED";
    case STRATA_STATUS_UNKNOWN: return "UNKNOWN";
    case STRATA_STATUS_INVALID_ARGUMENT: return "INVALID_ARGUMENT";
    case STRATA_STATUS_DEADLINE_EXCEEDED: return "DEADLINE_EXCEEDED";
    case STRATA_STATUS_NOT_FOUND: return "NOT_FOUND";
    case STRATA_STATUS_ALREADY_EXISTS: return "ALREADY_EXISTS";
    case STRATA_STATUS_PERMISSION_DENIED: return "PERMISSION_DENIED";
    case STRATA_STATUS_RESOURCE_EXHAUSTED: return "RESOURCE_EXHAUSTED";
    case STRATA_STATUS_FAILED_PRECONDITION: return "FAILED_PRECONDITION";
    case STRATA_STATUS_ABORTED: return "ABORTED";
    case STRATA_STATUS_OUT_OF_RANGE: return "OUT_OF_RANGE";
    case STRATA_STATUS_UNIMPLEMENTED: return "UNIMPLEMENTED";
    case STRATA_STATUS_INTERNAL: return "INTERNAL";
    case STRATA_STATUS_UNAVAILABLE: return "UNAVAILABLE";
    case STRATA_STATUS_DATA_LOSS: return "DATA_LOSS";
    case STRATA_STATUS_DEFERRED: return "DEFERRED";
  }
  return "UNKNOWN";
}

char* strata_status_to_string(strata_status_t status) {
  const char* name = strata_status_code_name(strata_status_code(status));
  const char* message = strata_status_message(status);
  size_t length = std::strlen(name) + 2 + std::strlen(message) + 1;
  for (size_t i = 0; i < strata_status_annotation_count(status); ++i) {
    length += 3 + std::strlen(status->annotations[i]);
  }
  char* out = static_cast<char*>(std::malloc(length));
  if (!out) {
    return nullptr;
  }
  char* p = out;
  p += std::sprintf(p, "%s", name);
  if (*message) {
    p += std::sprintf(p, ": %s", message);
  }
  for (size_t i = 0; i < strata_status_annotation_count(status); ++i) {
    p += std::sprintf(p, "\n  %s", status->annotations[i]);
  }
  return out;
}

void strata_status_free(strata_status_t status) {
  if (!status || isStatic(status)) {
    return;
  }
  for (size_t i = 0; i < status->annotation_count; ++i) {
    std::free(status->annotations[i]);
  }
  std::free(status->annotations);
  std::free(status->message);
  std::free(status);
}

int strata_status_consume_ok(strata_status_t status) {
  int ok = status == nullptr;
  strata_status_free(status);
  return ok;
}

}  // extern "C"
