import { useState } from 'react';
import { useSearchParams } from 'react-router';
import { api, download } from '../api/client';
import type { ApiKey } from '../api/types';
import type { UsageReport } from '../api/usage-types';
import { ErrorBanner, Notice, useLoad } from '../components/common';
import { KeyBudgetChart } from '../components/charts/KeyBudgetChart';
import { LatencyChart } from '../components/charts/LatencyChart';
import { RangePicker } from '../components/charts/RangePicker';
import { SpendChart } from '../components/charts/SpendChart';
import { TasksChart } from '../components/charts/TasksChart';
import { latencyByModel, rangeOf, RANGES, spendByDayAndModel, tasksByDay, type RangeDays } from '../usage/series';
import { usagePath } from '../usage/usage-api';

const parseRange = (v: string | null): RangeDays => (RANGES.find((r) => String(r) === v) ?? 30);

/** Where the credits went: spend, tasks and latency over the last 7, 30 or 90 UTC days, and the same as CSV. */
export function UsagePage() {
  const [params, setParams] = useSearchParams();
  const days = parseRange(params.get('days'));
  const range = rangeOf(days);
  const byDay = useLoad(() => api<UsageReport>('GET', usagePath(range, ['day', 'model'])), [range.from, range.to]);
  const byModel = useLoad(() => api<UsageReport>('GET', usagePath(range, ['model'])), [range.from, range.to]);
  const keys = useLoad(() => api<{ data: ApiKey[] }>('GET', '/api/v1/api-keys'), []);
  const [csv, setCsv] = useState<{ busy: boolean; error: unknown; done: string | null }>({ busy: false, error: null, done: null });
  const spend = byDay.data && spendByDayAndModel(byDay.data.data, range.days);
  const tasks = byDay.data && tasksByDay(byDay.data.data, range.days);
  const latency = byModel.data && latencyByModel(byModel.data.data);
  return (
    <>
      <h1>Usage</h1>
      <p>
        What your tasks cost and how they went, per UTC day, from {range.days[0]} to {range.days.at(-1)}. Credits: 100 credits = 1 USD.
      </p>
      <div className="row usage-toolbar">
        <RangePicker name="range" value={days} onChange={(r) => setParams({ days: String(r) }, { replace: true })} />
        <button
          type="button"
          className="secondary"
          aria-busy={csv.busy}
          disabled={csv.busy}
          onClick={async () => {
            setCsv({ busy: true, error: null, done: null });
            try {
              const file = await download(usagePath(range, ['day', 'model'], 'csv'), 'text/csv', `usage-${range.days[0]}-${range.days.at(-1)}.csv`);
              setCsv({ busy: false, error: null, done: `Downloaded ${file.name}.` });
            } catch (error) {
              setCsv({ busy: false, error, done: null });
            }
          }}
        >
          Download CSV
        </button>
      </div>
      <ErrorBanner error={csv.error} onDismiss={() => setCsv((c) => ({ ...c, error: null }))} />
      {csv.done && <Notice kind="success">{csv.done}</Notice>}
      <SpendChart data={spend} loading={byDay.loading} error={byDay.error} />
      <div className="grid-2">
        <TasksChart data={tasks} loading={byDay.loading} error={byDay.error} />
        <LatencyChart data={latency} loading={byModel.loading} error={byModel.error} />
      </div>
      <KeyBudgetChart keys={keys.data?.data} loading={keys.loading} error={keys.error} />
    </>
  );
}
