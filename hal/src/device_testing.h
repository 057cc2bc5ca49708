// device_testing.h - helpers shared by the device tests: status text, the
// device configurations, and owning wrappers for devices, fences, buffers
// and command buffers whose failures stop the test case (REQUIRE).
// Include after <doctest/doctest.h>.
#ifndef STRATA_HAL_SRC_DEVICE_TESTING_H_
#define STRATA_HAL_SRC_DEVICE_TESTING_H_

#include <cstdint>
#include <string>

#include "strata/hal/command_buffer.h"
#include "strata/hal/device.h"
#include "strata/hal/semaphore.h"

namespace strata::hal::device_testing {

// Every wait in the device tests gives up after this long, so a hang fails
// fast.
constexpr int64_t kTimeoutNs = 10ll * 1000 * 1000 * 1000;

// "OK", or the status as "CODE: message"; frees the status.
inline std::string consume(strata_status_t status) {
  if (!status) {
    return "OK";
  }
  std::string text = strata_status_code_name(strata_status_code(status));
  text += ": ";
  text += strata_status_message(status);
  strata_status_free(status);
  return text;
}

struct Config {
  const char* name;
  uint32_t workers;
  const char* label;
};
inline constexpr Config kConfigs[] = {
    {"local-sync", 0, "local-sync"},
    {"local-task", 1, "local-task x1"},
    {"local-task", 2, "local-task x2"},
};

struct Device {
  strata_hal_device_t* ptr = nullptr;
  explicit Device(const Config& config,
                  strata_allocator_t allocator = strata_allocator_system()) {
    strata_hal_device_options_t options = {config.name, config.workers};
    REQUIRE(consume(strata_hal_device_create(&options, allocator, &ptr)) ==
            "OK");
  }
  ~Device() { strata_hal_device_release(ptr); }
  Device(const Device&) = delete;
  Device& operator=(const Device&) = delete;
  operator strata_hal_device_t*() const { return ptr; }
};

struct Fence {
  strata_hal_fence_t* ptr = nullptr;
  Fence() {
    REQUIRE(consume(strata_hal_fence_create_pending(strata_allocator_system(),
                                                    &ptr)) == "OK");
  }
  ~Fence() { strata_hal_fence_release(ptr); }
  Fence(const Fence&) = delete;
  Fence& operator=(const Fence&) = delete;
  operator strata_hal_fence_t*() const { return ptr; }
  std::string wait() const {
    return consume(
        strata_hal_fence_wait(ptr, strata_hal_deadline_after_ns(kTimeoutNs)));
  }
  // "reached", "pending" or the failure.
  std::string state() const {
    int reached = 0;
    std::string text = consume(strata_hal_fence_query(ptr, &reached));
    return text != "OK" ? text : reached ? "reached" : "pending";
  }
};

struct Buffer {
  strata_hal_buffer_t* ptr = nullptr;
  explicit Buffer(uint64_t length) {
    REQUIRE(consume(strata_hal_buffer_allocate(strata_allocator_system(),
                                               length, &ptr)) == "OK");
  }
  ~Buffer() { strata_hal_buffer_release(ptr); }
  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;
  operator strata_hal_buffer_t*() const { return ptr; }
  template <typename T>
  T* data() const {
    uint8_t* bytes = nullptr;
    REQUIRE(consume(strata_hal_buffer_map(ptr, 0, strata_hal_buffer_length(ptr),
                                          &bytes)) == "OK");
    return reinterpret_cast<T*>(bytes);
  }
};

struct CommandBuffer {
  strata_hal_command_buffer_t* ptr = nullptr;
  explicit CommandBuffer(strata_hal_command_buffer_mode_t mode =
                             STRATA_HAL_COMMAND_BUFFER_MODE_REUSABLE) {
    REQUIRE(consume(strata_hal_command_buffer_create(
                mode, strata_allocator_system(), &ptr)) == "OK");
  }
  ~CommandBuffer() { strata_hal_command_buffer_release(ptr); }
  CommandBuffer(const CommandBuffer&) = delete;
  CommandBuffer& operator=(const CommandBuffer&) = delete;
  operator strata_hal_command_buffer_t*() const { return ptr; }
  void finalize() {
    REQUIRE(consume(strata_hal_command_buffer_finalize(ptr)) == "OK");
  }
};

// Queues cb on device between the fences (either may be NULL).
inline std::string execute(strata_hal_device_t* device,
                           strata_hal_fence_t* wait, strata_hal_fence_t* signal,
                           strata_hal_command_buffer_t* cb) {
  return consume(strata_hal_device_queue_execute(device, wait, signal, &cb, 1));
}

}  // namespace strata::hal::device_testing

#endif  // STRATA_HAL_SRC_DEVICE_TESTING_H_
