import { nextRouteHandlers } from '@gengate/host';
import { gengate } from '../../../lib/gengate';

/** gengate's OpenAI-compatible surface (the OpenAI SDKs' baseURL is <origin>/v1). */
export const dynamic = 'force-dynamic';
export const { GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS } = nextRouteHandlers(gengate);
