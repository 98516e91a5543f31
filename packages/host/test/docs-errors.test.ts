import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ERROR_CATALOGUE } from '@gengate/core';
import { describe, expect, it } from 'vitest';

describe('docs/errors.md', () => {
  const doc = readFileSync(join(import.meta.dirname, '../../../docs/errors.md'), 'utf8');

  it('documents every error type of the catalogue with its status', () => {
    for (const [type, entry] of Object.entries(ERROR_CATALOGUE)) {
      expect(doc, type).toContain(`| \`${type}\` | ${entry.status} |`);
    }
  });
});
