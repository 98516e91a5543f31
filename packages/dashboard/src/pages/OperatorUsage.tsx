import { useState } from 'react';
import { api } from '../api/client';
import type { UsageReport } from '../api/usage-types';
import { RangePicker } from '../components/charts/RangePicker';
import { SpendChart } from '../components/charts/SpendChart';
import { useLoad } from '../components/common';
import { rangeOf, stackedByDay, type RangeDays } from '../usage/series';
import { OPERATOR_USAGE_PATH, usagePath } from '../usage/usage-api';

/**
 * The operator's view of every user's usage over time: credits per day by user and by provider
 * (GET /dashboard/api/operator/usage). Loaded lazily with the charting library.
 */
export default function OperatorUsage() {
  const [days, setDays] = useState<RangeDays>(30);
  const range = rangeOf(days);
  const byUser = useLoad(() => api<UsageReport>('GET', usagePath(range, ['day', 'user'], undefined, OPERATOR_USAGE_PATH)), [range.from, range.to]);
  const byProvider = useLoad(() => api<UsageReport>('GET', usagePath(range, ['day', 'provider'], undefined, OPERATOR_USAGE_PATH)), [range.from, range.to]);
  return (
    <section aria-labelledby="operator-usage-h" data-testid="operator-usage">
      <h2 id="operator-usage-h">Usage of every user</h2>
      <RangePicker name="operator-range" value={days} onChange={setDays} />
      <SpendChart
        id="chart-operator-users"
        dimension="user"
        data={byUser.data && stackedByDay(byUser.data.data, range.days, (r) => r.user_email ?? r.user_id ?? 'unknown', 'other users')}
        loading={byUser.loading}
        error={byUser.error}
      />
      <SpendChart
        id="chart-operator-providers"
        dimension="provider"
        data={byProvider.data && stackedByDay(byProvider.data.data, range.days, (r) => r.provider ?? 'unknown', 'other providers')}
        loading={byProvider.loading}
        error={byProvider.error}
      />
    </section>
  );
}
