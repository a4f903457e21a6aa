import { imageSize } from '../src/messages/image-size';

describe('image dimensions of uploaded attachments', () => {
  it('when the file is a PNG, GIF or JPEG, then its width and height come from the header', () => {
    const png = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==', 'base64');
    expect(imageSize(png)).toEqual({ width: 1, height: 1 });
    const gif = Buffer.concat([Buffer.from('GIF89a', 'ascii'), Buffer.from([0x40, 0x01, 0xf0, 0x00]), Buffer.alloc(8)]);
    expect(imageSize(gif)).toEqual({ width: 320, height: 240 });
    // SOI, an APP0 segment of 16 bytes, then SOF0 with height 480 and width 640.
    const jpeg = Buffer.concat([
      Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0x00, 0x10]), Buffer.alloc(14),
      Buffer.from([0xff, 0xc0, 0x00, 0x11, 0x08, 0x01, 0xe0, 0x02, 0x80, 0x03]), Buffer.alloc(12),
    ]);
    expect(imageSize(jpeg)).toEqual({ width: 640, height: 480 });
  });

  it('when the file is something else, truncated or malformed, then it has no dimensions', () => {
    expect(imageSize(Buffer.from('%PDF-1.4'))).toBeNull();
    expect(imageSize(Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0x00]))).toBeNull();
    expect(imageSize(Buffer.from([0xff, 0xd8, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00]))).toBeNull();
    expect(imageSize(Buffer.alloc(0))).toBeNull();
  });
});
