import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkedStream, startResponsesApp, type ResponsesApp } from './support/responses-app.js';

/**
 * The requests real coding agents sent through gengate (recorded by `npm run smoke:agents -- --write-fixtures`
 * into test/fixtures/agents/), replayed against the in-process /v1 on the sandbox and the OpenAI fake: each
 * is answered 200, and every Responses stream passes the testing kit's validator. A CLI release that changes
 * its request shape is caught here once its fixtures are recorded again.
 */
const DIR = join(import.meta.dirname, 'fixtures/agents');
interface Fixture {
  readonly agent: string;
  readonly model: string;
  readonly requests: { method: string; path: string; headers: Record<string, string>; body: unknown }[];
}
const fixtures = readdirSync(DIR)
  .filter((f) => f.endsWith('.json'))
  .map((f) => ({ file: f, ...(JSON.parse(readFileSync(join(DIR, f), 'utf8')) as Fixture) }));

let app: ResponsesApp;
let key: string;

beforeAll(async () => {
  app = await startResponsesApp();
  key = (await app.user(1000)).key;
}, 60_000);

afterAll(async () => {
  await app?.close();
});

describe('agent fixtures', () => {
  it('has the recorded Codex CLI turns (a tool round trip included)', () => {
    const codex = fixtures.filter((f) => f.agent.startsWith('@openai/codex'));
    expect(codex.map((f) => f.model).sort()).toEqual(['openai.gpt-4o-mini', 'sandbox.echo-chat']);
    const items = codex.flatMap((f) => f.requests.flatMap((r) => ((r.body as { input?: { type?: string }[] }).input ?? []).map((i) => i.type)));
    expect(items).toEqual(expect.arrayContaining(['message', 'function_call', 'function_call_output']));
  });

  for (const fixture of fixtures) {
    it(`replays ${fixture.file} (${fixture.agent})`, async () => {
      for (const r of fixture.requests) {
        const res = await fetch(`${app.base}${r.path}`, { method: r.method, headers: { ...r.headers, Authorization: `Bearer ${key}`, 'x-api-key': key }, body: JSON.stringify(r.body) });
        const text = await res.text();
        expect(res.status, text.slice(0, 500)).toBe(200);
        if (r.path.startsWith('/v1/responses') && res.headers.get('content-type')?.startsWith('text/event-stream')) {
          const events = checkedStream(text);
          expect(events.at(-1)?.['type']).toBe('response.completed');
        }
      }
    });
  }
});
