// Lists of tensors on the host (!util.list, ONNX sequences): an element
// read as a ranked tensor is checked like an argument before a kernel
// reads it, since a list may come from a caller that did not check its
// elements (the C API) or hold an element never set; a read past the end
// fails too.
// RUN: strata-compile %s -o %t.vmfb
// RUN: strata-run --module=%t.vmfb --function=double_first --input=list:2 --input="2xf32=1.5 -2" --input="3xf32=7 8 9" | FileCheck %s --check-prefix=OK
// OK: 2xf32=3 -4
// RUN: not strata-run --module=%t.vmfb --function=double_first --input=list:1 --input="3xf32=1 2 3" 2>&1 | FileCheck %s --check-prefix=SHAPE
// SHAPE: a sequence element: expected tensor<2xf32>, got tensor<3xf32>
// RUN: not strata-run --module=%t.vmfb --function=double_first --input=list:1 --input="2xi32=1 2" 2>&1 | FileCheck %s --check-prefix=TYPE
// TYPE: a sequence element: expected tensor<2xf32>, got tensor<2xi32>
// RUN: not strata-run --module=%t.vmfb --function=double_first --input=list:0 2>&1 | FileCheck %s --check-prefix=EMPTY
// EMPTY: module.double_first failed: OUT_OF_RANGE: list.get.ref: index 0 is out of range of a vm.list of 0 elements
// RUN: not strata-run --module=%t.vmfb --function=unset --input="2xf32=1 2" 2>&1 | FileCheck %s --check-prefix=UNSET
// UNSET: a sequence element: expected tensor<2xf32>, got null

func.func @double_first(%l: !util.list<tensor<2xf32>>) -> tensor<2xf32> {
  %c0 = arith.constant 0 : index
  %t = util.list.get %l[%c0] : !util.list<tensor<2xf32>> -> tensor<2xf32>
  %r = arith.addf %t, %t : tensor<2xf32>
  return %r : tensor<2xf32>
}

// A list of two elements of which only the second is set.
func.func @unset(%x: tensor<2xf32>) -> tensor<2xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %l = util.list.create %c2 : !util.list<tensor<2xf32>>
  util.list.resize %l, %c2 : !util.list<tensor<2xf32>>
  util.list.set %l[%c1], %x : !util.list<tensor<2xf32>>, tensor<2xf32>
  %t = util.list.get %l[%c0] : !util.list<tensor<2xf32>> -> tensor<2xf32>
  %r = arith.addf %t, %t : tensor<2xf32>
  return %r : tensor<2xf32>
}
