import type { IncomingMessage, ServerResponse } from 'node:http';
import { createGengateNodeHandler, type GengateHttpSurfaces, type GengateSurfacePaths } from '../gengate-node-handler.js';

/** What the Fastify bridge uses of a Fastify instance (taken structurally: Fastify is not a dependency of gengate). */
export interface FastifyInstanceLike {
  removeAllContentTypeParsers(): void;
  addContentTypeParser(contentType: string, parser: (request: unknown, payload: unknown, done: (err: Error | null, body?: unknown) => void) => void): void;
  all(path: string, handler: (request: { readonly raw: IncomingMessage }, reply: { readonly raw: ServerResponse; hijack(): void }) => void): unknown;
}

/**
 * gengate as a Fastify plugin: `await app.register(gengateFastify(host))`. Fastify runs on Node's HTTP
 * server, so the bridge hands the Node request and response to gengate's router as they are (no fetch
 * conversion): the peer address and X-Forwarded-For are read as on Express, streams and disconnects are
 * the socket's own. Inside the plugin (Fastify's encapsulation keeps it there) bodies are left unread for
 * gengate, which parses them itself; the replies are hijacked, so Fastify's onSend hooks do not see them.
 */
export function gengateFastify(host: GengateHttpSurfaces, paths: GengateSurfacePaths = {}): (instance: FastifyInstanceLike) => Promise<void> {
  const listener = createGengateNodeHandler(host, paths);
  const apiPath = (paths.apiPath ?? host.mountPath).replace(/\/+$/, '');
  const openaiPath = paths.openaiPath === undefined ? '/v1' : paths.openaiPath;
  return async (instance) => {
    instance.removeAllContentTypeParsers();
    instance.addContentTypeParser('*', (_request, _payload, done) => done(null));
    const serve = (request: { readonly raw: IncomingMessage }, reply: { readonly raw: ServerResponse; hijack(): void }): void => {
      reply.hijack();
      listener(request.raw, reply.raw);
    };
    for (const path of [apiPath, ...(host.openaiRouter && openaiPath !== null ? [openaiPath.replace(/\/+$/, '')] : [])]) {
      if (path !== '') instance.all(path, serve);
      instance.all(`${path}/*`, serve);
    }
  };
}
