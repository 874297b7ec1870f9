// Writes and reads TFRecord files of TF-slim image tf.train.Examples with the npm package
// `tfrecord` (an implementation independent of Lathe's), to check that both agree.
//
//   npm install tfrecord@0.2.0
//   node make_fixture.js write slim_images.tfrecord   # the committed fixture
//   node make_fixture.js read SHARD.tfrecord          # prints each record as JSON
'use strict';

const crypto = require('crypto');
const zlib = require('zlib');
const tfrecord = require('tfrecord');

// PNG needs a plain CRC-32 per chunk (Node 20's zlib has no crc32()).
const crcTable = new Int32Array(256).map((_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c;
});
function crc32(buf) {
  let c = -1;
  for (const b of buf) c = crcTable[(c ^ b) & 0xff] ^ (c >>> 8);
  return (c ^ -1) >>> 0;
}

function chunk(type, data) {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(data.length, 0);
  head.write(type, 4, 'ascii');
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(Buffer.concat([head.subarray(4), data])), 0);
  return Buffer.concat([head, data, crc]);
}

// A real 8-bit PNG: colour type 0 (gray), 2 (RGB) or 6 (RGBA); pixel(x, y) gives the samples.
function png(width, height, channels, pixel) {
  const colourType = { 1: 0, 3: 2, 4: 6 }[channels];
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr[8] = 8;
  ihdr[9] = colourType;
  const raw = [];
  for (let y = 0; y < height; y++) {
    raw.push(0); // filter: none
    for (let x = 0; x < width; x++) raw.push(...pixel(x, y));
  }
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', ihdr),
    chunk('IDAT', zlib.deflateSync(Buffer.from(raw), { level: 9 })),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

const images = [
  { filename: 'cat/rgb_gradient.png', label: 0, text: 'cat', width: 16, height: 12, channels: 3,
    pixel: (x, y) => [x * 16, y * 20, (x * y * 7) & 0xff] },
  { filename: 'dog/gray_checker.png', label: 1, text: 'dog', width: 8, height: 8, channels: 1,
    pixel: (x, y) => [(x + y) % 2 ? 255 : 0] },
  { filename: '猫/rgba_dots.png', label: 2, text: '猫', width: 5, height: 3, channels: 4,
    pixel: (x, y) => [x * 50, 255 - y * 80, 128, x === y ? 255 : 64] },
];

async function write(path) {
  const writer = await tfrecord.createWriter(path);
  for (const [i, im] of images.entries()) {
    const bytes = png(im.width, im.height, im.channels, im.pixel);
    const b = tfrecord.createBuilder();
    b.setBinary('image/encoded', bytes);
    b.setBinary('image/format', Buffer.from('png'));
    b.setInteger('image/class/label', im.label);
    b.setBinary('image/class/text', Buffer.from(im.text, 'utf8'));
    b.setInteger('image/height', im.height);
    b.setInteger('image/width', im.width);
    b.setInteger('image/channels', im.channels);
    b.setBinary('image/filename', Buffer.from(im.filename, 'utf8'));
    b.setBinary('image/key/sha256', Buffer.from(crypto.createHash('sha256').update(bytes).digest('hex')));
    // A key outside the TF-slim set, as detection datasets carry: readers must ignore it.
    if (i === 2) b.setFloats('image/object/bbox/xmin', [0.25, 0.5]);
    await writer.writeExample(b.releaseExample());
    console.log(JSON.stringify({ filename: im.filename, pngBytes: bytes.length,
      sha256: crypto.createHash('sha256').update(bytes).digest('hex') }));
  }
  await writer.close();
}

function featureValue(f) {
  if (f.int64List) return f.int64List.value.map(Number);
  if (f.floatList) return f.floatList.value;
  if (f.bytesList) return f.bytesList.value.map((v) => {
    const buf = Buffer.from(v);
    const text = buf.toString('utf8');
    return buf.length <= 256 && Buffer.from(text, 'utf8').equals(buf) && !/[\x00-\x08]/.test(text)
      ? text : { bytes: buf.length, sha256: crypto.createHash('sha256').update(buf).digest('hex') };
  });
  return null;
}

async function read(path) {
  const reader = await tfrecord.createReader(path);
  let example;
  while ((example = await reader.readExample())) {
    const out = {};
    const feature = example.features.feature;
    for (const key of Object.keys(feature).sort()) out[key] = featureValue(feature[key]);
    console.log(JSON.stringify(out));
  }
}

const [mode, path] = process.argv.slice(2);
if (mode === 'write' && path) write(path).catch((e) => { console.error(e.message); process.exit(1); });
else if (mode === 'read' && path) read(path).catch((e) => { console.error(e.message); process.exit(1); });
else { console.error('usage: node make_fixture.js write|read FILE.tfrecord'); process.exit(2); }
