import { redactSecrets } from '../util/redact.js';
import type { UpstreamError } from './upstream-error.js';

const NO_CHARGE = 'No credits were charged.';

/**
 * The task's error_message for an upstream failure: what happened and what the user (or the operator)
 * can do, by kind. It never shows the operator's credentials; the upstream's request id is quoted for support.
 */
export function upstreamFailureMessage(e: UpstreamError, ctx: { provider: string; settings?: readonly string[]; secrets?: readonly string[] }): string {
  const p = ctx.provider;
  const detail = redactSecrets(e.message, ctx.secrets).trim();
  const said = detail ? `: ${detail.replace(/[.\s]+$/, '')}` : '';
  const support = e.requestId ? ` (upstream request id ${e.requestId})` : '';
  const settings = ctx.settings && ctx.settings.length > 0 ? ctx.settings.join(', ') : 'its credentials';
  let what: string;
  let advice = '';
  switch (e.kind) {
    case 'content_policy':
      what = `Provider ${p} refused the request under its content policy${said}`;
      advice = 'Change the prompt or inputs.';
      break;
    case 'invalid_input':
      what = `Provider ${p} refused the request as invalid${said}`;
      break;
    case 'authentication':
      what = `Provider ${p} rejected the gateway's credentials: the gateway is misconfigured, and its operator must check ${settings}`;
      break;
    case 'quota':
      what = `The gateway's account at provider ${p} is out of quota or credit; its operator must top it up`;
      advice = 'Try again later.';
      break;
    case 'rate_limited':
      what = `Provider ${p} kept rate-limiting the gateway until the task ran out of attempts or time`;
      advice = 'Try again later.';
      break;
    case 'server':
      what = `Provider ${p} failed${e.statusCode ? ` with HTTP ${e.statusCode}` : ''}${said}`;
      advice = 'Try again later.';
      break;
    case 'network':
      what = `Provider ${p} could not be reached${said}`;
      advice = 'Try again later.';
      break;
    case 'timeout':
      what = `Provider ${p} did not answer in time`;
      advice = 'Try again later.';
      break;
    case 'not_found':
      what = `Provider ${p} does not know the requested model or job${said}`;
      break;
    case 'bad_output':
      what = `Provider ${p} returned unusable output${said}`;
      break;
    case 'unknown':
      what = `Generation failed at provider ${p}${said}`;
      break;
  }
  return [`${what}${support}.`, advice, NO_CHARGE].filter(Boolean).join(' ');
}
