// ort_peer.js - the ONNX Runtime side of bench/models/run.py and
// dynamic.py: a small line-protocol server on stdin/stdout, so one node
// process serves every round and the driver can interleave it with the
// other runners.
//
//   load ID MODEL.onnx INPUT.bin DIMS THREADS [PROFILE_PREFIX [OPTIMIZED]]
//                                               -> "ok ID"
//   loadn ID MODEL.onnx THREADS IN0.npy[,IN1.npy...] [PROFILE_PREFIX]
//                                               -> "ok ID"
//   run ID REPS                                 -> "times ms ms ..."
//   release ID                                  -> "ok ID"
//   endprofile ID                               -> "ok ID"
//   quit
//
// With PROFILE_PREFIX the session records ONNX Runtime's profile (every
// node's kernel time per run); endprofile writes it to
// PROFILE_PREFIX_<date>.json (layers.py reads it). With OPTIMIZED the
// session also writes the graph it runs (after its fusions) there, as an
// ONNX model (layers.py maps each fused node back to the model's nodes).
//
// INPUT.bin holds the raw little-endian f32 input; DIMS is like 1x3x224x224.
// loadn takes any number of inputs as .npy files (C order, little-endian
// f32, f64, i64, i32, i8, u8 or bool; a dimension may be 0), given to the
// model's inputs in order: the decoder language model takes 25.
// Sessions use the CPU provider, every graph optimization,
// intraOpNumThreads = THREADS and interOpNumThreads = 1.
'use strict';
const fs = require('fs');
const readline = require('readline');

let ort;
try {
  ort = require('onnxruntime-node');
} catch (e) {
  process.stdout.write(
      'error onnxruntime-node is not installed: ' + e.message + '\n');
  process.exit(1);
}

// .npy element types -> ONNX Runtime tensor types and typed arrays.
const NPY_TYPES = {
  '<f4': ['float32', Float32Array],
  '<f8': ['float64', Float64Array],
  '<i8': ['int64', BigInt64Array],
  '<i4': ['int32', Int32Array],
  '|i1': ['int8', Int8Array],
  '|u1': ['uint8', Uint8Array],
  '|b1': ['bool', Uint8Array],
};

// One .npy file (versions 1-3) as an ort.Tensor; its data is copied to an
// aligned buffer of its own.
function readNpy(path) {
  const bytes = fs.readFileSync(path);
  if (bytes.length < 10 || bytes.toString('latin1', 0, 6) !== '\x93NUMPY') {
    throw new Error(path + ' is not a .npy file');
  }
  const major = bytes[6];
  const headerLength =
      major === 1 ? bytes.readUInt16LE(8) : bytes.readUInt32LE(8);
  const start = major === 1 ? 10 : 12;
  const header = bytes.toString('latin1', start, start + headerLength);
  const descr = /'descr':\s*'([^']+)'/.exec(header);
  const shape = /'shape':\s*\(([^)]*)\)/.exec(header);
  if (!descr || !shape || /'fortran_order':\s*True/.test(header)) {
    throw new Error(path + ': unsupported .npy header ' + header.trim());
  }
  const type = NPY_TYPES[descr[1]];
  if (!type) throw new Error(path + ': unsupported element type ' + descr[1]);
  const dims =
      shape[1].split(',').map((d) => d.trim()).filter((d) => d).map(Number);
  const data = bytes.subarray(start + headerLength);
  const copy = new ArrayBuffer(data.length);
  new Uint8Array(copy).set(data);
  const array = new type[1](copy);
  return new ort.Tensor(type[0], array, dims);
}

async function createSession(model, threads, profilePrefix, optimized) {
  const options = {
    executionProviders: ['cpu'],
    graphOptimizationLevel: 'all',
    intraOpNumThreads: Number(threads),
    interOpNumThreads: 1,
  };
  if (profilePrefix) {
    options.enableProfiling = true;
    options.profileFilePrefix = profilePrefix;
  }
  if (optimized) options.optimizedModelFilePath = optimized;
  return ort.InferenceSession.create(model, options);
}

const sessions = new Map();
const rl = readline.createInterface({input: process.stdin, terminal: false});
let chain = Promise.resolve();

async function handle(line) {
  const words = line.trim().split(/\s+/);
  if (words[0] === 'load') {
    const [, id, model, input, dims, threads, profilePrefix, optimized] = words;
    const session =
        await createSession(model, threads, profilePrefix, optimized);
    const bytes = fs.readFileSync(input);
    const data =
        new Float32Array(bytes.buffer, bytes.byteOffset, bytes.byteLength / 4);
    const shape = dims.split('x').map(Number);
    const feeds =
        {[session.inputNames[0]]: new ort.Tensor('float32', data, shape)};
    await session.run(feeds);  // warm-up
    sessions.set(id, {session, feeds});
    return 'ok ' + id;
  }
  if (words[0] === 'loadn') {
    const [, id, model, threads, inputs, profilePrefix] = words;
    const session = await createSession(model, threads, profilePrefix);
    const files = inputs.split(',');
    if (files.length !== session.inputNames.length) {
      throw new Error(
          model + ' takes ' + session.inputNames.length + ' inputs, got ' +
          files.length + ' files');
    }
    const feeds = {};
    files.forEach((file, i) => {
      feeds[session.inputNames[i]] = readNpy(file);
    });
    await session.run(feeds);  // warm-up
    sessions.set(id, {session, feeds});
    return 'ok ' + id;
  }
  if (words[0] === 'release') {
    const entry = sessions.get(words[1]);
    if (entry) {
      await entry.session.release();
      sessions.delete(words[1]);
    }
    return 'ok ' + words[1];
  }
  if (words[0] === 'run') {
    const {session, feeds} = sessions.get(words[1]);
    const times = [];
    for (let i = 0; i < Number(words[2]); ++i) {
      const start = process.hrtime.bigint();
      await session.run(feeds);
      times.push(Number(process.hrtime.bigint() - start) / 1e6);
    }
    return 'times ' + times.join(' ');
  }
  if (words[0] === 'endprofile') {
    sessions.get(words[1]).session.endProfiling();
    return 'ok ' + words[1];
  }
  if (words[0] === 'quit') process.exit(0);
  return 'error unknown command ' + words[0];
}

rl.on('line', (line) => {
  chain = chain.then(() => handle(line))
              .then((answer) => process.stdout.write(answer + '\n'))
              .catch(
                  (e) => process.stdout.write(
                      'error ' + String(e.message).replace(/\n/g, ' ') + '\n'));
});
