/*===- WindowTaps.h - the taps of a window that fall inside its input -----===//
 *
 * The convolution microkernels read their input unpadded and skip the taps
 * of a window that fall in the zero padding (SgemmDriver.h, DwconvDriver.h,
 * IdwconvDriver.h): which taps of one dimension those are.
 *===----------------------------------------------------------------------===*/
#ifndef STRATA_UKERNEL_WINDOW_TAPS_H_
#define STRATA_UKERNEL_WINDOW_TAPS_H_

#include <stdint.h>

/* The taps [*lo, *hi) of `taps` taps `step` apart, the first at `start`
 * (a padded coordinate minus the padding: negative before the input),
 * that fall inside [0, extent); *lo == *hi when none does. */
static inline void strataTapRange(int64_t start, int64_t taps, int64_t step,
                                  int64_t extent, int64_t *lo, int64_t *hi) {
  int64_t l = start < 0 ? (-start + step - 1) / step : 0;
  int64_t h = 0;
  if (start < extent) {
    h = (extent - 1 - start) / step + 1;
    h = h < taps ? h : taps;
  }
  *lo = l < h ? l : h;
  *hi = h;
}

#endif /* STRATA_UKERNEL_WINDOW_TAPS_H_ */
