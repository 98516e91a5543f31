import type { ResultUrlResolver } from '@gengate/core';

/** Result files are served by the router at `<base>/api/v1/files/<key>`; the base may only be known after listening. */
export function createResultUrlResolver(getBaseUrl: () => string): ResultUrlResolver {
  return { urlFor: (key) => `${getBaseUrl()}/api/v1/files/${key}` };
}
