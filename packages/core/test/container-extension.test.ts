import { injectable, injectFromBase } from 'inversify';
import { describe, expect, it } from 'vitest';
import {
  createGengate,
  createGengateContainer,
  FailTask,
  GetTask,
  InflightCalls,
  ModelRegistry,
  PriceBook,
  resolveGengate,
  TOKENS,
  type UpstreamMetadata,
} from '../src/internal.js';
import { config, runOneTask } from './support/container-fixture.js';

describe('the container is the extension point', () => {
  it('a FailTask rebound before anything resolves is the one ExecuteTask uses', async () => {
    const failures: string[] = [];
    class AnnotatedFailTask extends FailTask {
      override execute(taskId: string, errorMessage: string, metadata?: UpstreamMetadata): Promise<boolean> {
        failures.push(taskId);
        return super.execute(taskId, `${errorMessage} [seen by the embedder]`, metadata);
      }
    }
    const gengate = createGengate(config(true), {
      configure: (c) => {
        c.rebind(TOKENS.FailTask)
          .toDynamicValue((ctx) => new AnnotatedFailTask(ctx.get(TOKENS.TaskCompletion), ctx.get(TOKENS.Scheduling)))
          .inSingletonScope();
      },
    });
    const task = await runOneTask(gengate);
    expect(task.status).toBe('fail');
    expect(task.error_message).toMatch(/the prompt is not acceptable.*\[seen by the embedder\]$/);
    expect(failures).toEqual([task.task_id]);
    expect(gengate.failTask).toBeInstanceOf(AnnotatedFailTask);
  });

  it('a subclass of a use case bound with to() takes its parent\'s injections (@injectFromBase)', async () => {
    const failures: string[] = [];
    @injectable()
    @injectFromBase()
    class CountingFailTask extends FailTask {
      override execute(taskId: string, errorMessage: string, metadata?: UpstreamMetadata): Promise<boolean> {
        failures.push(taskId);
        return super.execute(taskId, errorMessage, metadata);
      }
    }
    const gengate = createGengate(config(true), { configure: (c) => c.rebind(TOKENS.FailTask).to(CountingFailTask).inSingletonScope() });
    const task = await runOneTask(gengate);
    expect(task.status).toBe('fail');
    expect(failures).toEqual([task.task_id]);
  });

  it('a use case injected by its class (@inject(FailTask)) is the service of its public token, rebound or not', () => {
    const container = createGengateContainer(config(false));
    const byClass = [
      [ModelRegistry, TOKENS.Registry],
      [PriceBook, TOKENS.PriceBook],
      [InflightCalls, TOKENS.InflightCalls],
      [FailTask, TOKENS.FailTask],
      [GetTask, TOKENS.GetTask],
    ] as const;
    for (const [cls, token] of byClass) expect(container.get<object>(cls), cls.name).toBe(container.get<object>(token));

    const rebound = createGengateContainer(config(false));
    @injectable()
    @injectFromBase()
    class OtherGetTask extends GetTask {}
    rebound.rebind(TOKENS.GetTask).to(OtherGetTask).inSingletonScope();
    expect(rebound.get(GetTask)).toBeInstanceOf(OtherGetTask);
    expect(rebound.get(GetTask)).toBe(rebound.get(TOKENS.GetTask));
  });

  it('a rebound Clock port reaches the worker: a clock past the deadline ends the task in fail instead of success', async () => {
    const plain = await runOneTask(createGengate(config(false)));
    expect(plain.status).toBe('success');

    const container = createGengateContainer(config(false));
    let calls = 0;
    // Each reading is an hour later than the last: the generation's deadline has passed when it is checked.
    container.rebind(TOKENS.Clock).toConstantValue({ now: () => new Date(Date.UTC(2030, 0, 1) + calls++ * 3_600_000) });
    const late = await runOneTask(resolveGengate(container));
    expect(late.status).toBe('fail');
    expect(late.error_message).toMatch(/deadline|time/i);
    expect(calls).toBeGreaterThan(0);
  });

  it('resolves nothing until a use case is first used', () => {
    const container = createGengateContainer(config(false));
    let built = 0;
    container.rebind(TOKENS.Registry).toDynamicValue(() => {
      built += 1;
      throw new Error('resolved too early');
    });
    const gengate = resolveGengate(container);
    expect(built).toBe(0);
    expect(() => gengate.catalog).toThrow('resolved too early');
  });
});
