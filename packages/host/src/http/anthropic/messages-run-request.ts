import { fitRunLimits } from '../openai/fit-run-limits.js';
import type { MessagesRequest } from './messages-request.js';

const blocksText = (c: string | readonly { type: string; text?: string }[] | undefined): string =>
  c === undefined ? '' : typeof c === 'string' ? c : c.map((b) => (b.type === 'text' ? (b.text ?? '') : `[${b.type}]`)).join('\n');

/**
 * The gengate run request a Messages call is quoted and recorded as: the system blocks as
 * `llm_params.system`, every message's text (tool calls and results as text) as the prompt, the tool
 * definitions appended (they are input tokens too, so the hold covers them), and `max_tokens`.
 */
export function toRunRequest(r: MessagesRequest): { readonly body: { prompt: string; llm_params: Record<string, number | string> }; readonly heldInput?: string } {
  const rest = r.messages.map((m) => {
    if (typeof m.content === 'string') return m.content;
    return m.content
      .map((b) => {
        switch (b.type) {
          case 'text':
            return b.text;
          case 'tool_use':
            return `${b.name}(${JSON.stringify(b.input)})`;
          case 'tool_result':
            return blocksText(b.content);
          case 'thinking':
            return b.thinking;
          case 'redacted_thinking':
            return b.data;
          default:
            return '[image]';
        }
      })
      .join('\n');
  });
  const extras = [...(r.tools && r.tools.length > 0 ? [`[tools] ${JSON.stringify(r.tools)}`] : []), ...(r.output_config?.format ? [`[format] ${JSON.stringify(r.output_config.format)}`] : [])];
  const params: Record<string, number | string> = { max_tokens: r.max_tokens };
  const system = blocksText(r.system);
  const prompt = [...rest, ...extras].join('\n');
  // A conversation past the run limits (Claude Code's system prompt and tools alone are larger) is recorded
  // cut, and held whole (RunInline's heldInput).
  const fit = fitRunLimits(system, prompt);
  if (fit.system !== '') params['system'] = fit.system;
  // Sampling goes in too, so the model's own limits refuse it before any hold (Claude 5.x takes none).
  if (r.temperature !== undefined) params['temperature'] = r.temperature;
  if (r.top_p !== undefined) params['top_p'] = r.top_p;
  const body = { prompt: fit.prompt, llm_params: params };
  return fit.heldInput === undefined ? { body } : { body, heldInput: fit.heldInput };
}
