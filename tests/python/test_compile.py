"""test_compile.py - strata.compile: the compiler as a library in this
process. With the compiler: MLIR text, paths and ONNX models compiled and
run, compile errors as strata.CompileError with file:line:col diagnostics,
--async-exports entry points called asynchronously. Without it: a clear
strata.UnimplementedError."""
import concurrent.futures
import os

import numpy as np
import pytest

import strata

HAVE_COMPILER = os.environ.get("STRATA_TEST_HAVE_COMPILER") == "1"
HAVE_LLVM_CPU = os.environ.get("STRATA_TEST_HAVE_LLVM_CPU") == "1"
ONNX_NODE_TESTS = "/usr/share/libonnx-testdata/data/node"

needs_compiler = pytest.mark.skipif(not HAVE_COMPILER,
                                    reason="built without the compiler")
needs_kernels = pytest.mark.skipif(not HAVE_LLVM_CPU,
                                   reason="built without llvm-cpu")

SCALAR = """\
func.func @mix(%a: i32, %b: f64) -> (i32, f64) {
  %c2 = arith.constant 2 : i32
  %x = arith.muli %a, %c2 : i32
  %y = arith.addf %b, %b : f64
  return %x, %y : i32, f64
}
"""

TENSOR = """\
func.func @scale_add(%a: tensor<2x3xf32>, %b: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %e = tensor.empty() : tensor<2x3xf32>
  %r = linalg.generic {
      indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>,
                       affine_map<(i, j) -> (i, j)>],
      iterator_types = ["parallel", "parallel"]}
      ins(%a, %b : tensor<2x3xf32>, tensor<2x3xf32>) outs(%e : tensor<2x3xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %two = arith.constant 2.0 : f32
    %m = arith.mulf %x, %two : f32
    %s = arith.addf %m, %y : f32
    linalg.yield %s : f32
  } -> tensor<2x3xf32>
  return %r : tensor<2x3xf32>
}
"""


@pytest.mark.skipif(HAVE_COMPILER, reason="built with the compiler")
def test_without_the_compiler_compile_says_so():
    with pytest.raises(strata.UnimplementedError, match="no compiler"):
        strata.compile(SCALAR)


@needs_compiler
def test_mlir_text_compiles_and_runs():
    vmfb = strata.compile(SCALAR)
    assert isinstance(vmfb, bytes) and len(vmfb) > 64
    session = strata.Session(vmfb, device="local-sync")
    assert session["mix"].signature == "(i32, f64) -> (i32, f64)"
    assert session["mix"](21, 1.25) == (42, 2.5)


@needs_compiler
def test_compile_errors_carry_file_line_col(tmp_path):
    bad = "func.func @f() -> i32 {\n  %x = arith.constant 1 : i64\n  return %x : i32\n}\n"
    with pytest.raises(strata.CompileError) as error:
        strata.compile(bad)
    assert error.value.diagnostics
    assert error.value.diagnostics[0] == (
        "<mlir>:3:10: error: use of value '%x' expects different type than "
        "prior uses: 'i32' vs 'i64'")
    # The text also shows the source line.
    assert "  return %x : i32" in str(error.value)
    # From a file, diagnostics name the file.
    path = tmp_path / "bad.mlir"
    path.write_text("func.func @f( {\n")
    with pytest.raises(strata.CompileError) as error:
        strata.compile(path)
    assert error.value.diagnostics[0].startswith(str(path) + ":1:")
    assert isinstance(error.value, strata.Error)
    # The compiler is fine afterwards.
    assert strata.compile(SCALAR)


@needs_compiler
def test_bad_arguments():
    with pytest.raises(ValueError, match="input_type"):
        strata.compile(SCALAR, input_type="tflite")
    with pytest.raises(strata.InvalidArgumentError, match="takes a path"):
        strata.compile(42)


@needs_compiler
@needs_kernels
def test_a_tensor_program_runs_on_numpy_arrays(tmp_path):
    path = tmp_path / "scale_add.mlir"
    path.write_text(TENSOR)
    for source in (TENSOR, path, str(path)):
        session = strata.Session(strata.compile(source), device="local-task")
        a = np.arange(6, dtype=np.float32).reshape(2, 3)
        b = np.full((2, 3), 0.5, np.float32)
        np.testing.assert_array_equal(session["scale_add"](a, b), 2 * a + b)
        # The compiler's reflection names the argument on a wrong shape.
        with pytest.raises(strata.InvalidArgumentError,
                           match=r"argument 1 of \w+\.scale_add is a "
                                 r"2x3xf32 tensor, not 3x2xf32"):
            session["scale_add"](a, b.T.copy())


@needs_compiler
@needs_kernels
def test_async_exports_overlap_on_local_task():
    session = strata.Session(strata.compile(TENSOR, async_exports=True),
                             device="local-task", task_workers=2)
    fn = session["scale_add"]
    assert fn.has_async_entry
    assert "scale_add$async" not in session.functions
    gate = strata.Fence()
    inputs = [np.full((2, 3), k, np.float32) for k in range(12)]
    futures = [fn.call_async(x, x, wait=gate) for x in inputs]
    done, _ = concurrent.futures.wait(futures, timeout=0.2)
    assert not done
    gate.signal()
    for x, future in zip(inputs, futures):
        np.testing.assert_array_equal(future.result(timeout=60), 3 * x)


def onnx_node_test(name):
    folder = os.path.join(ONNX_NODE_TESTS, name)
    if not os.path.isdir(folder):
        pytest.skip("libonnx-testdata is not installed")
    onnx = pytest.importorskip("onnx")
    from onnx import numpy_helper

    def read(path):
        tensor = onnx.TensorProto()
        with open(path, "rb") as f:
            tensor.ParseFromString(f.read())
        return numpy_helper.to_array(tensor)

    data = os.path.join(folder, "test_data_set_0")
    inputs = [read(os.path.join(data, f)) for f in sorted(os.listdir(data))
              if f.startswith("input_")]
    outputs = [read(os.path.join(data, f)) for f in sorted(os.listdir(data))
               if f.startswith("output_")]
    return os.path.join(folder, "model.onnx"), inputs, outputs


@needs_compiler
@needs_kernels
def test_an_onnx_model_compiles_from_bytes_and_runs():
    model, inputs, outputs = onnx_node_test("test_add")
    with open(model, "rb") as f:
        vmfb = strata.compile(f.read())
    session = strata.Session(vmfb, device="local-sync")
    (name,) = session.functions
    np.testing.assert_allclose(session[name](*inputs), outputs[0],
                               rtol=1e-3, atol=1e-7)
    # And from its path.
    session = strata.Session(strata.compile(model), device="local-sync")
    np.testing.assert_allclose(session[name](*inputs), outputs[0],
                               rtol=1e-3, atol=1e-7)


@needs_compiler
@needs_kernels
def test_winograd_false_keeps_the_direct_kernel():
    # A 3x3 stride-1 convolution with a constant 3x3 x 16 x 32 filter on a
    # 12x10 image: Winograd's by default, the direct kernel's with
    # winograd=False. Both against numpy's sums, and not bit for bit the
    # same (Winograd's transforms round differently), which they would be
    # if the option did not reach the compiler.
    rng = np.random.default_rng(7)
    w = rng.uniform(-1, 1, (3, 3, 16, 32)).astype(np.float32)
    x = rng.uniform(-1, 1, (1, 12, 10, 16)).astype(np.float32)
    filt = 'dense<"0x%s"> : tensor<3x3x16x32xf32>' % w.astype(
        "<f4").tobytes().hex().upper()
    program = """\
func.func @conv(%x: tensor<1x12x10x16xf32>) -> tensor<1x10x8x32xf32> {
  %w = arith.constant dense<0.0> : tensor<3x3x16x32xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x10x8x32xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1x10x8x32xf32>) -> tensor<1x10x8x32xf32>
  %c = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%x, %w : tensor<1x12x10x16xf32>, tensor<3x3x16x32xf32>) outs(%f : tensor<1x10x8x32xf32>) -> tensor<1x10x8x32xf32>
  return %c : tensor<1x10x8x32xf32>
}
""".replace("dense<0.0> : tensor<3x3x16x32xf32>", filt)
    expected = np.zeros((1, 10, 8, 32), np.float64)
    for i in range(3):
        for j in range(3):
            expected[0] += np.einsum("hwc,cf->hwf",
                                     x[0, i:i + 10, j:j + 8].astype(np.float64),
                                     w[i, j].astype(np.float64))
    results = {}
    for winograd in (True, False):
        session = strata.Session(strata.compile(program, winograd=winograd),
                                 device="local-sync")
        results[winograd] = np.asarray(session["conv"](x))
        np.testing.assert_allclose(results[winograd], expected,
                                   rtol=1e-4, atol=1e-4)
    assert not np.array_equal(results[True], results[False])


def onnx_model(node, inputs, outputs, initializers=()):
    onnx = pytest.importorskip("onnx")
    from onnx import helper
    graph = helper.make_graph([node], "g", [
        helper.make_tensor_value_info(n, t, s) for n, t, s in inputs], [
        helper.make_tensor_value_info(n, t, s) for n, t, s in outputs],
        list(initializers))
    return helper.make_model(graph, opset_imports=[
        helper.make_opsetid("", 17)]).SerializeToString()


@needs_compiler
@needs_kernels
@pytest.mark.parametrize("dtype", [np.uint8, np.uint16, np.uint32, np.uint64])
def test_unsigned_onnx_tensors_come_back_unsigned(dtype):
    onnx = pytest.importorskip("onnx")
    from onnx import helper, numpy_helper
    elem = onnx.mapping.NP_TYPE_TO_TENSOR_TYPE[np.dtype(dtype)]
    top = np.iinfo(dtype).max
    x = np.array([0, 1, top // 2 + 1, top], dtype)
    one = numpy_helper.from_array(np.array([1], dtype), "one")
    vmfb = strata.compile(onnx_model(
        helper.make_node("Add", ["x", "one"], ["y"]), [("x", elem, [4])],
        [("y", elem, [4])], [one]))
    session = strata.Session(vmfb, device="local-sync")
    assert session["main"].attributes["result0.element_type"] == \
        "ui%d" % (np.dtype(dtype).itemsize * 8)
    y = session["main"](x)
    # Values above the signed range stay positive; Add wraps modulo 2^N.
    assert y.dtype == np.dtype(dtype)
    np.testing.assert_array_equal(y, x + dtype(1))


@needs_compiler
@needs_kernels
def test_float8_and_int4_onnx_tensors_cross_the_boundary():
    # float8 (opset 19) tensors travel as their bit patterns (uint8 arrays),
    # int4/uint4 (opset 21) ones a value a byte (int8/uint8 arrays); the
    # reflection names the type, and an int4 value out of range fails the
    # call naming the input.
    pytest.importorskip("onnx")
    from onnx import helper

    def identity(code):
        graph = helper.make_graph(
            [helper.make_node("Identity", ["x"], ["y"])], "g",
            [helper.make_tensor_value_info("x", code, [4])],
            [helper.make_tensor_value_info("y", code, [4])])
        return helper.make_model(graph, opset_imports=[
            helper.make_opsetid("", 21)]).SerializeToString()

    for code, recorded, dtype, values in [
            (17, "f8E4M3FN", np.uint8, [0x00, 0x38, 0xFF, 0x80]),
            (19, "f8E5M2", np.uint8, [0x7C, 0xFC, 0x01, 0x3C]),
            (22, "i4", np.int8, [-8, -1, 0, 7]),
            (21, "ui4", np.uint8, [0, 8, 15, 1])]:
        session = strata.Session(strata.compile(identity(code)),
                                 device="local-sync")
        assert session["main"].attributes["arg0.element_type"] == recorded
        assert session["main"].attributes["result0.element_type"] == recorded
        x = np.array(values, dtype)
        y = session["main"](x)
        assert y.dtype == np.dtype(dtype)
        np.testing.assert_array_equal(y, x)
        if recorded == "i4":
            with pytest.raises(strata.Error, match=r"graph input 'x' "
                               r"\(argument 0\) is int4, given as int8 "
                               r"values one a byte, and holds a value "
                               r"outside \[-8, 7\]"):
                session["main"](np.array([0, 8, 0, 0], np.int8))


@needs_compiler
@needs_kernels
def test_f16_and_bf16_onnx_tensors_cross_the_boundary():
    onnx = pytest.importorskip("onnx")
    from onnx import TensorProto, helper
    h = np.array([0.5, -1.25, 3.0, 1e-3], np.float16)
    session = strata.Session(strata.compile(onnx_model(
        helper.make_node("Mul", ["x", "x"], ["y"]),
        [("x", TensorProto.FLOAT16, [4])], [("y", TensorProto.FLOAT16, [4])])),
        device="local-sync")
    y = session["main"](h)
    assert y.dtype == np.float16
    np.testing.assert_allclose(y, h * h, rtol=1e-3)
    # bf16: numpy has none, so float32 arrays go in (rounded to nearest
    # even) and come out (widened exactly).
    session = strata.Session(strata.compile(onnx_model(
        helper.make_node("Add", ["x", "x"], ["y"]),
        [("x", TensorProto.BFLOAT16, [4])],
        [("y", TensorProto.BFLOAT16, [4])])), device="local-sync")
    f = np.array([1.0, 1.00390625, 1.01171875, -3.1415927], np.float32)
    y = session["main"](f)
    assert y.dtype == np.float32
    # 1.00390625 is halfway between bf16 1.0 and 1.0078125: ties to even.
    np.testing.assert_array_equal(y, np.array([2.0, 2.0, 2.03125, -6.28125],
                                              np.float32))


@needs_compiler
@needs_kernels
@pytest.mark.parametrize("device", ["local-sync", "local-task"])
def test_a_symbolic_dimension_takes_any_size_and_is_checked(device):
    # a and b share N: any N runs, the same N; a call whose two Ns differ
    # fails naming both arguments, the dimension and both sizes.
    onnx = pytest.importorskip("onnx")
    from onnx import TensorProto, helper
    session = strata.Session(strata.compile(onnx_model(
        helper.make_node("Add", ["a", "b"], ["c"]),
        [("a", TensorProto.FLOAT, ["N", 3]), ("b", TensorProto.FLOAT, ["N", 3])],
        [("c", TensorProto.FLOAT, ["N", 3])])), device=device)
    fn = session["main"]
    assert fn.arguments == ["tensor<?x3xf32>", "tensor<?x3xf32>"]
    assert fn.attributes["arg0.dims"] == "N,3"
    for n in (0, 1, 5):
        a = np.arange(3 * n, dtype=np.float32).reshape(n, 3)
        b = np.full((n, 3), 0.5, np.float32)
        np.testing.assert_array_equal(fn(a, b), a + b)
        kept = fn(strata.Tensor(a), strata.Tensor(b), tensors=True)
        assert kept.shape == (n, 3)
        np.testing.assert_array_equal(kept.numpy(), a + b)
    with pytest.raises(strata.InvalidArgumentError,
                       match=r"argument 1 of \w+\.main is a \?x3xf32 "
                             r"tensor, not 2x4xf32"):
        fn(np.zeros((2, 3), np.float32), np.zeros((2, 4), np.float32))
    with pytest.raises(strata.FailedPreconditionError,
                       match=r"argument 1 \('b'\) dimension 0 is 5 but "
                             r"argument 0 \('a'\) dimension 0 is 2; the "
                             r"model names both 'N'"):
        fn(np.zeros((2, 3), np.float32), np.zeros((5, 3), np.float32))
    # The function still runs after the failure.
    np.testing.assert_array_equal(
        fn(np.ones((2, 3), np.float32), np.ones((2, 3), np.float32)),
        np.full((2, 3), 2.0, np.float32))


@needs_compiler
def test_onnx_errors_are_compile_errors():
    with pytest.raises(strata.CompileError) as error:
        strata.compile(b"\x08\x07 not a model", input_type="onnx")
    assert error.value.diagnostics[0].startswith(
        "<bytes>:0:0: error: not a valid ONNX model")
    with pytest.raises(strata.CompileError,
                       match="--input-shape applies to ONNX models only"):
        strata.compile(SCALAR, input_shapes=["x=1x2"])


def torch_available():
    try:
        import torch  # noqa: F401
        import torchvision  # noqa: F401
        return True
    except ImportError:
        return False


@needs_compiler
@needs_kernels
@pytest.mark.skipif(not torch_available(), reason="needs python3-torch")
@pytest.mark.parametrize("name", ["squeezenet1_1", "transformer"])
def test_torch_models_match_torch(tmp_path, name):
    # The models suite's exporter (tests/models/make_models.py): random
    # weights, opset 17, torch's own outputs as the reference.
    import subprocess
    import sys
    root = os.path.dirname(os.path.dirname(os.path.dirname(
        os.path.abspath(__file__))))
    subprocess.run([sys.executable,
                    os.path.join(root, "tests", "models", "make_models.py"),
                    "--models", name, "--out", str(tmp_path)],
                   check=True, capture_output=True, timeout=300)
    vmfb = strata.compile(str(tmp_path / (name + ".onnx")))
    session = strata.Session(vmfb, device="local-task")
    x = np.load(tmp_path / (name + ".input.npy"))
    expected = np.load(tmp_path / (name + ".expected.npy"))
    np.testing.assert_allclose(session["main"](x), expected, rtol=1e-3,
                               atol=1e-4)



@needs_compiler
@needs_kernels
def test_result_tensors_survive_later_calls():
    # A kept result must not share memory that a later call of the same
    # function reuses: each call's results are its own.
    session = strata.Session(strata.compile(TENSOR), device="local-task")
    fn = session["scale_add"]
    a = np.arange(6, dtype=np.float32).reshape(2, 3)
    b = np.full((2, 3), 0.5, np.float32)
    first = fn(a, b, tensors=True)
    second = fn(first, b, tensors=True)
    third = fn(second, first, tensors=True)
    np.testing.assert_array_equal(first.numpy(), 2 * a + b)
    np.testing.assert_array_equal(second.numpy(), 2 * (2 * a + b) + b)
    np.testing.assert_array_equal(third.numpy(),
                                  2 * second.numpy() + first.numpy())
    assert fn.call_async(a, b, tensors=True).result(timeout=60).shape == (2, 3)
    # The signature names a Tensor of the wrong shape before the call.
    with pytest.raises(strata.InvalidArgumentError,
                       match=r"argument 1 of \w+\.scale_add is a 2x3xf32 "
                             r"tensor, not 3x2xf32"):
        fn(first, strata.Tensor(b.T.copy()))


@needs_compiler
@needs_kernels
@pytest.mark.parametrize("device", ["local-sync", "local-task"])
def test_onnx_sequences_and_optionals_are_lists_and_none(device):
    # A sequence input (a Python list of arrays) mapped through a kernel,
    # its length, and an optional input (None or an array).
    onnx = pytest.importorskip("onnx")
    from onnx import TensorProto, helper
    seq = helper.make_sequence_type_proto(
        helper.make_tensor_type_proto(TensorProto.FLOAT, ["N"]))
    opt = helper.make_optional_type_proto(
        helper.make_tensor_type_proto(TensorProto.FLOAT, [2]))
    body = helper.make_graph(
        [helper.make_node("Add", ["e", "e"], ["d"])], "body",
        [helper.make_tensor_value_info("e", TensorProto.FLOAT, ["N"])],
        [helper.make_tensor_value_info("d", TensorProto.FLOAT, ["N"])])
    graph = helper.make_graph(
        [helper.make_node("SequenceMap", ["s"], ["doubled"], body=body),
         helper.make_node("SequenceLength", ["s"], ["n"]),
         helper.make_node("OptionalHasElement", ["o"], ["has"])],
        "g", [helper.make_value_info("s", seq),
              helper.make_value_info("o", opt)],
        [helper.make_value_info("doubled", seq),
         helper.make_tensor_value_info("n", TensorProto.INT64, []),
         helper.make_tensor_value_info("has", TensorProto.BOOL, [])])
    vmfb = strata.compile(helper.make_model(graph, opset_imports=[
        helper.make_opsetid("", 17)]).SerializeToString())
    fn = strata.Session(vmfb, device=device)["main"]
    assert fn.attributes["arg0"] == "list<?xf32>"
    assert fn.attributes["arg1"] == "optional<2xf32>"
    assert fn.attributes["result0"] == "list<?xf32>"
    a = np.array([1, 2, 3], np.float32)
    b = np.array([4.5], np.float32)
    doubled, n, has = fn([a, b], None)
    assert isinstance(doubled, list) and len(doubled) == 2
    np.testing.assert_array_equal(doubled[0], a * 2)
    np.testing.assert_array_equal(doubled[1], b * 2)
    assert n == 2 and not has
    doubled, n, has = fn([], np.zeros(2, np.float32))
    assert doubled == [] and n == 0 and has
    with pytest.raises(strata.InvalidArgumentError,
                       match=r"argument 0 of module.main"):
        fn([np.zeros(2, np.int32)], None)


@needs_compiler
@needs_kernels
def test_onnx_sequences_of_unsigned_tensors_stay_unsigned():
    # A sequence of uint8 in (numpy arrays and a strata.Tensor) and out:
    # the program holds the elements signless, the values come back uint8.
    onnx = pytest.importorskip("onnx")
    from onnx import TensorProto, helper
    seq = helper.make_sequence_type_proto(
        helper.make_tensor_type_proto(TensorProto.UINT8, ["N"]))
    body = helper.make_graph(
        [helper.make_node("Add", ["e", "e"], ["d"])], "body",
        [helper.make_tensor_value_info("e", TensorProto.UINT8, ["N"])],
        [helper.make_tensor_value_info("d", TensorProto.UINT8, ["N"])])
    graph = helper.make_graph(
        [helper.make_node("SequenceMap", ["s"], ["doubled"], body=body),
         helper.make_node("ConcatFromSequence", ["s"], ["all"], axis=0)],
        "g", [helper.make_value_info("s", seq)],
        [helper.make_value_info("doubled", seq),
         helper.make_tensor_value_info("all", TensorProto.UINT8, ["M"])])
    vmfb = strata.compile(helper.make_model(graph, opset_imports=[
        helper.make_opsetid("", 17)]).SerializeToString())
    fn = strata.Session(vmfb, device="local-task")["main"]
    assert fn.attributes["arg0"] == "list<?xui8>"
    assert fn.attributes["result0"] == "list<?xui8>"
    a = np.array([200, 1, 255], np.uint8)
    b = np.array([128], np.uint8)
    doubled, everything = fn([a, strata.Tensor(b)])
    assert [d.dtype for d in doubled] == [np.uint8, np.uint8]
    np.testing.assert_array_equal(doubled[0], a + a)  # wraps as uint8
    np.testing.assert_array_equal(doubled[1], b + b)
    assert everything.dtype == np.uint8
    np.testing.assert_array_equal(everything, np.concatenate([a, b]))
    with pytest.raises(strata.InvalidArgumentError,
                       match=r"is a \?xui8 tensor, not 2xf32"):
        fn([np.zeros(2, np.float32)])
