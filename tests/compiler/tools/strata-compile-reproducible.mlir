// The same input compiles to the same bytes. One-shot bufferization
// names the constants it moves into globals in a hash map's order of the
// functions; the code generator renames and orders them by first use, so
// eight functions' bias vectors cannot land in .rodata in another order
// (before that, three compiles of a four-convolution model gave three
// different libraries).
// REQUIRES: llvm-cpu
// RUN: strata-compile %s -o %t.vmfb
// RUN: cp %t.vmfb %t.first
// RUN: strata-compile %s -o %t.vmfb
// RUN: cmp %t.first %t.vmfb
// RUN: strata-compile %s -o %t.vmfb
// RUN: cmp %t.first %t.vmfb

func.func @bias0(%x: tensor<8x64xf32>) -> tensor<8x64xf32> {
  %b = arith.constant dense<[-0.352, -0.698, 0.302, -0.855, 0.072, -0.269, -0.884, 0.015, -0.925, -0.133, -0.860, -0.819, -0.151, 0.654, -0.752, -0.554, 0.255, 0.895, 0.154, -0.207, 0.953, -0.907, 0.717, -0.421, -0.711, -0.764, -0.383, 0.632, -0.639, 0.163, 0.278, -0.255, 0.095, -0.874, -0.881, -0.588, 0.361, -0.145, -0.372, 0.171, -0.094, -0.400, 0.589, 0.398, -0.512, 0.149, 0.050, 0.750, 0.459, -0.424, 0.960, -0.764, -0.164, 0.514, -0.696, -0.022, -0.922, 0.336, 0.529, 0.146, 0.751, -0.373, 0.391, 0.189]> : tensor<64xf32>
  %e = tensor.empty() : tensor<8x64xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]} ins(%x, %b : tensor<8x64xf32>, tensor<64xf32>) outs(%e : tensor<8x64xf32>) {
  ^bb0(%a: f32, %c: f32, %o: f32):
    %s = arith.addf %a, %c : f32
    linalg.yield %s : f32
  } -> tensor<8x64xf32>
  return %r : tensor<8x64xf32>
}

func.func @bias1(%x: tensor<8x64xf32>) -> tensor<8x64xf32> {
  %b = arith.constant dense<[0.160, -0.088, 0.680, 0.889, -0.052, 0.328, -0.879, 0.403, 0.294, 0.986, 0.644, -0.431, -0.228, 0.337, -0.955, -0.077, -0.664, -0.766, -0.882, 0.536, -0.741, -0.505, -0.218, 0.743, -0.839, -0.102, 0.099, 0.767, 0.639, 0.728, -0.443, -0.169, -0.282, 0.768, 0.915, -0.698, -0.648, -0.536, -0.533, -0.030, 0.178, -0.475, -0.992, -0.162, -0.261, 0.133, 0.906, 0.381, 0.031, 0.235, 0.352, -0.892, 0.799, 0.560, 0.749, 0.596, -0.215, -0.202, -0.793, 0.269, -0.876, -0.865, -0.582, -0.675]> : tensor<64xf32>
  %e = tensor.empty() : tensor<8x64xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]} ins(%x, %b : tensor<8x64xf32>, tensor<64xf32>) outs(%e : tensor<8x64xf32>) {
  ^bb0(%a: f32, %c: f32, %o: f32):
    %s = arith.addf %a, %c : f32
    linalg.yield %s : f32
  } -> tensor<8x64xf32>
  return %r : tensor<8x64xf32>
}

func.func @bias2(%x: tensor<8x64xf32>) -> tensor<8x64xf32> {
  %b = arith.constant dense<[-0.320, -0.895, -1.000, -0.697, -0.797, -0.273, -0.949, 0.749, 0.228, -0.703, -0.495, -0.305, -0.272, -0.754, 0.698, 0.986, -0.068, -0.032, -0.828, -0.796, -0.315, -0.470, 0.658, -0.677, -0.954, 0.902, 0.057, -0.707, 0.086, -0.946, 0.056, 0.957, 0.727, 0.392, -0.478, -0.267, -0.666, 0.544, 0.065, 0.558, -0.341, -0.554, 0.623, 0.970, 0.705, 0.612, 0.637, 0.480, -0.547, 0.035, -0.289, -0.942, -0.944, -0.441, -0.482, 0.385, 0.913, -0.106, 0.874, 0.976, 0.910, -0.271, -0.559, -0.546]> : tensor<64xf32>
  %e = tensor.empty() : tensor<8x64xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]} ins(%x, %b : tensor<8x64xf32>, tensor<64xf32>) outs(%e : tensor<8x64xf32>) {
  ^bb0(%a: f32, %c: f32, %o: f32):
    %s = arith.addf %a, %c : f32
    linalg.yield %s : f32
  } -> tensor<8x64xf32>
  return %r : tensor<8x64xf32>
}

func.func @bias3(%x: tensor<8x64xf32>) -> tensor<8x64xf32> {
  %b = arith.constant dense<[-0.607, -0.591, 0.248, 0.801, 0.681, -0.041, 0.306, 0.599, -0.830, 0.321, 0.820, 0.565, 0.500, -0.044, -0.643, 0.578, -0.335, 0.602, 0.943, -0.208, -0.197, 0.894, 0.450, -0.660, -0.746, -0.698, 0.810, 0.613, -0.708, 0.653, 0.961, 0.315, -0.299, 0.097, -0.738, -0.972, 0.942, 0.299, 0.053, 0.867, -0.132, 0.743, 0.652, -0.578, -0.496, -0.414, -0.519, 0.173, -0.481, -0.162, -0.738, 0.820, -0.292, -0.084, 0.167, 0.809, -0.159, 0.835, 0.003, 0.064, 0.047, -0.963, -0.120, -0.634]> : tensor<64xf32>
  %e = tensor.empty() : tensor<8x64xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]} ins(%x, %b : tensor<8x64xf32>, tensor<64xf32>) outs(%e : tensor<8x64xf32>) {
  ^bb0(%a: f32, %c: f32, %o: f32):
    %s = arith.addf %a, %c : f32
    linalg.yield %s : f32
  } -> tensor<8x64xf32>
  return %r : tensor<8x64xf32>
}

func.func @bias4(%x: tensor<8x64xf32>) -> tensor<8x64xf32> {
  %b = arith.constant dense<[-0.992, 0.598, -0.655, -0.053, 0.450, 0.113, -0.348, 0.037, 0.111, 0.569, -0.788, 0.121, -0.503, -0.446, 0.545, 0.015, 0.123, 0.520, 0.825, -0.114, 0.225, 0.011, 0.024, 0.385, -0.095, 0.067, -0.044, 0.883, 0.398, 0.753, 0.884, -0.481, 0.119, 0.887, 0.680, -0.726, -0.757, -0.116, -0.855, -0.519, -0.854, 0.339, 0.568, 0.794, -0.691, 0.432, 0.321, -0.714, 0.766, 0.935, -0.561, 0.905, -0.203, -0.025, 0.980, 0.665, -0.677, -0.137, 0.031, -0.322, -0.609, -0.363, 0.444, -0.961]> : tensor<64xf32>
  %e = tensor.empty() : tensor<8x64xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]} ins(%x, %b : tensor<8x64xf32>, tensor<64xf32>) outs(%e : tensor<8x64xf32>) {
  ^bb0(%a: f32, %c: f32, %o: f32):
    %s = arith.addf %a, %c : f32
    linalg.yield %s : f32
  } -> tensor<8x64xf32>
  return %r : tensor<8x64xf32>
}

func.func @bias5(%x: tensor<8x64xf32>) -> tensor<8x64xf32> {
  %b = arith.constant dense<[0.108, -0.119, -0.964, -0.337, 0.248, 0.025, -0.871, 0.970, 0.577, 0.943, -0.790, -0.469, -0.921, 0.558, -0.459, -0.741, -0.155, 0.823, 0.638, -0.483, -0.701, 0.838, 0.141, 0.401, -0.821, -0.885, 0.376, -0.149, -0.855, 0.877, 0.269, 0.603, -0.833, 0.712, -0.867, 0.726, -0.092, -0.322, 0.106, 0.853, -0.464, -0.742, 0.054, -0.523, -0.781, -0.677, -0.899, -0.596, -0.376, -0.390, 0.519, -0.420, 0.000, -0.644, -0.306, -0.964, -0.499, -0.969, 0.466, 0.102, -0.621, -0.050, 0.869, -0.787]> : tensor<64xf32>
  %e = tensor.empty() : tensor<8x64xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]} ins(%x, %b : tensor<8x64xf32>, tensor<64xf32>) outs(%e : tensor<8x64xf32>) {
  ^bb0(%a: f32, %c: f32, %o: f32):
    %s = arith.addf %a, %c : f32
    linalg.yield %s : f32
  } -> tensor<8x64xf32>
  return %r : tensor<8x64xf32>
}

func.func @bias6(%x: tensor<8x64xf32>) -> tensor<8x64xf32> {
  %b = arith.constant dense<[0.638, -0.136, -0.010, 0.669, -0.214, 0.013, 0.375, 0.965, -0.315, 0.665, 0.413, 0.272, -0.191, -0.305, -0.891, -0.740, -0.859, 0.482, -0.489, -0.674, -0.831, 0.683, 0.741, 0.341, -0.436, -0.516, -0.414, -0.081, -0.685, -0.108, -0.474, 0.924, 0.945, 0.094, -0.511, 0.931, -0.381, -0.287, -0.998, -0.237, -0.051, 0.006, -0.598, 0.009, -0.990, -0.472, -0.820, -0.201, -0.917, -0.955, -0.392, -0.534, 0.171, 0.058, 0.501, 0.315, 0.432, 0.758, -0.221, -0.348, 0.969, -0.701, 0.448, 0.286]> : tensor<64xf32>
  %e = tensor.empty() : tensor<8x64xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]} ins(%x, %b : tensor<8x64xf32>, tensor<64xf32>) outs(%e : tensor<8x64xf32>) {
  ^bb0(%a: f32, %c: f32, %o: f32):
    %s = arith.addf %a, %c : f32
    linalg.yield %s : f32
  } -> tensor<8x64xf32>
  return %r : tensor<8x64xf32>
}

func.func @bias7(%x: tensor<8x64xf32>) -> tensor<8x64xf32> {
  %b = arith.constant dense<[-0.912, 0.671, 0.784, 0.255, 0.468, 0.624, -0.721, 0.048, 0.009, 0.670, 0.609, 0.653, 0.168, 0.786, 0.366, 0.387, -0.540, -0.938, -0.734, -0.279, -0.790, 0.672, 0.117, 0.256, 0.252, 0.361, -0.021, -0.993, 0.595, 0.497, 0.006, 0.070, 0.319, -0.868, 0.474, -0.496, -0.851, -0.469, 0.459, -0.590, 0.480, 0.951, -0.012, -0.235, -0.042, 0.367, 0.534, 0.234, 0.286, -0.845, -0.705, -0.492, 0.486, -0.391, 0.136, -0.975, -0.879, -0.462, 0.344, 0.384, 0.351, -0.418, 0.033, -0.071]> : tensor<64xf32>
  %e = tensor.empty() : tensor<8x64xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]} ins(%x, %b : tensor<8x64xf32>, tensor<64xf32>) outs(%e : tensor<8x64xf32>) {
  ^bb0(%a: f32, %c: f32, %o: f32):
    %s = arith.addf %a, %c : f32
    linalg.yield %s : f32
  } -> tensor<8x64xf32>
  return %r : tensor<8x64xf32>
}
