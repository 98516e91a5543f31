/*
 * A fake of the Gemini API (Google AI for developers), following its documented shapes:
 * - generateContent: https://ai.google.dev/api/generate-content (POST /v1beta/models/{model}:generateContent
 *   with the `x-goog-api-key` header; request `contents`, `systemInstruction`, `generationConfig`
 *   (`temperature`, `topP`, `maxOutputTokens`, `seed`, `responseModalities`, `imageConfig.aspectRatio`,
 *   `thinkingConfig`), `safetySettings`; response `candidates[].content.parts[]` (`text`, or
 *   `inlineData {mimeType, data}` for images), `finishReason` (STOP, MAX_TOKENS, SAFETY, IMAGE_SAFETY...),
 *   `usageMetadata`, `modelVersion`, `responseId`).
 * - streamGenerateContent with `alt=sse`: https://ai.google.dev/api/generate-content#method:-models.streamgeneratecontent
 *   (server-sent `data:` events, each a GenerateContentResponse with the next text parts; the last carries
 *   `finishReason` and `usageMetadata`).
 * - Function calling: https://ai.google.dev/gemini-api/docs/function-calling (request `tools[].functionDeclarations`
 *   and `toolConfig.functionCallingConfig`; answer a `functionCall {name, args}` part; the next turn carries a
 *   `functionResponse` part) and structured output: https://ai.google.dev/gemini-api/docs/structured-output
 *   (`generationConfig.responseMimeType: application/json` with `responseSchema` or `responseJsonSchema`).
 * - Image generation with Gemini image models and their 1K output sizes per aspect ratio:
 *   https://ai.google.dev/gemini-api/docs/image-generation
 * - Errors: https://ai.google.dev/gemini-api/docs/troubleshooting (body `{ error: { code, message, status,
 *   details } }`: 400 INVALID_ARGUMENT (also for a bad key, reason API_KEY_INVALID), 403 PERMISSION_DENIED,
 *   404 NOT_FOUND, 429 RESOURCE_EXHAUSTED with a RetryInfo `retryDelay`, 500 INTERNAL, 503 UNAVAILABLE).
 */
import { FakeUpstream, type FakeFault, type FakeReply, type FakeRoute, type RecordedCall } from '../fake-upstream.js';
import { countTokens, echoReply, FAKE_REFUSE_MARKER, fakeId, fillSchema, isRecord } from '../fake-text.js';
import { colourOf, solidPng } from '../png.js';

/** Output sizes of the Gemini 3 image models at the default 1K resolution, per aspect ratio. */
export const GEMINI_IMAGE_SIZES_1K: Readonly<Record<string, readonly [number, number]>> = {
  '1:1': [1024, 1024],
  '2:3': [848, 1264],
  '3:2': [1264, 848],
  '3:4': [896, 1200],
  '4:3': [1200, 896],
  '4:5': [928, 1152],
  '5:4': [1152, 928],
  '9:16': [768, 1376],
  '16:9': [1376, 768],
  '21:9': [1584, 672],
};

export function googleError(code: number, status: string, message: string, details: unknown[] = []): FakeReply {
  return { status: code, body: { error: { code, message, status, ...(details.length > 0 ? { details } : {}) } } };
}

function textOf(contents: unknown): string {
  if (!Array.isArray(contents)) return '';
  return contents
    .filter(isRecord)
    .flatMap((c) => (Array.isArray(c['parts']) ? c['parts'] : []))
    .map((p) => (isRecord(p) && typeof p['text'] === 'string' ? p['text'] : ''))
    .join('\n');
}

function usage(prompt: number, candidates: number) {
  return { promptTokenCount: prompt, candidatesTokenCount: candidates, totalTokenCount: prompt + candidates };
}

function generateContent(call: RecordedCall, model: string, stream = false): FakeReply {
  if (!call.credential) return googleError(403, 'PERMISSION_DENIED', 'Method doesn\'t allow unregistered callers (callers without established identity). Please use API Key or other form of API consumer identity to call this API.');
  const b = call.body;
  if (!isRecord(b) || !Array.isArray(b['contents']) || b['contents'].length === 0) return googleError(400, 'INVALID_ARGUMENT', '* GenerateContentRequest.contents: contents is not specified');
  const config = isRecord(b['generationConfig']) ? b['generationConfig'] : {};
  const prompt = textOf(b['contents']);
  const system = isRecord(b['systemInstruction']) ? textOf([b['systemInstruction']]) : '';
  const promptTokens = countTokens(prompt) + countTokens(system);
  const base = { modelVersion: model, responseId: fakeId('') };
  const wantsImage = Array.isArray(config['responseModalities']) && config['responseModalities'].includes('IMAGE');
  if (prompt.includes(FAKE_REFUSE_MARKER)) {
    return {
      body: {
        candidates: [{ finishReason: wantsImage ? 'IMAGE_SAFETY' : 'SAFETY', index: 0, safetyRatings: [{ category: 'HARM_CATEGORY_DANGEROUS_CONTENT', probability: 'HIGH', blocked: true }] }],
        usageMetadata: usage(promptTokens, 0),
        ...base,
      },
    };
  }
  if (wantsImage) {
    const image = isRecord(config['imageConfig']) ? config['imageConfig'] : {};
    const ratio = typeof image['aspectRatio'] === 'string' ? image['aspectRatio'] : '1:1';
    const size = GEMINI_IMAGE_SIZES_1K[ratio];
    if (!size) return googleError(400, 'INVALID_ARGUMENT', `Unsupported aspect ratio: ${ratio}`);
    const png = solidPng(size[0], size[1], colourOf(`${prompt}|${String(config['seed'] ?? '')}`)).toString('base64');
    return {
      body: {
        candidates: [{ content: { role: 'model', parts: [{ inlineData: { mimeType: 'image/png', data: png } }] }, finishReason: 'STOP', index: 0 }],
        usageMetadata: { ...usage(promptTokens, 1120), candidatesTokensDetails: [{ modality: 'IMAGE', tokenCount: 1120 }] },
        ...base,
      },
    };
  }
  const answered = functionResponseText(b['contents']);
  const fn = answered === null ? chosenFunction(b) : null;
  if (fn) {
    const part = { functionCall: { name: fn.name, args: fillSchema(fn.schema, prompt) } };
    const body = { candidates: [{ content: { role: 'model', parts: [part] }, finishReason: 'STOP', index: 0 }], usageMetadata: usage(promptTokens, 5), ...base };
    return stream ? { headers: { 'content-type': 'text/event-stream' }, body: `data: ${JSON.stringify(body)}\r\n\r\n` } : { body };
  }
  const json = answered === null && config['responseMimeType'] === 'application/json' ? JSON.stringify(fillSchema(config['responseJsonSchema'] ?? config['responseSchema'], prompt)) : null;
  const reply = json !== null ? { text: json, tokens: countTokens(json), truncated: false } : echoReply(answered ?? prompt, Number(config['maxOutputTokens'] ?? 8192));
  if (stream) {
    const words = reply.text.split(' ');
    const events = words.map((w, i) => {
      const last = i === words.length - 1;
      const candidate = { content: { role: 'model', parts: [{ text: i === 0 ? w : ` ${w}` }] }, index: 0, ...(last ? { finishReason: reply.truncated ? 'MAX_TOKENS' : 'STOP' } : {}) };
      return `data: ${JSON.stringify({ candidates: [candidate], usageMetadata: usage(promptTokens, last ? reply.tokens : i + 1), ...base })}\r\n\r\n`;
    });
    return { headers: { 'content-type': 'text/event-stream' }, body: events.join('') };
  }
  return {
    body: {
      candidates: [{ content: { role: 'model', parts: [{ text: reply.text }] }, finishReason: reply.truncated ? 'MAX_TOKENS' : 'STOP', index: 0 }],
      usageMetadata: usage(promptTokens, reply.tokens),
      ...base,
    },
  };
}

/** The text of the last turn's functionResponse parts, when it answers a function call. */
function functionResponseText(contents: unknown[]): string | null {
  const last = contents.filter(isRecord).at(-1);
  const parts = Array.isArray(last?.['parts']) ? last['parts'].filter(isRecord) : [];
  const responses = parts.flatMap((p) => (isRecord(p['functionResponse']) ? [p['functionResponse']] : []));
  if (responses.length === 0) return null;
  return responses.map((r) => JSON.stringify(r['response'] ?? {})).join('\n');
}

function chosenFunction(b: Record<string, unknown>): { name: string; schema: unknown } | null {
  const declarations = (Array.isArray(b['tools']) ? b['tools'].filter(isRecord) : []).flatMap((t) => (Array.isArray(t['functionDeclarations']) ? t['functionDeclarations'].filter(isRecord) : []));
  const config = isRecord(b['toolConfig']) && isRecord(b['toolConfig']['functionCallingConfig']) ? b['toolConfig']['functionCallingConfig'] : {};
  if (declarations.length === 0 || config['mode'] === 'NONE') return null;
  const allowed = Array.isArray(config['allowedFunctionNames']) ? config['allowedFunctionNames'] : null;
  const f = declarations.find((d) => allowed === null || allowed.includes(d['name']));
  return f && typeof f['name'] === 'string' ? { name: f['name'], schema: f['parameters'] ?? f['parametersJsonSchema'] } : null;
}

const GENERATE = /^\/v1beta\/models\/([^/:]+):generateContent$/;
const STREAM = /^\/v1beta\/models\/([^/:]+):streamGenerateContent$/;

export function googleRoutes(): FakeRoute[] {
  return [
    { method: 'POST', path: GENERATE, handler: (call) => generateContent(call, GENERATE.exec(call.path)?.[1] ?? '') },
    { method: 'POST', path: STREAM, handler: (call) => generateContent(call, STREAM.exec(call.path)?.[1] ?? '', true) },
  ];
}

/** Starts a fake Gemini API; point the adapter's baseURL at `${fake.url}/v1beta`. */
export function startFakeGoogle(): Promise<FakeUpstream> {
  return FakeUpstream.start(googleRoutes());
}

const fault = (r: FakeReply): FakeFault => ({ kind: 'status', status: r.status ?? 500, headers: r.headers ?? {}, body: r.body });

/** The Gemini API's documented failures, as faults to inject with `fake.failNext(...)`. */
export const googleFaults = {
  /** 429 with the wait in a RetryInfo detail (the Gemini API sends no Retry-After header). */
  resourceExhausted: (retryDelaySeconds: number): FakeFault =>
    fault(
      googleError(429, 'RESOURCE_EXHAUSTED', 'You exceeded your current quota, please check your plan and billing details.', [
        { '@type': 'type.googleapis.com/google.rpc.QuotaFailure', violations: [{ quotaMetric: 'generativelanguage.googleapis.com/generate_content_paid_tier_requests', quotaId: 'GenerateRequestsPerMinutePerProjectPerModel' }] },
        { '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: `${retryDelaySeconds}s` },
      ]),
    ),
  invalidKey: (): FakeFault =>
    fault(
      googleError(400, 'INVALID_ARGUMENT', 'API key not valid. Please pass a valid API key.', [
        { '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason: 'API_KEY_INVALID', domain: 'googleapis.com' },
      ]),
    ),
  permissionDenied: (): FakeFault => fault(googleError(403, 'PERMISSION_DENIED', 'The caller does not have permission')),
  invalidArgument: (message: string): FakeFault => fault(googleError(400, 'INVALID_ARGUMENT', message)),
  billingRequired: (): FakeFault => fault(googleError(400, 'FAILED_PRECONDITION', 'Gemini API free tier is not available in your country. Please enable billing on your project in Google AI Studio.')),
  notFound: (model: string): FakeFault => fault(googleError(404, 'NOT_FOUND', `models/${model} is not found for API version v1beta, or is not supported for generateContent.`)),
  internal: (): FakeFault => fault(googleError(500, 'INTERNAL', 'An internal error has occurred. Please retry or report in https://developers.generativeai.google/guide/troubleshooting')),
  unavailable: (): FakeFault => fault(googleError(503, 'UNAVAILABLE', 'The model is overloaded. Please try again later.')),
  deadlineExceeded: (): FakeFault => fault(googleError(504, 'DEADLINE_EXCEEDED', 'Deadline expired before operation could complete.')),
};
