/* endless_kernel.c - a kernel library whose one export never returns, for
 * the robustness tests of call deadlines (a call that dispatches it must
 * still end with DEADLINE_EXCEEDED, and the device then be lost).
 *
 * Export 0 "add_f32" has the bindings and constant of the sample add_f32
 * (samples/executable_library), so the HAL sample module dispatches it
 * unchanged; it never returns (it naps in a loop).
 */
#include "strata/hal/executable_library.h"

static volatile unsigned long spins;

/* Sleeps 20 ms through a raw system call (the library has no libc), so a
 * worker stuck here does not take a core from the rest of a test run. */
static void nap(void) {
  struct {
    long seconds;
    long nanoseconds;
  } request = {0, 20000000};
#if defined(__x86_64__)
  long result;
  __asm__ volatile("syscall"
                   : "=a"(result)
                   : "a"(35L /* nanosleep */), "D"(&request), "S"(0L)
                   : "rcx", "r11", "memory");
  (void)result;
#elif defined(__aarch64__)
  register long x8 __asm__("x8") = 101; /* nanosleep */
  register long x0 __asm__("x0") = (long)&request;
  register long x1 __asm__("x1") = 0;
  __asm__ volatile("svc 0" : "+r"(x0) : "r"(x8), "r"(x1) : "memory");
#else
  (void)request;
#endif
}

static int spin_forever(const strata_hal_executable_environment_v0_t* env,
                        const strata_hal_executable_dispatch_state_v0_t* state,
                        const strata_hal_executable_workgroup_state_v0_t* wg) {
  (void)env;
  (void)state;
  (void)wg;
  for (;;) {
    spins = spins + 1;
    nap();
  }
  return 0;
}

static const strata_hal_executable_dispatch_v0_t export_ptrs[] = {
    spin_forever};
static const char* const export_names[] = {"add_f32"};
static const char* const export_tags[] = {"robustness:endless"};
static const strata_hal_executable_dispatch_attrs_v0_t export_attrs[] = {
    {3, 1, 0, 64, 1, 1, 0}};

static const strata_hal_executable_library_header_t header = {
    STRATA_HAL_EXECUTABLE_LIBRARY_VERSION_0,
    STRATA_HAL_EXECUTABLE_LIBRARY_SANITIZER_BUILD, "endless_kernel", 0};

static const strata_hal_executable_library_v0_t library = {
    &header,
    {0, 0, 0},
    {1, 0, export_ptrs, export_names, export_tags, export_attrs},
};

__attribute__((visibility("default")))
const strata_hal_executable_library_header_t* const*
strata_hal_executable_library_query(
    uint32_t max_version,
    const strata_hal_executable_environment_v0_t* environment) {
  (void)max_version;
  (void)environment;
  return &library.header;
}
