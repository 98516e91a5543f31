import type { ApiKey, BudgetPeriod } from '../api/types';
import { formatUtc } from '../dates';

/** The spend controls as the key forms edit them (strings, as the inputs hold them). */
export interface BudgetValues {
  limit: string;
  period: BudgetPeriod;
  soft: string;
  concurrent: string;
  models: string;
  providers: string;
  modalities: string;
}

export const EMPTY_BUDGET: BudgetValues = { limit: '', period: 'month', soft: '', concurrent: '', models: '', providers: '', modalities: '' };

export function budgetValuesOf(k: ApiKey): BudgetValues {
  return {
    limit: k.spend_limit === null ? '' : String(k.spend_limit),
    period: k.budget_period,
    soft: k.soft_threshold_percent === null ? '' : String(k.soft_threshold_percent),
    concurrent: k.max_concurrent_tasks === null ? '' : String(k.max_concurrent_tasks),
    models: (k.allowed_models ?? []).join('\n'),
    providers: (k.allowed_providers ?? []).join('\n'),
    modalities: (k.allowed_modalities ?? []).join(' '),
  };
}

const number = (v: string): number | null => (v.trim() === '' ? null : Number(v));
const list = (v: string): string[] | null => {
  const items = v.split(/[\s,]+/).map((s) => s.trim()).filter(Boolean);
  return items.length === 0 ? null : items;
};

/** The request fields for POST/PUT /api-keys (empty input = no limit: null). */
export function budgetBody(v: BudgetValues) {
  return {
    spend_limit: number(v.limit),
    budget_period: v.period,
    soft_threshold_percent: number(v.soft),
    max_concurrent_tasks: number(v.concurrent),
    allowed_models: list(v.models),
    allowed_providers: list(v.providers),
    allowed_modalities: list(v.modalities),
  };
}

export function BudgetFields({ prefix, values, onChange }: { prefix: string; values: BudgetValues; onChange: (v: BudgetValues) => void }) {
  const set = (patch: Partial<BudgetValues>) => onChange({ ...values, ...patch });
  return (
    <fieldset>
      <legend>Spend controls (empty = no limit)</legend>
      <div className="grid-3">
        <label>
          Spend limit (credits)
          <input id={`${prefix}-limit`} type="number" min="0.000001" step="any" value={values.limit} onChange={(e) => set({ limit: e.target.value })} />
        </label>
        <label>
          Resets every
          <select id={`${prefix}-period`} value={values.period} onChange={(e) => set({ period: e.target.value as BudgetPeriod })}>
            <option value="day">day (00:00 UTC)</option>
            <option value="week">week (Monday 00:00 UTC)</option>
            <option value="month">month (the 1st, 00:00 UTC)</option>
            <option value="none">never</option>
          </select>
        </label>
        <label>
          E-mail at (% of the limit)
          <input id={`${prefix}-soft`} type="number" min="1" max="100" step="1" value={values.soft} onChange={(e) => set({ soft: e.target.value })} />
        </label>
      </div>
      <div className="grid-3">
        <label>
          Most tasks at once
          <input id={`${prefix}-concurrent`} type="number" min="1" step="1" value={values.concurrent} onChange={(e) => set({ concurrent: e.target.value })} />
        </label>
        <label>
          Allowed models <small>(one per line; empty = all)</small>
          <textarea id={`${prefix}-models`} rows={2} value={values.models} onChange={(e) => set({ models: e.target.value })} />
        </label>
        <label>
          Allowed providers <small>(empty = all)</small>
          <textarea id={`${prefix}-providers`} rows={2} value={values.providers} onChange={(e) => set({ providers: e.target.value })} />
        </label>
      </div>
      <label>
        Allowed modalities <small>(video, image, chat; empty = all)</small>
        <input id={`${prefix}-modalities`} value={values.modalities} onChange={(e) => set({ modalities: e.target.value })} placeholder="e.g. image chat" />
      </label>
    </fieldset>
  );
}

/** One line on a key's budget: spent, remaining, reset, concurrency; and its allow-lists. */
export function BudgetSummary({ k }: { k: ApiKey }) {
  const pct = k.spend_limit ? Math.min(100, Math.round((k.spent / k.spend_limit) * 100)) : null;
  const allowed = [k.allowed_models && `models ${k.allowed_models.join(', ')}`, k.allowed_providers && `providers ${k.allowed_providers.join(', ')}`, k.allowed_modalities && `modalities ${k.allowed_modalities.join(', ')}`].filter(Boolean);
  return (
    <div className="muted" data-testid="key-budget">
      {k.spend_limit === null ? (
        <p>Budget: none · spent {k.spent} credits{k.budget_period !== 'none' ? ` this ${k.budget_period}` : ''}</p>
      ) : (
        <>
          <p>
            Budget: spent {k.spent} of {k.spend_limit} credits per {k.budget_period === 'none' ? 'key lifetime' : k.budget_period} · remaining {k.remaining}
            {k.resets_at ? ` · resets ${formatUtc(k.resets_at)}` : ''}
            {k.soft_threshold_percent !== null ? ` · e-mail at ${k.soft_threshold_percent}%` : ''}
          </p>
          <progress value={pct ?? 0} max={100} aria-label={`Budget used: ${pct}%`} />
        </>
      )}
      <p>
        Tasks running or waiting: {k.concurrent_tasks}
        {k.max_concurrent_tasks !== null ? ` of at most ${k.max_concurrent_tasks}` : ''} · allowed: {allowed.length ? allowed.join('; ') : 'all models'}
      </p>
    </div>
  );
}
