import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

/** Request headers that carry a credential: recorded as `[credential]`, their value kept apart in `credential`. */
const CREDENTIAL_HEADERS = ['authorization', 'x-api-key', 'x-goog-api-key', 'api-key', 'x-key'];

/** One request the fake received. */
export interface RecordedCall {
  readonly method: string;
  /** Path without the query string. */
  readonly path: string;
  readonly query: Readonly<Record<string, string>>;
  /** Lower-case header names; credential headers are recorded as `[credential]`. */
  readonly headers: Readonly<Record<string, string>>;
  /**
   * The whole value of the credential header the request carried, as sent: `Bearer <key>` for Authorization,
   * `Key <key>` for fal's, the bare key for x-api-key / x-goog-api-key / api-key / x-key. Null without one.
   */
  readonly credential: string | null;
  /** Parsed JSON body, else the text, else null. Multipart bodies are kept as text. */
  readonly body: unknown;
  readonly at: number;
}

/** What a route answers. A string or bytes body is sent as is; anything else as JSON. */
export interface FakeReply {
  readonly status?: number;
  readonly headers?: Readonly<Record<string, string>>;
  readonly body?: unknown;
}

export type FakeHandler = (call: RecordedCall, upstream: FakeUpstream) => FakeReply | Promise<FakeReply>;

export interface FakeRoute {
  readonly method: string;
  /** Exact path, or a pattern matched against the path. */
  readonly path: string | RegExp;
  readonly handler: FakeHandler;
}

/** A fault injected into the next matching request(s) instead of the route's answer. */
export type FakeFault =
  | { readonly kind: 'status'; readonly status: number; readonly body?: unknown; readonly headers?: Readonly<Record<string, string>> }
  /** Never answers (until the client gives up or the fake closes). */
  | { readonly kind: 'hang' }
  /** Closes the connection without an answer. */
  | { readonly kind: 'reset' }
  /** Answers normally, after a delay. */
  | { readonly kind: 'delay'; readonly ms: number }
  /**
   * Sends the answer's status, headers and its first `events` server-sent events (blocks ending in a blank
   * line), then `drop`s the connection (an upstream breaking mid-stream) or `stall`s: keeps it open, sending
   * nothing more, until the fake closes (a stream held open, e.g. for a benchmark of open streams).
   */
  | { readonly kind: 'cut-stream'; readonly events: number; readonly then: 'drop' | 'stall' };

interface PendingFault {
  readonly fault: FakeFault;
  remaining: number;
  readonly match: (call: RecordedCall) => boolean;
}

function parseBody(raw: Buffer, contentType: string | undefined): unknown {
  if (raw.length === 0) return null;
  const text = raw.toString('utf8');
  if (contentType?.includes('json')) {
    try {
      return JSON.parse(text) as unknown;
    } catch {
      return text;
    }
  }
  return text;
}

/**
 * A fake upstream HTTP server for adapter tests: routes that follow a provider's documented API, a record
 * of every call (credentials kept apart), injected faults (an HTTP error with headers such as Retry-After,
 * a hang, a reset, a delay), and a count of calls in flight (the most ever seen, for concurrency limits).
 */
export class FakeUpstream {
  readonly calls: RecordedCall[] = [];
  /** Calls being answered right now, and the most seen at once. */
  inFlight = 0;
  maxInFlight = 0;
  /** Delay added before every answer (a slow upstream). */
  latencyMs = 0;
  private readonly faults: PendingFault[] = [];
  private readonly sockets = new Set<Socket>();
  private readonly hung = new Set<ServerResponse>();
  private readonly waiters: (() => void)[] = [];
  /** While holding: the calls being held open, each with what lets it go on. */
  private gate: { readonly call: RecordedCall; readonly open: () => void }[] | null = null;
  /** Which calls the gate holds (default every call). */
  private holds: (call: RecordedCall) => boolean = () => true;

  private constructor(
    private readonly server: Server,
    readonly url: string,
    private readonly routes: FakeRoute[],
  ) {}

  static async start(routes: readonly FakeRoute[]): Promise<FakeUpstream> {
    let self: FakeUpstream | null = null;
    const server = createServer((req, res) => {
      void self?.handle(req, res);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    self = new FakeUpstream(server, `http://127.0.0.1:${port}`, [...routes]);
    const s = self;
    server.on('connection', (socket) => {
      s.sockets.add(socket);
      socket.on('close', () => s.sockets.delete(socket));
    });
    return self;
  }

  /** Adds routes after start (a test's own behaviour). Earlier routes win on a tie. */
  route(route: FakeRoute): void {
    this.routes.push(route);
  }

  /** The next `times` requests matching `match` (default: any) get this fault instead of their answer. */
  failNext(fault: FakeFault, options: { times?: number; match?: (call: RecordedCall) => boolean } = {}): void {
    this.faults.push({ fault, remaining: options.times ?? 1, match: options.match ?? (() => true) });
  }

  /** Calls whose method and path match. */
  callsTo(method: string, path: string | RegExp): RecordedCall[] {
    return this.calls.filter((c) => c.method === method && (typeof path === 'string' ? c.path === path : path.test(c.path)));
  }

  /** Resolves when at least `count` calls were received (or rejects after timeoutMs). */
  async waitForCalls(count: number, timeoutMs = 10_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (this.calls.length < count) {
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`fake upstream: ${this.calls.length} calls, expected ${count} within ${timeoutMs} ms`);
      await new Promise<void>((resolve) => {
        const t = setTimeout(resolve, left);
        this.waiters.push(() => {
          clearTimeout(t);
          resolve();
        });
      });
    }
  }

  /**
   * From now on every call (or every call `match` accepts, e.g. only result downloads) is held open
   * (counted in flight, not answered) until release(): a test can then see who is calling at once and
   * decide when calls end, without timing. Calls `match` refuses are answered as usual meanwhile.
   */
  hold(match: (call: RecordedCall) => boolean = () => true): void {
    this.gate ??= [];
    this.holds = match;
  }

  /** The calls held open right now, oldest first. */
  get held(): readonly RecordedCall[] {
    return (this.gate ?? []).map((g) => g.call);
  }

  /** Answers every held call and stops holding new ones. */
  release(): void {
    const gate = this.gate ?? [];
    this.gate = null;
    for (const g of gate) g.open();
  }

  /**
   * Resolves with the condition's value once it is not null, re-checked whenever a call arrives, is held or
   * ends (rejects after timeoutMs): waiting on the fake's own events, not on time.
   */
  async waitUntil<T>(condition: () => T | null | undefined | false, timeoutMs = 10_000, what = 'a condition'): Promise<T> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const value = condition();
      if (value !== null && value !== undefined && value !== false) return value;
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`fake upstream: timed out after ${timeoutMs} ms waiting for ${what}`);
      await new Promise<void>((resolve) => {
        const t = setTimeout(resolve, left);
        this.waiters.push(() => {
          clearTimeout(t);
          resolve();
        });
      });
    }
  }

  /** Forgets calls and faults (keeps routes). */
  reset(): void {
    this.calls.length = 0;
    this.faults.length = 0;
    this.maxInFlight = this.inFlight;
    this.latencyMs = 0;
  }

  async close(): Promise<void> {
    this.release();
    for (const res of this.hung) res.destroy();
    for (const s of this.sockets) s.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private wake(): void {
    for (const w of this.waiters.splice(0)) w();
  }

  private takeFault(call: RecordedCall): FakeFault | null {
    const f = this.faults.find((x) => x.remaining > 0 && x.match(call));
    if (!f) return null;
    f.remaining -= 1;
    if (f.remaining === 0) this.faults.splice(this.faults.indexOf(f), 1);
    return f.fault;
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const url = new URL(req.url ?? '/', this.url);
    const headers: Record<string, string> = {};
    let credential: string | null = null;
    for (const [k, v] of Object.entries(req.headers)) {
      const value = Array.isArray(v) ? v.join(', ') : (v ?? '');
      if (CREDENTIAL_HEADERS.includes(k)) {
        credential = value;
        headers[k] = '[credential]';
      } else {
        headers[k] = value;
      }
    }
    const call: RecordedCall = {
      method: req.method ?? 'GET',
      path: url.pathname,
      query: Object.fromEntries(url.searchParams),
      headers,
      credential,
      body: parseBody(Buffer.concat(chunks), req.headers['content-type']),
      at: Date.now(),
    };
    this.calls.push(call);
    this.inFlight += 1;
    this.maxInFlight = Math.max(this.maxInFlight, this.inFlight);
    res.on('close', () => {
      this.inFlight -= 1;
      this.hung.delete(res);
      if (this.gate) this.gate = this.gate.filter((g) => g.call !== call);
      this.wake();
    });
    try {
      if (this.gate && this.holds(call)) {
        const gate = this.gate;
        const held = new Promise<void>((open) => gate.push({ call, open }));
        this.wake();
        await held;
      } else {
        this.wake();
      }
      const fault = this.takeFault(call);
      if (this.latencyMs > 0) await new Promise((r) => setTimeout(r, this.latencyMs));
      if (fault?.kind === 'hang') {
        this.hung.add(res);
        return;
      }
      if (fault?.kind === 'reset') {
        res.destroy();
        return;
      }
      if (fault?.kind === 'delay') await new Promise((r) => setTimeout(r, fault.ms));
      if (fault?.kind === 'cut-stream') {
        this.cutStream(res, await this.answer(call), fault.events, fault.then);
        return;
      }
      const reply: FakeReply = fault?.kind === 'status' ? { status: fault.status, body: fault.body ?? { error: { message: `injected HTTP ${fault.status}` } }, headers: fault.headers ?? {} } : await this.answer(call);
      this.send(res, reply);
    } catch (err) {
      this.send(res, { status: 500, body: { error: { message: `fake upstream handler failed: ${(err as Error).message}` } } });
    }
  }

  private async answer(call: RecordedCall): Promise<FakeReply> {
    const route = this.routes.find((r) => r.method === call.method && (typeof r.path === 'string' ? r.path === call.path : r.path.test(call.path)));
    if (!route) return { status: 404, body: { error: { message: `fake upstream has no route ${call.method} ${call.path}` } } };
    return route.handler(call, this);
  }

  private cutStream(res: ServerResponse, reply: FakeReply, events: number, then: 'drop' | 'stall'): void {
    if (res.destroyed) return;
    const text = typeof reply.body === 'string' ? reply.body : Buffer.from(reply.body instanceof Uint8Array ? reply.body : JSON.stringify(reply.body ?? '')).toString('utf8');
    const head = text.split('\n\n').slice(0, events).map((e) => `${e}\n\n`).join('');
    res.writeHead(reply.status ?? 200, { ...reply.headers });
    res.write(head);
    if (then === 'drop') {
      // The bytes are handed to the socket first, then the connection breaks without ending the chunked body.
      res.write('', () => res.destroy());
      return;
    }
    this.hung.add(res);
  }

  private send(res: ServerResponse, reply: FakeReply): void {
    if (res.destroyed) return;
    const body = reply.body;
    const isRaw = typeof body === 'string' || body instanceof Uint8Array;
    const payload = body === undefined ? '' : isRaw ? body : JSON.stringify(body);
    const headers: Record<string, string> = { ...(isRaw || body === undefined ? {} : { 'content-type': 'application/json' }), ...reply.headers };
    res.writeHead(reply.status ?? 200, headers);
    res.end(payload);
  }
}
