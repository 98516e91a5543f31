import type { IncomingMessage } from 'node:http';

/**
 * The body of a Node HTTP message as a web ReadableStream, chunk by chunk as it arrives, with
 * backpressure (the message is paused while the reader is behind). Cancelling the stream destroys the
 * message (and so its connection); a message cut before its end errors the stream. Written out rather than
 * `Readable.toWeb`, which can throw "ReadableStream is already closed" from an event handler (an uncaught
 * exception) when data or an error arrives after the reader cancelled.
 */
export function webBodyOf(message: IncomingMessage): ReadableStream<Uint8Array> {
  let settled = false;
  return new ReadableStream<Uint8Array>(
    {
      start(controller) {
        const settle = (end: () => void) => {
          if (settled) return;
          settled = true;
          end();
        };
        message.on('data', (chunk: Buffer) => {
          if (settled) return;
          controller.enqueue(new Uint8Array(chunk)); // a copy: a pooled Buffer shares its memory
          if ((controller.desiredSize ?? 1) <= 0) message.pause();
        });
        message.once('end', () => settle(() => controller.close()));
        message.once('error', (err) => settle(() => controller.error(err)));
        message.once('close', () => settle(() => controller.error(new Error('The connection closed before the response ended.'))));
      },
      pull() {
        message.resume();
      },
      cancel() {
        settled = true;
        message.destroy();
      },
    },
    { highWaterMark: 1 },
  );
}
