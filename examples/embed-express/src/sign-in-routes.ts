import express, { Router } from 'express';
import type pg from 'pg';
import { checkPassword, hashPassword, type SessionStore } from './sessions.js';

function credentials(body: unknown): { email: string; password: string } | null {
  const b = (body ?? {}) as { email?: unknown; password?: unknown };
  if (typeof b.email !== 'string' || !/^[^\s@]+@[^\s@]+$/.test(b.email) || typeof b.password !== 'string' || b.password.length < 8) return null;
  return { email: b.email.toLowerCase(), password: b.password };
}

/** The app's own sign-up and sign-in (e-mail and password); gengate knows nothing of them. */
export function signInRoutes(pool: pg.Pool, sessions: SessionStore): Router {
  const router = Router();
  router.use(express.json({ limit: '10kb' }));

  router.post('/sign-up', async (req, res) => {
    const c = credentials(req.body);
    if (!c) return void res.status(400).json({ error: 'an e-mail address and a password of 8 characters or more' });
    const { rows } = await pool.query<{ id: string }>('insert into users (email, password_hash) values ($1, $2) on conflict (email) do nothing returning id::text', [
      c.email,
      await hashPassword(c.password),
    ]);
    if (!rows[0]) return void res.status(409).json({ error: 'that e-mail address already has an account' });
    const session = await sessions.create(rows[0].id);
    res.setHeader('Set-Cookie', session.cookie).status(201).json({ email: c.email, csrf_token: session.csrfToken });
  });

  router.post('/sign-in', async (req, res) => {
    const c = credentials(req.body);
    const { rows } = c ? await pool.query<{ id: string; password_hash: string }>('select id::text, password_hash from users where email = $1', [c.email]) : { rows: [] };
    const user = rows[0];
    if (!c || !user || !(await checkPassword(c.password, user.password_hash))) return void res.status(401).json({ error: 'wrong e-mail or password' });
    const session = await sessions.create(user.id);
    res.setHeader('Set-Cookie', session.cookie).json({ email: c.email, csrf_token: session.csrfToken });
  });

  router.get('/me', async (req, res) => {
    const session = await sessions.of(req);
    if (!session) return void res.status(401).json({ error: 'not signed in' });
    res.json({ email: session.user.email, csrf_token: session.csrfToken });
  });

  router.post('/sign-out', async (req, res) => {
    res.setHeader('Set-Cookie', await sessions.end(req)).status(204).end();
  });
  return router;
}
