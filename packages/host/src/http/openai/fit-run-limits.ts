import { RUN_LIMITS } from '@gengate/core/adapter';

/**
 * The text a `/v1` call is recorded as, within the run limits of POST /api/v1/run: a conversation past them
 * (a coding agent's grows past them within a few turns) is recorded cut, each part with a note of what was
 * cut, and held whole (`heldInput`, for RunInline), so the hold still covers every input token.
 */
export function fitRunLimits(system: string, prompt: string): { readonly system: string; readonly prompt: string; readonly heldInput?: string } {
  if (prompt.length <= RUN_LIMITS.maxPromptLength && system.length <= RUN_LIMITS.maxSystemLength) return { system, prompt };
  return {
    system: system === '' ? '' : shorten(system, RUN_LIMITS.maxSystemLength),
    prompt: shorten(prompt, RUN_LIMITS.maxPromptLength),
    heldInput: `${system}\n${prompt}`,
  };
}

/** The first part of a text, with a note of what was cut, within `max` characters (UTF-16 units). */
function shorten(text: string, max: number): string {
  const note = `\n[... ${text.length} characters in all; the rest is not recorded here]`;
  let head = text.slice(0, max - note.length);
  if (/[\ud800-\udbff]$/.test(head)) head = head.slice(0, -1);
  return `${head}${note}`;
}
