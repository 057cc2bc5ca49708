// interpreter_test.cpp - every opcode family run through the interpreter on
// builder-made modules.
#include <doctest/doctest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "module_builder.h"
#include "module_impl.h"
#include "vm_harness.h"

using namespace strata::vm;
using namespace strata::vm::testing;

namespace {

// Runs a one-instruction function: results = op(args) for a format of
// prim registers only (args then one result).
strata_vm_value_t runPrimOp(Opcode opcode, const std::string& cconv,
                            std::vector<strata_vm_value_t> args,
                            std::string* error = nullptr) {
  ModuleBuilder mb("t");
  auto& f = mb.addFunction("f", cconv);
  f.location("ops.mlir", 3, 5);
  f.op(opcode);
  for (size_t i = 0; i < args.size(); ++i) {
    f.reg(prim(static_cast<uint16_t>(i)));
  }
  f.reg(prim(static_cast<uint16_t>(args.size())));
  f.op(Opcode::Return).list({prim(static_cast<uint16_t>(args.size()))});
  mb.addExport("f", f.index());
  Harness h;
  StatusText load(h.load(mb));
  REQUIRE_MESSAGE(load.ok(), load.str);
  StatusText link(h.link());
  REQUIRE_MESSAGE(link.ok(), link.str);
  std::vector<strata_vm_value_t> results;
  StatusText call(h.call("t.f", args, &results, 1));
  if (error) {
    *error = call.str;
    return strata_vm_value_t{};
  }
  REQUIRE_MESSAGE(call.ok(), call.str);
  return results[0];
}

int32_t i32op(Opcode op, int32_t a, int32_t b) {
  return runPrimOp(op, "0ii_i", {vI32(a), vI32(b)}).i32;
}
int32_t i32un(Opcode op, int32_t a) {
  return runPrimOp(op, "0i_i", {vI32(a)}).i32;
}
int64_t i64op(Opcode op, int64_t a, int64_t b) {
  return runPrimOp(op, "0II_I", {vI64(a), vI64(b)}).i64;
}
int64_t i64un(Opcode op, int64_t a) {
  return runPrimOp(op, "0I_I", {vI64(a)}).i64;
}
float f32op(Opcode op, float a, float b) {
  return runPrimOp(op, "0ff_f", {vF32(a), vF32(b)}).f32;
}
float f32un(Opcode op, float a) { return runPrimOp(op, "0f_f", {vF32(a)}).f32; }
double f64op(Opcode op, double a, double b) {
  return runPrimOp(op, "0FF_F", {vF64(a), vF64(b)}).f64;
}
double f64un(Opcode op, double a) {
  return runPrimOp(op, "0F_F", {vF64(a)}).f64;
}

constexpr int32_t kMin32 = std::numeric_limits<int32_t>::min();
constexpr int64_t kMin64 = std::numeric_limits<int64_t>::min();

}  // namespace

TEST_SUITE("vm.interpreter") {
  TEST_CASE("i32 arithmetic wraps and follows the table semantics") {
    CHECK(i32op(Opcode::AddI32, 2147483647, 1) == kMin32);
    CHECK(i32op(Opcode::SubI32, kMin32, 1) == 2147483647);
    CHECK(i32op(Opcode::MulI32, 65536, 65536) == 0);
    CHECK(i32op(Opcode::DivSI32, -7, 2) == -3);
    CHECK(i32op(Opcode::DivSI32, kMin32, -1) == kMin32);
    CHECK(i32op(Opcode::DivUI32, -2, 2) == 2147483647);
    CHECK(i32op(Opcode::RemSI32, -7, 2) == -1);
    CHECK(i32op(Opcode::RemSI32, kMin32, -1) == 0);
    CHECK(i32op(Opcode::RemUI32, -1, 10) == 5);
    CHECK(i32op(Opcode::ShlI32, 1, 33) == 2);
    CHECK(i32op(Opcode::ShrSI32, -8, 1) == -4);
    CHECK(i32op(Opcode::ShrUI32, -8, 28) == 15);
    CHECK(i32op(Opcode::AndI32, 12, 10) == 8);
    CHECK(i32op(Opcode::OrI32, 12, 10) == 14);
    CHECK(i32op(Opcode::XorI32, 12, 10) == 6);
    CHECK(i32un(Opcode::NotI32, 0) == -1);
    CHECK(i32un(Opcode::NegI32, kMin32) == kMin32);
    CHECK(i32op(Opcode::MinSI32, -1, 1) == -1);
    CHECK(i32op(Opcode::MinUI32, -1, 1) == 1);
    CHECK(i32op(Opcode::MaxSI32, -1, 1) == 1);
    CHECK(i32op(Opcode::MaxUI32, -1, 1) == -1);
    CHECK(i32un(Opcode::AbsI32, -5) == 5);
    CHECK(i32un(Opcode::AbsI32, kMin32) == kMin32);
    CHECK(i32un(Opcode::CtlzI32, 1) == 31);
    CHECK(i32un(Opcode::CtlzI32, 0) == 32);
  }

  TEST_CASE("i64 arithmetic wraps and follows the table semantics") {
    CHECK(i64op(Opcode::AddI64, std::numeric_limits<int64_t>::max(), 1) ==
          kMin64);
    CHECK(i64op(Opcode::SubI64, 5, 7) == -2);
    CHECK(i64op(Opcode::MulI64, 1ll << 32, 1ll << 32) == 0);
    CHECK(i64op(Opcode::DivSI64, kMin64, -1) == kMin64);
    CHECK(i64op(Opcode::DivUI64, -1, 2) == std::numeric_limits<int64_t>::max());
    CHECK(i64op(Opcode::RemSI64, -9, 4) == -1);
    CHECK(i64op(Opcode::RemUI64, 9, 4) == 1);
    CHECK(i64op(Opcode::ShlI64, 1, 65) == 2);
    CHECK(i64op(Opcode::ShrSI64, -16, 2) == -4);
    CHECK(i64op(Opcode::ShrUI64, -1, 60) == 15);
    CHECK(i64op(Opcode::AndI64, 6, 3) == 2);
    CHECK(i64op(Opcode::OrI64, 6, 3) == 7);
    CHECK(i64op(Opcode::XorI64, 6, 3) == 5);
    CHECK(i64un(Opcode::NotI64, 0) == -1);
    CHECK(i64un(Opcode::NegI64, 3) == -3);
    CHECK(i64op(Opcode::MinSI64, -1, 1) == -1);
    CHECK(i64op(Opcode::MinUI64, -1, 1) == 1);
    CHECK(i64op(Opcode::MaxSI64, -1, 1) == 1);
    CHECK(i64op(Opcode::MaxUI64, -1, 1) == -1);
    CHECK(i64un(Opcode::AbsI64, -9) == 9);
    CHECK(i64un(Opcode::CtlzI64, 1) == 63);
    CHECK(i64un(Opcode::CtlzI64, 0) == 64);
  }

  TEST_CASE("integer division by zero fails with the function and line") {
    std::string error;
    runPrimOp(Opcode::DivSI32, "0ii_i", {vI32(1), vI32(0)}, &error);
    CHECK(error.find("integer division by zero (div.i32.s)") !=
          std::string::npos);
    CHECK(error.find("at t.f (ops.mlir:3:5)") != std::string::npos);
    runPrimOp(Opcode::RemUI64, "0II_I", {vI64(1), vI64(0)}, &error);
    CHECK(error.find("integer division by zero (rem.i64.u)") !=
          std::string::npos);
  }

  TEST_CASE("f32 and f64 math matches libm") {
    CHECK(f32op(Opcode::AddF32, 1.5f, 2.25f) == 3.75f);
    CHECK(f32op(Opcode::SubF32, 1.5f, 2.25f) == -0.75f);
    CHECK(f32op(Opcode::MulF32, 1.5f, 2.0f) == 3.0f);
    CHECK(f32op(Opcode::DivF32, 1.0f, 4.0f) == 0.25f);
    CHECK(f32op(Opcode::RemF32, 7.5f, 2.0f) == 1.5f);
    CHECK(f32un(Opcode::NegF32, 2.0f) == -2.0f);
    CHECK(f32un(Opcode::AbsF32, -2.0f) == 2.0f);
    CHECK(f32un(Opcode::SqrtF32, 16.0f) == 4.0f);
    CHECK(f32un(Opcode::ExpF32, 1.0f) == doctest::Approx(2.7182818f));
    CHECK(f32un(Opcode::LogF32, 1.0f) == 0.0f);
    CHECK(f32op(Opcode::PowF32, 2.0f, 10.0f) == 1024.0f);
    CHECK(f32un(Opcode::TanhF32, 0.5f) == doctest::Approx(std::tanh(0.5f)));
    CHECK(f32un(Opcode::ErfF32, 0.5f) == doctest::Approx(std::erf(0.5f)));
    CHECK(f32un(Opcode::FloorF32, -1.5f) == -2.0f);
    CHECK(f32un(Opcode::CeilF32, -1.5f) == -1.0f);
    CHECK(f32un(Opcode::RoundF32, 2.5f) == 3.0f);
    CHECK(f32un(Opcode::RoundEvenF32, 2.5f) == 2.0f);
    CHECK(f32un(Opcode::RoundEvenF32, -3.5f) == -4.0f);
    CHECK(runPrimOp(Opcode::FmaF32, "0fff_f", {vF32(2), vF32(3), vF32(4)}).f32 ==
          10.0f);
    CHECK(f32op(Opcode::MinF32, 1.0f, -1.0f) == -1.0f);
    CHECK(std::isnan(f32op(Opcode::MaxF32, 1.0f, NAN)));
    CHECK(f32un(Opcode::SinF32, 0.0f) == 0.0f);
    CHECK(f32un(Opcode::CosF32, 0.0f) == 1.0f);
    CHECK(f32un(Opcode::Exp2F32, 3.0f) == 8.0f);
    CHECK(f32un(Opcode::Log2F32, 8.0f) == 3.0f);

    CHECK(f64op(Opcode::AddF64, 0.1, 0.2) == 0.1 + 0.2);
    CHECK(f64op(Opcode::DivF64, 1.0, 3.0) == 1.0 / 3.0);
    CHECK(f64un(Opcode::SqrtF64, 2.0) == std::sqrt(2.0));
    CHECK(f64un(Opcode::ExpF64, 1.0) == std::exp(1.0));
    CHECK(f64un(Opcode::LogF64, 10.0) == std::log(10.0));
    CHECK(f64op(Opcode::PowF64, 2.0, 0.5) == std::pow(2.0, 0.5));
    CHECK(f64un(Opcode::TanhF64, 0.3) == std::tanh(0.3));
    CHECK(f64un(Opcode::ErfF64, 0.3) == std::erf(0.3));
    CHECK(f64un(Opcode::RoundF64, -2.5) == -3.0);
    CHECK(f64un(Opcode::RoundEvenF64, 0.5) == 0.0);
    CHECK(f64op(Opcode::MinF64, -0.0, 0.0) == 0.0);
    CHECK(std::signbit(f64op(Opcode::MinF64, 0.0, -0.0)));
    CHECK(f64op(Opcode::MaxF64, 2.0, 3.0) == 3.0);
    CHECK(f64op(Opcode::RemF64, -7.0, 2.0) == -1.0);
    CHECK(f64un(Opcode::NegF64, 0.0) == 0.0);
    CHECK(std::signbit(f64un(Opcode::NegF64, 0.0)));
    CHECK(f64un(Opcode::AbsF64, -3.0) == 3.0);
    CHECK(f64un(Opcode::FloorF64, 2.7) == 2.0);
    CHECK(f64un(Opcode::CeilF64, 2.1) == 3.0);
    CHECK(f64op(Opcode::SubF64, 1.0, 0.25) == 0.75);
    CHECK(f64op(Opcode::MulF64, 1.5, 1.5) == 2.25);
    CHECK(runPrimOp(Opcode::FmaF64, "0FFF_F", {vF64(0.1), vF64(10), vF64(-1)})
              .f64 == std::fma(0.1, 10.0, -1.0));
    CHECK(f64un(Opcode::SinF64, 1.0) == std::sin(1.0));
    CHECK(f64un(Opcode::CosF64, 1.0) == std::cos(1.0));
    CHECK(f64un(Opcode::Exp2F64, 0.5) == std::exp2(0.5));
    CHECK(f64un(Opcode::Log2F64, 10.0) == std::log2(10.0));
  }

  TEST_CASE("compares produce 0 or 1 and respect signedness and NaN") {
    CHECK(i32op(Opcode::CmpEqI32, 3, 3) == 1);
    CHECK(i32op(Opcode::CmpNeI32, 3, 3) == 0);
    CHECK(i32op(Opcode::CmpLtSI32, -1, 0) == 1);
    CHECK(i32op(Opcode::CmpLtUI32, -1, 0) == 0);
    CHECK(i32op(Opcode::CmpLeSI32, 0, 0) == 1);
    CHECK(i32op(Opcode::CmpLeUI32, 1, 0) == 0);
    CHECK(i32un(Opcode::CmpNzI32, 7) == 1);
    CHECK(runPrimOp(Opcode::CmpEqI64, "0II_i", {vI64(1ll << 40), vI64(1ll << 40)})
              .i32 == 1);
    CHECK(runPrimOp(Opcode::CmpNeI64, "0II_i", {vI64(1ll << 40), vI64(0)}).i32 ==
          1);
    CHECK(runPrimOp(Opcode::CmpLtSI64, "0II_i", {vI64(-1), vI64(0)}).i32 == 1);
    CHECK(runPrimOp(Opcode::CmpLtUI64, "0II_i", {vI64(-1), vI64(0)}).i32 == 0);
    CHECK(runPrimOp(Opcode::CmpLeSI64, "0II_i", {vI64(-1), vI64(-1)}).i32 == 1);
    CHECK(runPrimOp(Opcode::CmpLeUI64, "0II_i", {vI64(0), vI64(-1)}).i32 == 1);
    CHECK(runPrimOp(Opcode::CmpNzI64, "0I_i", {vI64(1ll << 33)}).i32 == 1);
    CHECK(runPrimOp(Opcode::CmpEqF32, "0ff_i", {vF32(NAN), vF32(NAN)}).i32 == 0);
    CHECK(runPrimOp(Opcode::CmpNeF32, "0ff_i", {vF32(NAN), vF32(NAN)}).i32 == 1);
    CHECK(runPrimOp(Opcode::CmpLtF32, "0ff_i", {vF32(1), vF32(2)}).i32 == 1);
    CHECK(runPrimOp(Opcode::CmpLeF32, "0ff_i", {vF32(2), vF32(2)}).i32 == 1);
    CHECK(runPrimOp(Opcode::CmpNanF32, "0ff_i", {vF32(1), vF32(NAN)}).i32 == 1);
    CHECK(runPrimOp(Opcode::CmpEqF64, "0FF_i", {vF64(0.5), vF64(0.5)}).i32 == 1);
    CHECK(runPrimOp(Opcode::CmpNeF64, "0FF_i", {vF64(0.5), vF64(0.5)}).i32 == 0);
    CHECK(runPrimOp(Opcode::CmpLtF64, "0FF_i", {vF64(NAN), vF64(1)}).i32 == 0);
    CHECK(runPrimOp(Opcode::CmpLeF64, "0FF_i", {vF64(-1), vF64(1)}).i32 == 1);
    CHECK(runPrimOp(Opcode::CmpNanF64, "0FF_i", {vF64(1), vF64(2)}).i32 == 0);
    CHECK(runPrimOp(Opcode::Select, "0iII_I", {vI32(1), vI64(10), vI64(20)})
              .i64 == 10);
    CHECK(runPrimOp(Opcode::Select, "0iII_I", {vI32(0), vI64(10), vI64(20)})
              .i64 == 20);
  }

  TEST_CASE("casts saturate, extend and truncate as documented") {
    CHECK(runPrimOp(Opcode::TruncI64I32, "0I_i", {vI64(0x1'0000'0005ll)}).i32 ==
          5);
    CHECK(runPrimOp(Opcode::ExtI32I64S, "0i_I", {vI32(-2)}).i64 == -2);
    CHECK(runPrimOp(Opcode::ExtI32I64U, "0i_I", {vI32(-1)}).i64 == 0xFFFFFFFFll);
    CHECK(i32un(Opcode::ExtI8I32S, 0x80) == -128);
    CHECK(i32un(Opcode::ExtI8I32U, -1) == 255);
    CHECK(i32un(Opcode::ExtI16I32S, 0x8000) == -32768);
    CHECK(i32un(Opcode::ExtI16I32U, -1) == 65535);
    CHECK(runPrimOp(Opcode::CastSI32F32, "0i_f", {vI32(-3)}).f32 == -3.0f);
    CHECK(runPrimOp(Opcode::CastUI32F32, "0i_f", {vI32(-1)}).f32 ==
          4294967295.0f);
    CHECK(runPrimOp(Opcode::CastSI64F32, "0I_f", {vI64(-(1ll << 40))}).f32 ==
          -1099511627776.0f);
    CHECK(runPrimOp(Opcode::CastUI64F32, "0I_f", {vI64(-1)}).f32 ==
          18446744073709551616.0f);
    CHECK(runPrimOp(Opcode::CastSI32F64, "0i_F", {vI32(-7)}).f64 == -7.0);
    CHECK(runPrimOp(Opcode::CastUI32F64, "0i_F", {vI32(-1)}).f64 == 4294967295.0);
    CHECK(runPrimOp(Opcode::CastSI64F64, "0I_F", {vI64(-5)}).f64 == -5.0);
    CHECK(runPrimOp(Opcode::CastUI64F64, "0I_F", {vI64(1ll << 62)}).f64 ==
          4611686018427387904.0);
    CHECK(runPrimOp(Opcode::CastF32SI32, "0f_i", {vF32(-2.9f)}).i32 == -2);
    CHECK(runPrimOp(Opcode::CastF32SI32, "0f_i", {vF32(1e20f)}).i32 ==
          std::numeric_limits<int32_t>::max());
    CHECK(runPrimOp(Opcode::CastF32SI32, "0f_i", {vF32(NAN)}).i32 == 0);
    CHECK(runPrimOp(Opcode::CastF32UI32, "0f_i", {vF32(-5.0f)}).i32 == 0);
    CHECK(runPrimOp(Opcode::CastF32SI64, "0f_I", {vF32(-1e30f)}).i64 == kMin64);
    CHECK(runPrimOp(Opcode::CastF32UI64, "0f_I", {vF32(3.5f)}).i64 == 3);
    CHECK(runPrimOp(Opcode::CastF64SI32, "0F_i", {vF64(-1e12)}).i32 == kMin32);
    CHECK(runPrimOp(Opcode::CastF64UI32, "0F_i", {vF64(4294967295.0)}).i32 == -1);
    CHECK(runPrimOp(Opcode::CastF64SI64, "0F_I", {vF64(123.9)}).i64 == 123);
    CHECK(runPrimOp(Opcode::CastF64UI64, "0F_I", {vF64(NAN)}).i64 == 0);
    CHECK(runPrimOp(Opcode::ExtF32F64, "0f_F", {vF32(0.1f)}).f64 ==
          static_cast<double>(0.1f));
    CHECK(runPrimOp(Opcode::TruncF64F32, "0F_f", {vF64(0.1)}).f32 == 0.1f);
    CHECK(runPrimOp(Opcode::BitcastF32I32, "0f_i", {vF32(1.0f)}).i32 ==
          0x3F800000);
    CHECK(runPrimOp(Opcode::BitcastI32F32, "0i_f", {vI32(0x40000000)}).f32 ==
          2.0f);
    CHECK(runPrimOp(Opcode::BitcastF64I64, "0F_I", {vF64(1.0)}).i64 ==
          0x3FF0000000000000ll);
    CHECK(runPrimOp(Opcode::BitcastI64F64, "0I_F", {vI64(0x4000000000000000ll)})
              .f64 == 2.0);
  }

  TEST_CASE("constants, moves and globals round-trip every primitive type") {
    ModuleBuilder mb("g");
    mb.setGlobals(24, 1);
    auto& f = mb.addFunction("f", "0_iIfF");
    f.op(Opcode::ConstI32).i32(-5).reg(prim(0));
    f.op(Opcode::ConstI64).i64(-(1ll << 40)).reg(prim(1));
    f.op(Opcode::ConstF32).f32(1.25f).reg(prim(2));
    f.op(Opcode::ConstF64).f64(-0.125).reg(prim(3));
    f.op(Opcode::GlobalStoreI32).reg(prim(0)).u32(0);
    f.op(Opcode::GlobalStoreF32).reg(prim(2)).u32(4);
    f.op(Opcode::GlobalStoreI64).reg(prim(1)).u32(8);
    f.op(Opcode::GlobalStoreF64).reg(prim(3)).u32(16);
    f.op(Opcode::GlobalLoadI32).u32(0).reg(prim(4));
    f.op(Opcode::GlobalLoadF32).u32(4).reg(prim(5));
    f.op(Opcode::GlobalLoadI64).u32(8).reg(prim(6));
    f.op(Opcode::GlobalLoadF64).u32(16).reg(prim(7));
    f.op(Opcode::Mov).reg(prim(7)).reg(prim(8));
    f.op(Opcode::Return).list({prim(4), prim(6), prim(5), prim(8)});
    mb.addExport("f", f.index());
    Harness h;
    REQUIRE(StatusText(h.load(mb)).ok());
    REQUIRE(StatusText(h.link()).ok());
    std::vector<strata_vm_value_t> r;
    StatusText s(h.call("g.f", {}, &r, 4));
    REQUIRE_MESSAGE(s.ok(), s.str);
    CHECK(r[0].i32 == -5);
    CHECK(r[1].i64 == -(1ll << 40));
    CHECK(r[2].f32 == 1.25f);
    CHECK(r[3].f64 == -0.125);
  }

  TEST_CASE("globals persist across calls within one context") {
    ModuleBuilder mb("counter");
    mb.setGlobals(4, 0);
    auto& f = mb.addFunction("next", "0_i");
    f.op(Opcode::GlobalLoadI32).u32(0).reg(prim(0));
    f.op(Opcode::ConstI32).i32(1).reg(prim(1));
    f.op(Opcode::AddI32).reg(prim(0)).reg(prim(1)).reg(prim(0));
    f.op(Opcode::GlobalStoreI32).reg(prim(0)).u32(0);
    f.op(Opcode::Return).list({prim(0)});
    mb.addExport("next", f.index());
    Harness h;
    REQUIRE(StatusText(h.load(mb)).ok());
    REQUIRE(StatusText(h.link()).ok());
    std::vector<strata_vm_value_t> r;
    for (int i = 1; i <= 3; ++i) {
      REQUIRE(StatusText(h.call("counter.next", {}, &r, 1)).ok());
      CHECK(r[0].i32 == i);
    }
  }

  TEST_CASE("loops with cond_br and remaps compute a sum") {
    // sum(n) = 0 + 1 + ... + n-1, with the loop state in block arguments.
    ModuleBuilder mb("loop");
    auto& f = mb.addFunction("sum", "0I_I");
    uint32_t header = f.newBlock();
    uint32_t body = f.newBlock();
    uint32_t exit = f.newBlock();
    f.op(Opcode::ConstI64).i64(0).reg(prim(1));  // i
    f.op(Opcode::ConstI64).i64(0).reg(prim(2));  // acc
    f.op(Opcode::ConstI64).i64(1).reg(prim(3));
    f.op(Opcode::Br).block(header).remap({});
    f.bind(header);
    f.op(Opcode::CmpLtSI64).reg(prim(1)).reg(prim(0)).reg(prim(4));
    f.op(Opcode::CondBr).reg(prim(4)).block(body).remap({}).block(exit).remap(
        {});
    f.bind(body);
    f.op(Opcode::AddI64).reg(prim(2)).reg(prim(1)).reg(prim(5));
    f.op(Opcode::AddI64).reg(prim(1)).reg(prim(3)).reg(prim(6));
    f.op(Opcode::Br).block(header).remap({{prim(5), prim(2)}, {prim(6), prim(1)}});
    f.bind(exit);
    f.op(Opcode::Return).list({prim(2)});
    mb.addExport("sum", f.index());
    Harness h;
    REQUIRE(StatusText(h.load(mb)).ok());
    REQUIRE(StatusText(h.link()).ok());
    std::vector<strata_vm_value_t> r;
    REQUIRE(StatusText(h.call("loop.sum", {vI64(100000)}, &r, 1)).ok());
    CHECK(r[0].i64 == 4999950000ll);
  }

  TEST_CASE("br_table takes the matching case or the default") {
    ModuleBuilder mb("sw");
    auto& f = mb.addFunction("f", "0i_i");
    uint32_t c0 = f.newBlock(), c1 = f.newBlock(), dflt = f.newBlock();
    f.op(Opcode::ConstI32).i32(100).reg(prim(1));
    f.op(Opcode::BrTable)
        .reg(prim(0))
        .block(dflt)
        .remap({})
        .cases({{c0, {}}, {c1, {{prim(1), prim(2)}}}});
    f.bind(c0);
    f.op(Opcode::ConstI32).i32(10).reg(prim(3));
    f.op(Opcode::Return).list({prim(3)});
    f.bind(c1);
    f.op(Opcode::Return).list({prim(2)});
    f.bind(dflt);
    f.op(Opcode::ConstI32).i32(-1).reg(prim(3));
    f.op(Opcode::Return).list({prim(3)});
    mb.addExport("f", f.index());
    Harness h;
    REQUIRE(StatusText(h.load(mb)).ok());
    REQUIRE(StatusText(h.link()).ok());
    std::vector<strata_vm_value_t> r;
    REQUIRE(StatusText(h.call("sw.f", {vI32(0)}, &r, 1)).ok());
    CHECK(r[0].i32 == 10);
    REQUIRE(StatusText(h.call("sw.f", {vI32(1)}, &r, 1)).ok());
    CHECK(r[0].i32 == 100);
    REQUIRE(StatusText(h.call("sw.f", {vI32(2)}, &r, 1)).ok());
    CHECK(r[0].i32 == -1);
    REQUIRE(StatusText(h.call("sw.f", {vI32(-1)}, &r, 1)).ok());
    CHECK(r[0].i32 == -1);
  }

  TEST_CASE("recursive calls compute fib without growing the C stack") {
    ModuleBuilder mb("fib");
    auto& f = mb.addFunction("fib", "0I_I");
    uint32_t recurse = f.newBlock();
    uint32_t base = f.newBlock();
    f.op(Opcode::ConstI64).i64(2).reg(prim(1));
    f.op(Opcode::CmpLtSI64).reg(prim(0)).reg(prim(1)).reg(prim(2));
    f.op(Opcode::CondBr).reg(prim(2)).block(base).remap({}).block(recurse).remap(
        {});
    f.bind(recurse);
    f.op(Opcode::ConstI64).i64(1).reg(prim(3));
    f.op(Opcode::SubI64).reg(prim(0)).reg(prim(3)).reg(prim(4));
    f.op(Opcode::Call).u32(f.index()).list({prim(4)}).list({prim(5)});
    f.op(Opcode::SubI64).reg(prim(0)).reg(prim(1)).reg(prim(4));
    f.op(Opcode::Call).u32(f.index()).list({prim(4)}).list({prim(6)});
    f.op(Opcode::AddI64).reg(prim(5)).reg(prim(6)).reg(prim(7));
    f.op(Opcode::Return).list({prim(7)});
    f.bind(base);
    f.op(Opcode::Return).list({prim(0)});
    mb.addExport("fib", f.index());
    Harness h;
    REQUIRE(StatusText(h.load(mb)).ok());
    REQUIRE(StatusText(h.link()).ok());
    std::vector<strata_vm_value_t> r;
    REQUIRE(StatusText(h.call("fib.fib", {vI64(20)}, &r, 1)).ok());
    CHECK(r[0].i64 == 6765);
  }

  TEST_CASE("runaway recursion hits the depth limit with a clear error") {
    ModuleBuilder mb("rec");
    auto& f = mb.addFunction("down", "0I_I");
    f.location("rec.mlir", 7, 3);
    f.op(Opcode::Call).u32(f.index()).list({prim(0)}).list({prim(1)});
    f.op(Opcode::Return).list({prim(1)});
    mb.addExport("down", f.index());
    Harness h;
    REQUIRE(StatusText(h.load(mb)).ok());
    strata_vm_context_options_t options{};
    options.max_call_depth = 100;
    REQUIRE(StatusText(h.link(&options)).ok());
    std::vector<strata_vm_value_t> r;
    StatusText s(h.call("rec.down", {vI64(1)}, &r, 1));
    CHECK(s.code() == STRATA_STATUS_RESOURCE_EXHAUSTED);
    CHECK(s.contains("call depth limit of 100 frames exceeded calling rec.down"));
    // The 100 identical frames are one backtrace line with their count.
    CHECK(s.contains("at rec.down (rec.mlir:7:3) (100 frames)"));
    CHECK(s.str.find("at rec.down") == s.str.rfind("at rec.down"));
    // The context is still usable afterwards.
    StatusText again(h.call("rec.down", {vI64(1)}, &r, 1));
    CHECK(again.code() == STRATA_STATUS_RESOURCE_EXHAUSTED);
  }

  TEST_CASE("fail and cond_fail report their code, message and backtrace") {
    ModuleBuilder mb("f");
    auto& inner = mb.addFunction("inner", "0i_");
    inner.location("f.mlir", 2, 1);
    inner.op(Opcode::ConstI32).i32(STRATA_STATUS_OUT_OF_RANGE).reg(prim(1));
    inner.location("f.mlir", 4, 9);
    inner.op(Opcode::CondFail).reg(prim(0)).reg(prim(1)).str("value too big");
    inner.op(Opcode::Return).list({});
    auto& outer = mb.addFunction("outer", "0i_");
    outer.location("f.mlir", 10, 2);
    outer.op(Opcode::Call).u32(inner.index()).list({prim(0)}).list({});
    outer.op(Opcode::Return).list({});
    mb.addExport("outer", outer.index());
    Harness h;
    REQUIRE(StatusText(h.load(mb)).ok());
    REQUIRE(StatusText(h.link()).ok());
    std::vector<strata_vm_value_t> r;
    CHECK(StatusText(h.call("f.outer", {vI32(0)}, &r, 0)).ok());
    StatusText s(h.call("f.outer", {vI32(1)}, &r, 0));
    CHECK(s.code() == STRATA_STATUS_OUT_OF_RANGE);
    CHECK(s.contains("value too big"));
    CHECK(s.contains("at f.inner (f.mlir:4:9)"));
    CHECK(s.contains("at f.outer (f.mlir:10:2)"));
    CHECK(s.str.find("f.inner") < s.str.find("f.outer"));
  }

  TEST_CASE("cond_fail.ne.i64 names both values in its message") {
    ModuleBuilder mb("n");
    auto& f = mb.addFunction("check", "0II_");
    f.op(Opcode::ConstI32).i32(STRATA_STATUS_FAILED_PRECONDITION).reg(prim(2));
    f.location("n.mlir", 3, 5);
    f.op(Opcode::CondFailNeI64)
        .reg(prim(0))
        .reg(prim(1))
        .reg(prim(2))
        .str(
            "argument 1 dimension 0 is {1} but argument 0 dimension 0 is "
            "{0}; {0}/{1} {2} {x} {1");
    f.op(Opcode::Return).list({});
    mb.addExport("check", f.index());
    Harness h;
    REQUIRE(StatusText(h.load(mb)).ok());
    REQUIRE(StatusText(h.link()).ok());
    std::vector<strata_vm_value_t> r;
    // Equal values pass, including the extremes.
    CHECK(StatusText(h.call("n.check", {vI64(7), vI64(7)}, &r, 0)).ok());
    CHECK(
        StatusText(h.call("n.check", {vI64(INT64_MIN), vI64(INT64_MIN)}, &r, 0))
            .ok());
    StatusText s(h.call("n.check", {vI64(3), vI64(-12)}, &r, 0));
    CHECK(s.code() == STRATA_STATUS_FAILED_PRECONDITION);
    // Only {0} and {1} are placeholders; other braces stay as written.
    CHECK(
        s.contains("argument 1 dimension 0 is -12 but argument 0 dimension "
                   "0 is 3; 3/-12 {2} {x} {1"));
    CHECK(s.contains("at n.check (n.mlir:3:5)"));
    // All 64 bits are compared: values equal in their low 32 bits differ.
    StatusText wide(
        h.call("n.check", {vI64(int64_t(1) << 32), vI64(0)}, &r, 0));
    CHECK(wide.code() == STRATA_STATUS_FAILED_PRECONDITION);
    CHECK(wide.contains("is 0 but argument 0 dimension 0 is 4294967296"));
    StatusText extremes(
        h.call("n.check", {vI64(INT64_MIN), vI64(INT64_MAX)}, &r, 0));
    CHECK(
        extremes.contains("is 9223372036854775807 but argument 0 dimension "
                          "0 is -9223372036854775808"));
  }

  TEST_CASE("cond_fail.ne.i64 maps a status code out of range to UNKNOWN") {
    ModuleBuilder mb("u");
    auto& f = mb.addFunction("check", "0II_");
    f.op(Opcode::ConstI32).i32(1000).reg(prim(2));
    f.op(Opcode::CondFailNeI64)
        .reg(prim(0))
        .reg(prim(1))
        .reg(prim(2))
        .str("{0} != {1}");
    f.op(Opcode::Return).list({});
    mb.addExport("check", f.index());
    Harness h;
    REQUIRE(StatusText(h.load(mb)).ok());
    REQUIRE(StatusText(h.link()).ok());
    std::vector<strata_vm_value_t> r;
    StatusText s(h.call("u.check", {vI64(1), vI64(2)}, &r, 0));
    CHECK(s.code() == STRATA_STATUS_UNKNOWN);
    CHECK(s.contains("1 != 2"));
  }

  TEST_CASE("buffers allocate, store, load, fill, copy, compare and clone") {
    ModuleBuilder mb("buf");
    auto& f = mb.addFunction("f", "0_rIiIi");
    f.op(Opcode::ConstI64).i64(16).reg(prim(0));
    f.op(Opcode::BufferAlloc).reg(prim(0)).reg(ref(0));
    f.op(Opcode::ConstI64).i64(1).reg(prim(1));
    f.op(Opcode::ConstI32).i32(-2).reg(prim(2));
    f.op(Opcode::BufferStoreI32).reg(ref(0)).reg(prim(1)).reg(prim(2));
    f.op(Opcode::BufferLoadI8S).reg(ref(0)).reg(prim(1)).reg(prim(3));
    f.op(Opcode::BufferLoadI32).reg(ref(0)).reg(prim(1)).reg(prim(4));
    // fill bytes 8..15 with 7, then compare [0,8) with a clone of itself
    f.op(Opcode::ConstI64).i64(8).reg(prim(5));
    f.op(Opcode::ConstI32).i32(7).reg(prim(6));
    f.op(Opcode::BufferFillI8).reg(ref(0)).reg(prim(5)).reg(prim(5)).reg(prim(6));
    f.op(Opcode::ConstI64).i64(0).reg(prim(7));
    f.op(Opcode::BufferClone).reg(ref(0)).reg(prim(7)).reg(prim(0)).reg(ref(1));
    f.op(Opcode::BufferCompare)
        .reg(ref(0)).reg(prim(7)).reg(ref(1)).reg(prim(7)).reg(prim(0))
        .reg(prim(8));
    f.op(Opcode::BufferCopy)
        .reg(ref(0)).reg(prim(5)).reg(ref(1)).reg(prim(7)).reg(prim(5));
    f.op(Opcode::BufferLoadI64).reg(ref(1)).reg(prim(7)).reg(prim(9));
    f.op(Opcode::BufferLength).reg(ref(1)).reg(prim(10));
    f.op(Opcode::Return).list({ref(0, true), prim(9), prim(4), prim(10), prim(8)});
    mb.addExport("f", f.index());
    Harness h;
    REQUIRE(StatusText(h.load(mb)).ok());
    REQUIRE(StatusText(h.link()).ok());
    std::vector<strata_vm_value_t> r;
    StatusText s(h.call("buf.f", {}, &r, 5));
    REQUIRE_MESSAGE(s.ok(), s.str);
    strata_vm_buffer_t* buffer = strata_vm_buffer_from_ref(r[0].ref);
    REQUIRE(buffer != nullptr);
    CHECK(strata_vm_ref_count(r[0].ref) == 1);
    CHECK(strata_vm_buffer_length(buffer) == 16);
    CHECK(r[1].i64 == 0x0707070707070707ll);
    CHECK(r[2].i32 == -2);
    CHECK(r[3].i64 == 16);
    CHECK(r[4].i32 == 1);
    strata_vm_ref_release(r[0].ref);
  }

  TEST_CASE("buffer accesses out of range or on the wrong ref fail cleanly") {
    ModuleBuilder mb("bad");
    auto& f = mb.addFunction("f", "0I_i");
    f.op(Opcode::ConstI64).i64(4).reg(prim(1));
    f.op(Opcode::BufferAlloc).reg(prim(1)).reg(ref(0));
    f.op(Opcode::BufferLoadI32).reg(ref(0)).reg(prim(0)).reg(prim(2));
    f.op(Opcode::Return).list({prim(2)});
    auto& g = mb.addFunction("g", "0_i");
    g.op(Opcode::ConstI64).i64(0).reg(prim(0));
    g.op(Opcode::BufferLoadI32).reg(ref(0)).reg(prim(0)).reg(prim(1));
    g.op(Opcode::Return).list({prim(1)});
    auto& l = mb.addFunction("l", "0_I");
    l.op(Opcode::ConstI32).i32(1).reg(prim(0));
    l.op(Opcode::ListAlloc).reg(prim(0)).reg(ref(0));
    l.op(Opcode::BufferLength).reg(ref(0)).reg(prim(1));
    l.op(Opcode::Return).list({prim(1)});
    mb.addExport("f", f.index());
    mb.addExport("g", g.index());
    mb.addExport("l", l.index());
    Harness h;
    REQUIRE(StatusText(h.load(mb)).ok());
    REQUIRE(StatusText(h.link()).ok());
    std::vector<strata_vm_value_t> r;
    CHECK(StatusText(h.call("bad.f", {vI64(0)}, &r, 1)).ok());
    StatusText past(h.call("bad.f", {vI64(1)}, &r, 1));
    CHECK(past.code() == STRATA_STATUS_OUT_OF_RANGE);
    CHECK(past.contains("buffer.load.i32"));
    StatusText negative(h.call("bad.f", {vI64(-1)}, &r, 1));
    CHECK(negative.code() == STRATA_STATUS_OUT_OF_RANGE);
    StatusText null_ref(h.call("bad.g", {}, &r, 1));
    CHECK(null_ref.contains("expected a vm.buffer, got a null ref"));
    StatusText wrong(h.call("bad.l", {}, &r, 1));
    CHECK(wrong.contains("expected a vm.buffer, got a vm.list"));
  }

  TEST_CASE("rodata is a read-only zero-copy buffer") {
    ModuleBuilder mb("ro");
    uint32_t data = mb.addRodata({1, 2, 3, 4, 5, 6, 7, 8});
    auto& f = mb.addFunction("f", "0_ri");
    f.op(Opcode::ConstRefRodata).u32(data).reg(ref(0));
    f.op(Opcode::ConstI64).i64(1).reg(prim(0));
    f.op(Opcode::BufferLoadI16U).reg(ref(0)).reg(prim(0)).reg(prim(1));
    f.op(Opcode::Return).list({ref(0), prim(1)});
    auto& w = mb.addFunction("w", "0_");
    w.op(Opcode::ConstRefRodata).u32(data).reg(ref(0));
    w.op(Opcode::ConstI64).i64(0).reg(prim(0));
    w.op(Opcode::BufferStoreI8).reg(ref(0)).reg(prim(0)).reg(prim(0));
    w.op(Opcode::Return).list({});
    mb.addExport("f", f.index());
    mb.addExport("w", w.index());
    Harness h;
    REQUIRE(StatusText(h.load(mb)).ok());
    REQUIRE(StatusText(h.link()).ok());
    std::vector<strata_vm_value_t> r;
    REQUIRE(StatusText(h.call("ro.f", {}, &r, 2)).ok());
    CHECK(r[1].i32 == 0x0403);
    strata_vm_buffer_t* buffer = strata_vm_buffer_from_ref(r[0].ref);
    REQUIRE(buffer);
    CHECK_FALSE(strata_vm_buffer_is_writable(buffer));
    // Zero-copy: the bytes live inside the loaded module image.
    const auto* bc = h.modules[0]->bytecode;
    CHECK(strata_vm_buffer_data(buffer) >= bc->image);
    CHECK(strata_vm_buffer_data(buffer) < bc->image + bc->image_size);
    strata_vm_ref_release(r[0].ref);
    StatusText s(h.call("ro.w", {}, &r, 0));
    CHECK_FALSE(s.ok());
  }

  TEST_CASE("lists hold primitives and refs with ownership") {
    ModuleBuilder mb("lst");
    auto& f = mb.addFunction("f", "0r_iIrfF");
    f.op(Opcode::ConstI32).i32(0).reg(prim(0));
    f.op(Opcode::ListAlloc).reg(prim(0)).reg(ref(1));
    f.op(Opcode::ConstI32).i32(5).reg(prim(1));
    f.op(Opcode::ListReserve).reg(ref(1)).reg(prim(1));
    f.op(Opcode::ListResize).reg(ref(1)).reg(prim(1));
    f.op(Opcode::ConstI32).i32(0).reg(prim(2));
    f.op(Opcode::ConstI32).i32(1).reg(prim(3));
    f.op(Opcode::ConstI32).i32(2).reg(prim(4));
    f.op(Opcode::ConstI32).i32(3).reg(prim(5));
    f.op(Opcode::ConstI32).i32(4).reg(prim(6));
    f.op(Opcode::ConstI32).i32(-9).reg(prim(7));
    f.op(Opcode::ConstI64).i64(1ll << 50).reg(prim(8));
    f.op(Opcode::ConstF32).f32(0.5f).reg(prim(9));
    f.op(Opcode::ConstF64).f64(0.25).reg(prim(10));
    f.op(Opcode::ListSetI32).reg(ref(1)).reg(prim(2)).reg(prim(7));
    f.op(Opcode::ListSetI64).reg(ref(1)).reg(prim(3)).reg(prim(8));
    f.op(Opcode::ListSetRef).reg(ref(1)).reg(prim(4)).reg(ref(0));
    f.op(Opcode::ListSetF32).reg(ref(1)).reg(prim(5)).reg(prim(9));
    f.op(Opcode::ListSetF64).reg(ref(1)).reg(prim(6)).reg(prim(10));
    f.op(Opcode::ListGetI32).reg(ref(1)).reg(prim(2)).reg(prim(11));
    f.op(Opcode::ListGetI64).reg(ref(1)).reg(prim(3)).reg(prim(12));
    f.op(Opcode::ListGetRef).reg(ref(1)).reg(prim(4)).reg(ref(2));
    f.op(Opcode::ListGetF32).reg(ref(1)).reg(prim(5)).reg(prim(13));
    f.op(Opcode::ListGetF64).reg(ref(1)).reg(prim(6)).reg(prim(14));
    f.op(Opcode::ListSize).reg(ref(1)).reg(prim(15));
    f.op(Opcode::AddI32).reg(prim(15)).reg(prim(11)).reg(prim(15));
    f.op(Opcode::Return).list({prim(15), prim(12), ref(2), prim(13), prim(14)});
    mb.addExport("f", f.index());
    Harness h;
    REQUIRE(StatusText(h.load(mb)).ok());
    REQUIRE(StatusText(h.link()).ok());
    strata_vm_buffer_t* arg = nullptr;
    REQUIRE(StatusText(strata_vm_buffer_create(4, 0, strata_allocator_system(),
                                               &arg))
                .ok());
    std::vector<strata_vm_value_t> r;
    StatusText s(
        h.call("lst.f", {vRef(strata_vm_buffer_as_ref(arg))}, &r, 5));
    REQUIRE_MESSAGE(s.ok(), s.str);
    CHECK(r[0].i32 == 5 - 9);
    CHECK(r[1].i64 == (1ll << 50));
    CHECK(r[2].ref == strata_vm_buffer_as_ref(arg));
    CHECK(r[3].f32 == 0.5f);
    CHECK(r[4].f64 == 0.25);
    // The list died with the frame; the caller and the result hold the rest.
    CHECK(strata_vm_ref_count(strata_vm_buffer_as_ref(arg)) == 2);
    strata_vm_ref_release(r[2].ref);
    CHECK(strata_vm_ref_count(strata_vm_buffer_as_ref(arg)) == 1);
    strata_vm_buffer_release(arg);
  }

  TEST_CASE("list misuse names the index and the element type") {
    ModuleBuilder mb("lm");
    auto& f = mb.addFunction("f", "0i_i");
    f.op(Opcode::ConstI32).i32(2).reg(prim(1));
    f.op(Opcode::ListAlloc).reg(prim(1)).reg(ref(0));
    f.op(Opcode::ListResize).reg(ref(0)).reg(prim(1));
    f.op(Opcode::ConstF32).f32(1.0f).reg(prim(2));
    f.op(Opcode::ConstI32).i32(0).reg(prim(3));
    f.op(Opcode::ListSetF32).reg(ref(0)).reg(prim(3)).reg(prim(2));
    f.op(Opcode::ListGetI32).reg(ref(0)).reg(prim(0)).reg(prim(4));
    f.op(Opcode::Return).list({prim(4)});
    mb.addExport("f", f.index());
    Harness h;
    REQUIRE(StatusText(h.load(mb)).ok());
    REQUIRE(StatusText(h.link()).ok());
    std::vector<strata_vm_value_t> r;
    StatusText type(h.call("lm.f", {vI32(0)}, &r, 1));
    CHECK(type.contains("element 0 is f32, expected i32"));
    REQUIRE(StatusText(h.call("lm.f", {vI32(1)}, &r, 1)).ok());
    CHECK(r[0].i32 == 0);  // empty elements read as zero
    StatusText range(h.call("lm.f", {vI32(2)}, &r, 1));
    CHECK(range.code() == STRATA_STATUS_OUT_OF_RANGE);
    CHECK(range.contains("index 2 is out of range of a vm.list of 2 elements"));
  }

  TEST_CASE("ref ops: moves, compares, selects, casts and ref globals") {
    ModuleBuilder mb("refs");
    uint32_t buffer_type = mb.addType("vm.buffer");
    uint32_t list_type = mb.addType("vm.list");
    mb.setGlobals(0, 1);
    auto& f = mb.addFunction("f", "0ri_riiir");
    f.op(Opcode::MovRef).reg(ref(0)).reg(ref(1));
    f.op(Opcode::CmpEqRef).reg(ref(0)).reg(ref(1)).reg(prim(1));
    f.op(Opcode::ConstRefZero).reg(ref(2));
    f.op(Opcode::CmpNzRef).reg(ref(2)).reg(prim(2));
    f.op(Opcode::SelectRef).reg(prim(0)).reg(ref(1)).reg(ref(2)).reg(ref(3));
    f.op(Opcode::CastRef).reg(ref(3)).u32(buffer_type).reg(ref(4));
    f.op(Opcode::GlobalStoreRef).reg(ref(4)).u32(0);
    f.op(Opcode::GlobalLoadRef).u32(0).reg(ref(5));
    f.op(Opcode::CmpNzRef).reg(ref(5)).reg(prim(3));
    f.op(Opcode::Return).list({ref(5, true), prim(1), prim(2), prim(3), ref(2)});
    auto& bad = mb.addFunction("bad", "0r_");
    bad.op(Opcode::CastRef).reg(ref(0)).u32(list_type).reg(ref(1));
    bad.op(Opcode::Return).list({});
    mb.addExport("f", f.index());
    mb.addExport("bad", bad.index());
    Harness h;
    REQUIRE(StatusText(h.load(mb)).ok());
    REQUIRE(StatusText(h.link()).ok());
    strata_vm_buffer_t* arg = nullptr;
    REQUIRE(StatusText(strata_vm_buffer_create(1, 0, strata_allocator_system(),
                                               &arg))
                .ok());
    strata_vm_ref_object_t* a = strata_vm_buffer_as_ref(arg);
    std::vector<strata_vm_value_t> r;
    StatusText s(h.call("refs.f", {vRef(a), vI32(1)}, &r, 5));
    REQUIRE_MESSAGE(s.ok(), s.str);
    CHECK(r[0].ref == a);
    CHECK(r[1].i32 == 1);
    CHECK(r[2].i32 == 0);
    CHECK(r[3].i32 == 1);
    CHECK(r[4].ref == nullptr);
    // Caller, result and the ref global each hold one reference.
    CHECK(strata_vm_ref_count(a) == 3);
    strata_vm_ref_release(r[0].ref);
    StatusText cast(h.call("refs.bad", {vRef(a)}, &r, 0));
    CHECK(cast.contains("cast.ref: expected a vm.list, got a vm.buffer"));
    // Releasing the context drops the ref global.
    strata_vm_context_release(h.context);
    h.context = nullptr;
    CHECK(strata_vm_ref_count(a) == 1);
    strata_vm_buffer_release(arg);
  }

  TEST_CASE("print and trace reach the context hooks") {
    struct Sink {
      std::string printed;
      std::string event;
      int64_t value = 0;
    } sink;
    ModuleBuilder mb("dbg");
    auto& f = mb.addFunction("f", "0I_");
    f.op(Opcode::Print).str("value is").list({prim(0)});
    f.op(Opcode::Trace).str("tick").list({prim(0)});
    f.op(Opcode::Break);
    f.op(Opcode::Return).list({});
    mb.addExport("f", f.index());
    Harness h;
    REQUIRE(StatusText(h.load(mb)).ok());
    strata_vm_context_options_t options{};
    options.print = [](void* user, const char* text, size_t length) {
      static_cast<Sink*>(user)->printed.assign(text, length);
    };
    options.print_user = &sink;
    options.trace = [](void* user, const char* event, size_t length,
                       const strata_vm_variant_t* values, size_t count) {
      auto* s = static_cast<Sink*>(user);
      s->event.assign(event, length);
      if (count) s->value = values[0].value.i64;
    };
    options.trace_user = &sink;
    REQUIRE(StatusText(h.link(&options)).ok());
    std::vector<strata_vm_value_t> r;
    REQUIRE(StatusText(h.call("dbg.f", {vI64(42)}, &r, 0)).ok());
    CHECK(sink.printed == "value is 42");
    CHECK(sink.event == "tick");
    CHECK(sink.value == 42);
  }
  //===--------------------------------------------------------------------===//
  // Fused compare-and-branch and the branch fast paths
  //===--------------------------------------------------------------------===//

  // lt(a, b) through cond_br.lt.i64.s: returns 1 on the taken edge, 0 on the
  // other. With taken_first the taken block is the fall-through, otherwise
  // the not-taken one is (both layouts have their own fast path).
  // With immediate, b is the instruction's constant (cond_br.lt.i64.s.imm).
  int32_t fusedLt(int64_t a, int64_t b, bool taken_first,
                  bool immediate = false) {
    ModuleBuilder mb("t");
    auto& f = mb.addFunction("lt", "0II_i");
    uint32_t first = f.newBlock();
    uint32_t second = f.newBlock();
    uint32_t yes = taken_first ? first : second;
    uint32_t no = taken_first ? second : first;
    if (immediate) {
      f.op(Opcode::CondBrLtSI64Imm).reg(prim(0)).i64(b);
    } else {
      f.op(Opcode::CondBrLtSI64).reg(prim(0)).reg(prim(1));
    }
    f.block(yes).remap({}).block(no).remap({});
    f.bind(first);
    f.op(Opcode::ConstI32).i32(taken_first ? 1 : 0).reg(prim(2));
    f.op(Opcode::Return).list({prim(2)});
    f.bind(second);
    f.op(Opcode::ConstI32).i32(taken_first ? 0 : 1).reg(prim(2));
    f.op(Opcode::Return).list({prim(2)});
    mb.addExport("lt", f.index());
    Harness h;
    REQUIRE(StatusText(h.load(mb)).ok());
    REQUIRE(StatusText(h.link()).ok());
    std::vector<strata_vm_value_t> r;
    REQUIRE(StatusText(h.call("t.lt", {vI64(a), vI64(b)}, &r, 1)).ok());
    return r[0].i32;
  }

  TEST_CASE("cond_br.lt.i64.s branches on a signed 64-bit compare") {
    constexpr int64_t kMax64 = std::numeric_limits<int64_t>::max();
    for (bool taken_first : {true, false}) {
      CAPTURE(taken_first);
      CHECK(fusedLt(-1, 0, taken_first) == 1);
      CHECK(fusedLt(0, -1, taken_first) == 0);  // signed, not unsigned
      CHECK(fusedLt(5, 5, taken_first) == 0);   // strict
      CHECK(fusedLt(kMin64, kMax64, taken_first) == 1);
      CHECK(fusedLt(kMax64, kMin64, taken_first) == 0);
      // All 64 bits count: the low halves alone would compare 0 < 1.
      CHECK(fusedLt(1ll << 32, 1, taken_first) == 0);
      CHECK(fusedLt(1ll << 40, (1ll << 40) + 1, taken_first) == 1);
    }
  }

  TEST_CASE("cond_br.lt.i64.s.imm compares with its signed 64-bit constant") {
    constexpr int64_t kMax64 = std::numeric_limits<int64_t>::max();
    for (bool taken_first : {true, false}) {
      CAPTURE(taken_first);
      CHECK(fusedLt(1, 2, taken_first, true) == 1);
      CHECK(fusedLt(2, 2, taken_first, true) == 0);
      CHECK(fusedLt(-1, 0, taken_first, true) == 1);
      CHECK(fusedLt(0, -1, taken_first, true) == 0);
      CHECK(fusedLt(kMin64, kMax64, taken_first, true) == 1);
      CHECK(fusedLt(1ll << 32, 1, taken_first, true) == 0);
    }
  }

  TEST_CASE("cond_br.lt.i64.s applies only the remap of the edge it takes") {
    // f(a, b) = a < b ? a * 10 : b * 100, with the values passed in remaps
    // applied in order (%i0 -> %i5, %i5 -> %i6 leaves a in both).
    ModuleBuilder mb("t");
    auto& f = mb.addFunction("f", "0II_I");
    uint32_t yes = f.newBlock();
    uint32_t no = f.newBlock();
    f.op(Opcode::ConstI64).i64(10).reg(prim(2));
    f.op(Opcode::ConstI64).i64(100).reg(prim(3));
    f.op(Opcode::ConstI64).i64(-7).reg(prim(5));
    f.op(Opcode::ConstI64).i64(-7).reg(prim(6));
    f.op(Opcode::CondBrLtSI64)
        .reg(prim(0))
        .reg(prim(1))
        .block(yes)
        .remap({{prim(0), prim(5)}, {prim(5), prim(6)}})
        .block(no)
        .remap({{prim(1), prim(6)}});
    f.bind(yes);  // the fall-through of the taken edge, with a remap
    f.op(Opcode::MulI64).reg(prim(6)).reg(prim(2)).reg(prim(4));
    f.op(Opcode::AddI64).reg(prim(4)).reg(prim(5)).reg(prim(4));
    f.op(Opcode::Return).list({prim(4)});
    f.bind(no);
    f.op(Opcode::MulI64).reg(prim(6)).reg(prim(3)).reg(prim(4));
    f.op(Opcode::AddI64).reg(prim(4)).reg(prim(5)).reg(prim(4));
    f.op(Opcode::Return).list({prim(4)});
    mb.addExport("f", f.index());
    Harness h;
    REQUIRE(StatusText(h.load(mb)).ok());
    REQUIRE(StatusText(h.link()).ok());
    std::vector<strata_vm_value_t> r;
    REQUIRE(StatusText(h.call("t.f", {vI64(3), vI64(4)}, &r, 1)).ok());
    CHECK(r[0].i64 == 3 * 10 + 3);  // %i5 = a too
    REQUIRE(StatusText(h.call("t.f", {vI64(4), vI64(3)}, &r, 1)).ok());
    CHECK(r[0].i64 == 3 * 100 - 7);  // %i5 untouched on this edge
  }

  // The benchmark loop, s = (s + i * 3) % m for i in [1, n], as plain
  // compare + cond_br or as cond_br.lt.i64.s, with the loop state in block
  // arguments passed by the back edge's remap.
  int64_t modLoop(int64_t n, bool fused) {
    ModuleBuilder mb("t");
    auto& f = mb.addFunction("loop", "0I_I");
    uint32_t header = f.newBlock();
    uint32_t body = f.newBlock();
    uint32_t exit = f.newBlock();
    f.op(Opcode::ConstI64).i64(0).reg(prim(1));
    f.op(Opcode::ConstI64).i64(1).reg(prim(2));
    f.op(Opcode::ConstI64).i64(3).reg(prim(3));
    f.op(Opcode::ConstI64).i64(1000003).reg(prim(4));
    f.op(Opcode::AddI64).reg(prim(0)).reg(prim(2)).reg(prim(5));
    f.op(Opcode::Br).block(header).remap({{prim(2), prim(6)}, {prim(1), prim(7)}});
    f.bind(header);
    if (fused) {
      f.op(Opcode::CondBrLtSI64).reg(prim(6)).reg(prim(5)).block(body).remap(
          {}).block(exit).remap({});
    } else {
      f.op(Opcode::CmpLtSI64).reg(prim(6)).reg(prim(5)).reg(prim(8));
      f.op(Opcode::CondBr).reg(prim(8)).block(body).remap({}).block(exit).remap(
          {});
    }
    f.bind(body);
    f.op(Opcode::MulI64).reg(prim(6)).reg(prim(3)).reg(prim(9));
    f.op(Opcode::AddI64).reg(prim(7)).reg(prim(9)).reg(prim(10));
    f.op(Opcode::RemSI64).reg(prim(10)).reg(prim(4)).reg(prim(11));
    f.op(Opcode::AddI64).reg(prim(6)).reg(prim(2)).reg(prim(12));
    f.op(Opcode::Br).block(header).remap(
        {{prim(12), prim(6)}, {prim(11), prim(7)}});
    f.bind(exit);
    f.op(Opcode::Return).list({prim(7)});
    mb.addExport("loop", f.index());
    Harness h;
    REQUIRE(StatusText(h.load(mb)).ok());
    REQUIRE(StatusText(h.link()).ok());
    std::vector<strata_vm_value_t> r;
    REQUIRE(StatusText(h.call("t.loop", {vI64(n)}, &r, 1)).ok());
    return r[0].i64;
  }

  TEST_CASE("a loop runs the same with plain and fused compare-and-branch") {
    for (int64_t n : {0, 1, 2, 1000, 100000}) {
      int64_t s = 0;
      for (int64_t i = 1; i <= n; ++i) {
        s = (s + i * 3) % 1000003;
      }
      CAPTURE(n);
      CHECK(modLoop(n, false) == s);
      CHECK(modLoop(n, true) == s);
    }
  }

  TEST_CASE("br remaps of one, two and three pairs copy in order") {
    // g(a) passes block arguments through lists of each length; pairs that
    // read a register written earlier in the same list see the new value.
    ModuleBuilder mb("t");
    auto& f = mb.addFunction("g", "0I_I");
    uint32_t one = f.newBlock(), two = f.newBlock(), three = f.newBlock();
    f.op(Opcode::ConstI64).i64(1000).reg(prim(1));
    f.op(Opcode::Br).block(one).remap({{prim(0), prim(2)}});
    f.bind(one);  // %i2 = a
    f.op(Opcode::Br).block(two).remap({{prim(2), prim(3)}, {prim(3), prim(4)}});
    f.bind(two);  // %i3 = %i4 = a
    f.op(Opcode::Br).block(three).remap(
        {{prim(1), prim(5)}, {prim(5), prim(6)}, {prim(4), prim(7)}});
    f.bind(three);  // %i5 = %i6 = 1000, %i7 = a
    f.op(Opcode::AddI64).reg(prim(3)).reg(prim(4)).reg(prim(8));
    f.op(Opcode::AddI64).reg(prim(8)).reg(prim(6)).reg(prim(8));
    f.op(Opcode::AddI64).reg(prim(8)).reg(prim(7)).reg(prim(8));
    f.op(Opcode::Return).list({prim(8)});
    mb.addExport("g", f.index());
    Harness h;
    REQUIRE(StatusText(h.load(mb)).ok());
    REQUIRE(StatusText(h.link()).ok());
    std::vector<strata_vm_value_t> r;
    REQUIRE(StatusText(h.call("t.g", {vI64(5)}, &r, 1)).ok());
    CHECK(r[0].i64 == 5 + 5 + 1000 + 5);
  }

  TEST_CASE("br remaps a ref beside a primitive and keeps one reference") {
    // A two-pair list holding a ref takes the general path: the buffer moves
    // to %r1 and is still alive (and released once) when the frame pops.
    ModuleBuilder mb("t");
    auto& f = mb.addFunction("h", "0I_I");
    uint32_t next = f.newBlock();
    f.op(Opcode::BufferAlloc).reg(prim(0)).reg(ref(0));
    f.op(Opcode::Br).block(next).remap(
        {{ref(0, /*move=*/true), ref(1)}, {prim(0), prim(1)}});
    f.bind(next);
    f.op(Opcode::BufferLength).reg(ref(1)).reg(prim(2));
    f.op(Opcode::AddI64).reg(prim(1)).reg(prim(2)).reg(prim(3));
    f.op(Opcode::CmpNzRef).reg(ref(0)).reg(prim(4));
    f.op(Opcode::ExtI32I64U).reg(prim(4)).reg(prim(5));
    f.op(Opcode::AddI64).reg(prim(3)).reg(prim(5)).reg(prim(3));
    f.op(Opcode::Return).list({prim(3)});
    mb.addExport("h", f.index());
    Harness h;
    REQUIRE(StatusText(h.load(mb)).ok());
    REQUIRE(StatusText(h.link()).ok());
    std::vector<strata_vm_value_t> r;
    REQUIRE(StatusText(h.call("t.h", {vI64(16)}, &r, 1)).ok());
    CHECK(r[0].i64 == 16 + 16 + 0);  // %r0 was moved out
  }
  // op(a, imm) for the .imm opcodes ("ala").
  strata_vm_value_t immOp(Opcode opcode, int64_t a, int64_t imm,
                          std::string* error = nullptr) {
    ModuleBuilder mb("t");
    auto& f = mb.addFunction("f", "0I_I");
    f.location("imm.mlir", 4, 2);
    f.op(opcode).reg(prim(0)).i64(imm).reg(prim(1));
    f.op(Opcode::Return).list({prim(1)});
    mb.addExport("f", f.index());
    Harness h;
    StatusText load(h.load(mb));
    REQUIRE_MESSAGE(load.ok(), load.str);
    REQUIRE(StatusText(h.link()).ok());
    std::vector<strata_vm_value_t> r;
    StatusText call(h.call("t.f", {vI64(a)}, &r, 1));
    if (error) {
      *error = call.str;
      return strata_vm_value_t{};
    }
    REQUIRE_MESSAGE(call.ok(), call.str);
    return r[0];
  }

  TEST_CASE("add, mul and rem with an immediate match their register forms") {
    constexpr int64_t kMax64 = std::numeric_limits<int64_t>::max();
    CHECK(immOp(Opcode::AddI64Imm, 5, -2).i64 == 3);
    CHECK(immOp(Opcode::AddI64Imm, kMax64, 1).i64 == kMin64);  // wraps
    CHECK(immOp(Opcode::AddI64Imm, 1ll << 40, 1ll << 40).i64 == 1ll << 41);
    CHECK(immOp(Opcode::MulI64Imm, -7, 3).i64 == -21);
    CHECK(immOp(Opcode::MulI64Imm, kMin64, -1).i64 == kMin64);  // wraps
    CHECK(immOp(Opcode::MulI64Imm, 1ll << 62, 4).i64 == 0);
    CHECK(immOp(Opcode::RemSI64Imm, 7, 3).i64 == 1);
    CHECK(immOp(Opcode::RemSI64Imm, -7, 3).i64 == -1);  // sign of a
    CHECK(immOp(Opcode::RemSI64Imm, 7, -3).i64 == 1);
    CHECK(immOp(Opcode::RemSI64Imm, kMin64, -2).i64 == 0);
    CHECK(immOp(Opcode::RemSI64Imm, kMin64, 1).i64 == 0);
    CHECK(immOp(Opcode::RemSI64Imm, kMin64 + 1, kMin64).i64 == kMin64 + 1);
    CHECK(immOp(Opcode::RemSI64Imm, kMax64, 1000003).i64 == kMax64 % 1000003);
    CHECK(immOp(Opcode::RemSI64Imm, 5, kMin64).i64 == 5);
    // The same values through the register forms agree.
    for (int64_t a : std::vector<int64_t>{kMin64, -1000004, -1, 0, 3, kMax64}) {
      for (int64_t b : std::vector<int64_t>{-1000003, -2, 1, 7, 1000003}) {
        CAPTURE(a);
        CAPTURE(b);
        CHECK(immOp(Opcode::AddI64Imm, a, b).i64 == i64op(Opcode::AddI64, a, b));
        CHECK(immOp(Opcode::MulI64Imm, a, b).i64 == i64op(Opcode::MulI64, a, b));
        CHECK(immOp(Opcode::RemSI64Imm, a, b).i64 ==
              i64op(Opcode::RemSI64, a, b));
      }
    }
  }
}
