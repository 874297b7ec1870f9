// Runs an ONNX file with ONNX Runtime (npm onnxruntime-node, CPU), the independent runtime the
// export tests compare Lathe's files with.
//   node ort_run.js run MODEL INPUT.bin N,C,H,W OUTPUT.bin    float32 input, float32 output (raw)
//   node ort_run.js bench MODEL N,C,H,W REPEATS [THREADS]     prints {"ms_per_image": ...} as JSON
'use strict';
const fs = require('fs');
const ort = require('onnxruntime-node');

async function session(model, threads) {
  const options = { graphOptimizationLevel: 'all', executionProviders: ['cpu'] };
  if (threads) {
    options.intraOpNumThreads = threads;
    options.interOpNumThreads = 1;
  }
  return ort.InferenceSession.create(model, options);
}

async function main() {
  const [mode, model, ...rest] = process.argv.slice(2);
  if (mode === 'run') {
    const [inputPath, shapeText, outputPath] = rest;
    const shape = shapeText.split(',').map(Number);
    const buf = fs.readFileSync(inputPath);
    const data = new Float32Array(buf.buffer, buf.byteOffset, buf.byteLength / 4);
    const s = await session(model);
    const out = await s.run({ [s.inputNames[0]]: new ort.Tensor('float32', data, shape) });
    const y = out[s.outputNames[0]];
    if (y.type !== 'float32') throw new Error('output type ' + y.type);
    fs.writeFileSync(outputPath, Buffer.from(y.data.buffer, y.data.byteOffset, y.data.byteLength));
    console.log(JSON.stringify({ input: s.inputNames[0], output: s.outputNames[0], dims: y.dims }));
  } else if (mode === 'bench') {
    const [shapeText, repeatsText, threadsText] = rest;
    const shape = shapeText.split(',').map(Number);
    const n = shape.reduce((a, b) => a * b, 1);
    const data = new Float32Array(n);
    for (let i = 0; i < n; ++i) data[i] = Math.sin(i) * 1.5;
    const s = await session(model, threadsText ? Number(threadsText) : 0);
    const feeds = { [s.inputNames[0]]: new ort.Tensor('float32', data, shape) };
    await s.run(feeds);
    const repeats = Number(repeatsText);
    const times = [];
    for (let r = 0; r < repeats; ++r) {
      const t0 = process.hrtime.bigint();
      await s.run(feeds);
      times.push(Number(process.hrtime.bigint() - t0) / 1e6);
    }
    times.sort((a, b) => a - b);
    console.log(JSON.stringify({ model, batch: shape[0], ms_per_batch: times[Math.floor(times.length / 2)],
                                 ms_per_image: times[Math.floor(times.length / 2)] / shape[0] }));
  } else {
    throw new Error('usage: ort_run.js run|bench ...');
  }
}

main().catch((e) => { console.error('ort_run: ' + (e && e.message ? e.message : e)); process.exit(1); });
