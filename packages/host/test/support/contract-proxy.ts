import { createServer, request as httpRequest, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { recordViolation } from './contract-violations.js';
import { openApiContract } from './openapi-contract.js';

export interface ContractProxy {
  /** http://127.0.0.1:<port>: give this to clients (and to the server as PUBLIC_URL). */
  readonly url: string;
  /** Where requests go: set once the server behind it listens. */
  target(port: number): void;
  close(): Promise<void>;
}

function collect(stream: NodeJS.ReadableStream): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    stream.on('data', (c: Buffer) => chunks.push(c));
    stream.on('end', () => resolve(Buffer.concat(chunks)));
    stream.on('error', reject);
  });
}

function isText(headers: IncomingHttpHeaders): boolean {
  return /^(application\/json|text\/)/i.test(headers['content-type'] ?? '');
}

/**
 * A reverse proxy in front of a spawned gengate server that checks every exchange against
 * docs/openapi.yaml (openapi-contract.ts) before handing the response on, whoever the client is
 * (fetch, the conformance kit's client, curl in the README walk-through). Bodies are buffered; a
 * failed upstream connection destroys the client's socket, so clients see what they would have seen.
 */
export async function startContractProxy(): Promise<ContractProxy> {
  let port: number | null = null;
  const sockets = new Set<Socket>();
  const server: Server = createServer((req, res) => {
    void (async () => {
      const body = await collect(req);
      if (port === null) {
        res.destroy();
        return;
      }
      const upstream = httpRequest({ host: '127.0.0.1', port, method: req.method, path: req.url, headers: req.headers, agent: false });
      upstream.on('error', () => res.destroy());
      upstream.on('response', (answer) => {
        collect(answer).then(
          (payload) => {
            const requestText = body.length > 0 && isText(req.headers) ? body.toString('utf8') : body.length > 0 ? '<binary>' : undefined;
            try {
              const problems = openApiContract().check({
                method: req.method ?? 'GET',
                url: req.url ?? '/',
                requestHeaders: req.headers as Record<string, string>,
                requestBody: requestText,
                status: answer.statusCode ?? 0,
                responseHeaders: answer.headers,
                responseText: isText(answer.headers) ? payload.toString('utf8') : undefined,
              });
              for (const p of problems) recordViolation(p);
            } catch (err) {
              recordViolation(`${req.method} ${req.url}: the contract check failed: ${(err as Error).message}`);
            }
            res.writeHead(answer.statusCode ?? 502, answer.rawHeaders);
            res.end(payload);
          },
          () => res.destroy(),
        );
      });
      upstream.end(body);
    })().catch(() => res.destroy());
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    target(p) {
      port = p;
    },
    async close() {
      const closed = new Promise<void>((r) => server.close(() => r()));
      for (const s of sockets) s.destroy();
      await closed;
    },
  };
}
