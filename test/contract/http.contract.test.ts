import { afterAll, describe, expect, it } from 'vitest';
import { DocumentChecker } from '../openapi/document-checker.js';
import { startRecordingProxy, type RecordingProxy } from '../openapi/recording-proxy.js';
import { defineContract } from './contract-cases.js';
import { makeHttpTarget } from './targets.js';

// The suite's requests pass through a recording proxy, so every answer can be checked against the document
// the server itself serves at /api/openapi.json.
const proxies: RecordingProxy[] = [];
let document: unknown;
defineContract('HTTP client (svc serve on port 0)', () =>
  makeHttpTarget(async (serverUrl) => {
    document ??= await (await fetch(`${serverUrl}/api/openapi.json`)).json();
    const proxy = await startRecordingProxy(serverUrl);
    proxies.push(proxy);
    return proxy;
  }),
);

describe('contract: every answer matches the served OpenAPI document', () => {
  afterAll(async () => {
    for (const proxy of proxies) await proxy.close();
  });
  it('status documented, JSON body valid against its schema (Ajv, JSON Schema 2020-12)', () => {
    const checker = new DocumentChecker(document as Record<string, unknown>, 'public');
    const answers = proxies.flatMap((p) => p.recorded).filter((r) => r.path.startsWith('/api/') && !r.path.startsWith('/api/openapi.json'));
    expect(answers.length).toBeGreaterThan(100);
    const problems = answers.flatMap((r) => checker.check(r.method, r.path.slice('/api'.length), r.status, r.body, r.contentType));
    expect(problems).toEqual([]);
    // The suite reaches error answers too, so their documented bodies are checked, not only the happy path.
    expect(new Set(answers.map((r) => r.status)).size).toBeGreaterThanOrEqual(4);
  });
});
