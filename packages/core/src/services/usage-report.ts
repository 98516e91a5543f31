import { inject, injectable } from 'inversify';
import { GatewayError } from '../errors/gateway-error.js';
import { addLatencyHistograms, emptyLatencyHistogram, latencyPercentile } from '../model/latency-histogram.js';
import { checkUsageQuery, usageQuerySchema } from '../model/usage-query.schema.js';
import { USAGE_GROUPS, type UsageCounts, type UsageDimension, type UsageGroupRow } from '../model/usage.js';
import { TOKENS } from '../ports/tokens.js';
import type { Clock } from '../ports/system.js';
import type { OrganizationStore } from '../ports/organization-store.js';
import type { UsageReader } from '../ports/usage-reader.js';
import { microToCredits } from '../util/money.js';
import type { AuthContext } from './auth-context.js';
import { memberOf, roleOf } from './organizations/role-check.js';

/** The figures of a usage row or of the totals, as the API answers them. */
export interface UsageFiguresView {
  credits: number;
  tasks: number;
  failures: number;
  input_tokens: number;
  output_tokens: number;
  images: number;
  video_seconds: number;
  latency_p50_ms: number | null;
  latency_p95_ms: number | null;
}

/** One row: the group fields asked for, then the figures. */
export interface UsageRowView extends UsageFiguresView {
  day?: string;
  hour?: string;
  model?: string;
  provider?: string;
  key_id?: string | null;
  key_name?: string | null;
  user_id?: string;
  user_email?: string | null;
  member_id?: string;
  member_email?: string | null;
}

export interface UsageReportView {
  from: string;
  to: string;
  group_by: UsageDimension[];
  data: UsageRowView[];
  totals: UsageFiguresView;
}

/** A checked usage request: the report and the format the caller asked for. */
export interface UsageAnswer {
  readonly report: UsageReportView;
  readonly format: 'json' | 'csv' | null;
}

/** The columns of each group dimension, in CSV order. */
export const USAGE_GROUP_COLUMNS: Readonly<Record<UsageDimension, readonly (keyof UsageRowView)[]>> = {
  day: ['day'],
  hour: ['hour'],
  model: ['model'],
  provider: ['provider'],
  key: ['key_id', 'key_name'],
  user: ['user_id', 'user_email'],
  member: ['member_id', 'member_email'],
};
export const USAGE_FIGURE_COLUMNS: readonly (keyof UsageFiguresView)[] = [
  'credits', 'tasks', 'failures', 'input_tokens', 'output_tokens', 'images', 'video_seconds', 'latency_p50_ms', 'latency_p95_ms',
];

function figures(c: UsageCounts): UsageFiguresView {
  return {
    credits: microToCredits(c.creditsMicro),
    tasks: c.tasks,
    failures: c.failures,
    input_tokens: c.inputTokens,
    output_tokens: c.outputTokens,
    images: c.images,
    video_seconds: c.videoMs / 1000,
    latency_p50_ms: latencyPercentile(c.latencyHistogram, 50),
    latency_p95_ms: latencyPercentile(c.latencyHistogram, 95),
  };
}

function total(rows: readonly UsageGroupRow[]): UsageCounts {
  const sum = { creditsMicro: 0, tasks: 0, failures: 0, inputTokens: 0, outputTokens: 0, images: 0, videoMs: 0, latencyHistogram: emptyLatencyHistogram() };
  for (const { counts: c } of rows) {
    sum.creditsMicro += c.creditsMicro;
    sum.tasks += c.tasks;
    sum.failures += c.failures;
    sum.inputTokens += c.inputTokens;
    sum.outputTokens += c.outputTokens;
    sum.images += c.images;
    sum.videoMs += c.videoMs;
    addLatencyHistograms(sum.latencyHistogram, c.latencyHistogram);
  }
  return sum;
}

function rowView(r: UsageGroupRow, groupBy: readonly UsageDimension[]): UsageRowView {
  const groups: Partial<UsageRowView> = {};
  for (const g of groupBy) {
    if (g === 'day') groups.day = r.day ?? '';
    if (g === 'hour') groups.hour = r.hour?.toISOString() ?? '';
    if (g === 'model') groups.model = r.modelId ?? '';
    if (g === 'provider') groups.provider = r.provider ?? '';
    if (g === 'key') Object.assign(groups, { key_id: r.apiKeyId ?? null, key_name: r.keyName ?? null });
    if (g === 'user') Object.assign(groups, { user_id: r.userId ?? '', user_email: r.userEmail ?? null });
    if (g === 'member') Object.assign(groups, { member_id: r.memberId ?? '', member_email: r.memberEmail ?? null });
  }
  return { ...groups, ...figures(r.counts) };
}

/**
 * GET /usage and the operator's usage: the query checked (400 naming the parameter, nothing read), the
 * rollups read through the UsageReader, percentiles taken from the merged latency histograms.
 */
@injectable()
export class UsageReport {
  constructor(
    @inject(TOKENS.UsageReader) private readonly reader: UsageReader,
    @inject(TOKENS.Clock) private readonly clock: Clock,
    @inject(TOKENS.OrganizationStore) private readonly organizations: OrganizationStore,
  ) {}

  /**
   * The caller's organization's usage (only it: the reader is always given its id). An owner or admin sees
   * every member's; a caller whose role is `member` only their own (the `member` filter forced to
   * themselves, docs/organizations.md). A personal organization's owner costs no role read.
   */
  async forCaller(auth: AuthContext, rawQuery: unknown): Promise<UsageAnswer> {
    const role = await roleOf(this.organizations, auth);
    return this.answer(auth.userId, rawQuery, USAGE_GROUPS, role === 'member' ? memberOf(auth) : null);
  }

  /** Every user's usage, for an operator (who may group by `user` and filter by `user_id`). */
  async forOperator(rawQuery: unknown): Promise<UsageAnswer> {
    return this.answer(null, rawQuery, [...USAGE_GROUPS, 'user'], null);
  }

  private async answer(userId: string | null, rawQuery: unknown, allowed: readonly UsageDimension[], forcedMember: string | null): Promise<UsageAnswer> {
    const parsed = usageQuerySchema.safeParse(rawQuery ?? {});
    if (!parsed.success) throw GatewayError.fromZod(parsed.error);
    const q = parsed.data;
    if (userId !== null && q.user_id !== undefined) throw new GatewayError('invalid_request', 'Unknown field(s): user_id.', { param: 'user_id' });
    const checked = checkUsageQuery(q, this.clock.now(), allowed);
    if (!checked.ok) throw new GatewayError('invalid_request', checked.message, { param: checked.param });
    const rows = await this.reader.read({
      userId: userId ?? q.user_id ?? null,
      from: checked.from,
      to: checked.to,
      groupBy: checked.groupBy,
      ...(q.model === undefined ? {} : { modelId: q.model }),
      ...(q.key_id === undefined ? {} : { apiKeyId: q.key_id }),
      ...(q.provider === undefined ? {} : { provider: q.provider }),
      ...(forcedMember !== null ? { memberId: forcedMember } : q.member === undefined ? {} : { memberId: q.member.toLowerCase() }),
    });
    return {
      format: q.format ?? null,
      report: {
        from: checked.from.toISOString(),
        to: checked.to.toISOString(),
        group_by: [...checked.groupBy],
        data: rows.map((r) => rowView(r, checked.groupBy)),
        totals: figures(total(rows)),
      },
    };
  }
}
