import { isUpstreamError, type ModelDescriptor, type ProviderAdapter, type RunRequest } from '@gengate/core/adapter';
import { describe, expect, it } from 'vitest';
import type { FakeFault, FakeUpstream } from '../../fakes/fake-upstream.js';
import { kitCall } from './adapter-call.js';
import { minimalRequest } from './adapter-requests.js';

export interface OneRequestPerAttemptOptions {
  readonly adapter: () => ProviderAdapter | Promise<ProviderAdapter>;
  readonly upstream: FakeUpstream;
  /** A request each model accepts (default: minimalRequest). */
  readonly requestFor?: (model: ModelDescriptor) => RunRequest;
  /** Models left out (e.g. ones the fake always refuses). */
  readonly skipModels?: readonly string[];
}

/** Far more failures than any SDK retry loop would make: every request of the test fails. */
const EVERY = 1_000;
const RETRY_AFTER_SECONDS = 3;

const FAULTS: readonly { readonly name: string; readonly fault: FakeFault; readonly retryAfterMs: number | null }[] = [
  { name: '500', fault: { kind: 'status', status: 500, body: { error: { message: 'internal error', type: 'server_error' } } }, retryAfterMs: null },
  {
    name: '429 with Retry-After',
    fault: { kind: 'status', status: 429, headers: { 'retry-after': String(RETRY_AFTER_SECONDS) }, body: { error: { message: 'Rate limit reached', type: 'rate_limit_error' } } },
    retryAfterMs: RETRY_AFTER_SECONDS * 1000,
  },
];

/** The first model of each modality the adapter offers: one per kind of upstream call. */
function oneModelPerModality(adapter: ProviderAdapter, skip: readonly string[]): ModelDescriptor[] {
  const seen = new Set<string>();
  return adapter.models.filter((m) => {
    if (skip.includes(m.id) || seen.has(m.modality)) return false;
    seen.add(m.modality);
    return true;
  });
}

/**
 * Issue 21's "one retry loop": gengate's worker (and router) is the only one that retries, so an SDK or
 * client under an adapter must not retry on its own, or one gengate attempt becomes several upstream
 * requests (the 3x-45x load multiplication of stacked retries). Each check makes ONE gengate attempt (one
 * `generate`/`start`, one `status`, one `doStream`) against an upstream that fails EVERY request with a 500
 * or a 429 carrying Retry-After, and asserts the fake saw exactly one request, and that the error still
 * says it is retryable (so the gateway's own loop does retry), with the Retry-After delay.
 */
export function describeOneRequestPerAttempt(name: string, o: OneRequestPerAttemptOptions): void {
  const requestFor = o.requestFor ?? minimalRequest;

  describe(`one upstream request per gengate attempt: ${name}`, () => {
    for (const f of FAULTS) {
      it(`generate/start: a ${f.name} on every request reaches the fake once per attempt, retryable`, async () => {
        const adapter = await o.adapter();
        for (const model of oneModelPerModality(adapter, o.skipModels ?? [])) {
          o.upstream.reset();
          o.upstream.failNext(f.fault, { times: EVERY });
          const call = kitCall(model, requestFor(model), AbortSignal.timeout(10_000));
          const attempt = adapter.isLongRunning(model.id) ? adapter.start?.(call) : adapter.generate?.(call);
          const caught: unknown = await Promise.resolve(attempt).then(
            () => null,
            (e: unknown) => e,
          );
          const requests = o.upstream.calls.length;
          o.upstream.reset();
          expect(isUpstreamError(caught), `${model.id}: expected an UpstreamError, got ${String(caught)}`).toBe(true);
          expect(requests, `${model.id}: the SDK under the adapter retried on its own`).toBe(1);
          if (isUpstreamError(caught)) {
            expect(caught.isRetryable, `${model.id}: a ${f.name} must stay retryable for the gateway's own loop`).toBe(true);
            if (f.retryAfterMs !== null) expect(caught.retryAfterMs, `${model.id}: Retry-After honoured`).toBe(f.retryAfterMs);
          }
        }
      });
    }

    it('status: a long-running job whose status check gets a 500 on every request asks once per check', async (ctx) => {
      const adapter = await o.adapter();
      const models = oneModelPerModality(adapter, o.skipModels ?? []).filter((m) => adapter.isLongRunning(m.id));
      if (models.length === 0) ctx.skip('no long-running model');
      for (const model of models) {
        o.upstream.reset();
        const call = kitCall(model, requestFor(model), AbortSignal.timeout(10_000));
        if (!adapter.start || !adapter.status) throw new Error(`${model.id} is long-running without start/status`);
        const { handle } = await adapter.start(call);
        const before = o.upstream.calls.length;
        o.upstream.failNext(FAULTS[0]?.fault ?? { kind: 'reset' }, { times: EVERY });
        const caught: unknown = await adapter.status(handle, call).then(
          () => null,
          (e: unknown) => e,
        );
        const requests = o.upstream.calls.length - before;
        o.upstream.reset();
        expect(requests, `${model.id}: one status check, one request`).toBe(1);
        // A failed check is either thrown as a retryable error or reported as still running: never a retry inside.
        if (caught !== null) expect(isUpstreamError(caught) && caught.isRetryable, `${model.id}: ${String(caught)}`).toBe(true);
      }
    });

    for (const f of FAULTS) {
      it(`stream (languageModel.doStream): a ${f.name} on every request reaches the fake once`, async (ctx) => {
        const adapter = await o.adapter();
        const chat = oneModelPerModality(adapter, o.skipModels ?? []).find((m) => m.modality === 'chat');
        if (!chat || !adapter.languageModel) return ctx.skip('no chat model');
        o.upstream.reset();
        o.upstream.failNext(f.fault, { times: EVERY });
        const model = adapter.languageModel(chat.id);
        const caught: unknown = await model
          .doStream({ prompt: [{ role: 'user', content: [{ type: 'text', text: 'hello' }] }], abortSignal: AbortSignal.timeout(10_000) })
          .then(
            async ({ stream }) => {
              // An SDK that turns the HTTP error into an error part still made its request: drain it.
              const reader = stream.getReader();
              for (;;) if ((await reader.read()).done) return null;
            },
            (e: unknown) => e,
          );
        const requests = o.upstream.calls.length;
        o.upstream.reset();
        expect(caught, `${chat.id}: the stream must fail`).not.toBeNull();
        expect(requests, `${chat.id}: the SDK retried the stream on its own`).toBe(1);
        const classified = adapter.upstreamError?.(caught);
        if (classified) expect(classified.isRetryable).toBe(true);
      });
    }
  });
}
