import type { TaskWarning } from '@gengate/core';

/** An AI SDK call warning (SharedV4Warning), as far as adapters read it. */
export interface SdkWarning {
  readonly type: string;
  readonly feature?: string;
  readonly details?: string;
  readonly message?: string;
}

const FEATURE_PARAMS: Readonly<Record<string, string>> = {
  size: 'width',
  aspectRatio: 'aspect_ratio',
  seed: 'seed',
  n: 'n',
  resolution: 'resolution',
  duration: 'duration',
};

/** The AI SDK's warnings as task warnings under the request group they concern (`image_params`, `video_params`). */
export function taskWarningsFromSdk(group: 'image_params' | 'video_params', warnings: readonly SdkWarning[]): TaskWarning[] {
  return warnings.map((w) => {
    const param = w.feature ? FEATURE_PARAMS[w.feature] : undefined;
    const text = [w.feature && `${w.feature}:`, w.details ?? w.message ?? w.type].filter(Boolean).join(' ');
    return { param: param ? `${group}.${param}` : group, message: `The provider reported: ${text}`.slice(0, 300) };
  });
}
