import { AsyncLocalStorage } from 'node:async_hooks';
import type { Logger as CoreLogger } from '@gengate/core';
import type { Logger } from 'pino';

const scope = new AsyncLocalStorage<() => Logger>();

/**
 * Runs the rest of a request's handling with its child logger (carrying the request id) in scope: `logger`
 * gives it, made on first use (most requests log no line of their own).
 */
export function runWithRequestLogger<T>(logger: () => Logger, fn: () => T): T {
  return scope.run(logger, fn);
}

/**
 * A logger for the use cases that writes through the current request's child logger when there is one,
 * so every line a request causes carries its request id; outside a request it is the base logger.
 */
export function createRequestScopedLogger(base: Logger): CoreLogger {
  const current = (): Logger => scope.getStore()?.() ?? base;
  const logger: CoreLogger = {
    debug: (obj, msg) => current().debug(obj, msg),
    info: (obj, msg) => current().info(obj, msg),
    warn: (obj, msg) => current().warn(obj, msg),
    error: (obj, msg) => current().error(obj, msg),
    child: (bindings) => createRequestScopedLogger(base.child(bindings)),
  };
  return logger;
}
