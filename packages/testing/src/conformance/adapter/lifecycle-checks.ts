import { checkStep, pollDelayMs, type GenerationResult, type JsonValue, type ModelDescriptor, type ProviderAdapter, type RunRequest, type StartedJob } from '@gengate/core/adapter';
import { setTimeout as sleep } from 'node:timers/promises';
import { expect } from 'vitest';
import type { FakeUpstream } from '../../fakes/fake-upstream.js';
import { kitCall } from './adapter-call.js';

/**
 * What a check concluded when it did not fail (a failing check throws): it passed, or it does not apply
 * and says why. `warning` marks a skip the adapter author should act on (shown in the test name and on stderr).
 */
export type CheckOutcome =
  | { readonly kind: 'passed' }
  | { readonly kind: 'skipped'; readonly reason: string; readonly warning: boolean };

export interface LifecycleCheckOptions {
  readonly adapter: () => ProviderAdapter | Promise<ProviderAdapter>;
  readonly requestFor: (model: ModelDescriptor) => RunRequest;
  readonly failing: ReadonlySet<string>;
  readonly timeoutMs: number;
  readonly maxPollDelayMs: number;
  /** The fake upstream, when the suite has one: without `cancelsSeen`, a cancel must reach it as a non-GET request. */
  readonly upstream: FakeUpstream | null;
  /** The upstream's count of cancel requests received (see AdapterConformanceOptions.cancelsSeen). */
  readonly cancelsSeen: (() => number | Promise<number>) | null;
  /** Why the upstream cannot cancel a job (see AdapterConformanceOptions.cancelUnsupported). */
  readonly cancelUnsupported: string | null;
  /** Checks the produced files of a finished generation. */
  readonly expectFiles: (model: ModelDescriptor, result: GenerationResult) => void;
}

const skipped = (reason: string, warning = false): CheckOutcome => ({ kind: 'skipped', reason, warning });
const PASSED: CheckOutcome = { kind: 'passed' };

function longRunningModels(adapter: ProviderAdapter, failing: ReadonlySet<string>): ModelDescriptor[] {
  return adapter.models.filter((m) => adapter.isLongRunning(m.id) && !failing.has(m.id));
}

/** v4: start() answers `{ handle, warnings }`, each warning naming a parameter and saying what happened to it. */
function expectStartedJob(model: ModelDescriptor, started: StartedJob | undefined): void {
  expect(started, `${model.id}: start() returned nothing`).toBeDefined();
  expect(started?.handle, `${model.id}: start() returned no handle ({ handle, warnings } since contract v4)`).toBeDefined();
  expect(Array.isArray(started?.warnings), `${model.id}: start() returned no warnings array ({ handle, warnings } since contract v4)`).toBe(true);
  for (const w of started?.warnings ?? []) {
    expect(w.param.length, `${model.id}: a start warning names no parameter`).toBeGreaterThan(0);
    expect(w.message.length, `${model.id}: a start warning says nothing`).toBeGreaterThan(0);
  }
}

/** Starts a job on one adapter instance, then finishes it from its saved (JSON round-tripped) handle on a new one. */
export async function checkResume(o: LifecycleCheckOptions): Promise<CheckOutcome> {
  const first = await o.adapter();
  const models = longRunningModels(first, o.failing);
  if (models.length === 0) return skipped('no long-running model: every model is one-shot (generate), so there is no handle to resume');
  for (const model of models) {
    const call = kitCall(model, o.requestFor(model), AbortSignal.timeout(o.timeoutMs));
    expect(first.start, `${model.id} is long-running but the adapter has no start()`).toBeTypeOf('function');
    const started = await first.start?.(call);
    expectStartedJob(model, started);
    const saved = JSON.parse(JSON.stringify(started?.handle)) as JsonValue;
    const second = await o.adapter();
    expect(second, 'options.adapter() must build a new instance each call').not.toBe(first);
    let result: GenerationResult | null = null;
    const deadline = Date.now() + o.timeoutMs;
    for (let n = 1; result === null; n++) {
      if (Date.now() > deadline) throw new Error(`${model.id}: the resumed job did not end within ${o.timeoutMs} ms`);
      await sleep(Math.min(o.maxPollDelayMs, pollDelayMs(second, model, n)));
      const step = await checkStep(second, saved, call);
      if (step.kind === 'failed') throw step.error;
      if (step.kind === 'done') result = step.result;
    }
    o.expectFiles(model, result);
  }
  return PASSED;
}

/**
 * Starts a job and cancels it: cancel() must resolve and the upstream must have seen the cancel (its
 * `cancelsSeen` count grew, or, without that hook, a non-GET request reached the fake during cancel()).
 * Does not apply to one-shot adapters; an adapter with long-running models and no cancel() fails when the
 * author said the upstream can cancel (`cancelsSeen`), and is skipped with a warning otherwise.
 */
export async function checkCancel(o: LifecycleCheckOptions): Promise<CheckOutcome> {
  const adapter = await o.adapter();
  const models = longRunningModels(adapter, o.failing);
  if (models.length === 0) return skipped('no long-running model: a one-shot call is stopped by its AbortSignal, there is no upstream job to cancel');
  const ids = models.map((m) => m.id).join(', ');
  const cancel = adapter.cancel?.bind(adapter);
  if (!cancel) {
    if (o.cancelsSeen) throw new Error(`the upstream can cancel (cancelsSeen was given) but the adapter has no cancel(): a cancelled task of ${ids} keeps running upstream`);
    if (o.cancelUnsupported !== null) return skipped(`the upstream cannot cancel: ${o.cancelUnsupported}`);
    return skipped(
      `WARNING: long-running models (${ids}) and no cancel(): a cancelled task keeps running (and costing) upstream. ` +
        'Implement cancel(), or pass cancelUnsupported: "<why>" when the provider has no cancel API',
      true,
    );
  }
  if (!o.cancelsSeen && !o.upstream) return skipped('cannot see the upstream: pass `upstream` (the fake) or `cancelsSeen` so the suite can check the cancel reached it');
  for (const model of models) {
    const call = kitCall(model, o.requestFor(model), AbortSignal.timeout(o.timeoutMs));
    const started = await adapter.start?.(call);
    expectStartedJob(model, started);
    if (started === undefined) continue;
    const handle = started.handle;
    const seenBefore = o.cancelsSeen ? await o.cancelsSeen() : 0;
    const callsBefore = o.upstream?.calls.length ?? 0;
    await expect(cancel(handle, call), `${model.id}: cancel() threw`).resolves.toBeUndefined();
    if (o.cancelsSeen) {
      expect(await o.cancelsSeen(), `${model.id}: cancel() resolved but the upstream counted no cancel request (cancelsSeen did not grow)`).toBeGreaterThan(seenBefore);
    } else {
      const during = (o.upstream?.calls ?? []).slice(callsBefore).map((c) => `${c.method} ${c.path}`);
      expect(
        during.filter((c) => !c.startsWith('GET ')),
        `${model.id}: cancel() resolved but no cancel request reached the upstream (saw: ${during.join(', ') || 'nothing'})`,
      ).not.toEqual([]);
    }
  }
  return PASSED;
}
