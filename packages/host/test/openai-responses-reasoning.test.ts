import OpenAI from 'openai';
import { validateResponsesStream } from '@gengate/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startResponsesApp, type ResponsesApp } from './support/responses-app.js';

/**
 * OpenAI's reasoning items across turns of /v1/responses (issue 20, fidelity where the dialect matches the
 * provider), with the official `openai` client: an OpenAI model is called on OpenAI's Responses API, so a
 * reasoning item the upstream returns (with its encrypted content when the client includes it,
 * https://platform.openai.com/docs/guides/reasoning) reaches the client, and the client's reasoning items
 * reach the upstream on the next turn. Other models drop them with a warning on the task.
 */
let app: ResponsesApp;
let key: string;
let client: OpenAI;

beforeAll(async () => {
  app = await startResponsesApp();
  key = (await app.user(1000)).key;
  client = new OpenAI({ baseURL: `${app.base}/v1`, apiKey: key, maxRetries: 0 });
}, 60_000);

afterAll(async () => {
  await app?.close();
});

type SentInput = { type?: string; role?: string; id?: string; encrypted_content?: string; summary?: { type: string; text: string }[] }[];
const lastSent = () => app.fake.callsTo('POST', '/v1/responses').at(-1)?.body as { input: SentInput; store?: boolean; include?: string[]; reasoning?: unknown };
/** The task behind a response, as the task list shows it (with its warnings). */
async function taskOf(responseId: string): Promise<{ warnings: { param: string; message: string }[] } | undefined> {
  const list = (await (await fetch(`${app.base}/api/v1/run/tasks?per_page=100`, { headers: { Authorization: `Bearer ${key}` } })).json()) as { data: { task_id: string; warnings: { param: string; message: string }[] }[] };
  return list.data.find((t) => t.task_id === responseId.replace(/^resp_/, ''));
}

/**
 * The stream OpenAI answers a reasoning model asked for a summary, made by the fake itself: gpt-4o-mini is
 * no reasoning model, so the AI SDK does not forward `reasoning.summary` for it (it warns instead).
 */
async function scriptSummarizingAnswer(input: string, stream: boolean): Promise<void> {
  const res = await fetch(`${app.fake.url}/v1/responses`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ model: 'gpt-5', input, include: ['reasoning.encrypted_content'], reasoning: { effort: 'low', summary: 'auto' }, store: false, stream }),
  });
  const answer = stream ? await res.text() : ((await res.json()) as unknown);
  app.fake.failNext({ kind: 'status', status: 200, body: answer, headers: { 'content-type': stream ? 'text/event-stream' : 'application/json' } }, { match: (c) => c.path === '/v1/responses' });
}

describe('reasoning items on an OpenAI model', () => {
  it('returns a reasoning item with encrypted content (turn 1) and sends it back to OpenAI (turn 2), as Codex does with store: false', async () => {
    const include: OpenAI.Responses.ResponseIncludable[] = ['reasoning.encrypted_content'];
    const first = await client.responses.create({ model: 'openai.gpt-4o-mini', input: 'plan the trip', include, store: false });
    // What gengate asked of OpenAI: no server-side state, the encrypted reasoning included.
    expect(lastSent()).toMatchObject({ store: false, include: ['reasoning.encrypted_content'] });
    expect(first.output.map((o) => o.type)).toEqual(['reasoning', 'message']);
    // The fake reports 8 reasoning tokens among the output tokens.
    expect(first.usage?.output_tokens_details.reasoning_tokens).toBe(8);
    expect(first.usage?.output_tokens).toBeGreaterThan(8);
    const reasoning = first.output[0];
    expect(reasoning).toMatchObject({ type: 'reasoning', id: expect.stringMatching(/^rs_/), summary: [], encrypted_content: 'enc_0', status: 'completed' });
    if (reasoning?.type !== 'reasoning') return;

    const second = await client.responses.create({
      model: 'openai.gpt-4o-mini',
      include,
      store: false,
      input: [{ role: 'user', content: 'plan the trip' }, reasoning, ...first.output.slice(1).map((o) => o as OpenAI.Responses.ResponseInputItem), { role: 'user', content: 'and book it' }],
    });
    // The upstream received the reasoning item whole, between the user turn and the assistant's answer.
    const sent = lastSent().input;
    expect(sent.map((i) => i.type ?? i.role)).toEqual(['user', 'reasoning', 'assistant', 'user']);
    expect(sent[1]).toEqual({ type: 'reasoning', id: reasoning.id, encrypted_content: 'enc_0', summary: [] });
    // The fake numbers its encrypted content by the reasoning items it was given back: the chain survived.
    expect(second.output[0]).toMatchObject({ type: 'reasoning', encrypted_content: 'enc_1' });
    expect((await taskOf(second.id))?.warnings).toEqual([]);
  });

  it('streams the reasoning item with its summary events, its encrypted content in response.output_item.done, numbered like every event', async () => {
    await scriptSummarizingAnswer('think it over', true);
    const events: OpenAI.Responses.ResponseStreamEvent[] = [];
    const stream = await client.responses.create({ model: 'openai.gpt-4o-mini', input: 'think it over', include: ['reasoning.encrypted_content'], reasoning: { summary: 'auto' }, store: false, stream: true });
    for await (const e of stream) events.push(e);
    expect(validateResponsesStream(events)).toEqual([]);
    expect(lastSent()).toMatchObject({ store: false, include: ['reasoning.encrypted_content'] });
    const types = events.map((e) => e.type);
    // The reasoning item first: its summary part around the text's deltas and .done, then the item done.
    const reasoningEvents = types.slice(0, types.indexOf('response.output_item.done') + 1).filter((t, i, all) => t !== all[i - 1]);
    expect(reasoningEvents).toEqual([
      'response.created',
      'response.in_progress',
      'response.output_item.added',
      'response.reasoning_summary_part.added',
      'response.reasoning_summary_text.delta',
      'response.reasoning_summary_text.done',
      'response.reasoning_summary_part.done',
      'response.output_item.done',
    ]);
    const added = events[2];
    expect(added?.type === 'response.output_item.added' ? added.item : null).toMatchObject({ type: 'reasoning', summary: [] });
    const done = events.find((e) => e.type === 'response.output_item.done');
    expect(done?.type === 'response.output_item.done' ? done.item : null).toMatchObject({ type: 'reasoning', encrypted_content: 'enc_0', summary: [{ type: 'summary_text', text: 'Thinking about: think it over' }] });
    const completed = events.at(-1);
    expect(completed?.type === 'response.completed' ? completed.response.output.map((o) => o.type) : null).toEqual(['reasoning', 'message']);
  });

  it('keeps the encrypted content out of the answer unless the client included it, and answers the summary non-streamed too', async () => {
    await scriptSummarizingAnswer('quietly', false);
    const r = await client.responses.create({ model: 'openai.gpt-4o-mini', input: 'quietly', reasoning: { effort: 'low', summary: 'auto' } });
    const reasoning = r.output.find((o) => o.type === 'reasoning');
    expect(reasoning).toMatchObject({ type: 'reasoning', summary: [{ type: 'summary_text', text: 'Thinking about: quietly' }] });
    expect(reasoning && 'encrypted_content' in reasoning).toBe(false);
    expect(r.output_text).toMatch(/quietly/);
  });
});

describe('reasoning items OpenAI could not read', () => {
  it('says on the task that a reasoning item without its encrypted content was not sent (gengate calls OpenAI with store: false)', async () => {
    const r = await client.responses.create({ model: 'openai.gpt-4o-mini', input: [{ role: 'user', content: 'first' }, { type: 'reasoning', id: 'rs_bare', summary: [] }, { role: 'user', content: 'second' }] });
    expect(r.status).toBe('completed');
    expect(lastSent().input.map((i) => i.type ?? i.role)).toEqual(['user', 'user']);
    expect((await taskOf(r.id))?.warnings).toEqual([expect.objectContaining({ param: 'provider', message: expect.stringMatching(/without encrypted content/) })]);
  });
});

describe('reasoning items of a stored response', () => {
  it('sends a stored response\'s reasoning item back to OpenAI when the call continues it by previous_response_id', async () => {
    const first = await client.responses.create({ model: 'openai.gpt-4o-mini', input: 'remember the plan', include: ['reasoning.encrypted_content'] });
    const reasoning = first.output[0];
    expect(reasoning).toMatchObject({ type: 'reasoning', encrypted_content: 'enc_0' });
    const next = await client.responses.create({ model: 'openai.gpt-4o-mini', input: 'go on', previous_response_id: first.id, include: ['reasoning.encrypted_content'] });
    const sent = lastSent().input;
    expect(sent.map((i) => i.type ?? i.role)).toEqual(['user', 'reasoning', 'assistant', 'user']);
    expect(sent[1]).toEqual({ type: 'reasoning', id: reasoning?.id, encrypted_content: 'enc_0', summary: [] });
    expect(next.output[0]).toMatchObject({ type: 'reasoning', encrypted_content: 'enc_1' });
  });
});

describe('reasoning items on other models', () => {
  it('drops them with a warning on the task (the sandbox and Anthropic cannot read OpenAI\'s encrypted reasoning)', async () => {
    for (const model of ['sandbox.echo-chat', 'anthropic.claude-haiku-5-5']) {
      const r = await client.responses.create({
        model,
        input: [{ role: 'user', content: 'first' }, { type: 'reasoning', id: 'rs_elsewhere', summary: [], encrypted_content: 'enc_x' }, { role: 'assistant', content: 'answer' }, { role: 'user', content: 'second' }],
      });
      expect(r.status, model).toBe('completed');
      expect(r.output.map((o) => o.type), model).toEqual(['message']);
      expect((await taskOf(r.id))?.warnings, model).toEqual([expect.objectContaining({ param: 'input', message: expect.stringMatching(/1 reasoning item was not forwarded/) })]);
    }
  });
});
