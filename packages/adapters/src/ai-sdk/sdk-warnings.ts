import type { TaskWarning } from '@gengate/core';
import type { Warning } from 'ai';

/** The SDK's names of call settings, and the request parameter each one came from. */
const CHAT_PARAMS: Readonly<Record<string, string>> = {
  temperature: 'llm_params.temperature',
  topP: 'llm_params.top_p',
  maxOutputTokens: 'llm_params.max_tokens',
  system: 'llm_params.system',
};

const IMAGE_PARAMS: Readonly<Record<string, string>> = {
  size: 'image_params.width',
  aspectRatio: 'image_params.aspect_ratio',
  seed: 'image_params.seed',
  n: 'image_params.n',
};

function paramFor(feature: string, modality: 'chat' | 'image'): string {
  const table = modality === 'chat' ? CHAT_PARAMS : IMAGE_PARAMS;
  const known = table[feature];
  if (known) return known;
  // providerOptions.<provider>.<name> -> provider_params.<name>
  const option = /^providerOptions\.[^.]+\.(.+)$/.exec(feature);
  if (option?.[1]) return `provider_params.${option[1]}`;
  return `provider_params.${feature}`;
}

/**
 * The SDK's warnings (settings the provider ignored or adjusted) as task warnings, named by the request
 * parameter they concern, so that nothing the user sent is dropped without a word.
 */
export function taskWarningsFrom(warnings: readonly Warning[] | undefined, modality: 'chat' | 'image'): TaskWarning[] {
  const out: TaskWarning[] = [];
  for (const w of warnings ?? []) {
    switch (w.type) {
      case 'unsupported':
      case 'compatibility':
        out.push({ param: paramFor(w.feature, modality), message: w.details ?? `The provider does not support ${w.feature}; it was ignored.` });
        break;
      case 'deprecated':
        out.push({ param: paramFor(w.setting, modality), message: w.message });
        break;
      default:
        out.push({ param: 'provider', message: 'message' in w && typeof w.message === 'string' ? w.message : JSON.stringify(w) });
    }
  }
  return out;
}
