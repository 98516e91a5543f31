import { describe, expect, it } from 'vitest';
import { UpstreamError } from '../errors/upstream-error.js';
import type { ModelDescriptor } from '../model/model.js';
import { failureMessage } from './task-failure.js';

const model = { provider: 'openai' } as ModelDescriptor;

describe('task failure messages', () => {
  it('names the setting to check when a configured provider rejects the gateway’s key, never the key', () => {
    const e = new UpstreamError('Incorrect API key provided: sk-proj-abcdefghijklmnop', { kind: 'authentication', statusCode: 401, requestId: 'req_1' });
    const m = failureMessage(model, e, { available: true, settings: ['OPENAI_API_KEY'] }, ['sk-proj-abcdefghijklmnop']);
    expect(m).toBe("Provider openai rejected the gateway's credentials: the gateway is misconfigured, and its operator must check OPENAI_API_KEY (upstream request id req_1). No credits were charged.");
    expect(m).not.toContain('sk-proj');
  });

  it('redacts secrets and key-shaped text from any upstream detail', () => {
    const e = new UpstreamError('bad request for key AIzaSyA1234567890abcdefgh and sk-live-secret-value', { kind: 'invalid_input' });
    const m = failureMessage(model, e, { available: true }, ['sk-live-secret-value']);
    expect(m).not.toContain('AIzaSy');
    expect(m).not.toContain('sk-live-secret-value');
    expect(m).toContain('[redacted]');
  });

  it('keeps an unexpected error short and redacted', () => {
    const m = failureMessage(model, new Error(`boom ${'x'.repeat(500)}`), { available: true }, []);
    expect(m.length).toBeLessThan(300);
    expect(m).toMatch(/^Generation failed at provider openai: boom x+\. No credits were charged\.$/);
  });
});
