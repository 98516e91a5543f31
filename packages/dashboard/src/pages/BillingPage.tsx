import { useState } from 'react';
import { api } from '../api/client';
import type { Alert, Balance, DashboardConfig, TopupStarted } from '../api/types';
import { ConfirmButton, ErrorBanner, formatCredits, formatDate, Notice, useLoad } from '../components/common';
import { useOrganization } from '../organization/OrganizationProvider';
import { BalanceCards } from './OverviewPage';

function Topup({ processor, onDone }: { processor: string | undefined; onDone: () => void }) {
  const [amount, setAmount] = useState('10');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const [pending, setPending] = useState<TopupStarted | null>(null);
  return (
    <section aria-labelledby="topup-h">
      <h2 id="topup-h">Top up</h2>
      <p>{processor === 'stripe' ? 'You pay on Stripe Checkout and come back here.' : 'Purchases are completed by the operator of this gateway (manual payments).'}</p>
      <ErrorBanner error={error} />
      {pending && (
        <Notice kind="success">
          Top-up of {pending.amount.toFixed(2)} USD ({formatCredits(pending.credits)} credits) is <strong>pending</strong>. The operator completes it with{' '}
          <code>npm run gengate -- topups complete {pending.transaction_id}</code>; it then shows as completed in your transactions.
        </Notice>
      )}
      <form
        className="inline-form"
        onSubmit={async (e) => {
          e.preventDefault();
          setBusy(true);
          setError(null);
          try {
            const started = await api<TopupStarted>('POST', '/api/v1/billing/topup', { amount: Number(amount) });
            if (started.checkout_url) {
              window.location.assign(started.checkout_url);
              return;
            }
            setPending(started);
            onDone();
          } catch (err) {
            setError(err);
          } finally {
            setBusy(false);
          }
        }}
      >
        <label htmlFor="topup-amount">
          Amount in USD <small>(1.00 to 10,000.00; 1 USD = 100 credits)</small>
        </label>
        <div role="group">
          <input id="topup-amount" type="number" min="1" max="10000" step="0.01" required value={amount} onChange={(e) => setAmount(e.target.value)} />
          <button type="submit" aria-busy={busy} disabled={busy}>
            {processor === 'stripe' ? 'Pay with Stripe' : 'Request top-up'}
          </button>
        </div>
      </form>
    </section>
  );
}

function Alerts({ editable }: { editable: boolean }) {
  const alerts = useLoad(() => api<{ data: Alert[] }>('GET', '/api/v1/billing/alerts'), []);
  const [threshold, setThreshold] = useState('');
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  return (
    <section aria-labelledby="alerts-h">
      <h2 id="alerts-h">Balance alerts</h2>
      <p>We e-mail you once when your balance drops below a threshold (and again after it has gone back above it).</p>
      <ErrorBanner error={error ?? alerts.error} />
      {!editable && <p className="muted">Only an owner of the organization adds or deletes alerts.</p>}
      {editable && (
        <form
          className="inline-form"
          onSubmit={async (e) => {
            e.preventDefault();
            setBusy(true);
            setError(null);
            try {
              await api('POST', '/api/v1/billing/alerts', { threshold: Number(threshold) });
              setThreshold('');
              alerts.reload();
            } catch (err) {
              setError(err);
            } finally {
              setBusy(false);
            }
          }}
        >
          <label htmlFor="alert-threshold">Threshold in credits</label>
          <div role="group">
            <input id="alert-threshold" type="number" min="0.000001" step="any" required value={threshold} onChange={(e) => setThreshold(e.target.value)} />
            <button type="submit" aria-busy={busy} disabled={busy}>
              Add alert
            </button>
          </div>
        </form>
      )}
      <ul className="plain" data-testid="alerts">
        {alerts.data?.data.map((a) => (
          <li key={a.id} className="row">
            <span>
              Below <strong>{formatCredits(a.threshold)}</strong> credits · {a.armed ? 'armed' : 'sent (re-arms above the threshold)'} · set {formatDate(a.created_at)}
            </span>
            {editable && (
              <ConfirmButton
                label="Delete"
                question={`Delete the alert at ${formatCredits(a.threshold)} credits?`}
                confirmLabel="Delete alert"
                onConfirm={async () => {
                  try {
                    await api('DELETE', `/api/v1/billing/alerts/${a.id}`);
                    alerts.reload();
                  } catch (err) {
                    setError(err);
                  }
                }}
              />
            )}
          </li>
        ))}
        {alerts.data && alerts.data.data.length === 0 && <li>No alerts.</li>}
      </ul>
    </section>
  );
}

export function BillingPage() {
  const { capabilities, current } = useOrganization();
  const balance = useLoad(() => api<Balance>('GET', '/api/v1/billing/balance'), []);
  const config = useLoad(() => api<DashboardConfig>('GET', '/dashboard/api/config'), []);
  const checkout = new URLSearchParams(window.location.search).get('checkout');
  return (
    <>
      <h1>Billing</h1>
      {checkout === 'success' && <Notice kind="success">Payment received by Stripe: the credits appear once Stripe confirms it (usually seconds).</Notice>}
      {checkout === 'cancelled' && <Notice kind="warning">The payment was cancelled; nothing was charged.</Notice>}
      <ErrorBanner error={balance.error} />
      <BalanceCards balance={balance.data} />
      {capabilities.billing ? (
        <div className="grid-2">
          {capabilities.topup ? (
            <Topup processor={config.data?.payment_processor} onDone={balance.reload} />
          ) : (
            <section aria-labelledby="topup-h">
              <h2 id="topup-h">Top up</h2>
              <p>Only an owner of {current?.name ?? 'the organization'} tops up its balance.</p>
            </section>
          )}
          <Alerts editable={capabilities.editAlerts} />
        </div>
      ) : (
        <Notice kind="info">
          Top-ups and balance alerts of {current?.name ?? 'the organization'} are for its owners (alerts also for admins). Your role: {current?.role}.
        </Notice>
      )}
    </>
  );
}
