import { setTimeout as sleep } from 'node:timers/promises';
import {
  ADAPTER_SPECIFICATION_VERSION,
  ModelRegistry,
  normalizeRunRequest,
  quoteRun,
  runRequestSchema,
  type AdapterCall,
  type GenerationResult,
  type ModelDescriptor,
  type ProviderAdapter,
  type RunRequest,
} from '@gengate/core';
import { describe, expect, it } from 'vitest';

export interface AdapterConformanceOptions {
  /** A fresh adapter pointed at a fake upstream (never the internet). */
  readonly adapter: () => ProviderAdapter | Promise<ProviderAdapter>;
  /** The request used for a model's live call; default: its prompt-only minimal request. */
  readonly requestFor?: (model: ModelDescriptor) => RunRequest;
  /** Models whose live call is expected to fail (e.g. a deliberately failing sandbox model). */
  readonly failingModels?: readonly string[];
  /** Upper bound for one generation, polling included. Default 30 s. */
  readonly timeoutMs?: number;
  /** Suites to switch off: 'calls' (no live calls), 'abort'. */
  readonly skip?: readonly ('calls' | 'abort')[];
}

const PRICING_FOR = { chat: 'per_token', image: 'per_image', video: 'per_second' } as const;

function defaultRequest(model: ModelDescriptor): RunRequest {
  return runRequestSchema.parse({ prompt: 'gengate conformance test: a small red square' });
}

/** Runs one call the way the gengate worker does (start/status for long-running models). */
export async function runAdapterCall(adapter: ProviderAdapter, call: AdapterCall, timeoutMs: number): Promise<GenerationResult> {
  if (!adapter.isLongRunning(call.model.id)) {
    if (!adapter.generate) throw new Error('generate() missing');
    return adapter.generate(call);
  }
  if (!adapter.start || !adapter.status) throw new Error('start()/status() missing');
  const handle = await adapter.start(call);
  expect(JSON.parse(JSON.stringify(handle))).toEqual(handle);
  const until = Date.now() + timeoutMs;
  for (;;) {
    const s = await adapter.status(handle, call);
    if (s.state === 'succeeded') return s.result;
    if (s.state === 'failed') throw new Error(s.message);
    if (Date.now() > until) throw new Error(`still running after ${timeoutMs} ms`);
    await sleep(adapter.statusPollIntervalMs ?? 50, undefined, { signal: call.abortSignal });
  }
}

/**
 * The adapter conformance suite: an adapter author runs it against a fake of their upstream.
 * It checks the declared catalog (ids, capabilities, prices as data) and, per model, a real call.
 */
export function describeAdapterConformance(name: string, options: AdapterConformanceOptions): void {
  const timeoutMs = options.timeoutMs ?? 30_000;
  const skip = new Set(options.skip ?? []);
  const requestFor = options.requestFor ?? defaultRequest;

  describe(`adapter conformance: ${name}`, () => {
    it('declares the contract version, a provider id and at least one model', async () => {
      const adapter = await options.adapter();
      expect(adapter.specificationVersion).toBe(ADAPTER_SPECIFICATION_VERSION);
      expect(adapter.providerId).toMatch(/^[a-z0-9][a-z0-9-]*$/);
      expect(adapter.models.length).toBeGreaterThan(0);
    });

    it('declares a catalog the registry accepts: unique dotted ids, matching modality, call style implemented', async () => {
      const adapter = await options.adapter();
      expect(() => new ModelRegistry([adapter])).not.toThrow();
      for (const m of adapter.models) {
        expect(m.provider).toBe(adapter.providerId);
        expect(m.capabilities.modality).toBe(m.modality);
        expect(m.name.length).toBeGreaterThan(0);
      }
    });

    it('prices every model as data in non-negative integer micro-credits, of the kind its modality needs', async () => {
      const adapter = await options.adapter();
      for (const m of adapter.models) {
        expect(m.pricing.kind).toBe(PRICING_FOR[m.modality]);
        const values =
          m.pricing.kind === 'per_token'
            ? [m.pricing.inputPerMillionTokens, m.pricing.outputPerMillionTokens]
            : m.pricing.kind === 'per_image'
              ? [m.pricing.perImage, m.pricing.perLargeImage ?? 0]
              : Object.values(m.pricing.perSecond);
        for (const v of values) expect(Number.isSafeInteger(v) && v >= 0).toBe(true);
        const quote = quoteRun(m, normalizeRunRequest(m, requestFor(m)));
        expect(Number.isSafeInteger(quote) && quote >= 0).toBe(true);
      }
    });

    it('declares capabilities with defaults that validate', async () => {
      const adapter = await options.adapter();
      for (const m of adapter.models) {
        const c = m.capabilities;
        if (c.modality === 'video') {
          expect(c.durations.length).toBeGreaterThan(0);
          expect(c.resolutions.length).toBeGreaterThan(0);
          expect(c.aspectRatios.length).toBeGreaterThan(0);
        } else if (c.modality === 'image') {
          expect(c.minSide).toBeLessThanOrEqual(c.defaultLongSide);
          expect(c.defaultLongSide).toBeLessThanOrEqual(c.maxSide);
        } else {
          expect(c.defaultMaxTokens).toBeLessThanOrEqual(c.maxOutputTokens);
        }
        expect(() => normalizeRunRequest(m, requestFor(m))).not.toThrow();
      }
    });

    it.skipIf(skip.has('calls'))('produces files (and token usage for chat) for every model, or fails as declared', async () => {
      const adapter = await options.adapter();
      for (const model of adapter.models) {
        const call: AdapterCall = {
          taskId: crypto.randomUUID(),
          model,
          request: normalizeRunRequest(model, requestFor(model)),
          abortSignal: AbortSignal.timeout(timeoutMs),
        };
        if (options.failingModels?.includes(model.id)) {
          await expect(runAdapterCall(adapter, call, timeoutMs)).rejects.toThrow();
          continue;
        }
        const result = await runAdapterCall(adapter, call, timeoutMs);
        expect(result.files.length, model.id).toBeGreaterThan(0);
        for (const f of result.files) {
          if (f.kind === 'bytes') {
            expect(f.data.byteLength).toBeGreaterThan(0);
            expect(f.mediaType).toMatch(/^[a-z]+\/[a-z0-9.+-]+$/);
          } else {
            expect(() => new URL(f.url)).not.toThrow();
          }
        }
        if (model.modality === 'chat') {
          expect(result.usage, `${model.id} must report token usage`).toBeDefined();
          expect(Number.isSafeInteger(result.usage?.inputTokens) && Number.isSafeInteger(result.usage?.outputTokens)).toBe(true);
        }
        for (const w of result.warnings ?? []) {
          expect(w.param.length).toBeGreaterThan(0);
          expect(w.message.length).toBeGreaterThan(0);
        }
      }
    });

    it.skipIf(skip.has('abort') || skip.has('calls'))('stops when the AbortSignal is already aborted', async () => {
      const adapter = await options.adapter();
      for (const model of adapter.models) {
        const controller = new AbortController();
        controller.abort(new Error('aborted by the conformance suite'));
        const call: AdapterCall = {
          taskId: crypto.randomUUID(),
          model,
          request: normalizeRunRequest(model, requestFor(model)),
          abortSignal: controller.signal,
        };
        await expect(runAdapterCall(adapter, call, timeoutMs), model.id).rejects.toThrow();
      }
    });
  });
}
