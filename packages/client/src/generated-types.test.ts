import { describe, expect, it } from 'vitest';
import { clientTypes, currentClientTypes } from '../../../scripts/generate-client.js';

describe('generated/openapi.ts', () => {
  it('is what openapi-typescript makes of docs/openapi.yaml now (else run `npm run generate:client`)', async () => {
    expect(currentClientTypes()).toBe(await clientTypes());
  });
});
