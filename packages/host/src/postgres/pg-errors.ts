import { capExceeded, type UserCap } from '@gengate/core/internal';

/** SQLSTATE raised by the cap triggers of migration 005; its DETAIL names the cap. */
const CAP_SQLSTATE = 'GGCAP';

/** Runs a statement, turning a cap trigger's error into the gateway's limit_exceeded. */
export async function withCaps<T>(statement: Promise<T>): Promise<T> {
  try {
    return await statement;
  } catch (err) {
    const e = err as { code?: string; detail?: string };
    if (e.code === CAP_SQLSTATE && (e.detail === 'api_keys' || e.detail === 'balance_alerts' || e.detail === 'pending_topups')) {
      throw capExceeded(e.detail satisfies UserCap);
    }
    throw err;
  }
}
