import type { TaskWarning } from '@gengate/core/adapter';
import type { Warning } from 'ai';

export type WarningModality = 'chat' | 'image' | 'video';

/** The SDK's names of call settings, and the request parameter each one came from, per modality. */
const PARAMS: Readonly<Record<WarningModality, Readonly<Record<string, string>>>> = {
  chat: {
    temperature: 'llm_params.temperature',
    topP: 'llm_params.top_p',
    maxOutputTokens: 'llm_params.max_tokens',
    system: 'llm_params.system',
  },
  image: {
    size: 'image_params.width',
    aspectRatio: 'image_params.aspect_ratio',
    seed: 'image_params.seed',
    n: 'image_params.n',
  },
  video: {
    aspectRatio: 'video_params.aspect_ratio',
    resolution: 'video_params.resolution',
    duration: 'video_params.duration',
    seed: 'video_params.seed',
    n: 'video_params',
  },
};

function paramFor(feature: string, modality: WarningModality): string {
  const known = PARAMS[modality][feature];
  if (known) return known;
  // providerOptions.<provider>.<name> -> provider_params.<name>
  const option = /^providerOptions\.[^.]+\.(.+)$/.exec(feature);
  if (option?.[1]) return `provider_params.${option[1]}`;
  return `provider_params.${feature}`;
}

/**
 * The kit's one warning mapper: the AI SDK's call warnings (settings the provider ignored or adjusted)
 * as task warnings, named by the request parameter they concern, so that nothing the user sent is
 * dropped without a word. For chat, image and video calls alike (a video start's warnings are stored on
 * the task with its handle).
 */
export function taskWarningsFrom(warnings: readonly Warning[] | undefined, modality: WarningModality): TaskWarning[] {
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
