import { describe, expect, it } from 'vitest';
import { checkedResult } from './result-limits.js';

const PNG = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0x0d, 0x49, 0x48, 0x44, 0x52, 0, 0, 0, 1, 0, 0, 0, 1, 8, 6, 0, 0, 0]);

async function* chunks(...parts: Uint8Array[]): AsyncIterable<Uint8Array> {
  for (const p of parts) yield p;
}

async function drain(body: AsyncIterable<Uint8Array>): Promise<number> {
  let n = 0;
  for await (const c of body) n += c.byteLength;
  return n;
}

describe('checkedResult', () => {
  it('keeps a whole body whole (the same array, for a one-write store) with the declared type', async () => {
    const text = new TextEncoder().encode('hello');
    const checked = await checkedResult(text, 'text/plain; charset=utf-8', 'chat', 100);
    expect(checked.mediaType).toBe('text/plain');
    expect(checked.body).toBe(text);
  });

  it('sniffs an unknown type from a whole body as from a stream, and refuses one that is not the modality’s', async () => {
    expect((await checkedResult(PNG, 'application/octet-stream', 'image', 1_000)).mediaType).toBe('image/png');
    expect((await checkedResult(chunks(PNG.subarray(0, 5), PNG.subarray(5)), null, 'image', 1_000)).mediaType).toBe('image/png');
    expect((await checkedResult(new Uint8Array([1, 2, 3]), null, 'chat', 1_000)).mediaType).toBe('text/plain');
    await expect(checkedResult(new TextEncoder().encode('not an image'), 'text/plain', 'image', 1_000)).rejects.toMatchObject({ kind: 'bad_output', message: 'the result is text/plain, not a image file' });
    await expect(checkedResult(chunks(new TextEncoder().encode('x')), 'text/plain', 'image', 1_000)).rejects.toMatchObject({ kind: 'bad_output', message: 'the result is text/plain, not a image file' });
    await expect(checkedResult(new Uint8Array([1, 2, 3]), null, 'video', 1_000)).rejects.toMatchObject({ kind: 'bad_output', message: 'the result is of an unknown type, not a video file' });
  });

  it('refuses a body over the limit with the same error, at once when whole and while read when streamed', async () => {
    const message = "the result is larger than this gateway's limit of 4 bytes for chat files";
    await expect(checkedResult(new Uint8Array(5), 'text/plain', 'chat', 4)).rejects.toMatchObject({ kind: 'bad_output', message });
    expect((await checkedResult(new Uint8Array(4), 'text/plain', 'chat', 4)).body).toHaveLength(4);
    const streamed = await checkedResult(chunks(new Uint8Array(3), new Uint8Array(2)), 'text/plain', 'chat', 4);
    await expect(drain(streamed.body)).rejects.toMatchObject({ kind: 'bad_output', message });
    // The type is checked before the size, for both shapes.
    await expect(checkedResult(new Uint8Array(5), 'video/mp4', 'chat', 4)).rejects.toMatchObject({ message: 'the result is video/mp4, not a chat file' });
  });
});
