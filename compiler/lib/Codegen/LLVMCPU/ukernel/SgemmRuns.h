/*===- SgemmRuns.h - where a microkernel tile's depth lies in A ----------===//
 *
 * The depth of one microkernel call, [0, kc), split into runs that are
 * contiguous in each row of A: run r covers length[r] depth steps starting
 * offset[r] floats from the row's start (rows lda apart). Packed A and a
 * matrix read in place are one run; a convolution read in place has a run
 * per window row (or per tap when the pixels are not dense), each row of A
 * being an output pixel (SgemmDriver.h).
 *===----------------------------------------------------------------------===*/
#ifndef STRATA_UKERNEL_SGEMM_RUNS_H_
#define STRATA_UKERNEL_SGEMM_RUNS_H_

#include <stdint.h>

struct ARuns {
  int64_t count;
  const int64_t *offset;
  const int64_t *length;
};

#endif /* STRATA_UKERNEL_SGEMM_RUNS_H_ */
