/* sample_kernels.h - the query function of the statically linked build of
 * sample_kernels.c, for strata_hal_executable_register_static.
 *
 * C99 and C++.
 */
#ifndef STRATA_SAMPLES_EXECUTABLE_LIBRARY_SAMPLE_KERNELS_H_
#define STRATA_SAMPLES_EXECUTABLE_LIBRARY_SAMPLE_KERNELS_H_

#include "strata/hal/executable_library.h"

#ifdef __cplusplus
extern "C" {
#endif

/* sample_kernels.c built with
 * -DSAMPLE_KERNELS_QUERY_NAME=sample_kernels_library_query. */
const strata_hal_executable_library_header_t* const*
sample_kernels_library_query(
    uint32_t max_version,
    const strata_hal_executable_environment_v0_t* environment);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* STRATA_SAMPLES_EXECUTABLE_LIBRARY_SAMPLE_KERNELS_H_ */
