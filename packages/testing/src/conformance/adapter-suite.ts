import { GatewayError, ModelRegistry, PriceBook, type ModelDescriptor, type ProviderAdapter, type RunRequest } from '@gengate/core';
import { ADAPTER_SPECIFICATION_VERSION, checkModelDeclaration, modelParametersJsonSchema, normalizeRunRequest, runToCompletion, type AdapterCall, type GenerationResult } from '@gengate/core/adapter';
import { describe, expect, it, type TestContext } from 'vitest';
import type { FakeUpstream } from '../fakes/fake-upstream.js';
import { kitCall } from './adapter/adapter-call.js';
import { describeAdapterStreamChecks } from './adapter/adapter-stream-checks.js';
import { describeAdapterUpstreamChecks } from './adapter/adapter-upstream-checks.js';
import { minimalRequest } from './adapter/adapter-requests.js';
import { checkCancel, checkResume, type CheckOutcome, type LifecycleCheckOptions } from './adapter/lifecycle-checks.js';
import type { AdapterSuiteSection } from './adapter/suite-sections.js';

export type { AdapterSuiteSection } from './adapter/suite-sections.js';

export interface AdapterConformanceOptions {
  /** A fresh adapter pointed at a fake upstream (never the internet). Called again for the resume check. */
  readonly adapter: () => ProviderAdapter | Promise<ProviderAdapter>;
  /** The request used for a model's live call; default: a prompt (and the shortest duration for video). */
  readonly requestFor?: (model: ModelDescriptor) => RunRequest;
  /** Models whose live call is expected to fail (e.g. a deliberately failing sandbox model). */
  readonly failingModels?: readonly string[];
  /** Upper bound for one generation, status checks included. Default 30 s. */
  readonly timeoutMs?: number;
  /** Longest wait between status checks in the kit's own loop (keeps suites fast). Default 50 ms. */
  readonly maxPollDelayMs?: number;
  /** Sections to switch off. */
  readonly skip?: readonly AdapterSuiteSection[];
  /**
   * The fake upstream the adapter talks to. With it, the kit also checks error classification and
   * retryability (with Retry-After), hangs, and that every accepted generic parameter changes the
   * upstream request or comes back as a warning (never dropped silently).
   */
  readonly upstream?: FakeUpstream;
  /** The credential the adapter was configured with: it must never appear in an error message. */
  readonly credential?: string;
  /**
   * How many cancel requests the upstream has received so far, e.g. `() => fake.jobs.cancelRequests` for the
   * fakes built on FakeJobBook. The cancel check asserts it grows when cancel() is called. Giving it also says
   * the upstream can cancel: an adapter with long-running models and no cancel() then fails. Without it, the
   * check looks for a non-GET request reaching `upstream` during cancel().
   */
  readonly cancelsSeen?: () => number | Promise<number>;
  /**
   * Why the provider cannot cancel a started job (it documents no cancel API). Turns the warning an adapter
   * with long-running models and no cancel() gets into a plain skip with this reason.
   */
  readonly cancelUnsupported?: string;
}

/** Runs one call the way the gengate worker does (start and scheduled status checks for long-running models). */
export function runAdapterCall(adapter: ProviderAdapter, call: AdapterCall, timeoutMs: number, maxPollDelayMs = 50): Promise<GenerationResult> {
  return runToCompletion(adapter, call, { timeoutMs, maxPollDelayMs });
}

function expectFiles(model: ModelDescriptor, result: GenerationResult): void {
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
    expect(Number.isSafeInteger(result.usage?.inputTokens) && Number.isSafeInteger(result.usage?.outputTokens), `${model.id} token usage`).toBe(true);
  }
  for (const w of result.warnings ?? []) {
    expect(w.param.length).toBeGreaterThan(0);
    expect(w.message.length).toBeGreaterThan(0);
  }
}

/**
 * The adapter conformance suite: an adapter author runs it against a fake of their upstream. It checks
 * the declared catalog (ids, capabilities, prices as data, parameter schemas), a live call per model,
 * abort, resumption from a saved handle on a new adapter instance, cancel, and with the fake's
 * handle, error classes, retryability and the mapping of every generic parameter.
 */
export function describeAdapterConformance(name: string, options: AdapterConformanceOptions): void {
  const timeoutMs = options.timeoutMs ?? 30_000;
  const maxPoll = options.maxPollDelayMs ?? 50;
  const skip = new Set(options.skip ?? []);
  const requestFor = options.requestFor ?? minimalRequest;
  const failing = new Set(options.failingModels ?? []);
  const run = (adapter: ProviderAdapter, call: AdapterCall) => runAdapterCall(adapter, call, timeoutMs, maxPoll);

  describe(`adapter conformance: ${name}`, () => {
    it('declares the contract version, a provider id and at least one model', async () => {
      const adapter = await options.adapter();
      expect(adapter.specificationVersion).toBe(ADAPTER_SPECIFICATION_VERSION);
      expect(adapter.providerId).toMatch(/^[a-z0-9][a-z0-9-]*$/);
      expect(adapter.models.length).toBeGreaterThan(0);
    });

    it('declares a catalog the registry accepts: dotted ids, coherent capabilities, prices and sizes, call style implemented', async () => {
      const adapter = await options.adapter();
      expect(() => new ModelRegistry([adapter])).not.toThrow();
      for (const m of adapter.models) {
        expect(() => checkModelDeclaration(m)).not.toThrow();
        expect(m.provider).toBe(adapter.providerId);
        expect(m.name.length).toBeGreaterThan(0);
        expect(m.description.length, `${m.id} needs a description`).toBeGreaterThan(0);
      }
    });

    it.skipIf(skip.has('price-source'))('names the public price page and the date each price was taken', async () => {
      const adapter = await options.adapter();
      for (const m of adapter.models) {
        expect(m.priceSource, `${m.id} has no priceSource`).toBeDefined();
        expect(() => new URL(m.priceSource?.url ?? '')).not.toThrow();
        expect(m.priceSource?.retrievedOn).toMatch(/^\d{4}-\d{2}-\d{2}$/);
      }
    });

    it('quotes every model in non-negative integer micro-credits', async () => {
      const adapter = await options.adapter();
      const prices = new PriceBook();
      for (const m of adapter.models) {
        const q = prices.quote(m, normalizeRunRequest(m, requestFor(m)));
        expect(Number.isSafeInteger(q.chargeMicro) && q.chargeMicro >= 0, m.id).toBe(true);
        expect(Number.isSafeInteger(q.costMicro) && q.costMicro >= 0, m.id).toBe(true);
      }
    });

    it('publishes a parameter schema per model and refuses unknown provider parameters before any call', async () => {
      const adapter = await options.adapter();
      for (const m of adapter.models) {
        const schema = modelParametersJsonSchema(m);
        expect(schema['type']).toBe('object');
        expect(() => normalizeRunRequest(m, requestFor(m))).not.toThrow();
        let refusal: unknown = null;
        try {
          normalizeRunRequest(m, { ...requestFor(m), provider_params: { gengate_conformance_unknown: 1 } });
        } catch (e) {
          refusal = e;
        }
        expect(refusal, `${m.id} accepted an unknown provider parameter`).toBeInstanceOf(GatewayError);
        expect((refusal as GatewayError).status).toBe(400);
      }
    });

    it.skipIf(skip.has('calls'))('produces files (and token usage for chat) for every model, or fails as declared', async () => {
      const adapter = await options.adapter();
      for (const model of adapter.models) {
        const call = kitCall(model, requestFor(model), AbortSignal.timeout(timeoutMs));
        if (failing.has(model.id)) {
          await expect(run(adapter, call)).rejects.toThrow();
          continue;
        }
        expectFiles(model, await run(adapter, call));
      }
    });

    it.skipIf(skip.has('abort') || skip.has('calls'))('stops when the AbortSignal is already aborted', async () => {
      const adapter = await options.adapter();
      for (const model of adapter.models) {
        const controller = new AbortController();
        controller.abort(new Error('aborted by the conformance suite'));
        await expect(run(adapter, kitCall(model, requestFor(model), controller.signal)), model.id).rejects.toThrow();
      }
    });

    const lifecycle: LifecycleCheckOptions = {
      adapter: options.adapter,
      requestFor,
      failing,
      timeoutMs,
      maxPollDelayMs: maxPoll,
      upstream: options.upstream ?? null,
      cancelsSeen: options.cancelsSeen ?? null,
      cancelUnsupported: options.cancelUnsupported ?? null,
      expectFiles,
    };
    const report = (ctx: TestContext, outcome: CheckOutcome): void => {
      if (outcome.kind === 'passed') return;
      if (outcome.warning) console.warn(`[gengate adapter conformance: ${name}] ${outcome.reason}`);
      ctx.skip(outcome.reason);
    };

    it.skipIf(skip.has('resume') || skip.has('calls'))('resumes a long-running job from its saved handle on a new adapter instance', async (ctx) => {
      report(ctx, await checkResume(lifecycle));
    });

    it.skipIf(skip.has('cancel') || skip.has('calls'))('asks the upstream to cancel a started long-running job, and the upstream sees the cancel', async (ctx) => {
      report(ctx, await checkCancel(lifecycle));
    });

    if (!skip.has('stream')) describeAdapterStreamChecks({ adapter: options.adapter, failing });

    if (options.upstream) {
      describeAdapterUpstreamChecks({
        adapter: options.adapter,
        upstream: options.upstream,
        credential: options.credential ?? null,
        requestFor,
        failing,
        timeoutMs,
        maxPollDelayMs: maxPoll,
        skip,
      });
    }
  });
}

