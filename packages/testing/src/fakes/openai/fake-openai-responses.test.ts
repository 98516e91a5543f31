import { afterAll, describe, expect, it } from 'vitest';
import { parseResponsesSse, validateResponsesStream } from '../../conformance/responses/responses-stream-validator.js';
import { startFakeOpenAI } from './fake-openai.js';

const fake = await startFakeOpenAI();
afterAll(() => fake.close());
const post = (body: object) => fetch(`${fake.url}/v1/responses`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) });

describe('the fake OpenAI Responses API', () => {
  it('streams a reasoning item with its summary and encrypted content, then the message, as the streaming reference orders them', async () => {
    const res = await post({ model: 'gpt-5', input: 'think', include: ['reasoning.encrypted_content'], reasoning: { effort: 'low', summary: 'auto' }, store: false, stream: true });
    const { events, problems } = parseResponsesSse(await res.text());
    expect(problems).toEqual([]);
    expect(validateResponsesStream(events)).toEqual([]);
    const done = events.at(-1) as { type: string; response: { output: { type: string; encrypted_content?: string; summary?: unknown[] }[] } };
    expect(done.type).toBe('response.completed');
    expect(done.response.output.map((o) => o.type)).toEqual(['reasoning', 'message']);
    expect(done.response.output[0]).toMatchObject({ encrypted_content: 'enc_0', summary: [{ type: 'summary_text', text: 'Thinking about: think' }] });
  });

  it('numbers its encrypted content by the reasoning items given back, and refuses one without encrypted content (store: false)', async () => {
    const item = { type: 'reasoning', id: 'rs_1', summary: [], encrypted_content: 'enc_0' };
    const next = (await (await post({ model: 'gpt-5', input: [{ role: 'user', content: 'a' }, item, { role: 'user', content: 'b' }], include: ['reasoning.encrypted_content'], store: false })).json()) as { output: { encrypted_content?: string }[] };
    expect(next.output[0]?.encrypted_content).toBe('enc_1');
    const refused = await post({ model: 'gpt-5', input: [{ role: 'user', content: 'a' }, { type: 'reasoning', id: 'rs_1', summary: [] }], store: false });
    expect(refused.status).toBe(400);
    expect(await refused.json()).toMatchObject({ error: { type: 'invalid_request_error', param: 'input' } });
  });

  it('answers without reasoning when none is asked', async () => {
    const r = (await (await post({ model: 'gpt-4o-mini', input: 'plain' })).json()) as { output: { type: string }[]; usage: { output_tokens_details: { reasoning_tokens: number } } };
    expect(r.output.map((o) => o.type)).toEqual(['message']);
    expect(r.usage.output_tokens_details.reasoning_tokens).toBe(0);
  });
});
