#!/usr/bin/env python3
# gen_padded_conv.py - writes the padded-convolution test program: f32
# NHWC convolutions of a zero-padded input (tensor.pad, then
# linalg.conv_2d_nhwc_hwcf), which the convolution microkernel computes
# from the unpadded input, skipping the taps in the padding
# (ukernel/SgemmDriver.h), each beside the same convolution written as a
# linalg.generic over the padded input (loops: the reference). Edge
# cases: padding on some sides only and more of it than the window
# reaches, strides and dilations, a 7x7 stride-2 window on 3 channels,
# images of one row and of fewer pixels than the window, channels that
# make the microkernel pack its windows rather than read them in place,
# several images, an accumulator that is not zero, and bias, residual
# and ReLU epilogues fused into the kernel; weights passed as arguments or
# constants (packed at compile time). Every value is a small multiple of
# 1/8 and every sum is exact in f32, so both forms must give the same bits.
#
#   gen_padded_conv.py OUT_DIR
#
# writes OUT_DIR/program.mlir (per case NAME, functions @NAME and
# @NAME_loops with the same arguments) and NAME.input.npy,
# NAME.weight.npy (when the weight is an argument), NAME.bias.npy,
# NAME.residual.npy and NAME.acc.npy (for the cases that take them).
# Plain Python: the test's python3 may have no numpy.
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gen_packed_weights import Array, dense, tensor, values  # noqa: E402
from gen_weights import write_npy  # noqa: E402

IDENTITY4 = "affine_map<(n, h, w, c) -> (n, h, w, c)>"
PARALLEL4 = '"parallel", "parallel", "parallel", "parallel"'


class Case:
    def __init__(self, name, n, h, w, c, f, window, stride=(1, 1),
                 dilation=(1, 1), pad=(1, 1, 1, 1), epilogue="bias_relu",
                 const_weight=False):
        self.name = name
        self.n, self.h, self.w, self.c, self.f = n, h, w, c, f
        self.kh, self.kw = window
        self.stride, self.dilation = stride, dilation
        self.top, self.left, self.bottom, self.right = pad
        # "none", "acc" (a non-zero accumulator), "bias_relu",
        # "bias_residual_relu".
        self.epilogue = epilogue
        self.const_weight = const_weight
        ph = h + self.top + self.bottom
        pw = w + self.left + self.right
        self.oh = (ph - dilation[0] * (self.kh - 1) - 1) // stride[0] + 1
        self.ow = (pw - dilation[1] * (self.kw - 1) - 1) // stride[1] + 1
        self.padded = (n, ph, pw, c)
        self.out = (n, self.oh, self.ow, f)
        self.input = values((n, h, w, c), 1)
        self.weight = values((self.kh, self.kw, c, f), 2)
        self.bias = values((f,), 3)
        self.residual = values(self.out, 4)
        self.acc = values(self.out, 5)

    def args(self):
        """(name, type) of each function argument, in order."""
        args = [("x", tensor(self.input.shape))]
        if not self.const_weight:
            args.append(("w", tensor(self.weight.shape)))
        if self.epilogue in ("bias_relu", "bias_residual_relu"):
            args.append(("bias", tensor(self.bias.shape)))
        if self.epilogue == "bias_residual_relu":
            args.append(("res", tensor(self.out)))
        if self.epilogue == "acc":
            args.append(("acc", tensor(self.out)))
        return args

    def arrays(self):
        arrays = {"input": self.input}
        if not self.const_weight:
            arrays["weight"] = self.weight
        if self.epilogue in ("bias_relu", "bias_residual_relu"):
            arrays["bias"] = self.bias
        if self.epilogue == "bias_residual_relu":
            arrays["residual"] = self.residual
        if self.epilogue == "acc":
            arrays["acc"] = self.acc
        return arrays

    def function(self, loops):
        yt, pt = tensor(self.out), tensor(self.padded)
        wt = tensor(self.weight.shape)
        name = self.name + ("_loops" if loops else "")
        signature = ", ".join("%%%s: %s" % a for a in self.args())
        lines = ["func.func @%s(%s) -> %s {" % (name, signature, yt)]
        lines.append("  %zero = arith.constant 0.0 : f32")
        if self.const_weight:
            lines.append("  %%w = arith.constant %s : %s"
                         % (dense(self.weight), wt))
        lines.append("  %%p = tensor.pad %%x low[0, %d, %d, 0] "
                     "high[0, %d, %d, 0] {" % (self.top, self.left,
                                                self.bottom, self.right))
        lines.append("  ^bb0(%i0: index, %i1: index, %i2: index, "
                     "%i3: index):")
        lines.append("    tensor.yield %zero : f32")
        lines.append("  } : %s to %s" % (tensor(self.input.shape), pt))
        lines.append("  %%e = tensor.empty() : %s" % yt)
        init = "%acc"
        if self.epilogue != "acc":
            lines.append("  %%f = linalg.fill ins(%%zero : f32) outs(%%e : "
                         "%s) -> %s" % (yt, yt))
            init = "%f"
        sh, sw = self.stride
        dh, dw = self.dilation
        if loops:
            lines.append(
                "  %%y = linalg.generic {indexing_maps = [affine_map<(n, oh, "
                "ow, f, kh, kw, c) -> (n, oh * %d + kh * %d, ow * %d + kw * "
                "%d, c)>, affine_map<(n, oh, ow, f, kh, kw, c) -> (kh, kw, c, "
                "f)>, affine_map<(n, oh, ow, f, kh, kw, c) -> (n, oh, ow, "
                "f)>], iterator_types = [%s, \"reduction\", \"reduction\", "
                "\"reduction\"]} ins(%%p, %%w : %s, %s) outs(%s : %s) {"
                % (sh, dh, sw, dw, PARALLEL4, pt, wt, init, yt))
            lines.append("  ^bb0(%a: f32, %b: f32, %s: f32):")
            lines.append("    %m = arith.mulf %a, %b : f32")
            lines.append("    %t = arith.addf %s, %m : f32")
            lines.append("    linalg.yield %t : f32")
            lines.append("  } -> %s" % yt)
        else:
            lines.append(
                "  %%y = linalg.conv_2d_nhwc_hwcf {dilations = dense<[%d, %d]>"
                " : tensor<2xi64>, strides = dense<[%d, %d]> : tensor<2xi64>}"
                " ins(%%p, %%w : %s, %s) outs(%s : %s) -> %s"
                % (dh, dw, sh, sw, pt, wt, init, yt, yt))
        result = "%y"
        if self.epilogue in ("bias_relu", "bias_residual_relu"):
            residual = self.epilogue == "bias_residual_relu"
            maps = [IDENTITY4, "affine_map<(n, h, w, c) -> (c)>"]
            ins = ["%y", "%bias"]
            types = [yt, tensor(self.bias.shape)]
            if residual:
                maps.append(IDENTITY4)
                ins.append("%res")
                types.append(yt)
            maps.append(IDENTITY4)
            lines.append(
                "  %%r = linalg.generic {indexing_maps = [%s], "
                "iterator_types = [%s]} ins(%s : %s) outs(%%e : %s) {"
                % (", ".join(maps), PARALLEL4, ", ".join(ins),
                   ", ".join(types), yt))
            if residual:
                lines.append("  ^bb0(%v: f32, %bv: f32, %rv: f32, %o: f32):")
                lines.append("    %s0 = arith.addf %v, %bv : f32")
                lines.append("    %s = arith.addf %s0, %rv : f32")
            else:
                lines.append("  ^bb0(%v: f32, %bv: f32, %o: f32):")
                lines.append("    %s = arith.addf %v, %bv : f32")
            lines.append("    %m = arith.maximumf %s, %zero : f32")
            lines.append("    linalg.yield %m : f32")
            lines.append("  } -> %s" % yt)
            result = "%r"
        lines.append("  return %s : %s" % (result, yt))
        lines.append("}")
        return "\n".join(lines) + "\n"


CASES = [
    # 3x3 "same" on 5 channels: every border pixel's window is clipped.
    Case("pad3x3_c5", 1, 23, 29, 5, 32, (3, 3)),
    # Two images, the residual block's epilogue (bias, residual, ReLU).
    Case("pad3x3_res_c16", 2, 9, 17, 16, 40, (3, 3),
         epilogue="bias_residual_relu"),
    # resnet18's stem: 7x7, stride 2, padding 3, on 3 channels.
    Case("pad7x7_s2_c3", 1, 31, 37, 3, 24, (7, 7), stride=(2, 2),
         pad=(3, 3, 3, 3), const_weight=True),
    # Dilation 2 with padding 2, and a constant (packed) weight.
    Case("pad3x3_d2_c8", 1, 19, 13, 8, 48, (3, 3), dilation=(2, 2),
         pad=(2, 2, 2, 2), const_weight=True),
    # Padding on the left and bottom only; strides 2 x 1.
    Case("pad3x3_asym_c7", 1, 12, 20, 7, 33, (3, 3), stride=(2, 1),
         pad=(0, 1, 2, 0), epilogue="none"),
    # A 2 x 3 image under a 3x3 window: every tap row and column is cut.
    Case("pad3x3_tiny_c9", 1, 2, 3, 9, 544, (3, 3), epilogue="none"),
    # One row, padded above and below, into a non-zero accumulator.
    Case("pad3x3_row_c12", 1, 1, 31, 12, 80, (3, 3), epilogue="acc"),
    # A 5x5 window, padding 2, more than one row of tiles.
    Case("pad5x5_c6", 1, 12, 30, 6, 40, (5, 5), pad=(2, 2, 2, 2),
         const_weight=True),
    # More padding than the window reaches into (whole rows and columns of
    # outputs see only zeros).
    Case("pad3x3_wide_c4", 1, 6, 9, 4, 64, (3, 3), pad=(3, 4, 2, 3),
         epilogue="none"),
    # Channels too many for the windows to be read in place at stride 2
    # (the microkernel packs them, zeros for the padding).
    Case("pad3x3_s2_c300", 1, 7, 7, 300, 32, (3, 3), stride=(2, 2),
         const_weight=True),
    # A 7x7 image: its rows go two to a tile from the padded copy.
    Case("pad3x3_7x7_c16", 1, 7, 7, 16, 64, (3, 3), const_weight=True),
]


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    program = []
    for case in CASES:
        program.append(case.function(loops=False))
        program.append(case.function(loops=True))
        for suffix, array in case.arrays().items():
            write_npy(os.path.join(out, "%s.%s.npy" % (case.name, suffix)),
                      array.shape, array.data)
    with open(os.path.join(out, "program.mlir"), "w") as f:
        f.write("".join(program))
    # The arguments of each case, as strata-run flags (one line a case).
    with open(os.path.join(out, "cases.txt"), "w") as f:
        for case in CASES:
            flags = " ".join("--input=@%s/%s.%s.npy" % (out, case.name, s)
                             for s in case.arrays())
            f.write("%s %s\n" % (case.name, flags))


if __name__ == "__main__":
    main()
