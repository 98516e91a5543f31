import { UpstreamError } from '../errors/upstream-error.js';
import type { InputFile } from '../ports/provider-adapter.js';

/** Default cap of a reference input read for an adapter. */
export const MAX_INPUT_BYTES = 50 * 1024 * 1024;

/**
 * A plain reader of reference inputs through `fetch`, capped in size. Hosts replace it with one that also
 * refuses private addresses (packages/host does); embedders should too.
 */
export function fetchInput(fetchImpl: typeof fetch, maxBytes: number = MAX_INPUT_BYTES): (url: string, signal: AbortSignal) => Promise<InputFile> {
  return async (url, signal) => {
    const res = await fetchImpl(url, { signal, redirect: 'follow' });
    if (!res.ok || !res.body) throw new UpstreamError(`reading the reference input ${url} failed with HTTP ${res.status}`, { kind: 'invalid_input' });
    const chunks: Uint8Array[] = [];
    let total = 0;
    for await (const chunk of res.body) {
      total += chunk.byteLength;
      if (total > maxBytes) throw new UpstreamError(`the reference input ${url} is larger than ${maxBytes} bytes`, { kind: 'invalid_input' });
      chunks.push(chunk);
    }
    const data = new Uint8Array(total);
    let at = 0;
    for (const c of chunks) {
      data.set(c, at);
      at += c.byteLength;
    }
    return { data, mediaType: res.headers.get('content-type')?.split(';')[0] ?? 'application/octet-stream' };
  };
}
