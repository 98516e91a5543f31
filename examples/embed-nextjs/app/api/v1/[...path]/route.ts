import { nextRouteHandlers } from '@gengate/host';
import { gengate } from '../../../../lib/gengate';

/** gengate's /api/v1, every path under it. */
export const dynamic = 'force-dynamic';
export const { GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS } = nextRouteHandlers(gengate);
