import { useCallback, useEffect, useRef, useState } from 'react';
import { Link, Navigate, useLocation, useNavigate } from 'react-router';
import { api } from '../api/client';
import type { DashboardConfig, VerifyAnswer } from '../api/types';
import { ErrorBanner, Notice, useLoad } from '../components/common';
import { sessionStore } from '../organization/browser-storage';
import { INVITATION_PATH, pendingInvitation } from '../organization/invitation-token';
import { useSession } from '../session';

/** Where a sign-in leads: back to an invitation opened before signing in (kept in this tab), else the overview. */
const afterSignIn = (): string => (pendingInvitation(sessionStore()) ? INVITATION_PATH : '/');

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
  const [pending, setPending] = useState<{ token: string; confirm: Extract<VerifyAnswer, { signed_in: false }>['confirm'] } | null>(null);
  const used = useRef<string | null>(null);

  const verify = useCallback(
    (token: string, confirm: boolean) => {
      setVerifying(true);
      setError(null);
      api<VerifyAnswer>('POST', '/dashboard/api/auth/verify', confirm ? { token, confirm: true } : { token }).then(
        (answer) => {
          if (answer.signed_in) {
            setPending(null);
            signedIn(answer);
            navigate(afterSignIn(), { replace: true });
            return;
          }
          // The server signs in at once only when this browser asked for the link and no other account is
          // signed in here; otherwise nothing changed, and the person decides (login CSRF protection).
          setPending({ token, confirm: answer.confirm });
          setVerifying(false);
        },
        (err: unknown) => {
          setPending(null);
          setError(err);
          setVerifying(false);
        },
      );
    },
    [navigate, signedIn],
  );

  // A link from the mail opens this page with #token=...: the fragment never reaches a server log.
  useEffect(() => {
    const token = tokenFromHash(hash);
    if (!token || used.current === token) return;
    used.current = token;
    navigate({ hash: '' }, { replace: true });
    verify(token, false);
  }, [hash, navigate, verify]);

  if (pending) {
    const { email: linkEmail, requested_in_this_browser: here, signed_in_as: current } = pending.confirm;
    return (
      <section className="narrow" aria-labelledby="confirm-heading">
        <h1 id="confirm-heading">Confirm sign-in</h1>
        <p>
          This link signs you in as <strong>{linkEmail}</strong>.
        </p>
        {current && (
          <Notice kind="warning">
            You are signed in as <strong>{current}</strong>. Continuing signs you out of that account in this browser.
          </Notice>
        )}
        {!here && (
          <Notice kind="warning">
            This link was not asked for in this browser. That is expected if you asked for it on another device or in another browser. If you did not ask for a
            sign-in link for <strong>{linkEmail}</strong>, do not continue: someone may be trying to sign you in to their account.
          </Notice>
        )}
        <ErrorBanner error={error} />
        <div className="actions">
          <button type="button" aria-busy={verifying} disabled={verifying} onClick={() => verify(pending.token, true)}>
            Sign in as {linkEmail}
          </button>{' '}
          <button
            type="button"
            className="secondary"
            disabled={verifying}
            onClick={() => {
              setPending(null);
              navigate(afterSignIn(), { replace: true });
            }}
          >
            {current ? `Stay signed in as ${current}` : 'Cancel'}
          </button>
        </div>
      </section>
    );
  }
  if (session && !verifying && !error) return <Navigate to={afterSignIn()} replace />;
  if (verifying && !error) return <p aria-busy="true">Signing you in…</p>;

  const open = config.data?.open_signup ?? false;
  return (
    <section className="narrow">
      <h1>Sign in</h1>
      <p>
        We send a one-time sign-in link to your e-mail address. {open ? 'New here? The same link creates your account.' : 'Accounts are created by the operator of this gateway.'}
      </p>
      <ErrorBanner error={error} />
      {pendingInvitation(sessionStore()) && (
        <Notice kind="info">
          You opened an invitation to an organization. Sign in with the invited e-mail address to see it, and open the sign-in link in this tab to come back to
          it (elsewhere, open the invitation link again once signed in).
        </Notice>
      )}
      {session && (
        <p>
          You are signed in as {session.user.email}: <Link to="/">go to the overview</Link>.
        </p>
      )}
      {sent ? (
        <Notice kind="success">
          If <strong>{sent}</strong> {open ? 'is a valid address' : 'has an account'}, a sign-in link is on its way. It works once, for a short time. Open it in
          this browser to sign in at once; opened anywhere else, it first asks you to confirm the account. You can close this page.
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
