import type { GateState, SubmissionGate } from '@gengate/core';
import type { QueueSampler } from './queue-sampler.js';

/**
 * Back-pressure on the generation queue: closed while the sampled number of waiting generation jobs is
 * at or above the limit. The sample is at most one interval old, so N API processes accepting R
 * submissions a second each can overshoot the limit by about N x R x interval (documented in
 * docs/deployment.md).
 */
export class QueueDepthGate implements SubmissionGate {
  constructor(
    private readonly sampler: Pick<QueueSampler, 'get'>,
    private readonly queue: string,
    private readonly limit: number,
    private readonly retryAfterSeconds = 5,
  ) {}

  state(): GateState {
    const waiting = this.sampler.get(this.queue).waiting;
    return waiting < this.limit ? { open: true } : { open: false, waiting, limit: this.limit, retryAfterSeconds: this.retryAfterSeconds };
  }
}
