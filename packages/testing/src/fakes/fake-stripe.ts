import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A Checkout Session as the fake keeps it (the fields of Stripe's documented object that gengate reads). */
export interface FakeCheckoutSession {
  id: string;
  object: 'checkout.session';
  mode: string;
  status: 'open' | 'complete';
  payment_status: 'unpaid' | 'paid';
  amount_total: number;
  currency: string;
  client_reference_id: string | null;
  metadata: Record<string, string>;
  success_url: string;
  cancel_url: string;
  url: string;
  created: number;
  /** Unix seconds after which the session can no longer be paid (Stripe's default: 24 hours after creation). */
  expires_at: number;
}

export interface FakeStripe {
  readonly url: string;
  readonly sessions: ReadonlyMap<string, FakeCheckoutSession>;
  /** Requests received, with the decoded form body, as the real SDK sent them. */
  readonly requests: readonly { method: string; path: string; form: Record<string, string>; idempotencyKey: string | null }[];
  /** Marks a session paid and returns the JSON of a `checkout.session.completed` event (to be signed and delivered). */
  completedEvent(sessionId: string): string;
  /** The next `count` session creations answer HTTP 500 (a processor outage). */
  failNextCheckouts(count: number): void;
  close(): Promise<void>;
}

async function readForm(req: IncomingMessage): Promise<Record<string, string>> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return Object.fromEntries(new URLSearchParams(Buffer.concat(chunks).toString('utf8')));
}

/**
 * A fake of the part of Stripe's HTTP API gengate uses (POST /v1/checkout/sessions, form-encoded with
 * bracketed keys, Bearer secret key), so tests drive the official `stripe` SDK against it.
 */
export async function startFakeStripe(opts: { secretKey: string }): Promise<FakeStripe> {
  const sessions = new Map<string, FakeCheckoutSession>();
  const requests: { method: string; path: string; form: Record<string, string>; idempotencyKey: string | null }[] = [];
  const byIdempotencyKey = new Map<string, FakeCheckoutSession>();
  let failing = 0;
  const server: Server = createServer(async (req, res) => {
    const form = await readForm(req);
    const idempotencyKey = typeof req.headers['idempotency-key'] === 'string' ? req.headers['idempotency-key'] : null;
    requests.push({ method: req.method ?? '', path: req.url ?? '', form, idempotencyKey });
    const reply = (status: number, body: object) => {
      res.writeHead(status, { 'Content-Type': 'application/json', 'Request-Id': `req_${randomBytes(6).toString('hex')}` });
      res.end(JSON.stringify(body));
    };
    if (req.headers.authorization !== `Bearer ${opts.secretKey}`) {
      reply(401, { error: { type: 'invalid_request_error', message: 'Invalid API Key provided.' } });
      return;
    }
    if (req.method === 'POST' && req.url === '/v1/checkout/sessions') {
      if (failing > 0) {
        failing--;
        reply(500, { error: { type: 'api_error', message: 'Something went wrong on Stripe’s end.' } });
        return;
      }
      const replay = idempotencyKey ? byIdempotencyKey.get(idempotencyKey) : undefined;
      if (replay) {
        reply(200, replay);
        return;
      }
      const unit = Number(form['line_items[0][price_data][unit_amount]']);
      const quantity = Number(form['line_items[0][quantity]'] ?? 1);
      if (!Number.isInteger(unit) || !form['success_url'] || !form['mode']) {
        reply(400, { error: { type: 'invalid_request_error', message: 'Missing required param.' } });
        return;
      }
      const id = `cs_test_${randomBytes(12).toString('hex')}`;
      const metadata = Object.fromEntries(
        Object.entries(form)
          .filter(([k]) => k.startsWith('metadata['))
          .map(([k, v]) => [k.slice('metadata['.length, -1), v]),
      );
      const session: FakeCheckoutSession = {
        id,
        object: 'checkout.session',
        mode: form['mode'],
        status: 'open',
        payment_status: 'unpaid',
        amount_total: unit * quantity,
        currency: form['line_items[0][price_data][currency]'] ?? 'usd',
        client_reference_id: form['client_reference_id'] ?? null,
        metadata,
        success_url: form['success_url'],
        cancel_url: form['cancel_url'] ?? '',
        url: `https://checkout.stripe.test/c/pay/${id}`,
        created: Math.floor(Date.now() / 1000),
        expires_at: form['expires_at'] ? Number(form['expires_at']) : Math.floor(Date.now() / 1000) + 86_400,
      };
      sessions.set(id, session);
      if (idempotencyKey) byIdempotencyKey.set(idempotencyKey, session);
      reply(200, session);
      return;
    }
    reply(404, { error: { type: 'invalid_request_error', message: `Unrecognized request URL (${req.method} ${req.url}).` } });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    sessions,
    requests,
    completedEvent(sessionId) {
      const session = sessions.get(sessionId);
      if (!session) throw new Error(`no session ${sessionId}`);
      session.status = 'complete';
      session.payment_status = 'paid';
      return JSON.stringify({
        id: `evt_${randomBytes(12).toString('hex')}`,
        object: 'event',
        api_version: '2025-01-01',
        created: Math.floor(Date.now() / 1000),
        type: 'checkout.session.completed',
        livemode: false,
        pending_webhooks: 1,
        request: { id: null, idempotency_key: null },
        data: { object: session },
      });
    },
    failNextCheckouts(count) {
      failing = count;
    },
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
