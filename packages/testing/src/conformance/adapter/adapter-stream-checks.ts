import type { LanguageModelV4StreamPart } from '@ai-sdk/provider';
import { isUpstreamError, type ProviderAdapter } from '@gengate/core';
import { expect, it } from 'vitest';

export interface StreamCheckOptions {
  readonly adapter: () => ProviderAdapter | Promise<ProviderAdapter>;
  /** Chat models expected to fail (they are not streamed). */
  readonly failing: ReadonlySet<string>;
}

async function readAll(stream: ReadableStream<LanguageModelV4StreamPart>): Promise<LanguageModelV4StreamPart[]> {
  const parts: LanguageModelV4StreamPart[] = [];
  for await (const part of stream) parts.push(part);
  return parts;
}

/**
 * Adapter contract v3: every chat model streams through its AI SDK language model: text deltas, then a
 * `finish` part with the upstream's integer token usage; an aborted signal stops the call.
 */
export function describeAdapterStreamChecks(o: StreamCheckOptions): void {
  it('streams every chat model through its language model: text deltas, then finish with integer token usage (contract v3)', async () => {
    const adapter = await o.adapter();
    const chat = adapter.models.filter((m) => m.modality === 'chat' && !o.failing.has(m.id));
    if (chat.length > 0) expect(adapter.languageModel, `${adapter.providerId} offers chat models but no languageModel()`).toBeTypeOf('function');
    for (const m of chat) {
      const model = adapter.languageModel?.(m.id);
      if (!model) throw new Error(`no language model for ${m.id}`);
      expect(model.specificationVersion).toBe('v4');
      const { stream } = await model.doStream({ prompt: [{ role: 'user', content: [{ type: 'text', text: 'Say hello in three words.' }] }], maxOutputTokens: 64 });
      const parts = await readAll(stream);
      const text = parts.flatMap((p) => (p.type === 'text-delta' ? [p.delta] : [])).join('');
      expect(text.length, `${m.id} streamed no text`).toBeGreaterThan(0);
      const finish = parts.find((p) => p.type === 'finish');
      expect(finish, `${m.id} ended without a finish part`).toBeDefined();
      if (finish?.type !== 'finish') continue;
      expect(Number.isSafeInteger(finish.usage.inputTokens.total), `${m.id} input tokens`).toBe(true);
      expect(Number.isSafeInteger(finish.usage.outputTokens.total), `${m.id} output tokens`).toBe(true);
      expect(parts.indexOf(finish)).toBe(parts.length - 1);
    }
  });

  it('stops a stream when its AbortSignal is already aborted, and classifies what it throws', async () => {
    const adapter = await o.adapter();
    const m = adapter.models.find((x) => x.modality === 'chat' && !o.failing.has(x.id));
    const model = m ? adapter.languageModel?.(m.id) : undefined;
    if (!m || !model) return;
    const abortSignal = AbortSignal.abort();
    let error: unknown = null;
    try {
      const { stream } = await model.doStream({ prompt: [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }], abortSignal });
      const parts = await readAll(stream);
      error = parts.find((p) => p.type === 'error') ?? null;
    } catch (e) {
      error = e;
    }
    expect(error, `${m.id} streamed to its end despite an aborted signal`).not.toBeNull();
    expect(adapter.upstreamError, `${adapter.providerId} has languageModel() but no upstreamError()`).toBeTypeOf('function');
    expect(isUpstreamError(adapter.upstreamError?.(error))).toBe(true);
  });
}
