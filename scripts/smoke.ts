/**
 * npm run smoke -- <provider|all>: one real call per modality against the REAL provider, for operators
 * checking their keys and the catalog. Never run by CI or the tests (it spends money). Without the
 * provider's key it prints what to set and exits 0. Settings as for `gengate serve` (environment and
 * GENGATE_CONFIG_FILE): OPENAI_API_KEY, ANTHROPIC_API_KEY, GOOGLE_GENERATIVE_AI_API_KEY, the base-URL
 * overrides, OPENAI_COMPATIBLE_PROVIDERS.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { extensionFor, normalizeRunRequest, PriceBook, UpstreamError, type ModelDescriptor, type ProviderAdapter, type RunRequest } from '@gengate/core/adapter';
import { ConfigError, loadProviders, providerEnvironment } from '@gengate/host/server';

const target = process.argv[2];
if (!target) {
  process.stderr.write('usage: npm run smoke -- <openai|anthropic|google|<compatible provider id>|all>\n');
  process.exit(2);
}

/** The model of this modality whose smoke request costs least (first declared on a tie). */
function cheapest(models: readonly ModelDescriptor[], modality: 'chat' | 'image'): ModelDescriptor | undefined {
  const prices = new PriceBook();
  const cost = (m: ModelDescriptor) => prices.quote(m, normalizeRunRequest(m, requestFor(m))).costMicro;
  return models.filter((m) => m.modality === modality && m.isActive).sort((a, b) => cost(a) - cost(b))[0];
}

/** The cheapest request the model accepts: a short prompt, few tokens, low quality where offered. */
function requestFor(m: ModelDescriptor): RunRequest {
  if (m.modality === 'chat') return { prompt: 'Reply with the single word: pong', llm_params: { max_tokens: 16 } };
  const low: RunRequest = { prompt: 'a small red square on a white background', provider_params: { quality: 'low' } };
  try {
    normalizeRunRequest(m, low);
    return low;
  } catch {
    return { prompt: 'a small red square on a white background' };
  }
}

async function smoke(adapter: ProviderAdapter, out: string): Promise<boolean> {
  const availability = adapter.availability ?? { available: true as const };
  if (!availability.available) {
    process.stdout.write(`- ${adapter.providerId}: skipped. ${availability.reason}\n`);
    return true;
  }
  let ok = true;
  const prices = new PriceBook();
  for (const modality of ['chat', 'image'] as const) {
    const model = cheapest(adapter.models, modality);
    if (!model) continue;
    const request = normalizeRunRequest(model, requestFor(model));
    const started = Date.now();
    try {
      const result = await adapter.generate?.({
        taskId: crypto.randomUUID(),
        model,
        request,
        abortSignal: AbortSignal.timeout(120_000),
        readInput: () => Promise.reject(new Error('the smoke test sends no reference inputs')),
        webhookUrl: null,
      });
      if (!result) throw new Error('the adapter has no generate()');
      const files = result.files.map((f, i) => {
        if (f.kind !== 'bytes') return f.url;
        const path = join(out, `${model.id}-${i}.${extensionFor(f.mediaType)}`);
        writeFileSync(path, f.data);
        return `${path} (${f.mediaType}, ${f.data.byteLength} bytes)`;
      });
      const quote = prices.quote(model, request);
      const charge = prices.charge(model, request, quote, result.usage ?? {});
      process.stdout.write(
        [
          `- ${model.id}: ok in ${Date.now() - started} ms`,
          `    files: ${files.join(', ')}`,
          ...(modality === 'chat' && result.files[0]?.kind === 'bytes' ? [`    text: ${JSON.stringify(new TextDecoder().decode(result.files[0].data).slice(0, 200))}`] : []),
          `    usage: ${JSON.stringify(result.usage ?? {})}; upstream metadata: ${JSON.stringify(result.metadata ?? {})}`,
          `    warnings: ${JSON.stringify(result.warnings ?? [])}`,
          `    upstream cost ${charge.costMicro / 1_000_000} credits (held ${quote.costMicro / 1_000_000}), before markup`,
          '',
        ].join('\n'),
      );
    } catch (e) {
      ok = false;
      const detail = e instanceof UpstreamError ? `${e.kind}${e.statusCode ? ` (HTTP ${e.statusCode})` : ''}: ${e.message}` : (e as Error).message;
      process.stdout.write(`- ${model.id}: FAILED after ${Date.now() - started} ms: ${detail}\n`);
    }
  }
  return ok;
}

let providers;
try {
  providers = loadProviders(providerEnvironment(process.env));
} catch (e) {
  if (e instanceof ConfigError) {
    process.stderr.write(`Invalid configuration:\n${e.message}\n`);
    process.exit(1);
  }
  throw e;
}
const chosen = target === 'all' ? providers.adapters : providers.adapters.filter((a) => a.providerId === target);
if (chosen.length === 0) {
  process.stderr.write(`No provider '${target}'. Known: ${providers.adapters.map((a) => a.providerId).join(', ')}, or all.\n`);
  process.exit(2);
}
const out = join(tmpdir(), `gengate-smoke-${Date.now()}`);
mkdirSync(out, { recursive: true });
process.stdout.write(`Real calls, one per modality (results in ${out}):\n`);
let allOk = true;
for (const adapter of chosen) allOk = (await smoke(adapter, out)) && allOk;
process.exit(allOk ? 0 : 1);
