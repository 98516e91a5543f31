import { describe, expect, it } from 'vitest';
import { requestHeaders } from './client';

describe('the headers of every dashboard request', () => {
  it('an /api/v1 request names the chosen organization, with the CSRF token', () => {
    expect(requestHeaders('/api/v1/billing/balance', 'application/json', false, { csrf: 'c', organization: 'org-1' })).toEqual({
      Accept: 'application/json',
      'X-CSRF-Token': 'c',
      'X-Gengate-Organization': 'org-1',
    });
    expect(requestHeaders('/api/v1/api-keys', 'application/json', true, { csrf: 'c', organization: 'org-1' })).toMatchObject({ 'Content-Type': 'application/json', 'X-Gengate-Organization': 'org-1' });
  });

  it('the dashboard\'s own endpoints do not, and nothing is named before an organization is chosen', () => {
    expect(requestHeaders('/dashboard/api/session', 'application/json', false, { csrf: 'c', organization: 'org-1' })).not.toHaveProperty('X-Gengate-Organization');
    expect(requestHeaders('/api/v1/organizations', 'application/json', false, { csrf: null, organization: null })).toEqual({ Accept: 'application/json' });
  });
});
