import type { LanguageModelV4StreamPart } from '@ai-sdk/provider';
import { isUpstreamError, normalizeRunRequest, type AdapterCall } from '@gengate/core/adapter';
import { describe, expect, it } from 'vitest';
import { SandboxAdapter } from './sandbox-adapter.js';
import { SANDBOX_DROP_MARKER, SANDBOX_MODELS } from './sandbox-models.js';

const adapter = new SandboxAdapter({ latencyMs: { chat: 40 } });
const model = adapter.languageModel(SANDBOX_MODELS.chat.id);
const user = (text: string) => ({ role: 'user' as const, content: [{ type: 'text' as const, text }] });

async function parts(p: PromiseLike<{ stream: ReadableStream<LanguageModelV4StreamPart> }>): Promise<LanguageModelV4StreamPart[]> {
  const out: LanguageModelV4StreamPart[] = [];
  for await (const part of (await p).stream) out.push(part);
  return out;
}

describe('sandbox language model (adapter contract v3)', () => {
  it('streams the same words and usage as generate(), one word per delta', async () => {
    const request = normalizeRunRequest(SANDBOX_MODELS.chat, { prompt: 'hello there world', llm_params: { max_tokens: 10 } });
    const call: AdapterCall = { taskId: 't', model: SANDBOX_MODELS.chat, request, abortSignal: new AbortController().signal, readInput: () => Promise.reject(new Error('no')), webhookUrl: null };
    const generated = await adapter.generate(call);
    const streamed = await parts(model.doStream({ prompt: [user('hello there world')], maxOutputTokens: 10 }));
    const deltas = streamed.flatMap((p) => (p.type === 'text-delta' ? [p.delta] : []));
    expect(deltas.length).toBe(10);
    const file = generated.files[0];
    expect(file?.kind === 'bytes' ? new TextDecoder().decode(file.data) : null).toBe(deltas.join(''));
    const finish = streamed.at(-1);
    expect(finish?.type === 'finish' ? [finish.usage.inputTokens.total, finish.usage.outputTokens.total, finish.finishReason.unified] : null).toEqual([
      generated.usage?.inputTokens,
      generated.usage?.outputTokens,
      'length',
    ]);
  });

  it('calls the chosen tool with arguments built from its schema, then answers the tool result', async () => {
    const tools = [{ type: 'function' as const, name: 'get_weather', inputSchema: { type: 'object' as const, properties: { city: { type: 'string' as const }, days: { type: 'integer' as const } }, required: ['city'] } }];
    const first = await parts(model.doStream({ prompt: [user('Paris')], tools }));
    const call = first.find((p) => p.type === 'tool-call');
    expect(call?.type === 'tool-call' ? [call.toolName, JSON.parse(call.input)] : null).toEqual(['get_weather', { city: 'Paris', days: 1 }]);
    expect(first.at(-1)?.type === 'finish' && first.at(-1)).toMatchObject({ finishReason: { unified: 'tool-calls' } });
    const second = await parts(
      model.doStream({
        tools,
        prompt: [
          user('Paris'),
          { role: 'assistant', content: [{ type: 'tool-call', toolCallId: 'c1', toolName: 'get_weather', input: { city: 'Paris' } }] },
          { role: 'tool', content: [{ type: 'tool-result', toolCallId: 'c1', toolName: 'get_weather', output: { type: 'text', value: 'sunny' } }] },
        ],
      }),
    );
    expect(second.flatMap((p) => (p.type === 'text-delta' ? [p.delta] : [])).join('')).toMatch(/^Sandbox reply to tool result: sunny/);
  });

  it('answers a value of the JSON schema for structured output', async () => {
    const schema = { type: 'object' as const, properties: { name: { type: 'string' as const }, tags: { type: 'array' as const, items: { type: 'string' as const } } }, required: ['name', 'tags'] };
    const streamed = await parts(model.doStream({ prompt: [user('Ada')], responseFormat: { type: 'json', schema } }));
    expect(JSON.parse(streamed.flatMap((p) => (p.type === 'text-delta' ? [p.delta] : [])).join(''))).toEqual({ name: 'Ada', tags: ['Ada'] });
  });

  it(`breaks after three deltas with a classified network error when the prompt carries ${SANDBOX_DROP_MARKER}`, async () => {
    const streamed = await parts(model.doStream({ prompt: [user(`cut ${SANDBOX_DROP_MARKER}`)] }));
    expect(streamed.filter((p) => p.type === 'text-delta')).toHaveLength(3);
    const error = streamed.at(-1);
    expect(error?.type).toBe('error');
    const classified = adapter.upstreamError(error?.type === 'error' ? error.error : null);
    expect(isUpstreamError(classified) && classified.kind).toBe('network');
  });
});
