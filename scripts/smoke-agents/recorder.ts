import { createServer, request, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request an agent sent, as a replayable fixture: no credentials, the JSON body as sent. */
export interface RecordedRequest {
  readonly method: string;
  readonly path: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: unknown;
  status: number;
}

/** Headers worth keeping in a fixture (never Authorization or x-api-key). */
const KEPT = /^(content-type|accept|anthropic-version|anthropic-beta|openai-beta|user-agent|originator|version)$/i;

function kept(headers: IncomingHttpHeaders): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).flatMap(([k, v]) => (KEPT.test(k) && typeof v === 'string' ? [[k.toLowerCase(), v]] : [])));
}

/**
 * A pass-through HTTP proxy in front of gengate that records what the agent sends (answers stream through
 * unbuffered): what the smoke saves as fixtures for the replay tests.
 */
export async function startRecorder(target: string): Promise<{ url: string; requests: RecordedRequest[]; close(): Promise<void> }> {
  const upstream = new URL(target);
  const requests: RecordedRequest[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks);
      let body: unknown = null;
      try {
        body = raw.length > 0 ? (JSON.parse(raw.toString('utf8')) as unknown) : null;
      } catch {
        body = raw.toString('utf8');
      }
      const entry: RecordedRequest = { method: req.method ?? 'GET', path: req.url ?? '/', headers: kept(req.headers), body, status: 0 };
      requests.push(entry);
      const out = request({ host: upstream.hostname, port: upstream.port, method: req.method, path: req.url, headers: { ...req.headers, host: upstream.host } }, (answer) => {
        entry.status = answer.statusCode ?? 0;
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      });
      out.on('error', () => res.destroy());
      out.end(raw);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}
