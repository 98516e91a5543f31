export { createDashboard, type Dashboard, type DashboardOptions } from './create-dashboard.js';
export { bossQueueInspector } from './boss-queue-inspector.js';
export { startSessionPurge } from './session-purge.js';
export { CSRF_HEADER, createSessionAuthenticator } from './session-authenticator.js';
export { sessionCookie } from './session-cookie.js';
