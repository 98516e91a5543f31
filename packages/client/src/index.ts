export { createGengateClient, type GengateClient, type GengateClientOptions } from './create-client.js';
export { waitForTask, type Task, type WaitForTaskOptions } from './wait-for-task.js';
export { GengateApiError, unwrap, type ErrorBody, type ErrorType } from './api-error.js';
export type { components, operations, paths, webhooks } from './generated/openapi.js';

import type { components } from './generated/openapi.js';

type Schemas = components['schemas'];
export type RunRequest = Schemas['RunRequest'];
export type RunAccepted = Schemas['RunAccepted'];
export type TaskStatus = Schemas['TaskStatus'];
export type Model = Schemas['Model'];
export type ModelDetail = Schemas['ModelDetail'];
export type Pricing = Schemas['Pricing'];
export type ApiKey = Schemas['ApiKey'];
export type CreatedApiKey = Schemas['CreatedApiKey'];
export type Balance = Schemas['Balance'];
export type Transaction = Schemas['Transaction'];
export type BalanceAlert = Schemas['BalanceAlert'];
export type CallbackAttempt = Schemas['CallbackAttempt'];
