/*===- WindowTaps.h - the taps of a window that fall inside its input -----===//
 *
 * The convolution microkernels read their input unpadded and skip the taps
 * of a window that fall in the zero padding (SgemmDriver.h, DwconvDriver.h,
 * IdwconvDriver.h): which taps of one dimension those are, and which
 * outputs have all of theirs inside.
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

/* The outputs [*lo, *hi) of `outputs` along one dimension whose every tap
 * falls inside the input: from the first whose window starts at or after
 * 0 to the last whose window ends before `extent` (windows `stride`
 * apart, the first starting `pad` before the input, `taps` taps `step`
 * apart); *lo == *hi when none does. */
static inline void strataInteriorRange(int64_t pad, int64_t stride,
                                       int64_t taps, int64_t step,
                                       int64_t extent, int64_t outputs,
                                       int64_t *lo, int64_t *hi) {
  int64_t first = (pad + stride - 1) / stride;
  int64_t lastStart = extent - 1 - (taps - 1) * step + pad;
  int64_t end = lastStart < 0 ? 0 : lastStart / stride + 1;
  end = end < outputs ? end : outputs;
  *lo = first < end ? first : end;
  *hi = end;
}

#endif /* STRATA_UKERNEL_WINDOW_TAPS_H_ */
