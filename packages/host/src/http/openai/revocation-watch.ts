import type { KeyStore } from '@gengate/core';

/**
 * Ends open streams of a revoked API key: while any stream is open, each key with open streams is checked
 * every `intervalMs` (one lookup per key, not per stream), and its streams' signals abort when it is gone.
 */
export class RevocationWatch {
  private readonly watched = new Map<string, { userId: string; controllers: Set<AbortController> }>();
  private timer: NodeJS.Timeout | null = null;
  private checking = false;

  constructor(
    private readonly keys: KeyStore,
    private readonly intervalMs = 250,
  ) {}

  /** A signal that aborts when the key is revoked; call the returned stop() when the stream ends. */
  watch(apiKeyId: string, userId: string): { signal: AbortSignal; stop: () => void } {
    const controller = new AbortController();
    let entry = this.watched.get(apiKeyId);
    if (!entry) {
      entry = { userId, controllers: new Set() };
      this.watched.set(apiKeyId, entry);
    }
    entry.controllers.add(controller);
    this.timer ??= setInterval(() => void this.check(), this.intervalMs).unref();
    const stop = () => {
      const e = this.watched.get(apiKeyId);
      e?.controllers.delete(controller);
      if (e && e.controllers.size === 0) this.watched.delete(apiKeyId);
      if (this.watched.size === 0 && this.timer) {
        clearInterval(this.timer);
        this.timer = null;
      }
    };
    return { signal: controller.signal, stop };
  }

  private async check(): Promise<void> {
    if (this.checking) return;
    this.checking = true;
    try {
      for (const [keyId, entry] of [...this.watched]) {
        const active = await this.keys.findActiveForUser(keyId, entry.userId).catch(() => 'unknown' as const);
        if (active === null) for (const c of entry.controllers) c.abort(new Error('The API key was revoked.'));
      }
    } finally {
      this.checking = false;
    }
  }
}
