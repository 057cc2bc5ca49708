// ort_reference.js - ONNX Runtime's output of a single-input model on an
// .npy input (little-endian f32), written as an .npy of f32: the reference
// of the int8 model tests (make_quantized_models.py).
//
//   node ort_reference.js MODEL.onnx INPUT.npy OUTPUT.npy
'use strict';
const fs = require('fs');
const ort = require('onnxruntime-node');

function readNpy(path) {
  const bytes = fs.readFileSync(path);
  const headerLength = bytes.readUInt16LE(8);
  const header = bytes.toString('latin1', 10, 10 + headerLength);
  if (!header.includes('\'descr\': \'<f4\'') ||
      header.includes('\'fortran_order\': True')) {
    throw new Error(path + ': expected a C-order <f4 array');
  }
  const shape = header.match(/'shape': \(([^)]*)\)/)[1]
                    .split(',')
                    .map((s) => s.trim())
                    .filter((s) => s.length)
                    .map(Number);
  const offset = 10 + headerLength;
  const data = new Float32Array(bytes.buffer.slice(
      bytes.byteOffset + offset, bytes.byteOffset + bytes.length));
  return {shape, data};
}

function writeNpy(path, shape, data) {
  let header = '{\'descr\': \'<f4\', \'fortran_order\': False, \'shape\': (' +
      shape.join(', ') + (shape.length === 1 ? ',' : '') + '), }';
  while ((10 + header.length + 1) % 64 !== 0) header += ' ';
  header += '\n';
  const prefix = Buffer.alloc(10);
  prefix.write('\x93NUMPY', 0, 'latin1');
  prefix[6] = 1;
  prefix[7] = 0;
  prefix.writeUInt16LE(header.length, 8);
  fs.writeFileSync(path, Buffer.concat([
    prefix, Buffer.from(header, 'latin1'),
    Buffer.from(data.buffer, data.byteOffset, data.byteLength)
  ]));
}

async function main() {
  const [model, input, output] = process.argv.slice(2);
  const session = await ort.InferenceSession.create(model, {
    executionProviders: ['cpu'],
    graphOptimizationLevel: 'all',
    intraOpNumThreads: 1,
  });
  const {shape, data} = readNpy(input);
  const feeds =
      {[session.inputNames[0]]: new ort.Tensor('float32', data, shape)};
  const results = await session.run(feeds);
  const out = results[session.outputNames[0]];
  writeNpy(output, out.dims, out.data);
}

main().catch((e) => {
  process.stderr.write('ort_reference: ' + e.message + '\n');
  process.exit(1);
});
