import { duplexPair, type Duplex } from 'node:stream';

/** The two ends of one HTTP connection held in memory. */
export interface InMemoryConnection {
  /** The client's end: give it to `http.request({ createConnection })`. */
  readonly client: Duplex;
  /** The server's end: `server.emit('connection', server)`; its `remoteAddress` is the peer the server sees. */
  readonly server: Duplex;
}

/**
 * A socket pair in memory (node:stream's duplexPair) standing in for a TCP connection: Node's own HTTP
 * server and client speak over it. The server's end reports `remoteAddress` (and `encrypted` for an https
 * URL) as a TCP socket would, and destroying either end destroys the other, as a reset connection does:
 * a client that goes away is seen by the server as a closed connection.
 */
export function inMemoryConnection(peer: { readonly remoteAddress: string | undefined; readonly encrypted: boolean }): InMemoryConnection {
  const [client, server] = duplexPair();
  Object.defineProperty(server, 'remoteAddress', { value: peer.remoteAddress, enumerable: true });
  if (peer.encrypted) Object.defineProperty(server, 'encrypted', { value: true, enumerable: true });
  client.once('close', () => server.destroy());
  server.once('close', () => client.destroy());
  return { client, server };
}
