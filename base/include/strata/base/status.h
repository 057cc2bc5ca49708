/* status.h - the pointer-sized status type used across the Strata runtime.
 *
 * A strata_status_t is NULL when OK. Any other value owns a heap record with a
 * code, a message and annotation lines (for example VM backtrace frames). The
 * receiver of a non-NULL status owns it and must pass it on, or free it with
 * strata_status_free. Statuses may move between threads; a single status is
 * not shared between threads.
 *
 * C99 and C++.
 */
#ifndef STRATA_BASE_STATUS_H_
#define STRATA_BASE_STATUS_H_

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum strata_status_code_e {
  STRATA_STATUS_OK = 0,
  STRATA_STATUS_CANCELLED = 1,
  STRATA_STATUS_UNKNOWN = 2,
  STRATA_STATUS_INVALID_ARGUMENT = 3,
  STRATA_STATUS_DEADLINE_EXCEEDED = 4,
  STRATA_STATUS_NOT_FOUND = 5,
  STRATA_STATUS_ALREADY_EXISTS = 6,
  STRATA_STATUS_PERMISSION_DENIED = 7,
  STRATA_STATUS_RESOURCE_EXHAUSTED = 8,
  STRATA_STATUS_FAILED_PRECONDITION = 9,
  STRATA_STATUS_ABORTED = 10,
  STRATA_STATUS_OUT_OF_RANGE = 11,
  STRATA_STATUS_UNIMPLEMENTED = 12,
  STRATA_STATUS_INTERNAL = 13,
  STRATA_STATUS_UNAVAILABLE = 14,
  STRATA_STATUS_DATA_LOSS = 15,
  /* Not an error: a native function asks the interpreter to suspend the
   * invocation and call it again on resume. Never escapes an invocation. */
  STRATA_STATUS_DEFERRED = 100,
} strata_status_code_t;

typedef struct strata_status_record_t* strata_status_t;

#define strata_ok_status() ((strata_status_t)NULL)

/* Creates a status with a printf-style message. code must not be OK. Never
 * fails: when memory is short the message is dropped, the code kept. */
strata_status_t strata_make_status(strata_status_code_t code, const char* format,
                                   ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
strata_status_t strata_make_status_v(strata_status_code_t code,
                                     const char* format, va_list args);

/* The shared, never-allocated status a native function returns to defer. */
strata_status_t strata_status_deferred(void);

/* Code of a status; OK for NULL. */
strata_status_code_t strata_status_code(strata_status_t status);
/* Message of a status; "" for NULL. Borrowed: valid until the status is freed
 * or annotated. */
const char* strata_status_message(strata_status_t status);
/* Number of annotation lines and the i-th one (borrowed). */
size_t strata_status_annotation_count(strata_status_t status);
const char* strata_status_annotation(strata_status_t status, size_t i);

/* Appends an annotation line ("at module.fn (file:3:7)") and returns the same
 * status (takes and gives back ownership). NULL in, NULL out. */
strata_status_t strata_status_annotate(strata_status_t status,
                                       const char* format, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* A new status with the same code, message and annotations (the caller owns
 * it); NULL for NULL, and statuses that are never freed (deferred, the
 * out-of-memory fallbacks) are returned as they are. Never fails: when memory
 * is short the copy may lose its message or annotations, never its code. */
strata_status_t strata_status_clone(strata_status_t status);

/* Formats "CODE_NAME: message" plus one indented line per annotation into a
 * new NUL-terminated string the caller frees with free(). */
char* strata_status_to_string(strata_status_t status);

/* Name of a code, e.g. "INVALID_ARGUMENT". */
const char* strata_status_code_name(strata_status_code_t code);

/* Frees a status. NULL and the deferred status are fine. */
void strata_status_free(strata_status_t status);

/* Frees the status and reports whether it was OK. */
int strata_status_consume_ok(strata_status_t status);

#define STRATA_RETURN_IF_ERROR(expr)         \
  do {                                       \
    strata_status_t strata_status__ = (expr); \
    if (strata_status__) {                   \
      return strata_status__;                \
    }                                        \
  } while (0)

#ifdef __cplusplus
}  // extern "C"
#endif

#endif /* STRATA_BASE_STATUS_H_ */
