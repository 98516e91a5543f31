import { describe, expect, it } from 'vitest';
import { MINIMUM_NODE_VERSION, nodeVersionProblem } from './node-version.js';

describe('nodeVersionProblem', () => {
  it('accepts the minimum and anything newer', () => {
    for (const v of [MINIMUM_NODE_VERSION, '22.19.1', '22.22.0', '23.0.0', '24.21.0', 'v24.0.0', '30.0.0']) expect(nodeVersionProblem(v), v).toBeNull();
  });

  it('refuses anything older with one line naming the version needed and the version found', () => {
    for (const v of ['22.18.9', '22.0.0', '20.20.2', '18.19.0', 'v21.7.3']) {
      const line = nodeVersionProblem(v);
      expect(line, v).toBe(
        `gengate needs Node.js 22.19.0 or later; this is Node.js ${v.replace(/^v/, '')}. Install a current Node.js (22 LTS from 22.19, or 24) and run it again.`,
      );
      expect(line).not.toContain('\n');
    }
  });
});
