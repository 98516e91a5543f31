import { useEffect, useRef, useState } from 'react';
import { Link, Navigate, useLocation, useNavigate } from 'react-router';
import { api } from '../api/client';
import type { DashboardConfig, SessionInfo } from '../api/types';
import { ErrorBanner, Notice, useLoad } from '../components/common';
import { useSession } from '../session';

function tokenFromHash(hash: string): string | null {
  const m = /(?:^#|&)token=([A-Za-z0-9_-]+)/.exec(hash);
  return m?.[1] ?? null;
}

export function SignInPage() {
  const { session, signedIn } = useSession();
  const navigate = useNavigate();
  const { hash } = useLocation();
  const config = useLoad(() => api<DashboardConfig>('GET', '/dashboard/api/config'), []);
  const [email, setEmail] = useState('');
  const [sent, setSent] = useState<string | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const [verifying, setVerifying] = useState(() => tokenFromHash(hash) !== null);
  const used = useRef<string | null>(null);

  // A link from the mail opens this page with #token=...: the fragment never reaches a server log.
  useEffect(() => {
    const token = tokenFromHash(hash);
    if (!token || used.current === token) return;
    used.current = token;
    setVerifying(true);
    setError(null);
    navigate({ hash: '' }, { replace: true });
    api<SessionInfo & { created: boolean }>('POST', '/dashboard/api/auth/verify', { token }).then(
      (info) => {
        signedIn(info);
        navigate('/', { replace: true });
      },
      (err: unknown) => {
        setError(err);
        setVerifying(false);
      },
    );
  }, [hash, navigate, signedIn]);

  if (session && !verifying && !error) return <Navigate to="/" replace />;
  if (verifying && !error) return <p aria-busy="true">Signing you in…</p>;

  const open = config.data?.open_signup ?? false;
  return (
    <section className="narrow">
      <h1>Sign in</h1>
      <p>
        We send a one-time sign-in link to your e-mail address. {open ? 'New here? The same link creates your account.' : 'Accounts are created by the operator of this gateway.'}
      </p>
      <ErrorBanner error={error} />
      {session && (
        <p>
          You are signed in as {session.user.email}: <Link to="/">go to the overview</Link>.
        </p>
      )}
      {sent ? (
        <Notice kind="success">
          If <strong>{sent}</strong> {open ? 'is a valid address' : 'has an account'}, a sign-in link is on its way. It works once, for a short time. You can close this
          page.
        </Notice>
      ) : (
        <form
          onSubmit={async (e) => {
            e.preventDefault();
            setBusy(true);
            setError(null);
            try {
              await api('POST', '/dashboard/api/auth/link', { email });
              setSent(email);
            } catch (err) {
              setError(err);
            } finally {
              setBusy(false);
            }
          }}
        >
          <label htmlFor="email">E-mail address</label>
          <input id="email" name="email" type="email" autoComplete="email" required value={email} onChange={(e) => setEmail(e.target.value)} />
          <button type="submit" aria-busy={busy} disabled={busy}>
            Send me a sign-in link
          </button>
        </form>
      )}
    </section>
  );
}
