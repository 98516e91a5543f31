import type { LanguageModelV4, LanguageModelV4Message, SharedV4ProviderOptions } from '@ai-sdk/provider';
import type { TaskWarning } from '@gengate/core';
import { wantsEncryptedReasoning, type InputItem, type ResponseRequest } from './responses-request.js';

/*
 * OpenAI's reasoning items on /v1/responses. With an OpenAI model the call goes to OpenAI's own Responses
 * API through @ai-sdk/openai's Responses model, which carries reasoning as `reasoning` parts whose
 * `providerOptions.openai` / `providerMetadata.openai` hold `itemId` and `reasoningEncryptedContent`: an
 * input reasoning item becomes such parts (one per summary text) and the SDK sends it back to OpenAI as a
 * reasoning item (`store: false`: by its id, summary and encrypted content, not by a reference to OpenAI's
 * stored state, since gengate keeps the conversation itself). https://platform.openai.com/docs/guides/reasoning
 * ("Encrypted reasoning items"). Any other model cannot read OpenAI's encrypted reasoning: the items are
 * dropped with a warning on the task.
 */

type AssistantPart = Extract<LanguageModelV4Message, { role: 'assistant' }>['content'][number];
type ReasoningItem = Extract<InputItem, { type: 'reasoning' }>;

/** The AI SDK provider id of OpenAI's Responses model: the one that reads reasoning parts' `providerOptions.openai`. */
const OPENAI_RESPONSES_PROVIDER = 'openai.responses';

/** Whether the language model passes OpenAI's reasoning items through (OpenAI's Responses API). */
export function passesReasoningItems(model: LanguageModelV4): boolean {
  return model.provider === OPENAI_RESPONSES_PROVIDER;
}

/** A reasoning item as the SDK's reasoning parts: one per summary text (an item without summary: one empty part), each naming the item. */
export function reasoningParts(item: ReasoningItem): AssistantPart[] {
  const openai = { ...(item.id !== undefined ? { itemId: item.id } : {}), ...(item.encrypted_content != null ? { reasoningEncryptedContent: item.encrypted_content } : {}) };
  const texts = (item.summary ?? []).map((s) => s.text).filter((t) => t !== '');
  return (texts.length > 0 ? texts : ['']).map((text) => ({ type: 'reasoning', text, providerOptions: { openai } }));
}

/**
 * The Responses model's options: `store: false` (gengate, not OpenAI, keeps the conversation, so reasoning
 * goes back by its encrypted content; the SDK then asks for that content itself for a reasoning model), the
 * `include` the client asked for, and its `reasoning.summary`.
 */
export function passThroughOptions(r: ResponseRequest): SharedV4ProviderOptions {
  const summary = r.reasoning?.summary ?? r.reasoning?.generate_summary;
  return {
    openai: {
      store: false,
      ...(wantsEncryptedReasoning(r) ? { include: ['reasoning.encrypted_content'] } : {}),
      ...(summary != null ? { reasoningSummary: summary } : {}),
    },
  };
}

/** The warning of reasoning items dropped for a model that cannot take them back. */
export function droppedReasoningWarnings(items: readonly InputItem[], passed: boolean): TaskWarning[] {
  const dropped = passed ? 0 : items.filter((it) => it.type === 'reasoning').length;
  if (dropped === 0) return [];
  return [{ param: 'input', message: `${dropped} reasoning item${dropped === 1 ? ' was' : 's were'} not forwarded: only an OpenAI model takes OpenAI's encrypted reasoning back.` }];
}
