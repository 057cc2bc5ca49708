/* sample_kernels.c - a hand-written kernel library for the executable_library.h
 * ABI v0: what strata-compile emits, written by hand in C99 with no libc.
 *
 * Built twice from this one source:
 *   sample_kernels.so  a shared module exporting only
 *                      strata_hal_executable_library_query (everything else
 *                      is hidden), loaded with load_file or load_memory;
 *   libsample_kernels_static.a  the same kernels with the query function
 *                      renamed by -DSAMPLE_KERNELS_QUERY_NAME to
 *                      sample_kernels_library_query (sample_kernels.h), for
 *                      the static registry.
 *
 * Exports (every binding holds f32 elements; a kernel whose bindings or
 * constants are missing, or whose bindings are too short for the sizes in its
 * constants, returns non-zero):
 *   0 add_f32     out[i] = a[i] + b[i]. Bindings a, b, out. Constant 0: the
 *                 element count n. Workgroup x covers the 64-element tile
 *                 [64x, min(64x + 64, n)); dispatch ceil(n / 64) x 1 x 1.
 *   1 mul_f32     out[i] = a[i] * b[i]; otherwise as add_f32.
 *   2 matmul_f32  C[MxN] = A[MxK] * B[KxN], row-major, naive. Bindings A, B,
 *                 C. Constants M, N, K. Workgroup (x, y) computes the 8x8
 *                 tile of C at rows [8x, 8x + 8) and columns [8y, 8y + 8),
 *                 clipped to M x N; dispatch ceil(M / 8) x ceil(N / 8) x 1.
 *   3 fail_always returns 1: a kernel that fails on purpose.
 */
#include "strata/hal/executable_library.h"

#ifndef SAMPLE_KERNELS_QUERY_NAME
#define SAMPLE_KERNELS_QUERY_NAME strata_hal_executable_library_query
#endif

#define SAMPLE_ELEMENTWISE_TILE 64u
#define SAMPLE_MATMUL_TILE 8u

typedef strata_hal_executable_environment_v0_t environment_t;
typedef strata_hal_executable_dispatch_state_v0_t dispatch_state_t;
typedef strata_hal_executable_workgroup_state_v0_t workgroup_state_t;

/* Whether binding i exists and holds at least count f32 elements. */
static int has_f32s(const dispatch_state_t* state, uint32_t i, uint64_t count) {
  return i < state->binding_count && state->binding_ptrs[i] &&
         count <= state->binding_lengths[i] / sizeof(float);
}

/* The element range [*begin, *end) of this workgroup, or non-zero when the
 * dispatch does not fit an element-wise kernel. */
static int elementwise_range(const dispatch_state_t* state,
                             const workgroup_state_t* workgroup,
                             uint32_t* begin, uint32_t* end) {
  uint32_t n;
  uint64_t first;
  if (state->constant_count < 1 || state->binding_count < 3) {
    return 2;
  }
  n = state->constants[0];
  if (!has_f32s(state, 0, n) || !has_f32s(state, 1, n) ||
      !has_f32s(state, 2, n)) {
    return 3;
  }
  first = (uint64_t)workgroup->workgroup_id_x * SAMPLE_ELEMENTWISE_TILE;
  if (first >= n) {
    *begin = *end = 0; /* a workgroup past the end does nothing */
    return 0;
  }
  *begin = (uint32_t)first;
  *end = n - *begin < SAMPLE_ELEMENTWISE_TILE
             ? n
             : *begin + SAMPLE_ELEMENTWISE_TILE;
  return 0;
}

static int add_f32(const environment_t* environment,
                   const dispatch_state_t* state,
                   const workgroup_state_t* workgroup) {
  uint32_t i, begin, end;
  const float* a;
  const float* b;
  float* out;
  int error = elementwise_range(state, workgroup, &begin, &end);
  (void)environment;
  if (error) {
    return error;
  }
  a = (const float*)state->binding_ptrs[0];
  b = (const float*)state->binding_ptrs[1];
  out = (float*)state->binding_ptrs[2];
  for (i = begin; i < end; ++i) {
    out[i] = a[i] + b[i];
  }
  return 0;
}

static int mul_f32(const environment_t* environment,
                   const dispatch_state_t* state,
                   const workgroup_state_t* workgroup) {
  uint32_t i, begin, end;
  const float* a;
  const float* b;
  float* out;
  int error = elementwise_range(state, workgroup, &begin, &end);
  (void)environment;
  if (error) {
    return error;
  }
  a = (const float*)state->binding_ptrs[0];
  b = (const float*)state->binding_ptrs[1];
  out = (float*)state->binding_ptrs[2];
  for (i = begin; i < end; ++i) {
    out[i] = a[i] * b[i];
  }
  return 0;
}

static int matmul_f32(const environment_t* environment,
                      const dispatch_state_t* state,
                      const workgroup_state_t* workgroup) {
  uint32_t m, n, k, row, col, row_end, col_end, i;
  const float* lhs;
  const float* rhs;
  float* out;
  (void)environment;
  if (state->constant_count < 3 || state->binding_count < 3) {
    return 2;
  }
  m = state->constants[0];
  n = state->constants[1];
  k = state->constants[2];
  if (!has_f32s(state, 0, (uint64_t)m * k) ||
      !has_f32s(state, 1, (uint64_t)k * n) ||
      !has_f32s(state, 2, (uint64_t)m * n)) {
    return 3;
  }
  lhs = (const float*)state->binding_ptrs[0];
  rhs = (const float*)state->binding_ptrs[1];
  out = (float*)state->binding_ptrs[2];
  if ((uint64_t)workgroup->workgroup_id_x * SAMPLE_MATMUL_TILE >= m ||
      (uint64_t)workgroup->workgroup_id_y * SAMPLE_MATMUL_TILE >= n) {
    return 0; /* a workgroup past the edge does nothing */
  }
  row = workgroup->workgroup_id_x * SAMPLE_MATMUL_TILE;
  col = workgroup->workgroup_id_y * SAMPLE_MATMUL_TILE;
  row_end = m - row < SAMPLE_MATMUL_TILE ? m : row + SAMPLE_MATMUL_TILE;
  col_end = n - col < SAMPLE_MATMUL_TILE ? n : col + SAMPLE_MATMUL_TILE;
  for (; row < row_end; ++row) {
    uint32_t c;
    for (c = col; c < col_end; ++c) {
      float sum = 0.0f;
      for (i = 0; i < k; ++i) {
        sum += lhs[(uint64_t)row * k + i] * rhs[(uint64_t)i * n + c];
      }
      out[(uint64_t)row * n + c] = sum;
    }
  }
  return 0;
}

static int fail_always(const environment_t* environment,
                       const dispatch_state_t* state,
                       const workgroup_state_t* workgroup) {
  (void)environment;
  (void)state;
  (void)workgroup;
  return 1;
}

static const strata_hal_executable_dispatch_v0_t export_ptrs[] = {
    add_f32,
    mul_f32,
    matmul_f32,
    fail_always,
};
static const char* const export_names[] = {
    "add_f32",
    "mul_f32",
    "matmul_f32",
    "fail_always",
};
static const char* const export_tags[] = {
    "sample:elementwise:tile64",
    "sample:elementwise:tile64",
    "sample:matmul:tile8x8",
    "sample:negative",
};
/* binding_count, constant_count, local_memory_size, workgroup size x/y/z */
static const strata_hal_executable_dispatch_attrs_v0_t export_attrs[] = {
    {3, 1, 0, SAMPLE_ELEMENTWISE_TILE, 1, 1, 0},
    {3, 1, 0, SAMPLE_ELEMENTWISE_TILE, 1, 1, 0},
    {3, 3, 0, SAMPLE_MATMUL_TILE, SAMPLE_MATMUL_TILE, 1, 0},
    {0, 0, 0, 0, 0, 0, 0},
};

static const strata_hal_executable_library_header_t header = {
    STRATA_HAL_EXECUTABLE_LIBRARY_VERSION_0,
    STRATA_HAL_EXECUTABLE_LIBRARY_SANITIZER_BUILD, "sample_kernels",
    0, /* no CPU features required */
};

static const strata_hal_executable_library_v0_t library = {
    &header,
    {0, 0, NULL}, /* no imports */
    {sizeof(export_ptrs) / sizeof(export_ptrs[0]), 0, export_ptrs, export_names,
     export_tags, export_attrs},
};

/* Version 0 is the only version, and every runtime supports it. */
__attribute__((visibility("default")))
const strata_hal_executable_library_header_t* const*
SAMPLE_KERNELS_QUERY_NAME(
    uint32_t max_version,
    const strata_hal_executable_environment_v0_t* environment) {
  (void)max_version;
  (void)environment;
  return &library.header;
}
