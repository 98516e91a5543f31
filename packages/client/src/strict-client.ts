import type { Client, FetchResponse, MaybeOptionalInit } from 'openapi-fetch';
import type { HttpMethod, MediaType, PathsWithMethod, RequiredKeysOf } from 'openapi-typescript-helpers';
import type { paths } from './generated/openapi.js';

/**
 * `T` with every key `Shape` does not have turned into `never`, recursively: a value of T is assignable
 * to `NoExtraKeys<T, Shape>` only when it has no field the schema lacks (`promt`, `image_params.aspect`).
 * Open maps in the schema (`provider_params`: `{ [key: string]: unknown }`) accept any key.
 */
export type NoExtraKeys<T, Shape> = T extends readonly (infer E)[]
  ? Shape extends readonly (infer S)[]
    ? readonly NoExtraKeys<E, S>[]
    : T
  : T extends object
    ? Shape extends object
      ? { [K in keyof T]: K extends keyof Shape ? NoExtraKeys<T[K], NonNullable<Shape[K]>> : never }
      : T
    : T;

type BodyOf<Init> = Init extends { body?: infer B } ? B : never;

/**
 * The init with its body checked field by field against the schema's (openapi-fetch alone infers the
 * body and lets extra fields pass): an extra field's type becomes `never`, so the call does not compile.
 */
type CheckedInit<Init, Expected> = Init extends { body: unknown } ? Init & { body: NoExtraKeys<BodyOf<Init>, NonNullable<BodyOf<Expected>>> } : Init;

type InitParam<Init> = RequiredKeysOf<Init> extends never ? [(Init & { [key: string]: unknown })?] : [Init & { [key: string]: unknown }];

/** openapi-fetch's method, with request bodies closed: a field the OpenAPI schema does not list is a compile error. */
export type StrictClientMethod<Method extends HttpMethod> = <
  Path extends PathsWithMethod<paths, Method>,
  Init extends MaybeOptionalInit<paths[Path], Method>,
>(
  url: Path,
  ...init: InitParam<Init & CheckedInit<Init, MaybeOptionalInit<paths[Path], Method>>>
) => Promise<FetchResponse<paths[Path][Method] & Record<string | number, unknown>, Init, MediaType>>;

/** The gengate client: openapi-fetch's, with POST, PUT and PATCH bodies closed to unknown fields. */
export type StrictGengateClient = Omit<Client<paths>, 'POST' | 'PUT' | 'PATCH'> & {
  POST: StrictClientMethod<'post'>;
  PUT: StrictClientMethod<'put'>;
  PATCH: StrictClientMethod<'patch'>;
};
