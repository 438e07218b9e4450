import { crc32, deflateSync } from 'node:zlib';

function chunk(kind: string, data: Uint8Array): Buffer {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(data.length, 0);
  head.write(kind, 4, 'latin1');
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(Buffer.concat([head.subarray(4), data])) >>> 0, 0);
  return Buffer.concat([head, data, crc]);
}

/** An 8-bit RGB PNG with a declared geometry; pixel rows are only written when `withPixels`. */
export function craftPng(width: number, height: number, withPixels: boolean): Buffer {
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr.set([8, 2, 0, 0, 0], 8);
  const parts = [Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), chunk('IHDR', ihdr)];
  if (withPixels) {
    const raw = Buffer.alloc(height * (1 + width * 3));
    for (let y = 0; y < height; y++) for (let x = 0; x < width * 3; x++) raw[y * (1 + width * 3) + 1 + x] = (x * 7 + y) & 255;
    parts.push(chunk('IDAT', deflateSync(raw)));
  }
  parts.push(chunk('IEND', new Uint8Array(0)));
  return Buffer.concat(parts);
}
