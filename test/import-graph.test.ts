import { cruise, type ICruiseResult } from 'dependency-cruiser';
import { describe, expect, it } from 'vitest';
import config from '../.dependency-cruiser.mjs';

/**
 * The import graph of every package's source against .dependency-cruiser.mjs: the package direction
 * (core <- adapters <- host, testing beside), the layers inside each package (no import runs back up)
 * and no circle. A failure prints each violation as `rule: from -> to`.
 */
const SOURCES = ['core', 'adapters', 'host', 'testing', 'client', 'dashboard'].map((p) => `packages/${p}/src`);

async function violations(): Promise<string[]> {
  const { output } = await cruise(SOURCES, { ...config.options, validate: true, ruleSet: { forbidden: config.forbidden } });
  const result = output as ICruiseResult;
  return result.summary.violations.map((v) => {
    const path = v.cycle?.length ? ` (circle: ${[v.from, ...v.cycle.map((c) => c.name)].join(' -> ')})` : '';
    return `${v.rule.name}: ${v.from} -> ${v.to}${path}`;
  });
}

describe('import graph', () => {
  it('has no upward import inside a package, no import against the package direction and no circle', { timeout: 120_000 }, async () => {
    const found = await violations();
    if (found.length > 0) console.error(`${found.length} import-graph violations:\n  ${found.join('\n  ')}`);
    expect(found).toEqual([]);
  });
});
