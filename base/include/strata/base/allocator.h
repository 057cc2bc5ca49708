/* allocator.h - the explicit allocator passed to every create function.
 *
 * An allocator is a small value (a context pointer and two functions) that is
 * copied freely. It must stay usable until everything made with it is freed.
 * The system allocator is thread-safe.
 *
 * C99 and C++.
 */
#ifndef STRATA_BASE_ALLOCATOR_H_
#define STRATA_BASE_ALLOCATOR_H_

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct strata_allocator_t {
  void* self;
  /* Returns size bytes aligned to alignment (a power of two), or NULL. */
  void* (*alloc)(void* self, size_t size, size_t alignment);
  /* Frees memory from alloc. NULL is fine. */
  void (*free)(void* self, void* ptr);
} strata_allocator_t;

/* malloc-backed allocator honouring any power-of-two alignment. */
strata_allocator_t strata_allocator_system(void);

static inline void* strata_allocator_alloc(strata_allocator_t allocator,
                                           size_t size, size_t alignment) {
  return allocator.alloc(allocator.self, size, alignment);
}
static inline void strata_allocator_free(strata_allocator_t allocator,
                                         void* ptr) {
  allocator.free(allocator.self, ptr);
}

#ifdef __cplusplus
}  // extern "C"
#endif

#endif /* STRATA_BASE_ALLOCATOR_H_ */
