import { injectable } from 'inversify';
/**
 * The upstream calls this process is making, by task: cancelling a task (here, or in another process
 * through the host's task-ended notifications) aborts its call at once instead of letting it run on.
 */
@injectable()
export class InflightCalls {
  private readonly calls = new Map<string, AbortController>();

  /** Registers a call; its signal aborts when the task is cancelled. Pair with end(). */
  begin(taskId: string): AbortSignal {
    const controller = new AbortController();
    this.calls.set(taskId, controller);
    return controller.signal;
  }

  end(taskId: string): void {
    this.calls.delete(taskId);
  }

  /** Aborts the task's call if this process is making one; true when it was. */
  abort(taskId: string, reason: string): boolean {
    const c = this.calls.get(taskId);
    if (!c) return false;
    c.abort(new TaskCancelled(reason));
    return true;
  }

  get size(): number {
    return this.calls.size;
  }
}

export class TaskCancelled extends Error {
  override readonly name = 'TaskCancelled';
}
