/* trace.h - a timeline of what the runtime did, written as Chrome trace
 * events (JSON, opens in Perfetto and chrome://tracing).
 *
 * Tracing is off unless a recorder is installed with strata_trace_install:
 * every recording site first reads one global pointer (relaxed) and does
 * nothing else when it is NULL, so the runtime pays one predictable branch
 * per site when tracing is off. While a recorder is installed, events are
 * appended under a mutex (allocating as needed); that cost is accepted only
 * when tracing was asked for.
 *
 * Tracks ("tid" in the file) are small integers: STRATA_TRACE_TRACK_HOST
 * for the thread that calls into the runtime, STRATA_TRACE_TRACK_QUEUE for
 * device submissions, and STRATA_TRACE_TRACK_WORKER0 + i for worker i of a
 * local-task pool. Thread-safe: any thread may record at any time. */
#ifndef STRATA_BASE_TRACE_H_
#define STRATA_BASE_TRACE_H_

#include <stdint.h>

#include "strata/base/allocator.h"
#include "strata/base/status.h"

#ifdef __cplusplus
extern "C" {
#endif

enum {
  STRATA_TRACE_TRACK_HOST = 1,
  STRATA_TRACE_TRACK_QUEUE = 2,
  STRATA_TRACE_TRACK_WORKER0 = 16,
};

typedef struct strata_trace_t strata_trace_t;

/* A recorder with no events. Events are allocated from allocator. */
strata_status_t strata_trace_create(strata_allocator_t allocator,
                                    strata_trace_t** out_trace);
/* Frees the recorder; it must not be installed. */
void strata_trace_destroy(strata_trace_t* trace);

/* Makes trace (borrowed; NULL: none) the recorder every site records into.
 * Uninstall (NULL) before destroying it, once nothing records any more. */
void strata_trace_install(strata_trace_t* trace);

/* The installed recorder (written only by strata_trace_install). */
extern strata_trace_t* strata_trace_global;

/* The installed recorder, or NULL when tracing is off: one relaxed load,
 * inline, since recording sites sit on hot paths (every VM call, every
 * dispatch). */
static inline strata_trace_t* strata_trace_installed(void) {
  return __atomic_load_n(&strata_trace_global, __ATOMIC_RELAXED);
}

/* CLOCK_MONOTONIC nanoseconds: what start_ns/end_ns are measured in. */
int64_t strata_trace_now_ns(void);

/* Records a complete event ("ph":"X") named name (copied) on track from
 * start_ns to end_ns. args_json (copied; NULL: none) is the body of its
 * "args" object without braces, e.g. "\"workgroups\":12". Does nothing when
 * trace is NULL. */
void strata_trace_record(strata_trace_t* trace, const char* category,
                         const char* name, uint32_t track, int64_t start_ns,
                         int64_t end_ns, const char* args_json);

/* The number of events recorded so far. */
uint64_t strata_trace_event_count(strata_trace_t* trace);

/* Writes every event so far to path as {"traceEvents": [...]}, with the
 * tracks named ("host", "queue", "worker 0"...). */
strata_status_t strata_trace_write_json(strata_trace_t* trace,
                                        const char* path);

#ifdef __cplusplus
}  // extern "C"
#endif

#endif /* STRATA_BASE_TRACE_H_ */
