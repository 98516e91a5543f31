import { Container, ContainerModule } from 'inversify';
import { describe, expect, it } from 'vitest';
import { UNLIMITED_CALLS, type ProviderCallLimiter } from '../ports/call-limiter.js';
import { DEFAULT_DEADLINES_MS } from '../execution/execution-options.js';
import { DEFAULT_SCHEDULING } from '../execution/scheduling.js';
import { coreSettingsModule, resolveExecutionOptions, resolveScheduling } from './create-gengate.js';
import { TOKENS } from './tokens.js';

describe('coreSettingsModule', () => {
  it('binds the settings and the optional ports’ defaults, leaving a token a module loaded before has bound', () => {
    const limiter: ProviderCallLimiter = { acquire: async () => ({ acquired: true, release: async () => undefined }) };
    const host = new ContainerModule(({ bind }) => {
      bind(TOKENS.CallLimiter).toConstantValue(limiter);
    });
    const container = new Container();
    container.load(host, coreSettingsModule({ scheduling: { maxAttempts: 7 }, allowPrivateInputs: true }));
    expect(container.get(TOKENS.CallLimiter)).toBe(limiter);
    expect(container.get(TOKENS.AllowPrivateInputs)).toBe(true);
    expect(container.get(TOKENS.Scheduling)).toEqual({ ...DEFAULT_SCHEDULING, maxAttempts: 7 });
    expect(container.get(TOKENS.ExecutionOptions).scheduling.maxAttempts).toBe(7);

    const alone = new Container();
    alone.load(coreSettingsModule({}));
    expect(alone.get(TOKENS.CallLimiter)).toBe(UNLIMITED_CALLS);
  });

  it('merges the per-modality running slots and the deadlines one level deep over the defaults', () => {
    const scheduling = resolveScheduling({ maxRunningPerUser: { ...DEFAULT_SCHEDULING.maxRunningPerUser, video: 3 } });
    expect(scheduling.maxRunningPerUser).toEqual({ ...DEFAULT_SCHEDULING.maxRunningPerUser, video: 3 });
    const execution = resolveExecutionOptions({ deadlineMs: { ...DEFAULT_DEADLINES_MS, chat: 5 } }, scheduling);
    expect(execution.deadlineMs.chat).toBe(5);
    expect(execution.deadlineMs.video).toBe(DEFAULT_DEADLINES_MS.video);
    expect(execution.scheduling).toBe(scheduling);
    expect(execution.webhookUrl('p', 't')).toBeNull();
  });
});
