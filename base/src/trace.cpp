// trace.cpp - the trace recorder: events under a mutex, one global pointer
// that recording sites test, and the Chrome trace JSON writer.
#include "strata/base/trace.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <mutex>
#include <new>
#include <set>
#include <string>
#include <vector>

namespace {

struct Event {
  std::string category;
  std::string name;
  std::string args;
  uint32_t track;
  int64_t start_ns;
  int64_t end_ns;
};

// JSON string contents: quotes, backslashes and control characters escaped.
void appendEscaped(std::string* out, const std::string& text) {
  for (unsigned char c : text) {
    if (c == '"' || c == '\\') {
      out->push_back('\\');
      out->push_back(static_cast<char>(c));
    } else if (c < 0x20) {
      char buffer[8];
      std::snprintf(buffer, sizeof(buffer), "\\u%04x", c);
      out->append(buffer);
    } else {
      out->push_back(static_cast<char>(c));
    }
  }
}

std::string trackName(uint32_t track) {
  if (track == STRATA_TRACE_TRACK_HOST) {
    return "host";
  }
  if (track == STRATA_TRACE_TRACK_QUEUE) {
    return "queue";
  }
  if (track >= STRATA_TRACE_TRACK_WORKER0) {
    return "worker " + std::to_string(track - STRATA_TRACE_TRACK_WORKER0);
  }
  return "track " + std::to_string(track);
}

}  // namespace

struct strata_trace_t {
  strata_allocator_t allocator;
  std::mutex mutex;
  std::vector<Event> events;
};

extern "C" {

strata_status_t strata_trace_create(strata_allocator_t allocator,
                                    strata_trace_t** out_trace) {
  *out_trace = nullptr;
  void* memory = strata_allocator_alloc(allocator, sizeof(strata_trace_t),
                                        alignof(strata_trace_t));
  if (!memory) {
    return strata_make_status(STRATA_STATUS_RESOURCE_EXHAUSTED,
                              "out of memory creating a trace recorder");
  }
  auto* trace = new (memory) strata_trace_t();
  trace->allocator = allocator;
  *out_trace = trace;
  return nullptr;
}

void strata_trace_destroy(strata_trace_t* trace) {
  if (!trace) {
    return;
  }
  strata_allocator_t allocator = trace->allocator;
  trace->~strata_trace_t();
  strata_allocator_free(allocator, trace);
}

strata_trace_t* strata_trace_global = nullptr;

void strata_trace_install(strata_trace_t* trace) {
  __atomic_store_n(&strata_trace_global, trace, __ATOMIC_RELEASE);
}

int64_t strata_trace_now_ns(void) {
  timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);
  return static_cast<int64_t>(now.tv_sec) * 1000000000 + now.tv_nsec;
}

void strata_trace_record(strata_trace_t* trace, const char* category,
                         const char* name, uint32_t track, int64_t start_ns,
                         int64_t end_ns, const char* args_json) {
  if (!trace) {
    return;
  }
  Event event{category ? category : "", name ? name : "",
              args_json ? args_json : "", track, start_ns, end_ns};
  std::lock_guard<std::mutex> lock(trace->mutex);
  trace->events.push_back(std::move(event));
}

uint64_t strata_trace_event_count(strata_trace_t* trace) {
  std::lock_guard<std::mutex> lock(trace->mutex);
  return trace->events.size();
}

strata_status_t strata_trace_write_json(strata_trace_t* trace,
                                        const char* path) {
  std::string text = "{\"traceEvents\": [\n";
  std::set<uint32_t> tracks;
  {
    std::lock_guard<std::mutex> lock(trace->mutex);
    int64_t origin = INT64_MAX;
    for (const Event& event : trace->events) {
      origin = event.start_ns < origin ? event.start_ns : origin;
    }
    for (const Event& event : trace->events) {
      tracks.insert(event.track);
      char times[96];
      // Microseconds from the first event, with nanosecond precision.
      std::snprintf(times, sizeof(times),
                    "\"ts\": %.3f, \"dur\": %.3f, \"pid\": 1, \"tid\": %u",
                    static_cast<double>(event.start_ns - origin) / 1000.0,
                    static_cast<double>(event.end_ns - event.start_ns) /
                        1000.0,
                    event.track);
      text += "{\"ph\": \"X\", \"cat\": \"";
      appendEscaped(&text, event.category);
      text += "\", \"name\": \"";
      appendEscaped(&text, event.name);
      text += "\", ";
      text += times;
      text += ", \"args\": {" + event.args + "}},\n";
    }
  }
  text += "{\"ph\": \"M\", \"name\": \"process_name\", \"pid\": 1, "
          "\"args\": {\"name\": \"strata\"}}";
  for (uint32_t track : tracks) {
    text += ",\n{\"ph\": \"M\", \"name\": \"thread_name\", \"pid\": 1, "
            "\"tid\": " +
            std::to_string(track) + ", \"args\": {\"name\": \"" +
            trackName(track) + "\"}}";
  }
  text += "\n]}\n";
  FILE* file = std::fopen(path, "wb");
  if (!file) {
    return strata_make_status(STRATA_STATUS_NOT_FOUND,
                              "cannot write the trace to '%s': %s", path,
                              std::strerror(errno));
  }
  size_t written = std::fwrite(text.data(), 1, text.size(), file);
  int closed = std::fclose(file);
  if (written != text.size() || closed != 0) {
    return strata_make_status(STRATA_STATUS_DATA_LOSS,
                              "writing the trace to '%s' failed", path);
  }
  return nullptr;
}

}  // extern "C"
