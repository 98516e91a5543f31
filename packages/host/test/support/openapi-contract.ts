import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { parse } from 'yaml';

/**
 * Checks HTTP exchanges against docs/openapi.yaml: is the request one the document describes, and is
 * the response one the document allows for it (status, media type, body, headers)? JSON Schema 2020-12
 * (the dialect of OpenAPI 3.1) through Ajv's 2020 validator; only the OpenAPI layer around the schemas
 * (paths, parameters, responses, $ref between those objects) is walked here.
 *
 * The rules:
 * - A path outside the API prefix is not checked.
 * - An undocumented path may only be refused (401/403/404/429 with the error body); a documented path
 *   with an undocumented method only with 405 (or those same refusals, which come first).
 * - A request the document calls invalid (wrong parameter, body or media type, no API key) must be
 *   refused with a 4xx; the server may refuse more than the document can say (a duration this model
 *   does not offer), never accept less.
 * - The response status must be documented for the operation, its media type too, and the body must
 *   match the schema (responses close their objects, so a renamed or added field fails); documented
 *   headers must be present when required and match their schema when present.
 */

type Json = unknown;
type Obj = Record<string, unknown>;

export interface Exchange {
  readonly method: string;
  /** Path and query, e.g. /api/v1/models?task=video (an absolute URL is reduced to that). */
  readonly url: string;
  /** Request headers, any case. */
  readonly requestHeaders: Readonly<Record<string, string | undefined>>;
  /** The request body as sent: raw text, an already-parsed JSON value, or undefined for none. */
  readonly requestBody?: string | Json;
  readonly status: number;
  /** Response headers, any case. */
  readonly responseHeaders: Readonly<Record<string, string | string[] | undefined>>;
  /** Raw response text (JSON responses are parsed here), or undefined for a binary body. */
  readonly responseText: string | undefined;
}

const DOC_PATH = resolve(import.meta.dirname, '../../../../docs/openapi.yaml');
const DOC_ID = 'gengate-openapi';
const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options'] as const;
const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ?? addFormatsModule) as (ajv: Ajv2020) => Ajv2020;

export function loadOpenApiDocument(): Obj {
  return parse(readFileSync(DOC_PATH, 'utf8')) as Obj;
}

function escapePointer(segment: string): string {
  return segment.replaceAll('~', '~0').replaceAll('/', '~1');
}

function lower(headers: Readonly<Record<string, string | string[] | undefined>>): Map<string, string> {
  const out = new Map<string, string>();
  for (const [k, v] of Object.entries(headers)) if (v !== undefined) out.set(k.toLowerCase(), Array.isArray(v) ? v.join(', ') : v);
  return out;
}

function mediaType(contentType: string | undefined): string | null {
  return contentType ? (contentType.split(';')[0] ?? '').trim().toLowerCase() : null;
}

function mediaMatches(range: string, actual: string): boolean {
  if (range === '*/*' || range === actual) return true;
  return range.endsWith('/*') && actual.startsWith(range.slice(0, -1));
}

interface Operation {
  readonly pointer: string;
  readonly op: Obj;
  readonly pathParams: Record<string, string>;
  readonly parameters: { readonly def: Obj; readonly pointer: string }[];
}

export class OpenApiContract {
  readonly doc: Obj;
  readonly prefix: string;
  private readonly ajv: Ajv2020;
  private readonly coercing: Ajv2020;
  private readonly cache = new Map<string, ValidateFunction>();
  private readonly templates: { template: string; regex: RegExp; names: string[] }[];

  constructor(doc: Obj = loadOpenApiDocument()) {
    this.doc = doc;
    this.prefix = String(((doc['servers'] as Obj[] | undefined)?.[0]?.['url'] as string | undefined) ?? '').replace(/\/+$/, '');
    const make = (coerceTypes: false | 'array') => {
      // Union types (`type: [string, number, boolean]`) are plain JSON Schema 2020-12, the dialect of OpenAPI 3.1:
      // allowed, so Ajv's strict mode stays on for everything else and a test run prints only results.
      const ajv = new Ajv2020({ allErrors: true, strictSchema: false, allowUnionTypes: true, coerceTypes });
      addFormats(ajv);
      ajv.addFormat('binary', true);
      ajv.addSchema(doc, DOC_ID);
      return ajv;
    };
    this.ajv = make(false);
    this.coercing = make('array');
    this.templates = Object.keys(doc['paths'] as Obj)
      .map((template) => {
        const names: string[] = [];
        const source = template.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{([^}]+)\}/g, (_m, name: string) => {
          names.push(name);
          return '([^/]+)';
        });
        return { template, regex: new RegExp(`^${source}$`), names };
      })
      // Literal segments win over templates (/models/popular before /models/{model_id}), as in the router.
      .sort((a, b) => a.names.length - b.names.length);
  }

  /** Follows `$ref`s between OpenAPI objects; returns the object and the JSON pointer it lives at. */
  /** Whether the request carries every scheme of one security requirement (`{}` needs nothing). */
  private satisfies(requirement: Obj, headers: ReadonlyMap<string, string>): boolean {
    const schemes = ((this.doc['components'] as Obj | undefined)?.['securitySchemes'] ?? {}) as Record<string, Obj>;
    return Object.keys(requirement).every((name) => {
      const scheme = schemes[name] ?? {};
      if (scheme['type'] === 'http' && scheme['scheme'] === 'bearer') return /^Bearer\s+\S+\s*$/i.test(headers.get('authorization') ?? '');
      if (scheme['type'] === 'apiKey' && scheme['in'] === 'header') return headers.get(String(scheme['name'])) !== null;
      if (scheme['type'] === 'apiKey' && scheme['in'] === 'cookie') {
        const cookieName = String(scheme['name']);
        return (headers.get('cookie') ?? '').split(';').some((c) => new RegExp(`^\\s*(__Host-)?${cookieName}=`).test(c));
      }
      return false;
    });
  }

  private deref(value: Obj, pointer: string): { value: Obj; pointer: string } {
    let v = value;
    let p = pointer;
    for (let i = 0; i < 20 && typeof v['$ref'] === 'string'; i++) {
      p = (v['$ref'] as string).slice(1);
      v = this.at(p) as Obj;
    }
    return { value: v, pointer: p };
  }

  private at(pointer: string): Json {
    let v: Json = this.doc;
    for (const raw of pointer.split('/').slice(1)) {
      const key = raw.replaceAll('~1', '/').replaceAll('~0', '~');
      v = (v as Obj | undefined)?.[key];
    }
    return v;
  }

  private validator(pointer: string, coerce = false): ValidateFunction {
    const key = `${coerce ? 'c' : 'p'}${pointer}`;
    let fn = this.cache.get(key);
    if (!fn) {
      const ref = { $ref: `${DOC_ID}#${pointer}` };
      fn = coerce ? this.coercing.compile({ type: 'object', properties: { value: ref } }) : this.ajv.compile(ref);
      this.cache.set(key, fn);
    }
    return fn;
  }

  private errors(fn: ValidateFunction): string {
    return (fn.errors ?? [])
      .map((e) => {
        const extra = typeof e.params['additionalProperty'] === 'string' ? `: '${e.params['additionalProperty']}'` : '';
        const allowed = Array.isArray(e.params['allowedValues']) ? ` (${(e.params['allowedValues'] as unknown[]).join(', ')})` : '';
        return `body${e.instancePath} ${e.message ?? 'is invalid'}${extra}${allowed}`;
      })
      .join('; ');
  }

  /** Validates a value against the schema at a pointer; returns problems. */
  validate(pointer: string, value: Json, what: string): string[] {
    const fn = this.validator(pointer);
    return fn(value) ? [] : [`${what}: ${this.errors(fn)}`];
  }

  private validateCoerced(pointer: string, value: Json, what: string): string[] {
    const fn = this.validator(pointer, true);
    return fn({ value }) ? [] : [`${what}: ${this.errors(fn).replaceAll('body/value', 'value')}`];
  }

  private findOperation(path: string, method: string): { found: 'none' | 'path' | 'operation'; operation?: Operation; allowed?: string[] } {
    for (const t of this.templates) {
      const m = t.regex.exec(path);
      if (!m) continue;
      const itemPointer = `/paths/${escapePointer(t.template)}`;
      const item = this.at(itemPointer) as Obj;
      const allowed = METHODS.filter((x) => item[x] !== undefined);
      if (!allowed.includes(method as (typeof METHODS)[number])) return { found: 'path', allowed };
      const pathParams: Record<string, string> = {};
      t.names.forEach((n, i) => (pathParams[n] = decodeURIComponent(m[i + 1] ?? '')));
      const pointer = `${itemPointer}/${method}`;
      const op = item[method] as Obj;
      const parameters = new Map<string, { def: Obj; pointer: string }>();
      for (const [list, listPointer] of [
        [item['parameters'], `${itemPointer}/parameters`],
        [op['parameters'], `${pointer}/parameters`],
      ] as const) {
        ((list as Obj[] | undefined) ?? []).forEach((p, i) => {
          const r = this.deref(p, `${listPointer}/${i}`);
          parameters.set(`${String(r.value['in'])}:${String(r.value['name']).toLowerCase()}`, { def: r.value, pointer: r.pointer });
        });
      }
      return { found: 'operation', operation: { pointer, op, pathParams, parameters: [...parameters.values()] } };
    }
    return { found: 'none' };
  }

  private requestProblems(o: Operation, query: URLSearchParams, headers: Map<string, string>, body: string | Json | undefined): string[] {
    const problems: string[] = [];
    for (const { def, pointer } of o.parameters) {
      const name = String(def['name']);
      const schemaPointer = `${pointer}/schema`;
      let value: Json;
      if (def['in'] === 'path') value = o.pathParams[name];
      else if (def['in'] === 'header') value = headers.get(name.toLowerCase());
      else if (def['in'] === 'query') {
        const all = query.getAll(name);
        const schema = this.deref((def['schema'] as Obj | undefined) ?? {}, schemaPointer).value;
        value = all.length === 0 ? undefined : schema['type'] === 'array' ? all : all[0];
      } else continue;
      if (value === undefined) {
        if (def['required'] === true) problems.push(`${String(def['in'])} parameter ${name} is required`);
        continue;
      }
      problems.push(...this.validateCoerced(schemaPointer, value, `${String(def['in'])} parameter ${name}`));
    }
    const security = (o.op['security'] ?? this.doc['security']) as Obj[] | undefined;
    if ((security ?? []).length > 0 && !(security ?? []).some((requirement) => this.satisfies(requirement, headers))) {
      problems.push('no API key (Authorization: Bearer <API_KEY>) nor a dashboard session with its CSRF token');
    }
    const requestBody = o.op['requestBody'] ? this.deref(o.op['requestBody'] as Obj, `${o.pointer}/requestBody`) : null;
    const hasBody = body !== undefined && body !== '';
    if (requestBody) {
      if (!hasBody) {
        if (requestBody.value['required'] === true) problems.push('the request body is required');
      } else {
        const type = mediaType(headers.get('content-type'));
        const content = requestBody.value['content'] as Obj;
        const range = Object.keys(content).find((r) => type !== null && mediaMatches(r, type));
        if (!range) problems.push(`request media type ${String(type)} is not one of ${Object.keys(content).join(', ')}`);
        else if (range === 'application/json') {
          let parsed: Json = body;
          let ok = true;
          if (typeof body === 'string') {
            try {
              parsed = JSON.parse(body);
            } catch {
              ok = false;
              problems.push('the request body is not JSON');
            }
          }
          if (ok) problems.push(...this.validate(`${requestBody.pointer}/content/${escapePointer(range)}/schema`, parsed, 'request body'));
        }
      }
    }
    return problems;
  }

  private responseProblems(o: Operation, status: number, headers: Map<string, string>, text: string | undefined): string[] {
    const responses = o.op['responses'] as Obj;
    const code = String(status);
    const key = [code, `${code[0]}XX`, 'default'].find((k) => responses[k] !== undefined);
    if (!key) return [`status ${status} is not documented (documented: ${Object.keys(responses).join(', ')})`];
    const { value: response, pointer } = this.deref(responses[key] as Obj, `${o.pointer}/responses/${key}`);
    return [...this.headerProblems(response, pointer, headers), ...this.bodyProblems(response, pointer, headers, text, `response ${status}`)];
  }

  private headerProblems(response: Obj, pointer: string, headers: Map<string, string>): string[] {
    const problems: string[] = [];
    for (const [name, raw] of Object.entries((response['headers'] as Obj | undefined) ?? {})) {
      const { value: header, pointer: headerPointer } = this.deref(raw as Obj, `${pointer}/headers/${escapePointer(name)}`);
      const value = headers.get(name.toLowerCase());
      if (value === undefined) {
        if (header['required'] === true) problems.push(`response header ${name} is missing`);
        continue;
      }
      problems.push(...this.validateCoerced(`${headerPointer}/schema`, value, `response header ${name}`));
    }
    return problems;
  }

  private bodyProblems(response: Obj, pointer: string, headers: Map<string, string>, text: string | undefined, what: string): string[] {
    const content = response['content'] as Obj | undefined;
    const type = mediaType(headers.get('content-type'));
    if (!content) return text ? [`${what} has a body but the document describes none`] : [];
    const range = Object.keys(content).find((r) => type !== null && mediaMatches(r, type));
    if (!range) return [`${what} media type ${String(type)} is not one of ${Object.keys(content).join(', ')}`];
    if (range !== 'application/json') return [];
    let body: Json;
    try {
      body = JSON.parse(text ?? '');
    } catch {
      return [`${what} body is not JSON`];
    }
    return this.validate(`${pointer}/content/${escapePointer(range)}/schema`, body, `${what} body`);
  }

  /** The problems of one exchange; empty when the document describes it. */
  check(x: Exchange): string[] {
    const url = new URL(x.url, 'http://placeholder');
    if (!url.pathname.startsWith(`${this.prefix}/`)) return [];
    const path = url.pathname.slice(this.prefix.length);
    const method = x.method.toLowerCase();
    const requestHeaders = lower(x.requestHeaders);
    const responseHeaders = lower(x.responseHeaders);
    const found = this.findOperation(path, method);
    const label = `${x.method.toUpperCase()} ${url.pathname}${url.search}`;
    const refusal = (allowed: number[], what: string) => {
      if (!allowed.includes(x.status)) return [`${label}: ${what} answered ${x.status}; only ${allowed.join('/')} is possible`];
      let body: Json;
      try {
        body = JSON.parse(x.responseText ?? '');
      } catch {
        return [`${label}: response ${x.status} body is not JSON`];
      }
      return this.validate('/components/schemas/Error', body, `${label}: response ${x.status} body`);
    };
    if (found.found === 'none') return refusal([401, 403, 404, 429], 'an undocumented path');
    if (found.found === 'path') return refusal([401, 403, 405, 429], `a method other than ${found.allowed?.join('/')}`);
    const o = found.operation as Operation;
    const problems: string[] = [];
    const invalid = this.requestProblems(o, url.searchParams, requestHeaders, x.requestBody);
    if (invalid.length > 0 && (x.status < 400 || x.status > 499)) {
      problems.push(`the request does not match the document (${invalid.join('; ')}) but was answered ${x.status}`);
    }
    problems.push(...this.responseProblems(o, x.status, responseHeaders, x.responseText));
    return problems.map((p) => `${label}: ${p}`);
  }

  /** Checks a webhook delivery (a request the gateway sent) against `webhooks.<name>.post`. */
  checkWebhook(name: string, headers: Readonly<Record<string, string | string[] | undefined>>, body: string): string[] {
    const pointer = `/webhooks/${escapePointer(name)}/post`;
    const op = this.at(pointer) as Obj | undefined;
    if (!op) return [`no webhook ${name} in the document`];
    const operation: Operation = {
      pointer,
      op: { ...op, security: [{}] },
      pathParams: {},
      parameters: ((op['parameters'] as Obj[] | undefined) ?? []).map((p, i) => {
        const r = this.deref(p, `${pointer}/parameters/${i}`);
        return { def: r.value, pointer: r.pointer };
      }),
    };
    return this.requestProblems(operation, new URLSearchParams(), lower(headers), body).map((p) => `webhook ${name}: ${p}`);
  }
}

let shared: OpenApiContract | null = null;

/** One contract per test file (the document is read once). */
export function openApiContract(): OpenApiContract {
  shared ??= new OpenApiContract();
  return shared;
}

export function formatProblems(problems: readonly string[]): string {
  return `the exchange does not match docs/openapi.yaml:\n  - ${problems.join('\n  - ')}`;
}
