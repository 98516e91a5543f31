export interface Clock {
  now(): Date;
}

export interface IdGenerator {
  /** A random UUID (v4). */
  uuid(): string;
}

export type LogFn = (obj: object, msg?: string) => void;

/** The subset of pino's logger the core uses. */
export interface Logger {
  debug: LogFn;
  info: LogFn;
  warn: LogFn;
  error: LogFn;
  child(bindings: Record<string, string | number>): Logger;
}

export const silentLogger: Logger = {
  debug: () => undefined,
  info: () => undefined,
  warn: () => undefined,
  error: () => undefined,
  child: () => silentLogger,
};
