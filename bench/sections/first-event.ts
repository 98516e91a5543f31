/**
 * Time to first event of the coding-agent dialects (docs/benchmarks.md, "OpenAI-compatible /v1", the
 * `ttfe_*` rows): a streamed Anthropic Messages call and a streamed OpenAI Responses call through gengate,
 * each beside the upstream call gengate makes for it, measured the same way: ms from sending the request to
 * the first server-sent event that carries output text, every stream then read to its documented end.
 */
import { request, Agent } from 'node:http';

/** One server-sent event: its `event:` name (empty when it has none) and its `data:` text. */
export interface SseEvent {
  readonly event: string;
  readonly data: string;
}

/** A streamed call measured by its first output event. */
export interface StreamedCall {
  readonly name: string;
  readonly url: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
  /** The event whose arrival is timed: the first one that carries output text. */
  readonly first: (e: SseEvent) => boolean;
  /** The event a complete, successful stream ends with (a stream without it is a failed sample). */
  readonly last: (e: SseEvent) => boolean;
}

/** The two sides of one row: the upstream's own call and gengate's. */
export interface FirstEventPair {
  readonly dialect: 'messages' | 'responses';
  readonly upstream: StreamedCall;
  readonly gengate: StreamedCall;
}

const PROMPT = 'bench one two three four five six seven';
const MAX_TOKENS = 16;
const ANTHROPIC_VERSION = '2023-06-01';

function json(e: SseEvent): Record<string, unknown> | null {
  try {
    const v: unknown = JSON.parse(e.data);
    return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

const field = (v: unknown, key: string): unknown => (typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>)[key] : undefined);
const nonEmpty = (v: unknown): boolean => typeof v === 'string' && v.length > 0;

/** Anthropic's text delta (https://docs.anthropic.com/en/api/messages-streaming): `content_block_delta` with a non-empty `text_delta`. */
const messagesText = (e: SseEvent): boolean => {
  const d = json(e);
  return d?.['type'] === 'content_block_delta' && field(d['delta'], 'type') === 'text_delta' && nonEmpty(field(d['delta'], 'text'));
};
const messagesStop = (e: SseEvent): boolean => json(e)?.['type'] === 'message_stop';

/**
 * Messages (POST /v1/messages, `stream: true`): the fake Anthropic API called as gengate's Anthropic adapter calls
 * it (the upstream model name, `x-api-key`, `anthropic-version`), and gengate on `anthropic.claude-haiku-4-5`
 * with a gengate key in `x-api-key`, as Claude Code sends it.
 */
export function messagesPair(anthropicUrl: string, hostUrl: string, gengateKey: string, upstreamKey: string): FirstEventPair {
  const body = (model: string) => JSON.stringify({ model, max_tokens: MAX_TOKENS, messages: [{ role: 'user', content: PROMPT }], stream: true });
  return {
    dialect: 'messages',
    upstream: {
      name: 'upstream',
      url: `${anthropicUrl}/v1/messages`,
      headers: { 'x-api-key': upstreamKey, 'anthropic-version': ANTHROPIC_VERSION },
      body: body('claude-haiku-4-5'),
      first: messagesText,
      last: messagesStop,
    },
    gengate: {
      name: 'gengate',
      url: `${hostUrl}/v1/messages`,
      headers: { 'x-api-key': gengateKey, 'anthropic-version': ANTHROPIC_VERSION },
      body: body('anthropic.claude-haiku-4-5'),
      first: messagesText,
      last: messagesStop,
    },
  };
}

/** OpenAI's text delta (https://platform.openai.com/docs/api-reference/responses-streaming): a non-empty `response.output_text.delta`. */
const responsesText = (e: SseEvent): boolean => {
  const d = json(e);
  return d?.['type'] === 'response.output_text.delta' && nonEmpty(d['delta']);
};
const responsesCompleted = (e: SseEvent): boolean => json(e)?.['type'] === 'response.completed';

/**
 * Responses (POST /v1/responses, `stream: true`, `store: false` as Codex sends it): gengate on `openai.gpt-4o-mini`
 * with a gengate key, and the fake OpenAI's own Responses API, which gengate's OpenAI adapter calls for a
 * Responses call (the AI SDK's `openai.responses`), with the upstream model name and key.
 */
export function responsesPair(openaiUrl: string, hostUrl: string, gengateKey: string, upstreamKey: string): FirstEventPair {
  const body = (model: string) => JSON.stringify({ model, input: PROMPT, max_output_tokens: MAX_TOKENS, stream: true, store: false });
  return {
    dialect: 'responses',
    upstream: {
      name: 'upstream',
      url: `${openaiUrl}/v1/responses`,
      headers: { authorization: `Bearer ${upstreamKey}` },
      body: body('gpt-4o-mini'),
      first: responsesText,
      last: responsesCompleted,
    },
    gengate: {
      name: 'gengate',
      url: `${hostUrl}/v1/responses`,
      headers: { authorization: `Bearer ${gengateKey}` },
      body: body('openai.gpt-4o-mini'),
      first: responsesText,
      last: responsesCompleted,
    },
  };
}

/** Splits server-sent events (blank-line separated, `\n` line ends as every server here writes them) as chunks arrive. */
function sseEvents(onEvent: (e: SseEvent) => void): (chunk: Buffer) => void {
  let buffer = '';
  return (chunk) => {
    buffer += chunk.toString();
    for (let end = buffer.indexOf('\n\n'); end >= 0; end = buffer.indexOf('\n\n')) {
      const lines = buffer.slice(0, end).split('\n');
      buffer = buffer.slice(end + 2);
      const data = lines.filter((l) => l.startsWith('data:')).map((l) => l.slice(5).trimStart());
      // Comments (`: keep-alive`) carry no data: not an event.
      if (data.length > 0) onEvent({ event: lines.find((l) => l.startsWith('event:'))?.slice(6).trim() ?? '', data: data.join('\n') });
    }
  };
}

/** One streamed call: ms to its first output event; rejects on a non-200 answer or a stream that does not end as documented. */
function firstEvent(call: StreamedCall, agent: Agent): Promise<number> {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    let ms = NaN;
    let ended = false;
    const seen: string[] = [];
    const req = request(call.url, { method: 'POST', agent, headers: { 'content-type': 'application/json', ...call.headers } }, (res) => {
      if (res.statusCode !== 200) {
        let text = '';
        res.on('data', (c: Buffer) => (text += c.toString()));
        res.on('end', () => reject(new Error(`${call.name} ${call.url}: HTTP ${String(res.statusCode)} ${text.slice(0, 300)}`)));
        return;
      }
      res.on(
        'data',
        sseEvents((e) => {
          if (Number.isNaN(ms) && call.first(e)) ms = performance.now() - t0;
          if (call.last(e)) ended = true;
          if (seen.length < 12) seen.push(e.event || e.data.slice(0, 60));
        }),
      );
      res.on('end', () => {
        if (Number.isNaN(ms)) reject(new Error(`${call.name} ${call.url}: no output event in a stream of ${seen.join(', ')}`));
        else if (!ended) reject(new Error(`${call.name} ${call.url}: the stream did not end as documented (${seen.join(', ')})`));
        else resolve(ms);
      });
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(call.body);
  });
}

/** Time to first event of `total` streamed calls, `concurrency` at a time over keep-alive connections (each stream read to its end). */
export async function firstEventTimes(call: StreamedCall, concurrency: number, total: number): Promise<number[]> {
  const agent = new Agent({ keepAlive: true, maxSockets: concurrency });
  const samples: number[] = [];
  let next = 0;
  try {
    await Promise.all(
      Array.from({ length: concurrency }, async () => {
        while (next++ < total) samples.push(await firstEvent(call, agent));
      }),
    );
  } finally {
    agent.destroy();
  }
  return samples;
}

/** One call of each side before anything is measured: both answer a complete stream, or the bench stops with what they said. */
export async function warmUp(pair: FirstEventPair): Promise<void> {
  await firstEventTimes(pair.upstream, 1, 1);
  await firstEventTimes(pair.gengate, 1, 1);
}
