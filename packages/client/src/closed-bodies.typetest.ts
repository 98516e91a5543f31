/**
 * Type test, checked by `npm run typecheck` (packages/client/tsconfig.typetest.json), never run or
 * shipped: request bodies are closed, so a misspelled field does not compile, and correct ones do.
 */
import { createGengateClient } from './create-client.js';

const client = createGengateClient({ baseUrl: 'http://127.0.0.1:3000/api/v1', apiKey: 'k' });
const chat = { params: { path: { model_id: 'sandbox.echo-chat' } } } as const;
const image = { params: { path: { model_id: 'sandbox.pixel-image' } } } as const;

export async function closedBodies(): Promise<void> {
  // @ts-expect-error `promt` is not a field of RunRequest
  await client.POST('/run/{model_id}', { ...chat, body: { promt: 'hi' } });
  // @ts-expect-error `aspect` is not a field of ImageParams (it is `aspect_ratio`)
  await client.POST('/run/{model_id}', { ...image, body: { prompt: 'x', image_params: { aspect: '1:1' } } });
  // @ts-expect-error `rate_limit` is not a field of CreateApiKeyRequest
  await client.POST('/api-keys', { body: { name: 'ci', rate_limit: 5 } });

  // Correct bodies compile, provider_params stays an open map, and the answer is typed.
  const run = await client.POST('/run/{model_id}', { ...image, body: { prompt: 'x', image_params: { aspect_ratio: '1:1' }, provider_params: { anything: 1 } } });
  const taskId: string | undefined = run.data?.task_id;
  void taskId;
  await client.POST('/api-keys', { body: { name: 'ci' } });
}
