import type { GengateUseCases } from './create-gengate.js';
import type { Mailer } from '../ports/mailer.js';
import type { Clock, IdGenerator } from '../ports/system.js';
import type { AccountDirectory } from '../services/operators/account-directory.js';
import { OperatorService, type QueueInspector } from '../services/operators/operator-service.js';
import { DashboardAuth, DEFAULT_DASHBOARD_AUTH, type DashboardAuthOptions } from '../services/sessions/dashboard-auth.js';
import type { SessionStore } from '../services/sessions/session-store.js';
import type { SignInLinkQueue } from '../services/sessions/sign-in-link-queue.js';
import type { UsageReport } from '../services/usage-report.js';
import { CallerRoles } from '../services/caller-roles.js';
import { NO_ORGANIZATION_STORE } from '../ports/no-organization-store.js';

export interface DashboardServicesConfig {
  /** Its `routeHealth` (optional) feeds the operator's route view. */
  readonly gengate: Pick<GengateUseCases, 'stores' | 'unitOfWork' | 'logger' | 'registry' | 'keys' | 'admin' | 'usage'> & Partial<Pick<GengateUseCases, 'routeHealth' | 'roles'>>;
  readonly sessions: SessionStore;
  readonly directory: AccountDirectory;
  readonly mailer: Mailer;
  /** The host's job queues, for the operator's queue view; null when it has none. */
  readonly queues?: QueueInspector | null;
  /**
   * Where link requests wait for their mail (the host: a pg-boss queue whose worker calls auth.sendLink).
   * Default: sent in this process right after the answer, a failure logged and not retried.
   */
  readonly linkQueue?: SignInLinkQueue;
  readonly options: Partial<Omit<DashboardAuthOptions, 'linkUrl'>> & Pick<DashboardAuthOptions, 'linkUrl'>;
  readonly clock?: Clock;
  readonly ids?: IdGenerator;
}

export interface DashboardServices {
  readonly auth: DashboardAuth;
  readonly operators: OperatorService;
  readonly directory: AccountDirectory;
  /** Usage over the rollups: the operator's view across users (per user, per provider, over time). */
  readonly usage: UsageReport;
  /**
   * Memberships, for the organization a session selects (`X-Gengate-Organization`); without the
   * Gengate's `roles`, only the personal organization.
   */
  readonly roles: Pick<CallerRoles, 'roleIn'>;
}

/** The dashboard's own use cases (sign-in, sessions, operator views), built over a Gengate's stores and use cases. */
export function createDashboardServices(config: DashboardServicesConfig): DashboardServices {
  const { gengate } = config;
  const clock = config.clock ?? { now: () => new Date() };
  const ids = config.ids ?? { uuid: () => crypto.randomUUID() };
  const { stores, unitOfWork: uow } = gengate;
  const inProcess: SignInLinkQueue = {
    async enqueue(request) {
      setImmediate(() => {
        auth.sendLink(request).catch((err: unknown) => gengate.logger.warn({ err }, 'sending a sign-in link failed'));
      });
    },
  };
  const auth: DashboardAuth = new DashboardAuth(config.sessions, stores.users, config.directory, uow, config.mailer, config.linkQueue ?? inProcess, ids, clock, gengate.logger, {
    ...DEFAULT_DASHBOARD_AUTH,
    ...config.options,
  });
  const operators = new OperatorService(config.directory, gengate.registry, gengate.keys, gengate.admin, config.queues ?? null, clock, gengate.routeHealth);
  return { auth, operators, directory: config.directory, usage: gengate.usage, roles: gengate.roles ?? new CallerRoles(NO_ORGANIZATION_STORE) };
}
