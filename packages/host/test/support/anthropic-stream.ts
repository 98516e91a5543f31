/*
 * Reading and checking a Messages stream against Anthropic's documentation
 * (https://platform.claude.com/docs/build-with-claude/streaming, https://docs.anthropic.com/en/api/messages-streaming):
 * every server-sent event has an `event:` name equal to its data's `type`; the flow is `message_start`
 * (a Message with empty content), then per content block `content_block_start`, any number of
 * `content_block_delta`, `content_block_stop` (the block's `index` is its position in the final content),
 * then `message_delta` (stop_reason, usage), then `message_stop`. `ping` may come anywhere; an `error`
 * event ends a stream that broke (no message_stop then).
 */

export interface StreamEvent {
  readonly event: string;
  readonly data: Record<string, unknown>;
}

/** Parses a whole text/event-stream body into its events. */
export function parseEvents(text: string): StreamEvent[] {
  return text
    .split('\n\n')
    .filter((chunk) => chunk.trim() !== '')
    .map((chunk) => {
      const lines = chunk.split('\n');
      const event = lines.find((l) => l.startsWith('event: '))?.slice('event: '.length) ?? '';
      const data = lines
        .filter((l) => l.startsWith('data: '))
        .map((l) => l.slice('data: '.length))
        .join('\n');
      return { event, data: JSON.parse(data) as Record<string, unknown> };
    });
}

const DELTAS: Readonly<Record<string, readonly string[]>> = {
  text: ['text_delta', 'citations_delta'],
  tool_use: ['input_json_delta'],
  thinking: ['thinking_delta', 'signature_delta'],
  redacted_thinking: [],
};

/** The problems of a stream (an empty list when it follows the documented flow). */
export function streamProblems(events: readonly StreamEvent[]): string[] {
  const problems: string[] = [];
  const open = new Map<number, string>();
  let blocks = 0;
  let phase: 'before' | 'blocks' | 'delta' | 'stopped' | 'error' = 'before';
  events.forEach((e, i) => {
    const at = `event ${i} (${e.event})`;
    if (e.data['type'] !== e.event) problems.push(`${at}: data.type is ${String(e.data['type'])}`);
    if (phase === 'stopped' || phase === 'error') problems.push(`${at}: after the end of the stream`);
    if (e.event === 'ping') return;
    const index = typeof e.data['index'] === 'number' ? e.data['index'] : -1;
    switch (e.event) {
      case 'message_start': {
        if (phase !== 'before') problems.push(`${at}: message_start is not first`);
        const m = e.data['message'] as Record<string, unknown> | undefined;
        if (m?.['type'] !== 'message' || m['role'] !== 'assistant' || !Array.isArray(m['content']) || m['content'].length !== 0 || typeof m['id'] !== 'string') problems.push(`${at}: not an empty Message`);
        phase = 'blocks';
        break;
      }
      case 'content_block_start': {
        if (phase !== 'blocks') problems.push(`${at}: a block outside the message`);
        if (index !== blocks) problems.push(`${at}: index ${index}, expected ${blocks}`);
        const block = e.data['content_block'] as Record<string, unknown> | undefined;
        const type = typeof block?.['type'] === 'string' ? block['type'] : '';
        if (!(type in DELTAS)) problems.push(`${at}: unknown block type ${type}`);
        if (type === 'tool_use' && (typeof block?.['id'] !== 'string' || typeof block['name'] !== 'string')) problems.push(`${at}: tool_use without id or name`);
        open.set(index, type);
        blocks += 1;
        break;
      }
      case 'content_block_delta': {
        const type = open.get(index);
        const delta = e.data['delta'] as Record<string, unknown> | undefined;
        if (type === undefined) problems.push(`${at}: delta for block ${index}, which is not open`);
        else if (!DELTAS[type]?.includes(String(delta?.['type']))) problems.push(`${at}: ${String(delta?.['type'])} in a ${type} block`);
        break;
      }
      case 'content_block_stop':
        if (!open.delete(index)) problems.push(`${at}: stop of block ${index}, which is not open`);
        break;
      case 'message_delta': {
        if (phase !== 'blocks' && phase !== 'delta') problems.push(`${at}: message_delta out of place`);
        if (open.size > 0) problems.push(`${at}: blocks ${[...open.keys()].join(', ')} still open`);
        const delta = e.data['delta'] as Record<string, unknown> | undefined;
        const usage = e.data['usage'] as Record<string, unknown> | undefined;
        if (typeof delta?.['stop_reason'] !== 'string') problems.push(`${at}: no stop_reason`);
        if (typeof usage?.['output_tokens'] !== 'number') problems.push(`${at}: no usage.output_tokens`);
        phase = 'delta';
        break;
      }
      case 'message_stop':
        if (phase !== 'delta') problems.push(`${at}: message_stop without message_delta`);
        phase = 'stopped';
        break;
      case 'error': {
        const error = e.data['error'] as Record<string, unknown> | undefined;
        if (typeof error?.['type'] !== 'string' || typeof error['message'] !== 'string') problems.push(`${at}: error without type and message`);
        phase = 'error';
        break;
      }
      default:
        problems.push(`${at}: unknown event`);
    }
  });
  // `phase` is set inside the callback above, which TypeScript's narrowing does not follow.
  const ended = phase as typeof phase | 'stopped' | 'error';
  if (ended !== 'stopped' && ended !== 'error') problems.push('the stream ended without message_stop or error');
  return problems;
}
