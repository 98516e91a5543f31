import type { ReactNode } from 'react';
import { ErrorBanner } from '../common';

/**
 * A chart with everything around it: a title, what it shows and in which unit, the loading, error and
 * empty states, and the same figures as a table for screen readers and for people who prefer numbers.
 */
export function ChartPanel({
  id,
  title,
  unit,
  loading,
  error,
  empty,
  emptyText = 'No usage in this range.',
  table,
  children,
}: {
  id: string;
  title: string;
  unit: string;
  loading: boolean;
  error: unknown;
  empty: boolean;
  emptyText?: ReactNode;
  table: ReactNode;
  children: ReactNode;
}) {
  const state = error ? 'error' : loading ? 'loading' : empty ? 'empty' : 'ready';
  return (
    <article className="chart-panel" aria-labelledby={`${id}-title`} data-testid={id} data-state={state} aria-busy={state === 'loading'}>
      <header>
        <h2 id={`${id}-title`}>{title}</h2>
        <small className="muted">{unit}</small>
      </header>
      {state === 'error' && <ErrorBanner error={error} />}
      {state === 'loading' && <p className="chart-placeholder" aria-busy="true">Loading…</p>}
      {state === 'empty' && <p className="chart-placeholder" data-testid={`${id}-empty`}>
          {/* one flex item, so the spaces around a link inside the text stay */}
          <span>{emptyText}</span>
        </p>}
      {state === 'ready' && (
        <>
          <div className="chart-box" role="img" aria-label={`${title} (${unit}); the figures are in the table below`}>
            {children}
          </div>
          <details className="chart-table">
            <summary>Show the figures as a table</summary>
            <div className="table-wrap">{table}</div>
          </details>
        </>
      )}
    </article>
  );
}
