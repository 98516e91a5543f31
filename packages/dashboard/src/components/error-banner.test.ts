import { createElement } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import { ApiError } from '../api/client';
import { ErrorBanner } from './common';

const html = (error: unknown): string => renderToStaticMarkup(createElement(ErrorBanner, { error }));

describe('the error banner', () => {
  it('a refusal for the role says so in words, then the API message (which names the role needed)', () => {
    const out = html(new ApiError('This needs the owner role in the organization.', 403, 'insufficient_role', null));
    expect(out).toContain('role="alert"');
    expect(out).toContain('Not allowed with your role in this organization.');
    expect(out).toContain('This needs the owner role in the organization.');
  });

  it('any other error is the API message alone; no error, no banner', () => {
    const out = html(new ApiError('This invitation link has expired: ask for a new one.', 410, 'invitation_expired', 'token'));
    expect(out).toContain('This invitation link has expired: ask for a new one.');
    expect(out).not.toContain('Not allowed');
    expect(html(null)).toBe('');
  });
});
