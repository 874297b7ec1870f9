// Runs an ONNX file with ONNX Runtime (npm onnxruntime-node, CPU), the independent runtime the
// export tests compare Lathe's files with.
//   node ort_run.js run MODEL INPUT.bin N,C,H,W OUTPUT.bin    float32 input, float32 output (raw)
//   node ort_run.js bench MODEL N,C,H,W REPEATS [THREADS]     prints {"ms_per_image": ...} as JSON
//   node ort_run.js compare N,C,H,W REPEATS THREADS MODEL...  the models' runs interleaved (a fair
//       ratio on a busy machine); prints {"batch", "ms_per_image": {MODEL: median}} as JSON
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

// Median milliseconds per run of each model on the same input, after a warm-up run each; the
// models take turns, so that a change in the machine's load falls on all of them alike.
async function interleaved(models, shape, repeats, threads) {
  const n = shape.reduce((a, b) => a * b, 1);
  const data = new Float32Array(n);
  for (let i = 0; i < n; ++i) data[i] = Math.sin(i) * 1.5;
  const sessions = [];
  for (const m of models) sessions.push(await session(m, threads));
  const feeds = sessions.map((s) => ({ [s.inputNames[0]]: new ort.Tensor('float32', data, shape) }));
  for (let i = 0; i < sessions.length; ++i) await sessions[i].run(feeds[i]);
  const times = sessions.map(() => []);
  for (let r = 0; r < repeats; ++r) {
    for (let i = 0; i < sessions.length; ++i) {
      const t0 = process.hrtime.bigint();
      await sessions[i].run(feeds[i]);
      times[i].push(Number(process.hrtime.bigint() - t0) / 1e6);
    }
  }
  return times.map((t) => t.sort((a, b) => a - b)[Math.floor(t.length / 2)]);
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
    const [ms] = await interleaved([model], shape, Number(repeatsText), threadsText ? Number(threadsText) : 0);
    console.log(JSON.stringify({ model, batch: shape[0], ms_per_batch: ms, ms_per_image: ms / shape[0] }));
  } else if (mode === 'compare') {
    const shapeText = model;
    const [repeatsText, threadsText, ...models] = rest;
    const shape = shapeText.split(',').map(Number);
    const ms = await interleaved(models, shape, Number(repeatsText), Number(threadsText));
    const perImage = {};
    models.forEach((m, i) => { perImage[m] = ms[i] / shape[0]; });
    console.log(JSON.stringify({ batch: shape[0], ms_per_image: perImage }));
  } else {
    throw new Error('usage: ort_run.js run|bench ...');
  }
}

main().catch((e) => { console.error('ort_run: ' + (e && e.message ? e.message : e)); process.exit(1); });
