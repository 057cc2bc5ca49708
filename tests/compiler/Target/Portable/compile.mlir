// The portable target through the hal phase: each flow.executable becomes a
// hal.executable of kernel bytecode (format portable-bytecode-v1, starting
// with the magic "SKBC"), one export per dispatch function on one
// workgroup; what it cannot encode is an error naming the op.
// REQUIRES: portable
// RUN: strata-opt --strata-compile-executables='target=portable' --split-input-file --verify-diagnostics %s | FileCheck %s

// CHECK-LABEL: module @m
// CHECK: hal.executable @m_linked format("portable-bytecode-v1") data("SKBC
// CHECK-NEXT: hal.executable.export @f_dispatch_0 ordinal(0) workgroup_count([1, 1, 1])
// CHECK-NEXT: hal.executable.export @f_dispatch_1 ordinal(1) workgroup_count([1, 1, 1])
module @m {
  func.func @f(%a: tensor<8xf32>, %b: tensor<8x4xf32>) -> tensor<4xf32> {
    %0 = flow.dispatch @m_linked::@f_dispatch_0(%a) : (tensor<8xf32>) -> tensor<8xf32>
    %1 = flow.dispatch @m_linked::@f_dispatch_1(%0, %b) : (tensor<8xf32>, tensor<8x4xf32>) -> tensor<4xf32>
    return %1 : tensor<4xf32>
  }
  flow.executable @m_linked {
  builtin.module {
    func.func @f_dispatch_0(%a: tensor<8xf32>) -> tensor<8xf32> {
      %e = tensor.empty() : tensor<8xf32>
      %r = linalg.add ins(%a, %a : tensor<8xf32>, tensor<8xf32>) outs(%e : tensor<8xf32>) -> tensor<8xf32>
      return %r : tensor<8xf32>
    }
    func.func @f_dispatch_1(%a: tensor<8xf32>, %b: tensor<8x4xf32>) -> tensor<4xf32> {
      %zero = arith.constant 0.0 : f32
      %e = tensor.empty() : tensor<4xf32>
      %f = linalg.fill ins(%zero : f32) outs(%e : tensor<4xf32>) -> tensor<4xf32>
      %r = linalg.vecmat ins(%a, %b : tensor<8xf32>, tensor<8x4xf32>) outs(%f : tensor<4xf32>) -> tensor<4xf32>
      return %r : tensor<4xf32>
    }
  }
  }
}

// -----

// f16 memory, computed in f32: both operands (slot 0, slot 1) have type 7
// (f16); the body (3 instructions) loads f32 lanes (load | f32 << 8 = 1),
// adds them (addf = 0x0A), rounds the sum to f16 (roundf16 = 89, 'Y') and
// yields it, which the output stores as f16.
// CHECK-LABEL: module @f16
// CHECK: data("SKBC
// CHECK-SAME: \00\00\00\00\07\00\00\00\00\00\00\00\00\00\00\00\01\00\00\00\00\00\00\00\01\00\00\00\07\00\00\00
// CHECK-SAME: \03\00\00\00\01\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\0A\00\00\00\01\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00Y\00\00\00\02\00\00\00\01\00\00\00\00\00\00\00\00\00\00\00\02\00\00\00")
// CHECK: hal.executable.export @half
module @f16 {
  flow.executable @f16_linked {
  builtin.module {
    func.func @half(%a: tensor<8xf16>) -> tensor<8xf16> {
      %e = tensor.empty() : tensor<8xf16>
      %r = linalg.add ins(%a, %a : tensor<8xf16>, tensor<8xf16>) outs(%e : tensor<8xf16>) -> tensor<8xf16>
      return %r : tensor<8xf16>
    }
  }
  }
}

// -----

module @bitcast {
  flow.executable @bitcast_linked {
  builtin.module {
    func.func @bits(%a: tensor<8xf16>) -> tensor<8xi16> {
      %e = tensor.empty() : tensor<8xi16>
      %r = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%a : tensor<8xf16>) outs(%e : tensor<8xi16>) {
      ^bb0(%x: f16, %o: i16):
        // expected-error @+1 {{portable: cannot bitcast 'f16' (computed in f32)}}
        %b = arith.bitcast %x : f16 to i16
        linalg.yield %b : i16
      } -> tensor<8xi16>
      return %r : tensor<8xi16>
    }
  }
  }
}

// -----

// tensor.from_elements of two push constants: two generics of one
// iteration (rank 1, size 1, vector, one operand that is the output), each
// writing slot 0 (i64 = 6) at its constant index (offset 0, then 1; stride
// 0) the push constant (push | i64 << 8 = 0x604) at words 0 and 2.
// CHECK-LABEL: module @store
// CHECK: data("SKBC
// CHECK-SAME: \01\00\00\00\01\00\00\00\01\00\00\00\00\00\00\00\01\00\00\00\01\00\00\00\01\00\00\00\00\00\00\00\06\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\01\00\00\00\04\06\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00
// CHECK-SAME: \01\00\00\00\01\00\00\00\01\00\00\00\00\00\00\00\01\00\00\00\01\00\00\00\01\00\00\00\00\00\00\00\06\00\00\00\01\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\01\00\00\00\04\06\00\00\00\00\00\00\02\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00")
// CHECK: hal.executable.export @pack
module @store {
  flow.executable @store_linked {
  builtin.module {
    func.func @pack(%a: i64, %b: i64) -> tensor<2xi64> attributes {strata.input_count = 2 : i64, strata.result_count = 1 : i64} {
      %r = tensor.from_elements %a, %b : tensor<2xi64>
      return %r : tensor<2xi64>
    }
  }
  }
}

// -----

// A select of whole tensors on one i1: an elementwise generic whose body
// reads the condition as a push constant (push | i1 << 8 = 0x204) and
// selects (select = 120, 'x') between the two constant inputs.
// CHECK-LABEL: module @select
// CHECK: data("SKBC
// CHECK-SAME: \04\02\00\00
// CHECK-SAME: x\00\00\00
// CHECK: hal.executable.export @pick
module @select {
  flow.executable @select_linked {
  builtin.module {
    func.func @pick(%c: i1) -> tensor<2xf32> attributes {strata.input_count = 1 : i64, strata.result_count = 1 : i64} {
      %a = arith.constant dense<[1.0, 2.0]> : tensor<2xf32>
      %b = arith.constant dense<[3.0, 4.0]> : tensor<2xf32>
      %r = arith.select %c, %a, %b : tensor<2xf32>
      return %r : tensor<2xf32>
    }
  }
  }
}

// -----

// An input read at d0 mod 3: its operand stays at the view's start (strides
// 0) and the body gathers it at d0 - 3 * floor(d0 / 3): index (3 | i64 <<
// 8), floordivsi ('/'), muli (' '), subi (0x1F), then gather (5, f32) into
// r1 from operand 0 at r2, extent 3 (range-checked per lane).
// CHECK-LABEL: module @mod
// CHECK: data("SKBC
// CHECK-SAME: \03\06\00\00\00\00\00\00\00\00\00\00
// CHECK-SAME: /\06\00\00\02\00\00\00\00\00\00\00\01\00\00\00
// CHECK-SAME: \1F\06\00\00\02\00\00\00\00\00\00\00\03\00\00\00
// CHECK-SAME: \05\00\00\00\01\00\00\00\00\00\00\00\02\00\00\00\03\00\00\00
// CHECK: hal.executable.export @tile
module @mod {
  flow.executable @mod_linked {
  builtin.module {
    func.func @tile(%a: tensor<3xf32>) -> tensor<6xf32> {
      %e = tensor.empty() : tensor<6xf32>
      %r = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0 mod 3)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%a : tensor<3xf32>) outs(%e : tensor<6xf32>) {
      ^bb0(%x: f32, %o: f32):
        linalg.yield %x : f32
      } -> tensor<6xf32>
      return %r : tensor<6xf32>
    }
  }
  }
}

// -----

// An output written at a non-linear map (several iterations to one
// element) is refused: only inputs are gathered.
module @modout {
  flow.executable @modout_linked {
  builtin.module {
    func.func @scatter(%a: tensor<6xf32>) -> tensor<3xf32> {
      %e = tensor.empty() : tensor<3xf32>
      // expected-error @+1 {{portable: indexing map affine_map<(d0) -> (d0 mod 3)> is not linear in the loop dimensions}}
      %r = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0 mod 3)>], iterator_types = ["parallel"]} ins(%a : tensor<6xf32>) outs(%e : tensor<3xf32>) {
      ^bb0(%x: f32, %o: f32):
        linalg.yield %x : f32
      } -> tensor<3xf32>
      return %r : tensor<3xf32>
    }
  }
  }
}

// -----

// An f16 matmul is the matmul instruction (2: batch 1, M 2, N 3, K 8) on
// f16 matrices (type 7: A slot 0, row stride 8; B slot 1; C slot 2), which
// rounds each product and sum to f16 as the body does, not generic loops.
// CHECK-LABEL: module @mm16
// CHECK: data("SKBC
// CHECK-SAME: \02\00\00\00\01\00\00\00\02\00\00\00\03\00\00\00\08\00\00\00\00\00\00\00\07\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\08\00\00\00\00\00\00\00\01\00\00\00\00\00\00\00\01\00\00\00\07\00\00\00
// CHECK-SAME: \02\00\00\00\07\00\00\00
// CHECK: hal.executable.export @mm
module @mm16 {
  flow.executable @mm16_linked {
  builtin.module {
    func.func @mm(%a: tensor<2x8xf16>, %b: tensor<8x3xf16>) -> tensor<2x3xf16> {
      %z = arith.constant 0.0 : f16
      %e = tensor.empty() : tensor<2x3xf16>
      %f = linalg.fill ins(%z : f16) outs(%e : tensor<2x3xf16>) -> tensor<2x3xf16>
      %r = linalg.matmul ins(%a, %b : tensor<2x8xf16>, tensor<8x3xf16>) outs(%f : tensor<2x3xf16>) -> tensor<2x3xf16>
      return %r : tensor<2x3xf16>
    }
  }
  }
}
