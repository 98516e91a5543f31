// Loaded with `node --import`: records every module URL resolved in this process and prints them as
// JSON on exit (one line, prefixed), so a test can tell which packages an entry point pulls in.
import { registerHooks } from 'node:module';

const seen = new Set();
registerHooks({
  resolve(specifier, context, nextResolve) {
    const resolved = nextResolve(specifier, context);
    seen.add(resolved.url);
    return resolved;
  },
});
process.on('exit', () => {
  process.stdout.write(`\nMODULES ${JSON.stringify([...seen])}\n`);
});
