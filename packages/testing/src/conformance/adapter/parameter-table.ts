import {
  GatewayError,
  imageParamsSchema,
  llmParamsSchema,
  normalizeRunRequest,
  runToCompletion,
  videoParamsSchema,
  type ProviderAdapter,
  type RunRequest,
} from '@gengate/core/adapter';
import { describe, expect, it } from 'vitest';
import type { FakeUpstream, RecordedCall } from '../../fakes/fake-upstream.js';
import { kitCall } from './adapter-call.js';

/** What happens to one generic parameter on one model: exactly one of the three allowed answers. */
export type ParameterOutcome =
  /** Sent upstream: `check` sees the request body the fake received and says whether the value is in it. */
  | { readonly mapped: (body: Record<string, unknown>, call: RecordedCall) => boolean }
  /** Refused with a 400 before any credit is held. */
  | { readonly refused: true }
  /** Accepted, not sent as such, and reported as a task warning naming the parameter. */
  | { readonly warned: true };

export interface ParameterRow {
  /** The generic parameter, e.g. `llm_params.temperature` or `image_params.aspect_ratio`. */
  readonly param: string;
  /** A request that sets it to a non-default value. */
  readonly request: RunRequest;
  readonly outcome: ParameterOutcome;
}

export interface ParameterTableOptions {
  readonly adapter: () => ProviderAdapter | Promise<ProviderAdapter>;
  readonly upstream: FakeUpstream;
  /** The catalog id of the model the table is about. */
  readonly model: string;
  readonly rows: readonly ParameterRow[];
  readonly timeoutMs?: number;
}

const GENERIC: Readonly<Record<'chat' | 'image' | 'video', readonly string[]>> = {
  chat: Object.keys(llmParamsSchema.shape).map((k) => `llm_params.${k}`),
  image: Object.keys(imageParamsSchema.shape).map((k) => `image_params.${k}`),
  video: Object.keys(videoParamsSchema.shape).map((k) => `video_params.${k}`),
};

/** The JSON body of the last call that carried one (the submission). */
function lastSubmission(calls: readonly RecordedCall[]): RecordedCall {
  const call = [...calls].reverse().find((c) => typeof c.body === 'object' && c.body !== null);
  if (!call) throw new Error('the fake received no request with a JSON body');
  return call;
}

/**
 * An explicit, table-driven account of every generic parameter of one model: each one is mapped (and the
 * test names where it lands in the upstream request), refused before any hold, or reported as a warning.
 * The table must cover every generic parameter of the model's modality, so a new generic parameter fails
 * the test until the adapter author decides its fate.
 */
export function describeParameterTable(name: string, o: ParameterTableOptions): void {
  const timeoutMs = o.timeoutMs ?? 10_000;
  const modelOf = async () => {
    const adapter = await o.adapter();
    const model = adapter.models.find((m) => m.id === o.model);
    if (!model) throw new Error(`${name}: no model ${o.model}`);
    return { adapter, model };
  };

  describe(`generic parameter table: ${name} (${o.model})`, () => {
    it('has a row for every generic parameter of the model’s modality', async () => {
      const { model } = await modelOf();
      const covered = new Set(o.rows.map((r) => r.param));
      expect(GENERIC[model.modality].filter((p) => !covered.has(p)), 'generic parameters without a row').toEqual([]);
    });

    for (const row of o.rows) {
      const kind = 'mapped' in row.outcome ? 'mapped upstream' : 'refused' in row.outcome ? 'refused before any hold' : 'reported as a warning';
      it(`${row.param}: ${kind}`, async () => {
        const { adapter, model } = await modelOf();
        if ('refused' in row.outcome) {
          let refusal: unknown = null;
          try {
            normalizeRunRequest(model, row.request);
          } catch (e) {
            refusal = e;
          }
          expect(refusal, `${row.param} was accepted`).toBeInstanceOf(GatewayError);
          expect((refusal as GatewayError).status).toBe(400);
          expect((refusal as GatewayError).param).toBe(row.param);
          return;
        }
        o.upstream.reset();
        const result = await runToCompletion(adapter, kitCall(model, row.request, AbortSignal.timeout(timeoutMs)), { timeoutMs });
        if ('mapped' in row.outcome) {
          const call = lastSubmission(o.upstream.calls);
          expect(row.outcome.mapped(call.body as Record<string, unknown>, call), `${row.param} not found in ${JSON.stringify(call.body).slice(0, 500)}`).toBe(true);
        } else {
          expect((result.warnings ?? []).map((w) => w.param)).toContain(row.param);
        }
      });
    }
  });
}
