/**
 * Width and height of a PNG, GIF or JPEG from its header (Chatwoot reads them when it analyses
 * an uploaded image and shows them on the attachment). Anything else, or a truncated or
 * malformed file, has no dimensions.
 */
export function imageSize(data: Buffer): { width: number; height: number } | null {
  try {
    // PNG: signature, then the IHDR chunk (width and height, big-endian).
    if (data.length >= 24 && data.readUInt32BE(0) === 0x89504e47 && data.toString('ascii', 12, 16) === 'IHDR') {
      return valid(data.readUInt32BE(16), data.readUInt32BE(20));
    }
    // GIF87a / GIF89a: logical screen size, little-endian.
    if (data.length >= 10 && data.toString('ascii', 0, 4) === 'GIF8') return valid(data.readUInt16LE(6), data.readUInt16LE(8));
    // JPEG: walk the segments up to a start-of-frame marker.
    if (data.length >= 4 && data[0] === 0xff && data[1] === 0xd8) {
      let i = 2;
      while (i + 9 < data.length) {
        if (data[i] !== 0xff) return null;
        const marker = data[i + 1] as number;
        if (marker === 0xff) {
          i += 1;
          continue;
        }
        const length = data.readUInt16BE(i + 2);
        // SOF0..SOF15, except DHT (C4), JPG (C8) and DAC (CC).
        if (marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc) {
          return valid(data.readUInt16BE(i + 7), data.readUInt16BE(i + 5));
        }
        if (length < 2) return null;
        i += 2 + length;
      }
    }
  } catch {
    return null;
  }
  return null;
}

function valid(width: number, height: number): { width: number; height: number } | null {
  return width > 0 && height > 0 ? { width, height } : null;
}
