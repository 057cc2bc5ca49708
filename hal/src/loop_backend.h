// loop_backend.h - the small interface between the loop's scheduler core
// (loop.cpp) and the event loop that drives it (loop_uv.cpp, or a fake in
// tests), so that the core has no libuv types and tests can drive it
// deterministically.
#ifndef STRATA_HAL_SRC_LOOP_BACKEND_H_
#define STRATA_HAL_SRC_LOOP_BACKEND_H_

#include <cstdint>

#include "strata/base/allocator.h"
#include "strata/base/status.h"
#include "strata/hal/loop.h"

namespace strata::hal {

// What the backend calls, always on the loop thread, from inside run().
class LoopHandler {
public:
  // After wake() was called (by any thread); several wakes may coalesce.
  virtual void onWake() = 0;
  // When the deadline given to setTimer has passed (possibly a little late,
  // possibly early by less than the backend's timer resolution).
  virtual void onTimer() = 0;
  // Once per iteration while setIdle(true) is in effect.
  virtual void onIdle() = 0;

protected:
  ~LoopHandler() = default;
};

enum class RunMode {
  kDefault,  // until nothing keeps the loop alive
  kOnce,     // one iteration, blocking for events if alive
  kNoWait,   // one iteration, never blocking
};

// The event loop under the core. Every method but wake() is called on the
// loop thread only.
class LoopBackend {
public:
  virtual ~LoopBackend() = default;
  // Thread-safe and cheap: makes the loop call onWake() soon.
  virtual void wake() = 0;
  // Arms the one timer for an absolute CLOCK_MONOTONIC deadline, replacing
  // any earlier setting; INT64_MAX disarms it.
  virtual void setTimer(int64_t deadline_ns) = 0;
  // While on, the loop does not block and calls onIdle() every iteration.
  virtual void setIdle(bool on) = 0;
  // While on, run(kDefault) keeps going (waiting for wakes and timers).
  virtual void setAlive(bool on) = 0;
  // Runs iterations; returns true while the loop is still alive.
  virtual bool run(RunMode mode) = 0;
  // The current CLOCK_MONOTONIC time (the core's clock for deadlines).
  virtual int64_t nowNs() = 0;
};

// The libuv backend (loop_uv.cpp), calling handler.
strata_status_t createUvLoopBackend(LoopHandler* handler,
                                    strata_allocator_t allocator,
                                    LoopBackend** out_backend);
// Frees a backend made by createUvLoopBackend (closes its handles).
void destroyUvLoopBackend(LoopBackend* backend);

// Creates a loop over a backend the caller makes from the handler it is
// given; the loop destroys it with destroy_backend. For tests.
using LoopBackendFactory = strata_status_t (*)(void* user, LoopHandler* handler,
                                               LoopBackend** out_backend);
strata_status_t createLoopWithBackend(strata_allocator_t allocator,
                                      LoopBackendFactory factory,
                                      void* factory_user,
                                      void (*destroy_backend)(LoopBackend*),
                                      strata_hal_loop_t** out_loop);

}  // namespace strata::hal

#endif  // STRATA_HAL_SRC_LOOP_BACKEND_H_
