import { z } from 'zod';

/*
 * How an operator declares a server that speaks OpenAI's /v1/chat/completions (Ollama, vLLM, llama.cpp
 * server, OpenRouter, Together, DeepSeek, Groq...): the field names mirror gengate's own model data
 * (ModelDescriptor, ChatCapabilities, per_token pricing in micro-USD per million tokens).
 */

const ID = /^[a-z0-9][a-z0-9-]*$/;
const MODEL_NAME = /^[a-z0-9][a-z0-9._-]*$/;
const ENV_NAME = /^[A-Z_][A-Z0-9_]*$/;
const microUsd = z.number().int().min(0).max(1_000_000_000_000);

export const compatibleModelSchema = z.strictObject({
  /** The model's part of the catalog id: `<provider id>.<id>`. Lower-case letters, digits, `.`, `_`, `-`. */
  id: z.string().regex(MODEL_NAME, 'must be lower-case letters, digits, ".", "_" or "-"').max(100),
  /** The model name the server takes (`meta-llama/llama-3.3-70b-instruct`, `llama3.2:3b`); default: id. */
  upstreamModel: z.string().min(1).max(200).optional(),
  name: z.string().min(1).max(100),
  description: z.string().max(500).default(''),
  tags: z.array(z.string().min(1).max(40)).max(20).default([]),
  isPopular: z.boolean().default(false),
  isActive: z.boolean().default(true),
  capabilities: z
    .strictObject({
      maxOutputTokens: z.number().int().min(1).max(1_000_000),
      /** max_tokens when a request gives none (and the basis of the quote); default: 1,024 or maxOutputTokens if lower. */
      defaultMaxTokens: z.number().int().min(1).max(1_000_000).optional(),
      /** Accepted temperature range; null when the model takes none. Default 0..2. */
      temperature: z
        .strictObject({ min: z.number().min(0).max(2), max: z.number().min(0).max(2) })
        .refine((t) => t.min <= t.max, { message: 'min must not exceed max' })
        .nullable()
        .default({ min: 0, max: 2 }),
      supportsTopP: z.boolean().default(true),
      exclusiveTemperatureTopP: z.boolean().default(false),
      supportsSystem: z.boolean().default(true),
      contextWindow: z.number().int().min(1).optional(),
    })
    .refine((c) => c.defaultMaxTokens === undefined || c.defaultMaxTokens <= c.maxOutputTokens, { message: 'defaultMaxTokens must not exceed maxOutputTokens', path: ['defaultMaxTokens'] }),
  /** Upstream prices in integer micro-USD per million tokens (1 USD = 1,000,000). */
  pricing: z.strictObject({ inputPerMillionTokens: microUsd, outputPerMillionTokens: microUsd }),
  priceSource: z
    .strictObject({
      url: z.url({ protocol: /^https?$/ }),
      retrievedOn: z.iso.date(),
      note: z.string().max(500).optional(),
    })
    .optional(),
});

export const compatibleProviderSchema = z.strictObject({
  /** Provider id: the first part of every model id and the name in PROVIDER_* settings. */
  id: z.string().regex(ID, 'must be lower-case letters, digits and "-"').max(40),
  /** Display name (docs and logs). */
  name: z.string().min(1).max(100),
  /** The API root that /chat/completions is appended to, e.g. https://openrouter.ai/api/v1 or http://127.0.0.1:11434/v1. */
  baseURL: z.url({ protocol: /^https?$/ }),
  /** The NAME of the environment variable holding the key; omit for servers without keys (a local Ollama). */
  apiKeyEnv: z.string().regex(ENV_NAME, 'must be an environment variable name such as OPENROUTER_API_KEY').optional(),
  models: z.array(compatibleModelSchema).min(1, 'declare at least one model'),
});

export const compatibleProvidersSchema = z
  .array(compatibleProviderSchema)
  .superRefine((list, ctx) => {
    const seen = new Set<string>();
    list.forEach((p, i) => {
      if (seen.has(p.id)) ctx.addIssue({ code: 'custom', path: [i, 'id'], message: `provider id ${p.id} is declared twice` });
      seen.add(p.id);
      const models = new Set<string>();
      p.models.forEach((m, j) => {
        if (models.has(m.id)) ctx.addIssue({ code: 'custom', path: [i, 'models', j, 'id'], message: `model id ${m.id} is declared twice` });
        models.add(m.id);
      });
    });
  });

export type CompatibleProviderConfig = z.infer<typeof compatibleProviderSchema>;
export type CompatibleModelConfig = z.infer<typeof compatibleModelSchema>;
