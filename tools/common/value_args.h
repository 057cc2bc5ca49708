// value_args.h - the argument values strata-run and strata-benchmark build
// from --input flags (cli.h's RunFlags): a tensor from one flag; a list (an
// ONNX sequence or optional, recorded "list<E>" / "optional<E>") from
// "list:N" and the N flags after it, from one @FILE.npz, or "none"; and the
// helpers around them (bf16 as f32 data, flag descriptions).
//
// For tools: uses the STL freely and is thread-compatible.
#ifndef STRATA_TOOLS_COMMON_VALUE_ARGS_H_
#define STRATA_TOOLS_COMMON_VALUE_ARGS_H_

#include <cstddef>
#include <string>
#include <vector>

#include "host_tensor.h"
#include "strata/base/allocator.h"
#include "strata/base/status.h"
#include "strata/vm/ref.h"

namespace strata::tools {

// "--input #2 ('2x3xf32=1 2 3')", long values shortened.
std::string describeFlag(const char* flag, size_t index,
                         const std::string& text);

// Rewrites tensor's f32 elements as bf16 (rounded to nearest even) or its
// bf16 elements as f32 (exact): a bf16 argument takes f32 data (numpy has
// no bf16), and a bf16 result is written as f32.
void convertBFloat(HostTensor* tensor, bool to_bfloat);

// True when an --input carries its own type: a file, "TYPE=VALUES", or a
// type name without values. IREE's untyped values ("1", "1 2 3") take the
// argument's recorded type.
bool isTyped(const std::string& text);

bool endsWith(const std::string& text, const char* suffix);

// "a list<?xf32>", "an optional<4xf32>", "a 4xf32 tensor".
std::string describeRecorded(const std::string& want);

// Builds argument values from inputs[*next...], advancing *next.
struct InputReader {
  const std::vector<std::string>& inputs;
  strata_allocator_t allocator;
  size_t* next;

  // The value recorded as `want` ("" when nothing is recorded) for `what`
  // ("argument 0 of m.main"); *out is owned. Returns the error (naming the
  // flag), or "".
  std::string ref(const std::string& want, const std::string& what,
                  strata_vm_ref_object_t** out);

  // A buffer view of tensor for a value recorded as `want` (a tensor type
  // or ""): a bf16 one takes f32 data, a signless integer one unsigned
  // data of its width.
  std::string tensorRef(const std::string& want, const std::string& what,
                        const std::string& where, HostTensor* tensor,
                        strata_vm_ref_object_t** out);

  static std::string statusError(const std::string& where,
                                 strata_status_t status);
};

}  // namespace strata::tools

#endif  // STRATA_TOOLS_COMMON_VALUE_ARGS_H_
