import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Tarpit {
  readonly url: string;
  /** Sockets open right now, the most ever open at once, and how many have closed. */
  readonly sockets: { open: number; maxOpen: number; opened: number; closed: number };
  close(): Promise<void>;
}

/**
 * A receiver that never lets a callback finish: `?mode=trickle` sends 200 headers then one body byte every
 * 200 ms forever; any other mode accepts and never answers. It counts its sockets.
 */
export async function startTarpit(): Promise<Tarpit> {
  const sockets = { open: 0, maxOpen: 0, opened: 0, closed: 0 };
  const timers = new Set<NodeJS.Timeout>();
  const server: Server = createServer((req, res) => {
    req.resume();
    if (!req.url?.includes('mode=trickle')) return;
    res.writeHead(200, { 'Content-Type': 'text/plain' });
    const t = setInterval(() => res.write('.'), 200);
    timers.add(t);
    res.on('close', () => {
      clearInterval(t);
      timers.delete(t);
    });
  });
  server.on('connection', (socket) => {
    sockets.open++;
    sockets.opened++;
    sockets.maxOpen = Math.max(sockets.maxOpen, sockets.open);
    socket.on('close', () => {
      sockets.open--;
      sockets.closed++;
    });
  });
  server.requestTimeout = 0;
  server.headersTimeout = 0;
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    sockets,
    close: () =>
      new Promise((r) => {
        for (const t of timers) clearInterval(t);
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

export interface RecordingReceiver {
  readonly url: string;
  /** task_id -> Date.now() at receipt of its first callback. */
  readonly receivedAt: Map<string, number>;
  /** Number of requests received. */
  count(): number;
  close(): Promise<void>;
}

/** A healthy receiver answering 200 at once; `failFirst` requests are answered by hanging instead. */
export async function startRecordingReceiver(opts: { hangFirst?: number } = {}): Promise<RecordingReceiver> {
  const receivedAt = new Map<string, number>();
  let requests = 0;
  const server: Server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      requests++;
      if (requests <= (opts.hangFirst ?? 0)) return; // never answers
      try {
        const id = (JSON.parse(body) as { task_id: string }).task_id;
        if (!receivedAt.has(id)) receivedAt.set(id, Date.now());
      } catch {
        // not a callback body
      }
      res.statusCode = 200;
      res.end('ok');
    });
  });
  server.requestTimeout = 0;
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    receivedAt,
    count: () => requests,
    close: () =>
      new Promise((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}
