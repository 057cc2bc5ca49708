// embedding_fuzzer.cpp - libFuzzer target for the embedding API's argument
// checks (runtime.h): the bytes are a program of calls on a session of the
// HAL sample module (local-sync) - create a call by a fuzzed name, push
// scalars and buffer views of fuzzed element types, shapes and data
// lengths, invoke (with a deadline), read results of any index and kind,
// reset. Every call must return OK or a status with a message; nothing
// may crash, leak or hang.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "strata/runtime.h"

namespace {

struct Reader {
  const uint8_t* data;
  size_t size;
  size_t at = 0;
  bool more() const { return at < size; }
  uint8_t u8() { return at < size ? data[at++] : 0; }
  uint32_t u32() {
    uint32_t v = 0;
    for (int i = 0; i < 4; ++i) v |= uint32_t{u8()} << (8 * i);
    return v;
  }
  uint64_t u64() { return uint64_t{u32()} | uint64_t{u32()} << 32; }
  std::string text() {
    size_t length = u8() % 16;
    std::string out;
    for (size_t i = 0; i < length; ++i) out.push_back(static_cast<char>(u8()));
    return out;
  }
};

// OK, or a status that says something: freed either way.
void expectMessage(strata_status_t status) {
  if (!status) return;
  const char* message = strata_status_message(status);
  if (!message || !message[0]) __builtin_trap();
  strata_status_free(status);
}

struct Session {
  strata_runtime_instance_t* instance = nullptr;
  strata_runtime_session_t* session = nullptr;
};

Session& session() {
  static Session s = [] {
    Session made;
    strata_runtime_instance_options_t options;
    strata_runtime_instance_options_initialize(&options);
    options.device = "local-sync";
    if (strata_runtime_instance_create(&options, strata_allocator_system(),
                                       &made.instance) ||
        strata_runtime_session_create_from_file(
            made.instance, STRATA_FUZZ_HAL_SAMPLE_PATH, &made.session)) {
      std::fprintf(stderr, "embedding_fuzzer: cannot load %s\n",
                   STRATA_FUZZ_HAL_SAMPLE_PATH);
      std::abort();
    }
    return made;
  }();
  return s;
}

const strata_hal_element_type_t kTypes[] = {
    STRATA_HAL_ELEMENT_TYPE_FLOAT_32, STRATA_HAL_ELEMENT_TYPE_FLOAT_64,
    STRATA_HAL_ELEMENT_TYPE_FLOAT_16, STRATA_HAL_ELEMENT_TYPE_INT_32,
    STRATA_HAL_ELEMENT_TYPE_INT_8,    STRATA_HAL_ELEMENT_TYPE_BOOL_8,
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  Session& s = session();
  Reader in{data, size};
  strata_allocator_t allocator = strata_allocator_system();
  strata_runtime_call_t* call = nullptr;
  expectMessage(
      strata_runtime_call_create(s.session, "add", allocator, &call));
  for (int step = 0; step < 64 && in.more(); ++step) {
    uint8_t op = in.u8() % 10;
    if (op == 0) {
      std::string name = in.text();
      strata_runtime_call_t* other = nullptr;
      strata_status_t status = strata_runtime_call_create(
          s.session, name.c_str(), allocator, &other);
      if (!status) {
        strata_runtime_call_destroy(call);
        call = other;
      }
      expectMessage(status);
    } else if (op == 1) {
      expectMessage(strata_runtime_call_push_i32(call, (int32_t)in.u32()));
    } else if (op == 2) {
      expectMessage(strata_runtime_call_push_i64(call, (int64_t)in.u64()));
    } else if (op == 3) {
      expectMessage(strata_runtime_call_push_f32(call, (float)in.u32()));
    } else if (op == 4) {
      expectMessage(strata_runtime_call_push_f64(call, (double)in.u64()));
    } else if (op == 5) {
      uint8_t pick = in.u8();
      strata_hal_element_type_t type =
          pick < 200 ? kTypes[pick % (sizeof(kTypes) / sizeof(kTypes[0]))]
                     : static_cast<strata_hal_element_type_t>(in.u32());
      size_t rank = in.u8() % 7;
      int64_t shape[8];
      for (size_t i = 0; i < rank; ++i) {
        // Mostly small dims; sometimes anything (negative, huge).
        uint8_t d = in.u8();
        shape[i] = d < 240 ? d % 5 : static_cast<int64_t>(in.u64());
      }
      size_t length = in.u8() % 129;
      std::vector<uint8_t> bytes(length, 0x3F);
      strata_hal_buffer_view_t* view = nullptr;
      strata_status_t status = strata_runtime_buffer_view_from_host(
          type, shape, rank, length ? bytes.data() : nullptr, length,
          allocator, &view);
      if (!status) {
        char text[64];
        strata_runtime_buffer_view_format_type(view, text, sizeof(text));
        status = strata_runtime_call_push_buffer_view(call, view);
        strata_hal_buffer_view_release(view);
      }
      expectMessage(status);
    } else if (op == 6) {
      strata_runtime_call_set_deadline(call,
                                       strata_hal_deadline_after_ns(50000000));
      expectMessage(strata_runtime_call_invoke(call));
    } else if (op == 7) {
      size_t index = in.u8() % 4;
      switch (in.u8() % 5) {
        case 0: {
          int32_t v;
          expectMessage(strata_runtime_call_result_i32(call, index, &v));
          break;
        }
        case 1: {
          int64_t v;
          expectMessage(strata_runtime_call_result_i64(call, index, &v));
          break;
        }
        case 2: {
          float v;
          expectMessage(strata_runtime_call_result_f32(call, index, &v));
          break;
        }
        case 3: {
          double v;
          expectMessage(strata_runtime_call_result_f64(call, index, &v));
          break;
        }
        default: {
          strata_hal_buffer_view_t* view = nullptr;
          strata_status_t status =
              strata_runtime_call_result_buffer_view(call, index, &view);
          if (!status) {
            std::vector<uint8_t> out(in.u8());
            status = strata_runtime_buffer_view_to_host(
                view, out.data(), out.size());
            strata_hal_buffer_view_release(view);
          }
          expectMessage(status);
          break;
        }
      }
    } else if (op == 8) {
      strata_runtime_call_reset(call);
    } else {
      (void)strata_runtime_call_argument_kind(call, in.u8());
      (void)strata_runtime_call_result_kind(call, in.u8());
    }
  }
  strata_runtime_call_destroy(call);
  return 0;
}
