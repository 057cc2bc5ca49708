// ort_peer.js - the ONNX Runtime side of bench/models/run.py: a small
// line-protocol server on stdin/stdout, so one node process serves every
// round and the driver can interleave it with the other runners.
//
//   load ID MODEL.onnx INPUT.bin DIMS THREADS [PROFILE_PREFIX]  -> "ok ID"
//   run ID REPS                                 -> "times ms ms ..."
//   endprofile ID                               -> "ok ID"
//   quit
//
// With PROFILE_PREFIX the session records ONNX Runtime's profile (every
// node's kernel time per run); endprofile writes it to
// PROFILE_PREFIX_<date>.json (layers.py reads it).
//
// INPUT.bin holds the raw little-endian f32 input; DIMS is like 1x3x224x224.
// Sessions use the CPU provider, every graph optimization,
// intraOpNumThreads = THREADS and interOpNumThreads = 1.
'use strict';
const fs = require('fs');
const readline = require('readline');

let ort;
try {
  ort = require('onnxruntime-node');
} catch (e) {
  process.stdout.write('error onnxruntime-node is not installed: ' + e.message + '\n');
  process.exit(1);
}

const sessions = new Map();
const rl = readline.createInterface({input: process.stdin, terminal: false});
let chain = Promise.resolve();

async function handle(line) {
  const words = line.trim().split(/\s+/);
  if (words[0] === 'load') {
    const [, id, model, input, dims, threads, profilePrefix] = words;
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
    const session = await ort.InferenceSession.create(model, options);
    const bytes = fs.readFileSync(input);
    const data = new Float32Array(bytes.buffer, bytes.byteOffset, bytes.byteLength / 4);
    const shape = dims.split('x').map(Number);
    const feeds = {[session.inputNames[0]]: new ort.Tensor('float32', data, shape)};
    await session.run(feeds);  // warm-up
    sessions.set(id, {session, feeds});
    return 'ok ' + id;
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
      .catch((e) => process.stdout.write('error ' + String(e.message).replace(/\n/g, ' ') + '\n'));
});
