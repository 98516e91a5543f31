import { describe, expect, it } from 'vitest';
import { FAKE_PNG, fakeMp4 } from './fake-media.js';

/** Top-level ISO BMFF boxes: [type, size]. */
function boxes(b: Uint8Array): [string, number][] {
  const view = new DataView(b.buffer, b.byteOffset, b.byteLength);
  const out: [string, number][] = [];
  for (let at = 0; at < b.byteLength; ) {
    const size = view.getUint32(at);
    out.push([Buffer.from(b.subarray(at + 4, at + 8)).toString('latin1'), size]);
    if (size < 8) break;
    at += size;
  }
  return out;
}

describe('fake media', () => {
  it('fakeMp4 is a well-formed ISO BMFF file: ftyp, moov with the duration in mvhd, mdat, sizes adding up', () => {
    const mp4 = fakeMp4(8);
    const list = boxes(mp4);
    expect(list.map(([t]) => t)).toEqual(['ftyp', 'moov', 'mdat']);
    expect(list.reduce((n, [, s]) => n + s, 0)).toBe(mp4.byteLength);
    const view = new DataView(mp4.buffer, mp4.byteOffset);
    const mvhd = list[0]![1] + 8;
    expect(Buffer.from(mp4.subarray(mvhd + 4, mvhd + 8)).toString('latin1')).toBe('mvhd');
    const timescale = view.getUint32(mvhd + 8 + 4 + 8);
    const duration = view.getUint32(mvhd + 8 + 4 + 12);
    expect(duration / timescale).toBe(8);
  });

  it('FAKE_PNG starts with the PNG signature', () => {
    expect(Buffer.from(FAKE_PNG.subarray(0, 8)).toString('hex')).toBe('89504e470d0a1a0a');
  });
});
