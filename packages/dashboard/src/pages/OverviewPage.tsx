import { useState } from 'react';
import { Link } from 'react-router';
import { api, query } from '../api/client';
import type { Balance, Paged, Transaction } from '../api/types';
import { ErrorBanner, formatCredits, formatDate, formatUsd, Pager, StatusBadge, useLoad } from '../components/common';
import { useOrganization } from '../organization/OrganizationProvider';

export function BalanceCards({ balance }: { balance: Balance | undefined }) {
  return (
    <div className="cards" aria-live="polite">
      <article>
        <header>Balance</header>
        <p className="big" data-testid="balance">{balance ? formatCredits(balance.credits) : '…'}</p>
        <small>credits (100 credits = 1 USD)</small>
      </article>
      <article>
        <header>Held by running tasks</header>
        <p className="big" data-testid="held">{balance ? formatCredits(balance.held_credits) : '…'}</p>
        <small>released or charged when they end</small>
      </article>
      <article>
        <header>Available</header>
        <p className="big" data-testid="available">{balance ? formatCredits(balance.available_credits) : '…'}</p>
        <small>what a new run can use</small>
      </article>
    </div>
  );
}

export function OverviewPage() {
  const { capabilities, current } = useOrganization();
  const balance = useLoad(() => api<Balance>('GET', '/api/v1/billing/balance'), []);
  return (
    <>
      <h1>Overview</h1>
      <ErrorBanner error={balance.error} />
      <BalanceCards balance={balance.data} />
      <p>
        {capabilities.billing && (
          <>
            <Link to="/billing">{capabilities.topup ? 'Top up or set balance alerts' : 'Balance alerts'}</Link> ·{' '}
          </>
        )}
        <Link to="/playground">Try a model</Link>
      </p>
      {capabilities.transactions ? (
        <Transactions />
      ) : (
        <p className="muted">The balance is {current?.name ?? 'the organization'}'s. Its transactions and top-ups are for its owners and admins.</p>
      )}
    </>
  );
}

/** The organization's transactions, newest first (owners and admins). */
function Transactions() {
  const [page, setPage] = useState(1);
  const perPage = 10;
  const txs = useLoad(() => api<Paged<Transaction>>('GET', `/api/v1/billing/transactions${query({ page, per_page: perPage })}`), [page]);
  return (
    <>
      <ErrorBanner error={txs.error} />
      <h2 id="transactions">Transactions</h2>
      <div className="table-wrap">
        <table aria-labelledby="transactions" data-testid="transactions">
          <thead>
            <tr>
              <th scope="col">When</th>
              <th scope="col">What</th>
              <th scope="col">Method</th>
              <th scope="col">Status</th>
              <th scope="col" className="num">Credits</th>
              <th scope="col" className="num">USD</th>
            </tr>
          </thead>
          <tbody>
            {txs.data?.data.map((t) => (
              <tr key={t.id}>
                <td>{formatDate(t.created_at)}</td>
                <td>{t.description ?? '—'}</td>
                <td>{t.payment_method}</td>
                <td>
                  <StatusBadge status={t.status} />
                </td>
                <td className={`num ${t.credits < 0 ? 'neg' : 'pos'}`}>{t.credits > 0 ? '+' : ''}{formatCredits(t.credits)}</td>
                <td className="num">{formatUsd(t.amount)}</td>
              </tr>
            ))}
            {txs.data && txs.data.data.length === 0 && (
              <tr>
                <td colSpan={6}>No transactions yet.</td>
              </tr>
            )}
          </tbody>
        </table>
      </div>
      {txs.data && <Pager page={page} perPage={perPage} total={txs.data.total} onPage={setPage} label="Transactions" />}
    </>
  );
}
