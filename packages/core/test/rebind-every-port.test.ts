import { describe, expect, it } from 'vitest';
import type { ServiceIdentifier } from 'inversify';
import {
  createGengate,
  createGengateContainer,
  createMemoryStores,
  PORT_TOKENS,
  resolveGengate,
  SETTING_TOKENS,
  TOKENS,
  USE_CASE_TOKENS,
  type ModelDescriptor,
  type TokenName,
} from '../src/index.js';
import { adapter, config, model, runOneTask } from './support/container-fixture.js';

type Port = Exclude<(typeof PORT_TOKENS)[number], 'Adapters' | 'Stores'>;

/** A stand-in for a port: the same behaviour (every call goes to the original), another identity, calls counted. */
function recording<T extends object>(original: T, calls: Map<string, number>, name: string): T {
  return new Proxy(original, {
    get(target, key) {
      const value: unknown = Reflect.get(target, key, target);
      if (typeof value !== 'function') return value;
      return (...args: unknown[]) => {
        calls.set(name, (calls.get(name) ?? 0) + 1);
        return Reflect.apply(value, target, args);
      };
    },
  });
}

/** Every object a use case holds: its fields, and the fields of the helpers it built from its parameters. */
function heldBy(root: object, depth = 3): Set<unknown> {
  const seen = new Set<unknown>();
  const visit = (value: unknown, level: number): void => {
    if (value === null || typeof value !== 'object' || seen.has(value)) return;
    seen.add(value);
    if (level === 0 || value instanceof Map || Array.isArray(value) || markers.has(value)) return;
    for (const field of Object.values(value)) visit(field, level - 1);
  };
  visit(root, depth);
  seen.delete(root);
  return seen;
}
const markers = new Set<unknown>();

describe('an embedder replaces any port by rebinding it before the first resolve', () => {
  it('every token is a port, a setting or a use case (a new port is then rebound by the test below)', () => {
    const listed: readonly TokenName[] = [...PORT_TOKENS, ...SETTING_TOKENS, ...USE_CASE_TOKENS];
    expect([...listed].sort()).toEqual(Object.keys(TOKENS).sort());
    expect(new Set(listed).size).toBe(listed.length);
  });

  it('every port rebound is the one the use cases hold (none holds the original), and a task runs through them', async () => {
    // Results kept in the blob store (not with the task), so that the run goes through the rebound BlobStore too.
    const container = createGengateContainer({ ...config(false), execution: { inlineResultMaxBytes: 0 } });
    const calls = new Map<string, number>();
    const originals = new Map<Port, object>();
    const rebound = new Map<Port, object>();
    const ports = PORT_TOKENS.filter((name): name is Port => name !== 'Adapters' && name !== 'Stores');
    for (const name of ports) {
      const token = TOKENS[name] as ServiceIdentifier<object>;
      const original: object = container.get(token);
      const replacement = recording(original, calls, name);
      originals.set(name, original);
      rebound.set(name, replacement);
      markers.add(replacement);
      container.rebind(token).toConstantValue(replacement as never);
    }
    // The adapters list: the registry serves the rebound adapters' models, not the configured ones.
    const other: ModelDescriptor = { ...model, id: 'other.image', provider: 'other' };
    container.rebind(TOKENS.Adapters).toConstantValue([{ ...adapter(false), providerId: 'other', models: [other] }]);

    const gengate = resolveGengate(container);
    const useCases = USE_CASE_TOKENS.map((name) => ({ name, instance: container.get(TOKENS[name] as ServiceIdentifier<object>) }));
    const held = new Map(useCases.map(({ name, instance }) => [name, heldBy(instance)]));
    for (const name of ports) {
      const holders = useCases.filter((u) => held.get(u.name)?.has(rebound.get(name))).map((u) => u.name);
      const stale = useCases.filter((u) => held.get(u.name)?.has(originals.get(name))).map((u) => u.name);
      expect({ port: name, stale }).toEqual({ port: name, stale: [] });
      expect(holders.length, `${name} is held by no use case`).toBeGreaterThan(0);
    }
    expect(gengate.registry.all().map((m) => m.id)).toEqual(['other.image']);

    // Behaviour is unchanged through the stand-ins, and the run went through them.
    const task = await runOneTask(gengate, other.id);
    expect(task.status).toBe('success');
    for (const name of ['UnitOfWork', 'TaskIntake', 'TaskCompletion', 'BlobStore', 'Clock', 'Ids', 'TaskStore', 'KeyStore', 'ResultUrls', 'CallLimiter'] as const) {
      expect(calls.get(name) ?? 0, `${name} was not called`).toBeGreaterThan(0);
    }
  });

  it('a rebound Stores is what the stores each use case reads come from (the per-store tokens follow it)', async () => {
    const { scope } = createMemoryStores();
    const gengate = createGengate(config(false), { configure: (c) => c.rebind(TOKENS.Stores).toConstantValue(scope) });
    const container = gengate.container;
    expect(container.get(TOKENS.TaskStore)).toBe(scope.tasks);
    expect(container.get(TOKENS.KeyStore)).toBe(scope.keys);
    expect(container.get(TOKENS.Ledger)).toBe(scope.ledger);
    expect(container.get(TOKENS.AlertStore)).toBe(scope.alerts);
    expect(heldBy(gengate.getTask).has(scope.tasks)).toBe(true);
    expect(heldBy(gengate.authenticate).has(scope.keys)).toBe(true);
  });
});
