import type { ModelDescriptor } from '../model/model.js';
import type { NormalizedRequest } from '../model/normalized-request.js';
import type { TaskRecord } from '../model/task.js';
import type { ProviderAdapter } from '../ports/provider-adapter.js';
import type { Logger } from '../ports/system.js';
import type { RoutePlan } from '../routing/route-plan.js';

// What one job did: `waiting` = a long-running upstream job is under way (a status check is scheduled);
// `deferred` = the provider's call limits were full, the step was rescheduled; `retrying` = a retryable
// upstream failure, a new attempt is scheduled. (A line comment, as on main where the TSDoc block did not
// reach the type: the API report keeps it undocumented.)
export type ExecuteOutcome = 'success' | 'fail' | 'skipped' | 'waiting' | 'deferred' | 'retrying';

/** A task on one route: `model`, `request` and `adapter` are the route's (the provider model called). */
export interface Prepared {
  readonly task: TaskRecord;
  readonly model: ModelDescriptor;
  readonly request: NormalizedRequest;
  readonly adapter: ProviderAdapter;
  readonly log: Logger;
  /** The task's plan when this step chose among candidates (a generation job), else null (following a started job). */
  readonly plan: RoutePlan | null;
}

/** An unfinished task that may still run: its requested model (routed or a provider model). */
export interface Runnable {
  readonly task: TaskRecord;
  readonly requested: ModelDescriptor;
  readonly log: Logger;
}
