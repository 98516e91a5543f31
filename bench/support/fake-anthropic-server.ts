/**
 * The zero-latency Anthropic upstream of `npm run bench:openai`'s Messages rows, in its own process (so the
 * load generator and the servers under test do not share its CPU): packages/testing's fake Anthropic Messages
 * API (https://docs.anthropic.com/en/api/messages, streamed per
 * https://docs.anthropic.com/en/api/messages-streaming). Prints `fake-anthropic <url>` once listening.
 */
import { startFakeAnthropic } from '@gengate/testing';

const fake = await startFakeAnthropic();
// The fake records every call; a bench sends thousands: forget them as they come.
setInterval(() => fake.calls.splice(0), 1_000).unref();
process.stdout.write(`fake-anthropic ${fake.url}\n`);
process.on('SIGTERM', () => void fake.close().then(() => process.exit(0)));
