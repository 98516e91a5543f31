/*
 * The AI SDK prints every call warning to the console unless this global is false. gengate reports them
 * on the task instead (see sdk-warnings.ts), so the console copy is switched off once, on import.
 */
(globalThis as { AI_SDK_LOG_WARNINGS?: boolean }).AI_SDK_LOG_WARNINGS = false;
export {};
