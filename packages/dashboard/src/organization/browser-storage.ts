/** The Web Storage the dashboard keeps small choices in, reached safely (absent in tests and some privacy modes). */

/** The part of the Web Storage API used here (localStorage/sessionStorage in the browser, a fake in tests). */
export interface KeyValueStore {
  getItem(key: string): string | null;
  setItem(key: string, value: string): void;
  removeItem(key: string): void;
}

/** This tab's sessionStorage, when there is one. */
export function sessionStore(): KeyValueStore | undefined {
  try {
    return typeof sessionStorage === 'undefined' ? undefined : sessionStorage;
  } catch {
    return undefined;
  }
}

/** The browser's localStorage, when there is one. */
export function localStore(): KeyValueStore | undefined {
  try {
    return typeof localStorage === 'undefined' ? undefined : localStorage;
  } catch {
    return undefined;
  }
}
