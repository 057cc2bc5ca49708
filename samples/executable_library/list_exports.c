/* list_exports.c - loads a kernel library through the public C API, from its
 * path and then from memory, and prints what it exports. The samples suite
 * runs it on sample_kernels.so; it exits 1 if either load fails or the two
 * disagree.
 *
 * Usage: list_exports LIBRARY.so
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "strata/hal/executable.h"

static int fail(const char* what, strata_status_t status) {
  char* text = strata_status_to_string(status);
  fprintf(stderr, "list_exports: %s: %s\n", what, text ? text : "?");
  free(text);
  strata_status_free(status);
  return 1;
}

/* Reads a whole file into a malloc()ed buffer. */
static uint8_t* read_file(const char* path, size_t* out_size) {
  FILE* file = fopen(path, "rb");
  uint8_t* bytes = NULL;
  long size;
  if (!file) {
    return NULL;
  }
  if (fseek(file, 0, SEEK_END) == 0 && (size = ftell(file)) > 0 &&
      fseek(file, 0, SEEK_SET) == 0) {
    bytes = (uint8_t*)malloc((size_t)size);
    if (bytes && fread(bytes, 1, (size_t)size, file) != (size_t)size) {
      free(bytes);
      bytes = NULL;
    }
    *out_size = (size_t)size;
  }
  fclose(file);
  return bytes;
}

static void print_exports(const strata_hal_executable_t* executable) {
  uint32_t count = strata_hal_executable_export_count(executable);
  uint32_t i;
  printf("library %s (%u exports)\n",
         strata_hal_executable_library_name(executable), (unsigned)count);
  for (i = 0; i < count; ++i) {
    const char* tag = strata_hal_executable_export_tag(executable, i);
    const strata_hal_executable_dispatch_attrs_v0_t* attrs =
        strata_hal_executable_export_attrs(executable, i);
    printf("  %u %-12s", (unsigned)i,
           strata_hal_executable_export_name(executable, i));
    if (attrs) {
      printf(" bindings=%u constants=%u workgroup=%ux%ux%u",
             (unsigned)attrs->binding_count, (unsigned)attrs->constant_count,
             (unsigned)attrs->workgroup_size_x,
             (unsigned)attrs->workgroup_size_y,
             (unsigned)attrs->workgroup_size_z);
    }
    printf("%s%s\n", tag ? " tag=" : "", tag ? tag : "");
  }
}

int main(int argc, char** argv) {
  strata_hal_executable_t* from_file = NULL;
  strata_hal_executable_t* from_memory = NULL;
  strata_status_t status;
  uint8_t* bytes;
  size_t size = 0;
  uint32_t i;
  int result = 0;
  if (argc != 2) {
    fprintf(stderr, "usage: list_exports LIBRARY.so\n");
    return 2;
  }
  status = strata_hal_executable_load_file(argv[1], strata_allocator_system(),
                                           &from_file);
  if (status) {
    return fail("load_file", status);
  }
  print_exports(from_file);

  bytes = read_file(argv[1], &size);
  if (!bytes) {
    fprintf(stderr, "list_exports: cannot read %s\n", argv[1]);
    strata_hal_executable_release(from_file);
    return 1;
  }
  status = strata_hal_executable_load_memory(
      bytes, size, "list_exports", strata_allocator_system(), &from_memory);
  free(bytes); /* the loaded library does not need the bytes */
  if (status) {
    strata_hal_executable_release(from_file);
    return fail("load_memory", status);
  }
  printf("loaded again from memory (%zu bytes)\n", size);
  if (strata_hal_executable_export_count(from_memory) !=
      strata_hal_executable_export_count(from_file)) {
    result = 1;
  }
  for (i = 0; !result && i < strata_hal_executable_export_count(from_file);
       ++i) {
    result = strcmp(strata_hal_executable_export_name(from_file, i),
                    strata_hal_executable_export_name(from_memory, i)) != 0;
  }
  if (result) {
    fprintf(stderr, "list_exports: the two loads disagree\n");
  }
  strata_hal_executable_release(from_memory);
  strata_hal_executable_release(from_file);
  return result;
}
