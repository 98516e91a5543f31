/*
 * The AI SDK provider packages create a default provider instance when they are imported, and that
 * instance reads OPENAI_BASE_URL / ANTHROPIC_BASE_URL from the environment and throws on an empty value
 * ("baseURL must be a non-empty string"), before any gengate code runs. gengate treats an empty setting
 * as unset (see packages/host/src/server/providers.ts), so empty ones are removed here. This module is
 * imported before each SDK package; ES modules evaluate imports in order.
 */
for (const name of ['OPENAI_BASE_URL', 'ANTHROPIC_BASE_URL', 'GOOGLE_GENERATIVE_AI_BASE_URL']) {
  if (process.env[name]?.trim() === '') delete process.env[name];
}
export {};
