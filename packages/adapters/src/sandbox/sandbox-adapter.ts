import { setTimeout as sleep } from 'node:timers/promises';
import {
  ADAPTER_SPECIFICATION_VERSION,
  isUpstreamError,
  upstreamErrorFromNetwork,
  UpstreamError,
  type AdapterCall,
  type GenerationResult,
  type JsonValue,
  type LongRunningStatus,
  type ModelDescriptor,
  type NormalizedImageRequest,
  type NormalizedVideoRequest,
  type ProviderAdapter,
  type StartedJob,
  type TaskWarning,
} from '@gengate/core/adapter';
import { dimensionsFor, hashString, renderAnimatedGif, renderPng } from './media/index.js';
import type { LanguageModelV4 } from '@ai-sdk/provider';
import { SandboxLanguageModel } from './sandbox-language-model.js';
import { sandboxChatWarnings, sandboxReply } from './sandbox-chat.js';
import { SANDBOX_FAIL_MARKER, SANDBOX_MODELS } from './sandbox-models.js';

export interface SandboxLatency {
  readonly chat: number;
  readonly image: number;
  readonly video: number;
}

export interface SandboxAdapterOptions {
  /** Simulated generation time per modality, in milliseconds. Default chat 300, image 800, video 4000. */
  readonly latencyMs?: Partial<SandboxLatency>;
  /** Extra latency per task, 0..jitter ms, derived from the task id (deterministic). Default 0. */
  readonly latencyJitterMs?: number;
  /** Delay between status checks of a running video. Default 250 ms. */
  readonly statusPollIntervalMs?: number;
  /** Frames per second of sandbox videos. Default 8. */
  readonly fps?: number;
  readonly now?: () => number;
}

export const DEFAULT_SANDBOX_LATENCY: SandboxLatency = { chat: 300, image: 800, video: 4_000 };

/** Long side in pixels of the sandbox's preview video per requested resolution. */
const VIDEO_LONG_SIDE: Readonly<Record<string, number>> = { '720p': 320, '1080p': 480 };
const videoLongSide = (resolution: string): number => VIDEO_LONG_SIDE[resolution] ?? 320;

interface VideoHandle {
  readonly [key: string]: JsonValue;
  readonly sandboxJob: string;
  readonly startedAt: number;
  readonly readyAt: number;
}

function isVideoHandle(h: JsonValue): h is VideoHandle {
  return typeof h === 'object' && h !== null && !Array.isArray(h) && typeof h['sandboxJob'] === 'string' && typeof h['readyAt'] === 'number';
}

function requestedFailure(call: AdapterCall): boolean {
  return call.model.id === SANDBOX_MODELS.fail.id || (call.request.prompt ?? '').includes(SANDBOX_FAIL_MARKER);
}

const FAILURE_MESSAGE = `The sandbox was asked to fail (model ${SANDBOX_MODELS.fail.id} or a prompt containing ${SANDBOX_FAIL_MARKER}).`;

function imageWarnings(req: NormalizedImageRequest): TaskWarning[] {
  return req.imageUrls.length > 0 ? [{ param: 'image_params.image_urls', message: 'The sandbox does not download reference images; they only change the seed.' }] : [];
}

function videoWarnings(req: NormalizedVideoRequest): TaskWarning[] {
  const w: TaskWarning[] = [
    { param: 'video_params.resolution', message: `The sandbox renders a ${videoLongSide(req.resolution)}px preview GIF for ${req.resolution}.` },
  ];
  if (req.enableTranslation) w.push({ param: 'video_params.enable_translation', message: 'The sandbox does not translate prompts.' });
  if (req.imageUrls.length + req.videoUrls.length > 0) {
    w.push({ param: 'video_params.image_urls', message: 'The sandbox does not download reference media; they only change the seed.' });
  }
  return w;
}

/** The offline provider: chat and image are one-shot, video is long-running (stateless handle, survives restarts). */
export class SandboxAdapter implements ProviderAdapter {
  readonly specificationVersion = ADAPTER_SPECIFICATION_VERSION;
  readonly providerId = 'sandbox';
  readonly models: readonly ModelDescriptor[] = Object.values(SANDBOX_MODELS);
  private readonly statusPollIntervalMs: number;
  private readonly latency: SandboxLatency;
  private readonly fps: number;
  private readonly jitter: number;
  private readonly now: () => number;

  constructor(options: SandboxAdapterOptions = {}) {
    this.latency = { ...DEFAULT_SANDBOX_LATENCY, ...options.latencyMs };
    this.statusPollIntervalMs = options.statusPollIntervalMs ?? 250;
    this.fps = options.fps ?? 8;
    this.jitter = options.latencyJitterMs ?? 0;
    this.now = options.now ?? Date.now;
  }

  isLongRunning(modelId: string): boolean {
    return modelId === SANDBOX_MODELS.video.id;
  }

  async generate(call: AdapterCall): Promise<GenerationResult> {
    const req = call.request;
    const latency = this.latencyFor(call);
    // No latency, no timer: the answer is ready in this turn (a sleep(0) would cost a timer and a turn of the
    // event loop per task). An aborted call still rejects as the sleep rejects it.
    if (latency > 0 || call.abortSignal.aborted) await sleep(latency, undefined, { signal: call.abortSignal });
    if (requestedFailure(call)) throw new UpstreamError(FAILURE_MESSAGE, { kind: 'invalid_input' });
    switch (req.modality) {
      case 'chat': {
        const { text, usage } = sandboxReply(req);
        return {
          files: [{ kind: 'bytes', data: new TextEncoder().encode(text), mediaType: 'text/plain' }],
          usage,
          warnings: sandboxChatWarnings(req),
          metadata: { requestId: `sandbox-${call.taskId}`, finishReason: usage.outputTokens >= req.maxTokens ? 'length' : 'stop' },
        };
      }
      case 'image': {
        const seed = req.seed ?? hashString(call.taskId);
        const salt = [req.negativePrompt ?? '', ...req.imageUrls].join('|');
        const files = await Promise.all(
          Array.from({ length: req.n }, async (_, i) => ({
            kind: 'bytes' as const,
            data: await renderPng({ width: req.width, height: req.height, seed: (seed + i) >>> 0, prompt: `${req.prompt ?? ''}${salt}` }),
            mediaType: 'image/png',
          })),
        );
        return { files, usage: { images: files.length }, warnings: imageWarnings(req) };
      }
      case 'video':
        throw new Error('sandbox video is long-running: use start/status');
    }
  }

  /** Starts a fake job; what the sandbox ignores is reported with the handle (stored on the task at start). */
  async start(call: AdapterCall): Promise<StartedJob> {
    if (call.request.modality !== 'video') throw new Error('sandbox start() serves video only');
    const startedAt = this.now();
    call.abortSignal.throwIfAborted();
    const handle: VideoHandle = { sandboxJob: call.taskId, startedAt, readyAt: startedAt + this.latencyFor(call) };
    return { handle, warnings: videoWarnings(call.request) };
  }

  async status(handle: JsonValue, call: AdapterCall): Promise<LongRunningStatus> {
    const req = call.request;
    call.abortSignal.throwIfAborted();
    if (!isVideoHandle(handle) || req.modality !== 'video') throw new UpstreamError('Unknown sandbox job handle.');
    const now = this.now();
    if (now < handle.readyAt) {
      const total = Math.max(1, handle.readyAt - handle.startedAt);
      return { state: 'running', progress: Math.min(0.99, (now - handle.startedAt) / total) };
    }
    if (requestedFailure(call)) return { state: 'failed', error: new UpstreamError(FAILURE_MESSAGE, { kind: 'invalid_input' }) };
    const { width, height } = dimensionsFor(req.aspectRatio, videoLongSide(req.resolution));
    const salt = [req.watermark ?? '', req.multiShots ? 'multi' : '', ...req.imageUrls, ...req.videoUrls].join('|');
    const data = await renderAnimatedGif({
      width,
      height,
      seed: hashString(handle.sandboxJob),
      prompt: `${req.prompt ?? ''}${salt}`,
      frames: req.duration * this.fps,
      fps: this.fps,
    });
    return { state: 'succeeded', result: { files: [{ kind: 'bytes', data, mediaType: 'image/gif' }] } };
  }

  /** v3: the chat model as an AI SDK language model, streamed word by word over the configured chat latency. */
  languageModel(modelId: string): LanguageModelV4 {
    const model = this.models.find((m) => m.id === modelId);
    if (model?.modality !== 'chat') throw new Error(`the sandbox has no chat model ${modelId}`);
    return new SandboxLanguageModel(modelId, this.latency.chat);
  }

  /** v3: the sandbox throws and streams UpstreamErrors; anything else is a broken stream. */
  upstreamError(error: unknown): UpstreamError {
    return isUpstreamError(error) ? error : upstreamErrorFromNetwork(error);
  }

  private latencyFor(call: AdapterCall): number {
    return this.latency[call.request.modality] + (this.jitter > 0 ? hashString(call.taskId) % (this.jitter + 1) : 0);
  }

  pollDelayMs(): number {
    return this.statusPollIntervalMs;
  }

  async cancel(): Promise<void> {
    // Nothing runs upstream: the handle is pure data, so there is nothing to stop.
  }
}

export function createSandboxAdapter(options?: SandboxAdapterOptions): SandboxAdapter {
  return new SandboxAdapter(options);
}
