// command_buffer_impl.h - the recorded command layout behind
// strata_hal_command_buffer_t, for the devices that execute it.
#ifndef STRATA_HAL_SRC_COMMAND_BUFFER_IMPL_H_
#define STRATA_HAL_SRC_COMMAND_BUFFER_IMPL_H_

#include <cstddef>
#include <cstdint>

#include "strata/hal/command_buffer.h"
#include "strata/hal/executable_library.h"

namespace strata::hal {

enum class CommandKind : uint8_t {
  kDispatch,
  kFill,
  kCopy,
  kBarrier,
};

// Every command starts with this header. Commands live in the command
// buffer's arena, linked in recording order, and are immutable once
// recorded, so several submissions of a REUSABLE command buffer may read
// them at once.
//
// Execution model: the commands between two barriers (or between a barrier
// and either end of a command buffer) form a batch. They are independent by
// contract, so a device may run them in any order or at the same time; a
// barrier waits for everything before it. Command buffers of one submission
// run one after the other, as if a barrier separated them.
struct Command {
  const Command* next;  // NULL after the last command
  CommandKind kind;
};

// A dispatch with everything resolved at record time: the function, the
// dispatch state handed to every workgroup (its constants, binding pointers
// and binding lengths point into this command's own trailing arrays) and
// the retained resources.
struct DispatchCommand {
  Command header;
  strata_hal_executable_t* executable;  // retained
  uint32_t ordinal;
  uint32_t local_memory_size;  // from the export's attrs (0: none)
  strata_hal_executable_dispatch_v0_t function;
  // Workgroups in the grid (x * y * z), at most kMaxWorkgroupCount; 0 makes
  // the dispatch a no-op.
  uint64_t workgroup_total;
  strata_hal_executable_dispatch_state_v0_t state;
  strata_hal_buffer_t** buffers;  // state.binding_count entries, retained
};

// Dispatch grids larger than this are refused at record time, so claiming
// workgroups with a 64-bit counter can never wrap.
constexpr uint64_t kMaxWorkgroupCount = uint64_t(1) << 40;

struct FillCommand {
  Command header;
  strata_hal_buffer_t* target;  // retained
  uint8_t* ptr;                 // resolved and range checked
  uint64_t length;
  uint32_t pattern;
  uint32_t pattern_size;  // 1, 2 or 4
};

struct CopyCommand {
  Command header;
  strata_hal_buffer_t* source;  // retained
  strata_hal_buffer_t* target;  // retained
  const uint8_t* source_ptr;    // resolved and range checked
  uint8_t* target_ptr;
  uint64_t length;
};

// First command, or NULL for an empty command buffer.
const Command* commandBufferFirst(const strata_hal_command_buffer_t* cb);

// The most dispatches (with at least one workgroup) between two barriers,
// or between a barrier and either end of cb: the dispatches local-task runs
// at once. Final once cb is finalized.
size_t commandBufferMaxBatchDispatches(const strata_hal_command_buffer_t* cb);

// Claims cb for one submission: FAILED_PRECONDITION when it is not
// finalized or is ONE_SHOT and was already submitted. Thread-safe.
strata_status_t commandBufferBeginSubmit(strata_hal_command_buffer_t* cb);
// Undoes a successful commandBufferBeginSubmit whose submission was then
// rejected, so a ONE_SHOT command buffer may be submitted again.
void commandBufferCancelSubmit(strata_hal_command_buffer_t* cb);

// Executes a fill or a copy; never fails (ranges were checked when
// recorded) and never allocates.
void executeFill(const FillCommand* command);
void executeCopy(const CopyCommand* command);

// Name of the export a dispatch calls and of its library, for messages.
const char* dispatchExportName(const DispatchCommand* command);
const char* dispatchLibraryName(const DispatchCommand* command);

}  // namespace strata::hal

#endif  // STRATA_HAL_SRC_COMMAND_BUFFER_IMPL_H_
