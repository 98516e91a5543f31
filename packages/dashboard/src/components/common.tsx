import { useCallback, useEffect, useRef, useState, type ReactNode } from 'react';
import { ApiError, errorMessage } from '../api/client';

/** The API's own message, announced to screen readers. */
export function ErrorBanner({ error, onDismiss }: { error: unknown; onDismiss?: () => void }) {
  if (error === null || error === undefined) return null;
  return (
    <div className="notice error" role="alert">
      <span>
        {error instanceof ApiError && error.type === 'insufficient_role' && <strong>Not allowed with your role in this organization. </strong>}
        {errorMessage(error)}
      </span>
      {onDismiss && (
        <button type="button" className="secondary outline small" onClick={onDismiss} aria-label="Dismiss the error">
          ×
        </button>
      )}
    </div>
  );
}

export function Notice({ children, kind = 'info' }: { children: ReactNode; kind?: 'info' | 'success' | 'warning' }) {
  return (
    <div className={`notice ${kind}`} role="status" aria-live="polite">
      {children}
    </div>
  );
}

/** Loads data with a function, re-running when `deps` change; `reload` runs it again. */
export function useLoad<T>(fn: () => Promise<T>, deps: readonly unknown[]): { data: T | undefined; error: unknown; loading: boolean; reload: () => void } {
  const [state, setState] = useState<{ data: T | undefined; error: unknown; loading: boolean }>({ data: undefined, error: null, loading: true });
  const [tick, setTick] = useState(0);
  const fnRef = useRef(fn);
  fnRef.current = fn;
  useEffect(() => {
    let live = true;
    setState((s) => ({ ...s, loading: true }));
    fnRef.current().then(
      (data) => live && setState({ data, error: null, loading: false }),
      (error: unknown) => live && setState((s) => ({ data: s.data, error, loading: false })),
    );
    return () => {
      live = false;
    };
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [...deps, tick]);
  const reload = useCallback(() => setTick((t) => t + 1), []);
  return { ...state, reload };
}

/** Runs `fn` every `ms` while `active`. */
export function useInterval(fn: () => void, ms: number, active: boolean): void {
  const ref = useRef(fn);
  ref.current = fn;
  useEffect(() => {
    if (!active) return;
    const t = setInterval(() => ref.current(), ms);
    return () => clearInterval(t);
  }, [ms, active]);
}

export function Pager({ page, perPage, total, onPage, label }: { page: number; perPage: number; total: number; onPage: (p: number) => void; label: string }) {
  const pages = Math.max(1, Math.ceil(total / perPage));
  return (
    <nav className="pager" aria-label={`${label} pages`}>
      <button type="button" className="secondary outline" disabled={page <= 1} onClick={() => onPage(page - 1)}>
        ← Newer
      </button>
      <span aria-live="polite">
        Page {page} of {pages} · {total} in all
      </span>
      <button type="button" className="secondary outline" disabled={page >= pages} onClick={() => onPage(page + 1)}>
        Older →
      </button>
    </nav>
  );
}

export function CopyButton({ text, label = 'Copy' }: { text: string; label?: string }) {
  const [copied, setCopied] = useState<'idle' | 'copied' | 'failed'>('idle');
  return (
    <button
      type="button"
      className="secondary"
      onClick={() => {
        navigator.clipboard.writeText(text).then(
          () => setCopied('copied'),
          () => setCopied('failed'),
        );
      }}
    >
      {copied === 'copied' ? 'Copied ✓' : copied === 'failed' ? 'Copy failed: select the text' : label}
    </button>
  );
}

/** A button that asks in a modal dialog before doing something that cannot be undone. */
export function ConfirmButton({ label, question, confirmLabel, onConfirm, className = 'secondary' }: { label: string; question: string; confirmLabel: string; onConfirm: () => Promise<void> | void; className?: string }) {
  const dialog = useRef<HTMLDialogElement>(null);
  const [busy, setBusy] = useState(false);
  return (
    <>
      <button type="button" className={className} onClick={() => dialog.current?.showModal()}>
        {label}
      </button>
      <dialog ref={dialog} aria-label={question}>
        <article>
          <p>{question}</p>
          <footer>
            <button type="button" className="secondary" onClick={() => dialog.current?.close()}>
              Cancel
            </button>
            <button
              type="button"
              className="danger"
              aria-busy={busy}
              onClick={async () => {
                setBusy(true);
                try {
                  await onConfirm();
                } finally {
                  setBusy(false);
                  dialog.current?.close();
                }
              }}
            >
              {confirmLabel}
            </button>
          </footer>
        </article>
      </dialog>
    </>
  );
}

export const formatCredits = (n: number): string => n.toLocaleString('en-US', { maximumFractionDigits: 6 });
export const formatUsd = (n: number): string => n.toLocaleString('en-US', { style: 'currency', currency: 'USD', maximumFractionDigits: 6 });
export const formatDate = (iso: string | null): string => (iso ? new Date(iso).toLocaleString('en-GB', { dateStyle: 'medium', timeStyle: 'medium' }) : '—');

export function StatusBadge({ status }: { status: string }) {
  return <span className={`badge status-${status}`}>{status}</span>;
}
