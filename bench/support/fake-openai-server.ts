/**
 * The zero-latency upstream of `npm run bench:openai`, in its own process (so the load generator and the
 * servers under test do not share its CPU): packages/testing's fake OpenAI chat completions
 * (https://platform.openai.com/docs/api-reference/chat/create, streamed per
 * https://platform.openai.com/docs/api-reference/chat-streaming). A call whose body contains `bench-stall`
 * is answered with its first two events (the role chunk and the first word) and then held open, sending
 * nothing more, until the process ends: a stream kept open for the open-streams figure.
 * Prints `fake-openai <url>` once listening.
 */
import { startFakeOpenAI } from '@gengate/testing';

const fake = await startFakeOpenAI();
fake.failNext({ kind: 'cut-stream', events: 2, then: 'stall' }, { times: Number.POSITIVE_INFINITY, match: (c) => JSON.stringify(c.body).includes('bench-stall') });
// The fake records every call; a bench sends hundreds of thousands: forget them as they come.
setInterval(() => fake.calls.splice(0), 1_000).unref();
process.stdout.write(`fake-openai ${fake.url}\n`);
process.on('SIGTERM', () => void fake.close().then(() => process.exit(0)));
