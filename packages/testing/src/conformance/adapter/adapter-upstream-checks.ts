import { isUpstreamError, normalizeRunRequest, runToCompletion, type ModelDescriptor, type ProviderAdapter, type RunRequest, type TaskWarning, type UpstreamError } from '@gengate/core/adapter';
import { describe, expect, it } from 'vitest';
import type { FakeFault, FakeUpstream, RecordedCall } from '../../fakes/fake-upstream.js';
import type { AdapterSuiteSection } from './suite-sections.js';
import { kitCall } from './adapter-call.js';
import { parameterProbes, providerParamProbes, type ParameterProbe } from './adapter-requests.js';

export interface UpstreamCheckOptions {
  readonly adapter: () => ProviderAdapter | Promise<ProviderAdapter>;
  readonly upstream: FakeUpstream;
  readonly credential: string | null;
  readonly requestFor: (model: ModelDescriptor) => RunRequest;
  readonly failing: ReadonlySet<string>;
  readonly timeoutMs: number;
  readonly maxPollDelayMs: number;
  readonly skip: ReadonlySet<AdapterSuiteSection>;
}

/** The submissions of a run: calls that carry a body (status checks and downloads do not), as comparable text. */
function submissions(calls: readonly RecordedCall[]): string {
  return JSON.stringify(
    calls
      .filter((c) => c.body !== null)
      .map((c) => ({ m: c.method, p: c.path.replace(/[0-9a-f]{8}-[0-9a-f-]{27}/g, ':id'), q: c.query, b: c.body }))
      .sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b))),
  );
}

/** Checks that need the fake upstream: error classes and retryability, hangs, and the mapping of every generic parameter. */
export function describeAdapterUpstreamChecks(o: UpstreamCheckOptions): void {
  const run = async (adapter: ProviderAdapter, model: ModelDescriptor, request: RunRequest, signal = AbortSignal.timeout(o.timeoutMs)) =>
    runToCompletion(adapter, kitCall(model, request, signal), { timeoutMs: o.timeoutMs, maxPollDelayMs: o.maxPollDelayMs });

  /** Runs one call whose upstream answers with `fault`; the adapter must not retry by itself (one submission). */
  async function failureOf(fault: FakeFault): Promise<UpstreamError> {
    const adapter = await o.adapter();
    const model = adapter.models.find((m) => !o.failing.has(m.id));
    if (!model) throw new Error('no model to test errors with');
    o.upstream.reset();
    o.upstream.failNext(fault, { times: 1 });
    let caught: unknown = null;
    try {
      await run(adapter, model, o.requestFor(model));
    } catch (e) {
      caught = e;
    }
    const submissions = o.upstream.calls.filter((c) => c.body !== null).length;
    o.upstream.reset();
    expect(isUpstreamError(caught), `expected an UpstreamError, got ${String(caught)}`).toBe(true);
    expect(submissions, 'the adapter retried by itself: retries belong to the worker (pass maxRetries: 0 to the AI SDK)').toBeLessThanOrEqual(1);
    const e = caught as UpstreamError;
    if (o.credential) expect(e.message).not.toContain(o.credential);
    return e;
  }

  describe.skipIf(o.skip.has('errors'))('upstream errors', () => {
    it('classifies a 429 as rate_limited, retryable, with the Retry-After delay (the adapter does not retry by itself)', async () => {
      const e = await failureOf({ kind: 'status', status: 429, headers: { 'retry-after': '7' }, body: { error: { message: 'Rate limit reached' } } });
      expect(e.kind).toBe('rate_limited');
      expect(e.isRetryable).toBe(true);
      expect(e.retryAfterMs).toBe(7_000);
      expect(e.statusCode).toBe(429);
    });

    it('classifies a 5xx as a retryable server error', async () => {
      const e = await failureOf({ kind: 'status', status: 503, body: { error: { message: 'overloaded' } } });
      expect(e.kind).toBe('server');
      expect(e.isRetryable).toBe(true);
    });

    it('classifies rejected credentials as authentication, not retryable, without showing the key', async () => {
      const e = await failureOf({ kind: 'status', status: 401, body: { error: { message: `Incorrect API key provided: ${o.credential ?? 'sk-test'}` } } });
      expect(e.kind).toBe('authentication');
      expect(e.isRetryable).toBe(false);
    });

    it('classifies a 400 as invalid input, not retryable', async () => {
      const e = await failureOf({ kind: 'status', status: 400, body: { error: { message: 'Invalid value for parameter' } } });
      expect(e.kind).toBe('invalid_input');
      expect(e.isRetryable).toBe(false);
    });

    it('gives up on a hanging upstream when the call is aborted', async () => {
      const adapter = await o.adapter();
      const model = adapter.models.find((m) => !o.failing.has(m.id));
      if (!model) return;
      o.upstream.reset();
      o.upstream.failNext({ kind: 'hang' }, { times: 1 });
      const started = Date.now();
      await expect(run(adapter, model, o.requestFor(model), AbortSignal.timeout(300))).rejects.toThrow();
      expect(Date.now() - started).toBeLessThan(o.timeoutMs);
      o.upstream.reset();
    });
  });

  /** The parameters of `probes` that reached neither the upstream request nor a warning. */
  async function droppedParameters(probesOf: (model: ModelDescriptor, base: RunRequest) => readonly ParameterProbe[]): Promise<string[]> {
    const adapter = await o.adapter();
    const dropped: string[] = [];
    for (const model of adapter.models.filter((m) => !o.failing.has(m.id))) {
      const base = o.requestFor(model);
      o.upstream.reset();
      await run(adapter, model, base);
      const baseline = submissions(o.upstream.calls);
      for (const probe of probesOf(model, base)) {
        try {
          normalizeRunRequest(model, probe.request);
        } catch {
          continue; // refused before any hold: an allowed answer
        }
        o.upstream.reset();
        let warnings: readonly TaskWarning[] = [];
        try {
          warnings = (await run(adapter, model, probe.request)).warnings ?? [];
        } catch {
          // the upstream refused the value: it was sent, which the comparison below shows
        }
        const mapped = submissions(o.upstream.calls) !== baseline;
        const warned = warnings.some((w) => w.param === probe.param || w.param.startsWith(`${probe.param}.`));
        if (!mapped && !warned) dropped.push(`${model.id}: ${probe.param}`);
      }
    }
    o.upstream.reset();
    return dropped;
  }

  describe.skipIf(o.skip.has('parameters'))('parameters', () => {
    it('maps every accepted generic parameter to the upstream request, or reports it as a warning: never drops one silently', async () => {
      expect(await droppedParameters(parameterProbes), 'accepted but neither sent upstream nor reported as a warning').toEqual([]);
    });

    it('sends every declared provider parameter upstream, or reports it as a warning: never drops one silently', async () => {
      expect(await droppedParameters(providerParamProbes), 'declared in providerParams but neither sent upstream nor reported as a warning').toEqual([]);
    });
  });
}
