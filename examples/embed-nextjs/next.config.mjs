import { fileURLToPath } from 'node:url';

/** @type {import('next').NextConfig} */
const nextConfig = {
  // gengate runs on Node's own modules (pg, pg-boss, the dist of its packages): loaded at run time, not bundled.
  // gengate's answers go out as they are written: a server-sent event is not held in a gzip buffer.
  compress: false,
  serverExternalPackages: ['@gengate/host', '@gengate/core', '@gengate/adapters'],
  // The workspace's root, where the lockfile and node_modules are.
  turbopack: { root: fileURLToPath(new URL('../..', import.meta.url)) },
  outputFileTracingRoot: fileURLToPath(new URL('../..', import.meta.url)),
};

export default nextConfig;
