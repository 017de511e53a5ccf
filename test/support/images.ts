import { deflateSync } from "node:zlib";

/** CRC-32 of PNG chunks (ISO 3309), bit by bit: test images are small. */
function crc32(bytes: Uint8Array): number {
  let crc = 0xffffffff;
  for (const byte of bytes) {
    crc ^= byte;
    for (let k = 0; k < 8; k++) crc = crc & 1 ? 0xedb88320 ^ (crc >>> 1) : crc >>> 1;
  }
  return (crc ^ 0xffffffff) >>> 0;
}

function chunk(type: string, data: Uint8Array): Buffer {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(data.length, 0);
  head.write(type, 4, "latin1");
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(Buffer.concat([head.subarray(4), data])), 0);
  return Buffer.concat([head, data, crc]);
}

/**
 * A real PNG: `width` x `height` pixels of one RGB colour, or, with `pixels` false, only the header claiming that size
 * and an empty image (what a decompression bomb's first bytes look like: its size is all a check reads).
 */
export function pngImage(width: number, height: number, rgb: [number, number, number] = [37, 99, 235], pixels = true) {
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header.set([8, 2, 0, 0, 0], 8); // 8 bits, truecolour, deflate, adaptive filters, no interlace
  const row = Buffer.concat([Buffer.from([0]), Buffer.from(Array.from({ length: width }, () => rgb).flat())]);
  const data = pixels
    ? deflateSync(Buffer.concat(Array.from({ length: height }, () => row)))
    : deflateSync(Buffer.alloc(0));
  return new Uint8Array(
    Buffer.concat([
      Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
      chunk("IHDR", header),
      chunk("IDAT", data),
      chunk("IEND", new Uint8Array()),
    ]),
  );
}

/** A GIF's header and nothing else: enough for its type and size to be read. */
export function gifHeader(width: number, height: number): Uint8Array {
  const bytes = Buffer.alloc(13);
  bytes.write("GIF89a", 0, "latin1");
  bytes.writeUInt16LE(width, 6);
  bytes.writeUInt16LE(height, 8);
  return new Uint8Array(bytes);
}

/** A wordmark logo as SVG: a disc in the accent colour and the name beside it. */
export function svgLogo(name = "Acme", colour = "#2563eb"): Uint8Array {
  return new TextEncoder().encode(
    `<svg xmlns="http://www.w3.org/2000/svg" width="180" height="48" viewBox="0 0 180 48"><circle cx="24" cy="24" r="20" fill="${colour}"/><path d="M14 30 L24 14 L34 30 Z" fill="#fff"/><text x="54" y="33" font-family="system-ui, sans-serif" font-size="26" font-weight="700" fill="${colour}">${name}</text></svg>`,
  );
}

/**
 * A GIF whose header says `width` x `height` and whose one frame (an image descriptor and an empty image) is
 * `frameWidth` x `frameHeight`: browsers grow the canvas to the frame.
 */
export function gifWithFrame(width: number, height: number, frameWidth: number, frameHeight: number): Uint8Array {
  const frame = Buffer.alloc(10);
  frame[0] = 0x2c;
  frame.writeUInt16LE(frameWidth, 5);
  frame.writeUInt16LE(frameHeight, 7);
  // A comment extension first, which a decoder skips, then the frame: LZW code size 2, no data, the trailer.
  const comment = Buffer.from([0x21, 0xfe, 0x02, 0x68, 0x69, 0x00]);
  return new Uint8Array(Buffer.concat([gifHeader(width, height), comment, frame, Buffer.from([0x02, 0x00, 0x3b])]));
}

/** An ICO holding one PNG: its directory says 16 x 16 (all it can say up to 256), the PNG says what it is. */
export function icoWithPng(png: Uint8Array): Uint8Array {
  const head = Buffer.alloc(6 + 16);
  head.writeUInt16LE(1, 2);
  head.writeUInt16LE(1, 4);
  head[6] = 16;
  head[7] = 16;
  head.writeUInt16LE(1, 6 + 4);
  head.writeUInt16LE(32, 6 + 6);
  head.writeUInt32LE(png.length, 6 + 8);
  head.writeUInt32LE(head.length, 6 + 12);
  return new Uint8Array(Buffer.concat([head, png]));
}
