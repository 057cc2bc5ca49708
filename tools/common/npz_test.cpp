// npz_test.cpp - unit tests for the tools' .npz reader and writer: round
// trips, and every truncation and single-byte corruption of an archive
// failing (or parsing) without reading out of bounds.
#include <doctest/doctest.h>

#include <cstring>
#include <string>
#include <vector>

#include "npz.h"

namespace {

using namespace strata::tools;

HostTensor f32s(std::vector<int64_t> shape, std::vector<float> values) {
  HostTensor t;
  t.element_type = STRATA_HAL_ELEMENT_TYPE_FLOAT_32;
  t.shape = std::move(shape);
  t.data.resize(values.size() * 4);
  if (!values.empty()) {
    std::memcpy(t.data.data(), values.data(), t.data.size());
  }
  return t;
}

std::vector<uint8_t> archive(const std::vector<HostTensor>& tensors) {
  std::vector<uint8_t> out;
  std::string error;
  bool ok = writeNpz(tensors, &out, &error);
  INFO(error);
  REQUIRE(ok);
  return out;
}

TEST_CASE("npz: written archives read back in order") {
  std::vector<HostTensor> tensors = {f32s({3}, {1, 2, 3}), f32s({2, 1}, {4, 5}),
                                     f32s({0}, {})};
  std::vector<uint8_t> bytes = archive(tensors);
  CHECK(looksLikeNpz(bytes.data(), bytes.size()));
  std::vector<NpzArray> arrays;
  std::string error;
  REQUIRE(parseNpz(bytes.data(), bytes.size(), &arrays, &error));
  REQUIRE(arrays.size() == 3);
  for (size_t i = 0; i < arrays.size(); ++i) {
    CHECK(arrays[i].name == "arr_" + std::to_string(i));
    CHECK(arrays[i].tensor.shape == tensors[i].shape);
    CHECK(arrays[i].tensor.data == tensors[i].data);
  }
  // No arrays: just the end record, which still reads as an archive.
  bytes = archive({});
  CHECK(bytes.size() == 22);
  CHECK(looksLikeNpz(bytes.data(), bytes.size()));
  REQUIRE(parseNpz(bytes.data(), bytes.size(), &arrays, &error));
  CHECK(arrays.empty());
}

TEST_CASE("npz: a bf16 element has no .npy dtype") {
  HostTensor t = f32s({1}, {1});
  t.element_type = STRATA_HAL_ELEMENT_TYPE_BFLOAT_16;
  t.data.resize(2);
  std::vector<uint8_t> out;
  std::string error;
  CHECK_FALSE(writeNpz({f32s({1}, {1}), t}, &out, &error));
  CHECK(error.rfind("element 1: ", 0) == 0);
}

TEST_CASE("npz: every truncation and byte flip fails cleanly or parses") {
  std::vector<uint8_t> bytes = archive({f32s({2}, {1, 2}), f32s({1, 1}, {3})});
  std::vector<NpzArray> arrays;
  std::string error;
  for (size_t size = 0; size < bytes.size(); ++size) {
    // A copy of exactly `size` bytes, so any read past it is a heap error
    // under the sanitizers.
    std::vector<uint8_t> prefix(bytes.begin(), bytes.begin() + size);
    error.clear();
    bool ok = parseNpz(prefix.data(), prefix.size(), &arrays, &error);
    INFO("size ", size);
    CHECK_FALSE(ok);
    CHECK_FALSE(error.empty());
  }
  size_t parsed = 0;
  for (size_t at = 0; at < bytes.size(); ++at) {
    for (uint8_t flip : {0x01, 0x80, 0xFF}) {
      std::vector<uint8_t> copy = bytes;
      copy[at] ^= flip;
      error.clear();
      if (parseNpz(copy.data(), copy.size(), &arrays, &error)) {
        ++parsed;  // a flip in a field nothing checks (a date, a name)
      } else {
        INFO("byte ", at, " ^ ", int(flip));
        CHECK_FALSE(error.empty());
      }
    }
  }
  // The data and headers are covered by CRCs and signatures: most flips
  // fail.
  CHECK(parsed < bytes.size());
}

TEST_CASE("npz: errors name the member") {
  std::vector<uint8_t> bytes = archive({f32s({2}, {1, 2})});
  // Mark the member deflated (method 8) in the central directory.
  size_t central = 0;
  for (size_t i = 0; i + 4 <= bytes.size(); ++i) {
    if (bytes[i] == 0x50 && bytes[i + 1] == 0x4b && bytes[i + 2] == 0x01 &&
        bytes[i + 3] == 0x02) {
      central = i;
    }
  }
  REQUIRE(central > 0);
  bytes[central + 10] = 8;
  std::vector<NpzArray> arrays;
  std::string error;
  CHECK_FALSE(parseNpz(bytes.data(), bytes.size(), &arrays, &error));
  CHECK(error ==
        "member 'arr_0.npy' is compressed (numpy.savez_compressed); save it "
        "with numpy.savez");
}

}  // namespace
