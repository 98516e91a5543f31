/** A 1x1 PNG (real, decodable): what the fakes serve for generated images. */
export const FAKE_PNG = Uint8Array.from(
  Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==', 'base64'),
);

function box(type: string, ...parts: Uint8Array[]): Uint8Array {
  const size = 8 + parts.reduce((n, p) => n + p.byteLength, 0);
  const out = new Uint8Array(size);
  const view = new DataView(out.buffer);
  view.setUint32(0, size);
  out.set(Buffer.from(type, 'latin1'), 4);
  let at = 8;
  for (const p of parts) {
    out.set(p, at);
    at += p.byteLength;
  }
  return out;
}

function u32(...values: number[]): Uint8Array {
  const out = new Uint8Array(values.length * 4);
  const view = new DataView(out.buffer);
  values.forEach((v, i) => view.setUint32(i * 4, v >>> 0));
  return out;
}

/**
 * A minimal ISO BMFF (MP4) file: `ftyp` (isom), `moov` with a version-0 `mvhd` carrying the duration, and an
 * `mdat` with a few payload bytes. It parses as MP4 (and sniffs as video/mp4) but has no tracks to play: the
 * fakes serve it where a real upstream returns a generated video.
 */
export function fakeMp4(durationSeconds = 5, payloadBytes = 64): Uint8Array {
  const ftyp = box('ftyp', Buffer.from('isom', 'latin1'), u32(0x200), Buffer.from('isomiso2avc1mp41', 'latin1'));
  const matrix = u32(0x00010000, 0, 0, 0, 0x00010000, 0, 0, 0, 0x40000000);
  const mvhd = box(
    'mvhd',
    u32(0), // version 0, flags 0
    u32(0, 0), // creation, modification time
    u32(1000, Math.round(durationSeconds * 1000)), // timescale (ms), duration
    u32(0x00010000), // rate 1.0
    Uint8Array.from([0x01, 0x00]), // volume 1.0
    new Uint8Array(10), // reserved
    matrix,
    new Uint8Array(24), // pre_defined
    u32(1), // next_track_ID
  );
  const moov = box('moov', mvhd);
  const mdat = box('mdat', new Uint8Array(payloadBytes).fill(0x47));
  const out = new Uint8Array(ftyp.byteLength + moov.byteLength + mdat.byteLength);
  out.set(ftyp, 0);
  out.set(moov, ftyp.byteLength);
  out.set(mdat, ftyp.byteLength + moov.byteLength);
  return out;
}
