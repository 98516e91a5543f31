import type { ClientRequest } from 'node:http';
import type { App } from 'supertest/types.js';
import supertest from 'supertest';
import { formatProblems, openApiContract } from './openapi-contract.js';

/**
 * supertest, with every exchange checked against docs/openapi.yaml: the request it sends and the
 * response it gets (see openapi-contract.ts for the rules). A mismatch fails the request's promise, so
 * the test that made it fails at that line. Host tests import `request` from here, never from
 * 'supertest' directly (contract-coverage.test.ts checks that).
 */
export default function request(app: App): ReturnType<typeof supertest> {
  const agent = supertest(app);
  const methods = ['get', 'post', 'put', 'delete', 'del', 'patch', 'head', 'options'] as const;
  for (const method of methods) {
    const original = agent[method].bind(agent);
    agent[method] = (url: string) => checked(original(url));
  }
  return agent;
}

/** One request under way (supertest's `Test`). */
export type Test = ReturnType<ReturnType<typeof supertest>['get']>;

function checked(test: Test): Test {
  return test.expect((res) => {
    const internals = test as unknown as { method: string; url: string; _data?: unknown; req?: ClientRequest };
    const sent = internals.req?.getHeaders() ?? {};
    const requestHeaders: Record<string, string> = {};
    for (const [k, v] of Object.entries(sent)) if (v !== undefined) requestHeaders[k] = Array.isArray(v) ? v.join(', ') : String(v);
    const problems = openApiContract().check({
      method: internals.method,
      url: internals.url,
      requestHeaders,
      requestBody: internals._data === null ? undefined : internals._data,
      status: res.status,
      responseHeaders: res.headers as Record<string, string>,
      responseText: Buffer.isBuffer(res.body) ? undefined : res.text,
    });
    if (problems.length > 0) throw new Error(formatProblems(problems));
  });
}
export type { Response as TestResponse } from 'supertest';
