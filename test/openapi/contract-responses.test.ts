/**
 * Every answer of the contract suite, checked against the document the server serves at /api/openapi.json:
 * the suite runs once more over HTTP, through a recording proxy, and each recorded answer must have a
 * documented status, the headers the document marks required, and a body valid against its schema (Ajv).
 */
import { afterAll, describe, expect, it } from 'vitest';
import { defineContract } from '../contract/contract-cases.js';
import { makeHttpTarget, STORES } from '../contract/targets.js';
import { DocumentChecker } from '../support/document-checker.js';
import { startRecordingProxy, type RecordingProxy } from '../support/recording-proxy.js';

const proxies: RecordingProxy[] = [];
let document: Record<string, unknown> | undefined;
for (const store of STORES) {
  defineContract(`HTTP client on ${store}, recorded for the document check`, () =>
    makeHttpTarget(async (serverUrl) => {
      document ??= (await (await fetch(`${serverUrl}/api/openapi.json`)).json()) as Record<string, unknown>;
      const proxy = await startRecordingProxy(serverUrl);
      proxies.push(proxy);
      return proxy;
    }, { store }),
  );
}

// Declared after the suite, so vitest runs it once every contract case has answered.
describe('contract answers against /api/openapi.json', () => {
  afterAll(async () => {
    for (const proxy of proxies) await proxy.close();
  });

  it('every answer: status documented, required headers present, JSON body valid against its schema', () => {
    expect(document).toBeDefined();
    const checker = new DocumentChecker(document!, 'contract');
    const answers = proxies.flatMap((p) => p.recorded).filter((r) => r.path.startsWith('/api/') && !r.path.startsWith('/api/openapi.json'));
    expect(answers.length).toBeGreaterThan(100);
    const problems = answers.flatMap((r) => checker.check(r.method, r.path.slice('/api'.length), r.status, r.body, r.contentType, r.headers));
    expect(problems).toEqual([]);
    // The suite reaches error answers too, so their documented bodies are checked, not only the happy path.
    const statuses = new Set(answers.map((r) => r.status));
    for (const status of [200, 400, 401, 404]) expect(statuses, `status ${status} among the answers`).toContain(status);
  });

  it('the checker refuses what the document does not say, so the check above can fail', () => {
    const checker = new DocumentChecker(document!, 'contract-negative');
    expect(checker.check('GET', '/nowhere', 200, '{}', 'application/json')).toHaveLength(1);
    expect(checker.check('GET', '/chats', 418, '{}', 'application/json')[0]).toMatch(/status not documented/);
    expect(checker.check('GET', '/chats', 200, '{"status":"ok"}', 'application/json')[0]).toMatch(/data/);
    expect(checker.check('GET', '/chats', 401, '{"status":"error"}', 'application/json')[0]).toMatch(/does not describe/);
    expect(checker.check('GET', '/chats', 429, '{}', 'application/json', {})[0]).toMatch(/Retry-After/);
    const notFound = '{"status":"error","message":"x","error_code":"conflict"}';
    expect(checker.check('GET', '/chats/1', 404, notFound, 'application/json')[0]).toMatch(/allowed values/);
  });
});
