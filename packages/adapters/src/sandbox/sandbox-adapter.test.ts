import { normalizeRunRequest, runRequestSchema, type AdapterCall, type ModelDescriptor } from '@gengate/core/adapter';
import { describeAdapterConformance, runAdapterCall } from '@gengate/testing';
import { PNG } from 'pngjs';
import { describe, expect, it, vi } from 'vitest';
import { SandboxAdapter } from './sandbox-adapter.js';
import { SANDBOX_FAIL_MARKER, SANDBOX_MODELS } from './sandbox-models.js';

const fast = () => new SandboxAdapter({ latencyMs: { chat: 5, image: 5, video: 60 }, statusPollIntervalMs: 10 });

describeAdapterConformance('sandbox', {
  skip: ['price-source'], adapter: fast, failingModels: [SANDBOX_MODELS.fail.id], timeoutMs: 10_000 });

function call(model: ModelDescriptor, body: unknown, taskId = crypto.randomUUID()): AdapterCall {
  return { taskId, model, request: normalizeRunRequest(model, runRequestSchema.parse(body)), abortSignal: AbortSignal.timeout(10_000), readInput: () => Promise.reject(new Error('no input')), webhookUrl: null };
}

async function bytesOf(adapter: SandboxAdapter, c: AdapterCall): Promise<Uint8Array> {
  const result = await runAdapterCall(adapter, c, 10_000);
  const file = result.files[0];
  if (!file || file.kind !== 'bytes') throw new Error('expected bytes');
  return file.data;
}

/** Walks the GIF block structure (not a byte search: LZW data can contain any byte pair) and counts image descriptors. */
function countGifFrames(gif: Buffer): number {
  const packed = gif[10] ?? 0;
  let i = 13 + (packed & 0x80 ? 3 * 2 ** ((packed & 0x07) + 1) : 0);
  const skipSubBlocks = () => {
    while ((gif[i] ?? 0) !== 0) i += (gif[i] ?? 0) + 1;
    i += 1;
  };
  let frames = 0;
  for (;;) {
    const block = gif[i];
    if (block === 0x3b || block === undefined) return frames;
    if (block === 0x21) {
      i += 2;
      skipSubBlocks();
    } else if (block === 0x2c) {
      frames++;
      const local = gif[i + 9] ?? 0;
      i += 10 + (local & 0x80 ? 3 * 2 ** ((local & 0x07) + 1) : 0);
      i += 1; // LZW minimum code size
      skipSubBlocks();
    } else {
      throw new Error(`unexpected GIF block 0x${block.toString(16)} at ${i}`);
    }
  }
}

describe('sandbox adapter', () => {
  it('renders a PNG honouring width and height, identical for the same seed', async () => {
    const a = fast();
    const body = { prompt: 'fox', image_params: { width: 300, height: 200, seed: 7 } };
    const first = await bytesOf(a, call(SANDBOX_MODELS.image, body));
    const again = await bytesOf(a, call(SANDBOX_MODELS.image, body));
    const other = await bytesOf(a, call(SANDBOX_MODELS.image, { ...body, image_params: { ...body.image_params, seed: 8 } }));
    const png = PNG.sync.read(Buffer.from(first));
    expect([png.width, png.height]).toEqual([300, 200]);
    expect(Buffer.from(again).equals(Buffer.from(first))).toBe(true);
    expect(Buffer.from(other).equals(Buffer.from(first))).toBe(false);
  });

  it('honours the aspect ratio when no size is given', async () => {
    const png = PNG.sync.read(Buffer.from(await bytesOf(fast(), call(SANDBOX_MODELS.image, { prompt: 'x', image_params: { aspect_ratio: '9:16' } }))));
    expect(png.height).toBe(512);
    expect(png.width).toBe(288);
  });

  it('renders an animated GIF of duration x fps frames through start/status', async () => {
    const gif = Buffer.from(await bytesOf(fast(), call(SANDBOX_MODELS.video, { prompt: 'boat', video_params: { duration: 5, aspect_ratio: '1:1' } })));
    expect(gif.subarray(0, 6).toString('latin1')).toBe('GIF89a');
    expect(gif.readUInt16LE(6)).toBe(gif.readUInt16LE(8));
    expect(countGifFrames(gif)).toBe(40);
  });

  it('answers chat deterministically with token usage bounded by max_tokens', async () => {
    const result = await runAdapterCall(fast(), call(SANDBOX_MODELS.chat, { prompt: 'hello there', llm_params: { max_tokens: 5 } }), 5_000);
    const file = result.files[0];
    expect(file?.kind === 'bytes' && file.mediaType).toBe('text/plain');
    expect(result.usage).toEqual({ inputTokens: 2, outputTokens: 5 });
  });

  it('answers at zero latency without a timer, and still refuses an aborted call', async () => {
    const zero = new SandboxAdapter({ latencyMs: { chat: 0 } });
    vi.useFakeTimers();
    try {
      // With timers frozen, a sleep(0) would never end: the answer comes without one.
      const result = await zero.generate(call(SANDBOX_MODELS.chat, { prompt: 'now', llm_params: { max_tokens: 3 } }));
      expect(result.usage).toEqual({ inputTokens: 1, outputTokens: 3 });
    } finally {
      vi.useRealTimers();
    }
    const aborted = { ...call(SANDBOX_MODELS.chat, { prompt: 'now' }), abortSignal: AbortSignal.abort(new Error('cancelled')) };
    await expect(zero.generate(aborted)).rejects.toThrow(/aborted/);
  });

  it('fails on purpose with the dedicated model or the prompt marker', async () => {
    await expect(runAdapterCall(fast(), call(SANDBOX_MODELS.fail, {}), 5_000)).rejects.toThrow(/asked to fail/);
    await expect(runAdapterCall(fast(), call(SANDBOX_MODELS.chat, { prompt: `x ${SANDBOX_FAIL_MARKER}` }), 5_000)).rejects.toThrow(/asked to fail/);
    await expect(runAdapterCall(fast(), call(SANDBOX_MODELS.video, { prompt: `x ${SANDBOX_FAIL_MARKER}` }), 5_000)).rejects.toThrow(/asked to fail/);
  });

  it('keeps the video handle as data so a new adapter instance (a restarted worker) can finish it', async () => {
    const c = call(SANDBOX_MODELS.video, { prompt: 'restart' });
    const { handle } = await fast().start(c);
    const restarted = fast();
    let status = await restarted.status(JSON.parse(JSON.stringify(handle)), c);
    while (status.state === 'running') {
      await new Promise((r) => setTimeout(r, 10));
      status = await restarted.status(handle, c);
    }
    expect(status.state).toBe('succeeded');
  });
});
