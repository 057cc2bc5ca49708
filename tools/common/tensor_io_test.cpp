// tensor_io_test.cpp - unit tests for the tools' tensor text grammar,
// printing, half conversion, comparison, .npy files and buffer views.
#include <doctest/doctest.h>

#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "npy.h"
#include "tensor_io.h"

namespace {

using namespace strata::tools;

HostTensor parse(const std::string& text) {
  HostTensor t;
  std::string error;
  bool ok = parseTensorText(text, &t, &error);
  INFO(text, ": ", error);
  CHECK(ok);
  return t;
}

std::string parseError(const std::string& text) {
  HostTensor t;
  std::string error;
  CHECK_FALSE(parseTensorText(text, &t, &error));
  return error;
}

std::string roundTrip(const std::string& text) {
  return formatTensor(parse(text), 1024);
}

template <typename T> std::vector<T> elements(const HostTensor& t) {
  std::vector<T> out(t.data.size() / sizeof(T));
  std::memcpy(out.data(), t.data.data(), t.data.size());
  return out;
}

std::vector<uint8_t> bytes(const std::string& s) {
  return std::vector<uint8_t>(s.begin(), s.end());
}

// An .npy v1.0 image with the given header dict and data.
std::vector<uint8_t> npyImage(const std::string& dict,
                              const std::vector<uint8_t>& data) {
  std::string header = dict;
  while ((10 + header.size() + 1) % 64) {
    header += ' ';
  }
  header += '\n';
  std::vector<uint8_t> out = bytes(std::string("\x93NUMPY\x01\x00", 8));
  out.push_back(static_cast<uint8_t>(header.size()));
  out.push_back(static_cast<uint8_t>(header.size() >> 8));
  out.insert(out.end(), header.begin(), header.end());
  out.insert(out.end(), data.begin(), data.end());
  return out;
}

std::string npyError(const std::vector<uint8_t>& file) {
  HostTensor t;
  std::string error;
  CHECK_FALSE(parseNpy(file.data(), file.size(), &t, &error));
  return error;
}

TEST_SUITE("tools.tensor_io") {
  TEST_CASE("parses a 2x3xf32 tensor with spaces, commas and brackets") {
    for (const char* text :
         {"2x3xf32=1 2 3 4 5 6", "2x3xf32=1,2,3,4,5,6",
          "2x3xf32=[1 2 3][4 5 6]", "2x3xf32=[[1, 2, 3], [4, 5, 6]]",
          " 2x3xf32 =  1\t2 3 4 5 6 "}) {
      HostTensor t = parse(text);
      CHECK(t.element_type == STRATA_HAL_ELEMENT_TYPE_FLOAT_32);
      CHECK(t.shape == std::vector<int64_t>{2, 3});
      CHECK(elements<float>(t) == std::vector<float>{1, 2, 3, 4, 5, 6});
    }
  }

  TEST_CASE("a single value splats and no dims is a 0-d tensor") {
    HostTensor t = parse("2x2xi32=7");
    CHECK(elements<int32_t>(t) == std::vector<int32_t>{7, 7, 7, 7});
    HostTensor scalar = parse("f64=2.5");
    CHECK(scalar.shape.empty());
    CHECK(elements<double>(scalar) == std::vector<double>{2.5});
    HostTensor empty = parse("0x3xf32=");
    CHECK(empty.shape == std::vector<int64_t>{0, 3});
    CHECK(empty.data.empty());
    CHECK(isScalarText("i32=5"));
    CHECK_FALSE(isScalarText("4xi32=5"));
    CHECK_FALSE(isScalarText("@x.npy"));
  }

  TEST_CASE("integer types store their width and accept their range") {
    CHECK(elements<int8_t>(parse("4xi8=-128 255 0x7f -1")) ==
          std::vector<int8_t>{-128, -1, 127, -1});
    CHECK(elements<int8_t>(parse("2xsi8=-128 127")) ==
          std::vector<int8_t>{-128, 127});
    CHECK(elements<uint16_t>(parse("2xui16=0 65535")) ==
          std::vector<uint16_t>{0, 65535});
    CHECK(elements<int64_t>(parse("2xi64=-9223372036854775808 "
                                  "0xFFFFFFFFFFFFFFFF")) ==
          std::vector<int64_t>{INT64_MIN, -1});
    CHECK(elements<uint64_t>(parse("ui64=18446744073709551615")) ==
          std::vector<uint64_t>{UINT64_MAX});
    CHECK(elements<uint8_t>(parse("4xi1=1 0 true false")) ==
          std::vector<uint8_t>{1, 0, 1, 0});
    CHECK(parse("4xi1=1").elementSize() == 1);
  }

  TEST_CASE("values out of range name the value, element and type") {
    CHECK(parseError("2xi8=1 256") ==
          "value '256' (element 1) is out of range for i8");
    CHECK(parseError("si8=128") == "value '128' is out of range for si8");
    CHECK(parseError("si8=-129") == "value '-129' is out of range for si8");
    CHECK(parseError("ui8=-1") == "value '-1' is out of range for ui8");
    CHECK(parseError("i1=2") == "value '2' is out of range for i1");
    CHECK(parseError("ui64=18446744073709551616") ==
          "value '18446744073709551616' is out of range for ui64");
    CHECK(parseError("f32=1e39") == "value '1e39' is out of range for f32");
    CHECK(parseError("f16=65520") == "value '65520' is out of range for f16");
    CHECK(parseError("f64=1e309") == "value '1e309' is out of range for f64");
    CHECK(elements<uint16_t>(parse("f16=65519")) ==
          std::vector<uint16_t>{0x7BFF});
  }

  TEST_CASE("malformed text gets a distinct message for each problem") {
    CHECK(parseError("2x3xf32=1 2 3") == "expected 6 elements, got 3");
    CHECK(parseError("2x3xf32=") == "expected 6 elements, got 0");
    CHECK(parseError("f32=1 2") == "expected 1 element, got 2");
    CHECK(parseError("2x3xf31=1").rfind("unknown element type 'f31'", 0) == 0);
    CHECK(parseError("2xx3xf32=1") ==
          "malformed shape '2xx3': dims are non-negative integers separated "
          "by 'x'");
    CHECK(parseError("-2x3xf32=1").rfind("malformed shape '-2x3'", 0) == 0);
    CHECK(parseError("2x3x=1") == "missing element type before '='");
    CHECK(parseError("2x3xf32").rfind("expected SHAPExTYPE=VALUES", 0) == 0);
    CHECK(parseError("3xi32=1 x 3") ==
          "value 'x' (element 1) is not a valid i32");
    CHECK(parseError("f32=1.5.2") == "value '1.5.2' is not a valid f32");
    CHECK(parseError("100000x100000x1000xf32=0").find("too large") !=
          std::string::npos);
    CHECK(parseError("1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1xf32=0") ==
          "rank 17 exceeds the maximum of 16");
  }

  TEST_CASE("prints IREE-style with one bracket level per outer dim") {
    CHECK(roundTrip("2x3xf32=1 2 3 4 5 6") == "2x3xf32=[1 2 3][4 5 6]");
    CHECK(roundTrip("3xi8=-1 0 1") == "3xi8=-1 0 1");
    CHECK(roundTrip("2x2x2xi32=1 2 3 4 5 6 7 8") ==
          "2x2x2xi32=[[1 2][3 4]][[5 6][7 8]]");
    CHECK(roundTrip("f32=0.1") == "f32=0.1");
    CHECK(roundTrip("0x3xf32=") == "0x3xf32=");
    CHECK(roundTrip("2x0xf32=") == "2x0xf32=[][]");
    CHECK(roundTrip("2xui8=255 0") == "2xui8=255 0");
    CHECK(roundTrip("2xi8=255 0") == "2xi8=-1 0");
    CHECK(roundTrip("3xi1=true 0 1") == "3xi1=1 0 1");
    CHECK(roundTrip("3xf16=0.1 65504 -2.5") == "3xf16=0.1 65504 -2.5");
    // Integral halves print as digits, not in the exponent form of %g.
    CHECK(roundTrip("4xf16=20 -30 0 1000") == "4xf16=20 -30 0 1000");
    CHECK(roundTrip("2xf64=0.1 1e300") == "2xf64=0.1 1e+300");
    CHECK(roundTrip("3xf32=nan inf -inf") == "3xf32=nan inf -inf");
    // Printed text reads back.
    std::string printed = roundTrip("2x2x2xf32=1.5 2 3 4 5 6 7 8");
    CHECK(roundTrip(printed) == printed);
  }

  TEST_CASE("printing stops after max_elements") {
    HostTensor t = parse("2x3xi32=1 2 3 4 5 6");
    CHECK(formatTensor(t, 4) == "2x3xi32=[1 2 3][4 ...");
    CHECK(formatTensor(t, 3) == "2x3xi32=[1 2 3][...");
    CHECK(formatTensor(t, 0) == "2x3xi32=[...");
    CHECK(formatTensor(parse("4xi32=1 2 3 4"), 2) == "4xi32=1 2 ...");
  }

  TEST_CASE("half conversion rounds to nearest even") {
    CHECK(halfFromDouble(1.0) == 0x3C00);
    CHECK(halfFromDouble(-2.0) == 0xC000);
    CHECK(halfFromDouble(0.1) == 0x2E66);
    CHECK(halfFromDouble(65504.0) == 0x7BFF);
    CHECK(halfFromDouble(65519.99) == 0x7BFF);
    CHECK(halfFromDouble(65520.0) == 0x7C00);
    CHECK(halfFromDouble(-1e10) == 0xFC00);
    CHECK(halfFromDouble(0x1p-24) == 0x0001);
    CHECK(halfFromDouble(0x1p-25) == 0x0000);          // tie to even (0)
    CHECK(halfFromDouble(0x1.8p-24) == 0x0002);        // tie to even (2)
    CHECK(halfFromDouble(1.0 + 0x1p-11) == 0x3C00);    // tie to even
    CHECK(halfFromDouble(1.0 + 0x1.8p-10) == 0x3C02);  // tie up to even
    CHECK(halfFromDouble(0x1.ffcp-15) == 0x0400);      // carries to normal
    CHECK(halfFromDouble(-0.0) == 0x8000);
    CHECK((halfFromDouble(NAN) & 0x7C00) == 0x7C00);
    CHECK((halfFromDouble(NAN) & 0x03FF) != 0);
    CHECK(halfToFloat(0x7BFF) == 65504.0f);
    CHECK(halfToFloat(0x0001) == 0x1p-24f);
    CHECK(std::isinf(halfToFloat(0xFC00)));
    CHECK(std::isnan(halfToFloat(0x7E00)));
  }

  TEST_CASE("every half survives conversion and printing") {
    int failures = 0;
    for (uint32_t bits = 0; bits <= 0xFFFF; ++bits) {
      uint16_t h = static_cast<uint16_t>(bits);
      float f = halfToFloat(h);
      if (std::isnan(f)) {
        continue;
      }
      HostTensor t;
      t.element_type = STRATA_HAL_ELEMENT_TYPE_FLOAT_16;
      t.data = {static_cast<uint8_t>(h), static_cast<uint8_t>(h >> 8)};
      HostTensor back;
      std::string error;
      if (halfFromDouble(f) != h ||
          !parseTensorText(formatTensor(t, 1), &back, &error) ||
          back.data != t.data) {
        ++failures;
      }
    }
    CHECK(failures == 0);
  }

  TEST_CASE("comparison is exact for ints and thresholded for floats") {
    CompareThresholds thresholds;
    std::string why;
    CHECK(compareTensors(parse("2x2xi32=1 2 3 4"), parse("2x2xi32=[1 2][3 4]"),
                         thresholds, &why));
    CHECK_FALSE(compareTensors(parse("2x3xi32=1 2 3 4 5 6"),
                               parse("2x3xi32=1 2 3 4 5 7"), thresholds, &why));
    CHECK(why == "element [1, 2] is 7, expected 6");
    CHECK(compareTensors(parse("2xf32=1 nan"), parse("2xf32=1.00005 nan"),
                         thresholds, &why));
    CHECK_FALSE(compareTensors(parse("2xf32=1 2.25"), parse("2xf32=1 2.5"),
                               thresholds, &why));
    CHECK(why == "element [1] is 2.5, expected 2.25 (|difference| 0.25 > "
                 "0.0001)");
    CHECK_FALSE(
        compareTensors(parse("f32=1"), parse("f32=nan"), thresholds, &why));
    CHECK(why == "is nan, expected 1");
    CHECK(compareTensors(parse("f32=inf"), parse("f32=inf"), thresholds, &why));
    CHECK_FALSE(
        compareTensors(parse("f32=inf"), parse("f32=-inf"), thresholds, &why));
    thresholds.f16 = 0.01;
    CHECK(compareTensors(parse("f16=1"), parse("f16=1.005"), thresholds, &why));
    thresholds.f64 = 0;
    CHECK_FALSE(compareTensors(parse("f64=1"), parse("f64=1.0000001"),
                               thresholds, &why));
    CHECK_FALSE(compareTensors(parse("2x3xf32=0"), parse("3x2xf32=0"),
                               thresholds, &why));
    CHECK(why == "is 3x2xf32, expected 2x3xf32");
    CHECK_FALSE(
        compareTensors(parse("2xi32=0"), parse("2xf32=0"), thresholds, &why));
    CHECK(why == "is 2xf32, expected 2xi32");
    CHECK(formatIndex({2, 3, 4}, 23) == "[1, 2, 3]");
  }

  TEST_CASE("scalars convert to and from 0-d tensors") {
    HostTensor t;
    REQUIRE(tensorFromScalar(strata_vm_variant_i32(-5), &t));
    CHECK(formatTensor(t, 1) == "i32=-5");
    REQUIRE(tensorFromScalar(strata_vm_variant_f64(0.5), &t));
    CHECK(formatTensor(t, 1) == "f64=0.5");
    strata_vm_variant_t v;
    REQUIRE(scalarFromTensor(parse("f32=2.5"), &v));
    CHECK(v.type == STRATA_VM_VALUE_F32);
    CHECK(v.value.f32 == 2.5f);
    REQUIRE(scalarFromTensor(parse("i64=-3"), &v));
    CHECK(v.value.i64 == -3);
    CHECK_FALSE(scalarFromTensor(parse("i8=1"), &v));
    CHECK_FALSE(scalarFromTensor(parse("1xi32=1"), &v));
  }

  TEST_CASE("npy files round trip every element type, 64-byte aligned") {
    for (const char* text :
         {"2x3xf32=1 2 3 4 5 6", "4xi1=1 0 0 1", "3xi8=-1 2 3", "2xsi16=-7 7",
          "2xi32=1 -1", "i64=-9", "2xui8=255 1", "2xui16=65535 2",
          "ui32=4000000000", "ui64=1", "2x2xf16=0.5 1 2 3", "f64=0.1",
          "0x2xf32=", "1x1x1x1xi32=42"}) {
      HostTensor t = parse(text);
      std::vector<uint8_t> file;
      std::string error;
      REQUIRE(writeNpy(t, &file, &error));
      CHECK(file.size() % 64 == t.data.size() % 64);
      CHECK((file.size() - t.data.size()) % 64 == 0);
      CHECK(file[file.size() - t.data.size() - 1] == '\n');
      HostTensor back;
      INFO(text);
      REQUIRE(parseNpy(file.data(), file.size(), &back, &error));
      CHECK(back.shape == t.shape);
      CHECK(back.data == t.data);
      // si16 reads back as i16: .npy has no signless/signed distinction.
      if (std::string(text).find("si16") == std::string::npos) {
        CHECK(back.element_type == t.element_type);
      }
    }
  }

  TEST_CASE("npy headers are written as numpy writes them") {
    std::vector<uint8_t> file;
    std::string error;
    REQUIRE(writeNpy(parse("2x3xf32=0"), &file, &error));
    // 10-byte preamble plus a 118-byte header: the data starts at 128.
    REQUIRE(file.size() == 128 + 24);
    std::string header(file.begin(), file.begin() + 128);
    CHECK(header.substr(0, 10) == std::string("\x93NUMPY\x01\x00\x76\x00", 10));
    CHECK(header.substr(10, 59) ==
          "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }");
    CHECK(header.find_first_not_of(' ', 69) == 127);
    CHECK(header[127] == '\n');
    auto headerOf = [&](const std::string& text) {
      REQUIRE(writeNpy(parse(text), &file, &error));
      return std::string(file.begin() + 10, file.begin() + 128);
    };
    CHECK(headerOf("3xi1=1").find("'descr': '|b1'") != std::string::npos);
    CHECK(headerOf("3xi1=1").find("'shape': (3,)") != std::string::npos);
    CHECK(headerOf("f16=1").find("'descr': '<f2'") != std::string::npos);
    CHECK(headerOf("f16=1").find("'shape': ()") != std::string::npos);
    CHECK(npyDescr(STRATA_HAL_ELEMENT_TYPE_UINT_16) == "<u2");
    CHECK(npyDescr(STRATA_HAL_ELEMENT_TYPE_INT_8) == "|i1");
    CHECK(npyDescr(STRATA_HAL_ELEMENT_TYPE_SINT_64) == "<i8");
    CHECK(npyDescr(STRATA_HAL_ELEMENT_TYPE_NONE).empty());
  }

  TEST_CASE("npy reading accepts numpy's variations") {
    HostTensor t;
    std::string error;
    // Double quotes, other key order, no trailing comma, version 2.0.
    std::vector<uint8_t> v1 =
        npyImage("{\"shape\": (2,), 'fortran_order': False, 'descr': '<i2'}",
                 {1, 0, 0xFF, 0xFF});
    REQUIRE(parseNpy(v1.data(), v1.size(), &t, &error));
    CHECK(formatTensor(t, 8) == "2xi16=1 -1");
    // Version 2.0: the same header behind a 4-byte length.
    std::vector<uint8_t> v2(v1.begin(), v1.begin() + 10);
    v2[6] = 2;
    v2.resize(12, 0);
    v2.insert(v2.end(), v1.begin() + 10, v1.end());
    REQUIRE(parseNpy(v2.data(), v2.size(), &t, &error));
    CHECK(formatTensor(t, 8) == "2xi16=1 -1");
    std::vector<uint8_t> b = npyImage(
        "{'descr': '|b1', 'fortran_order': False, 'shape': (2,), }", {0, 2});
    REQUIRE(parseNpy(b.data(), b.size(), &t, &error));
    CHECK(t.data == std::vector<uint8_t>{0, 1});
  }

  TEST_CASE("broken npy files get a distinct message for each problem") {
    std::string good = "{'descr': '<f4', 'fortran_order': False, "
                       "'shape': (2,), }";
    std::vector<uint8_t> data(8, 0);
    std::vector<uint8_t> file = npyImage(good, data);
    CHECK(npyError(bytes("hello world")) ==
          "not a .npy file (bad magic; expected \\x93NUMPY)");
    CHECK(npyError({}) == "not a .npy file (bad magic; expected \\x93NUMPY)");
    CHECK(npyError(std::vector<uint8_t>(file.begin(), file.begin() + 9))
              .rfind("truncated header", 0) == 0);
    CHECK(npyError(std::vector<uint8_t>(file.begin(), file.begin() + 30))
              .rfind("truncated header: it declares 118 bytes", 0) == 0);
    CHECK(npyError(std::vector<uint8_t>(file.begin(), file.end() - 3)) ==
          "truncated: expected 8 bytes of data, found 5");
    std::vector<uint8_t> longer = file;
    longer.push_back(0);
    CHECK(npyError(longer) ==
          "1 unexpected bytes after the array data (one array per file)");
    std::vector<uint8_t> version = file;
    version[6] = 9;
    CHECK(npyError(version).rfind("unsupported .npy format version 9.0", 0) ==
          0);
    CHECK(npyError(npyImage("{'descr': '<f4', 'fortran_order': True, "
                            "'shape': (2,), }",
                            data))
              .rfind("fortran_order arrays are not supported", 0) == 0);
    CHECK(npyError(npyImage("{'descr': '<c8', 'fortran_order': False, "
                            "'shape': (1,), }",
                            data))
              .rfind("unsupported dtype '<c8'", 0) == 0);
    CHECK(npyError(npyImage("{'descr': '>f4', 'fortran_order': False, "
                            "'shape': (2,), }",
                            data)) ==
          "unsupported dtype '>f4' (big-endian); save the array as "
          "little-endian ('<')");
    CHECK(npyError(npyImage("{'descr': [('a', '<f4')], 'fortran_order': "
                            "False, 'shape': (2,), }",
                            data))
              .rfind("unsupported dtype: structured", 0) == 0);
    CHECK(npyError(npyImage("{'descr': '<f4', 'shape': (2,), }", data)) ==
          "malformed header: no 'fortran_order' key");
    CHECK(npyError(npyImage("{'descr': '<f4', 'fortran_order': False, "
                            "'shape': (-2,), }",
                            data))
              .rfind("malformed header: 'shape'", 0) == 0);
    CHECK(npyError(npyImage("{'descr': '<f4', 'fortran_order': False, "
                            "'shape': (2,)",
                            data))
              .rfind("malformed header: expected ',' or '}'", 0) == 0);
    CHECK(npyError(npyImage("['descr']", data))
              .rfind("malformed header: expected '{'", 0) == 0);
  }

  TEST_CASE("tensors become buffer views and back") {
    strata_allocator_t allocator = strata_allocator_system();
    for (const char* text : {"2x3xf32=1 2 3 4 5 6", "i8=-3", "0x4xi32="}) {
      HostTensor t = parse(text);
      strata_hal_buffer_view_t* view = nullptr;
      REQUIRE(
          strata_status_consume_ok(bufferViewFromTensor(t, allocator, &view)));
      CHECK(strata_hal_buffer_view_rank(view) == t.shape.size());
      CHECK(strata_hal_buffer_view_element_type(view) == t.element_type);
      CHECK(strata_hal_buffer_view_byte_length(view) == t.data.size());
      HostTensor back;
      std::string error;
      REQUIRE(tensorFromBufferView(view, &back, &error));
      CHECK(formatTensor(back, 16) == formatTensor(t, 16));
      strata_hal_buffer_view_release(view);
    }
  }
}

}  // namespace
