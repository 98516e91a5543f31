import type { ProviderAdapter } from '@gengate/core/adapter';
import { composeAdapters } from '@gengate/core/internal';
import { createAnthropicAdapter } from '../anthropic/anthropic-adapter.js';
import { createFalAdapter } from '../fal/fal-adapter.js';
import { createGoogleAdapter } from '../google/google-adapter.js';
import { createVeoAdapter } from '../google-veo/veo-adapter.js';
import { createOpenAIAdapter } from '../openai/openai-adapter.js';
import { createReplicateAdapter } from '../replicate/replicate-adapter.js';
import { createRunwayAdapter } from '../runway/runway-adapter.js';
import { createSandboxAdapter } from '../sandbox/sandbox-adapter.js';

/** Every built-in provider as the catalog lists it (no credentials needed to read models and prices). */
export function builtInCatalogAdapters(): ProviderAdapter[] {
  return [
    createSandboxAdapter(),
    createOpenAIAdapter(),
    createAnthropicAdapter(),
    composeAdapters([createGoogleAdapter(), createVeoAdapter()]),
    createFalAdapter(),
    createReplicateAdapter(),
    createRunwayAdapter(),
  ];
}
