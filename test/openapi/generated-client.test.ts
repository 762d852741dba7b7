/**
 * A client generated from the served /api/openapi.json by independent tools (openapi-typescript for the
 * types, openapi-fetch for the calls) compiles under strict TypeScript and works against a live server.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import openapiTS, { astToString } from 'openapi-typescript';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox, type Sandbox } from '../../src/testing/index.js';

const PROGRAM = `import createClient from 'openapi-fetch';
import type { paths } from './api.js';

export async function run(baseUrl: string, token: string) {
  const client = createClient<paths>({ baseUrl, headers: { authorization: \`Bearer \${token}\` } });
  const sent = await client.POST('/messages', { body: { phone: '+14155550123', text: 'Hi from a generated client' } });
  if (sent.data === undefined) throw new Error('send failed');
  const chatId: number = sent.data.data.chat_id;
  const listed = await client.GET('/chats/{id}/messages', { params: { path: { id: chatId }, query: { page: 1 } } });
  const texts: Array<string | null> = (listed.data?.data.items ?? []).map((message) => message.text);
  const hook = await client.POST('/webhooks', { body: { event_type: 'message:new', url: 'https://example.com/generated' } });
  const secret: string | undefined = hook.data?.data.secret;
  const missing = await client.GET('/messages/{uid}', { params: { path: { uid: 'nope' } } });
  const code: string | undefined = missing.error?.error_code;
  return { status: sent.data.data.status, texts, secret, code };
}
`;

// The same program with a wrong field name: the generated types must refuse it, or the check proves nothing.
const WRONG = PROGRAM.replace("body: { phone: '+14155550123'", "body: { phon: '+14155550123'");

let sandbox: Sandbox;
let dir: string;
beforeAll(async () => {
  sandbox = await startSandbox();
  // Inside the repository, so the program resolves openapi-fetch from node_modules.
  dir = mkdtempSync(join(resolve('test/openapi'), '.gen-'));
  const doc = (await (await fetch(`${sandbox.apiUrl}/openapi.json`)).json()) as Parameters<typeof openapiTS>[0];
  writeFileSync(join(dir, 'api.ts'), astToString(await openapiTS(doc)));
});
afterAll(async () => {
  await sandbox.stop();
  rmSync(dir, { recursive: true, force: true });
});

function diagnostics(source: string): string[] {
  const file = join(dir, 'client.ts');
  writeFileSync(file, source);
  const program = ts.createProgram([file], {
    strict: true, noEmit: true, target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext, skipLibCheck: true, types: [],
  });
  return ts.getPreEmitDiagnostics(program).map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n'));
}

describe('a client generated from /api/openapi.json', () => {
  it('compiles under strict TypeScript, and a wrong field does not', () => {
    expect(diagnostics(PROGRAM)).toEqual([]);
    expect(diagnostics(WRONG).join('\n')).toMatch(/phon/);
  });

  it('sends, lists and creates a webhook against a live server', async () => {
    await sandbox.connectAccount('+15550004001');
    const js = ts.transpileModule(PROGRAM, { compilerOptions: { module: ts.ModuleKind.ES2022, target: ts.ScriptTarget.ES2022 } }).outputText;
    const file = join(dir, 'client.mjs');
    writeFileSync(file, js.replace("'./api.js'", "'./api.ts'"));
    const { run } = (await import(pathToFileURL(file).href)) as { run: (base: string, token: string) => Promise<Record<string, unknown>> };
    const result = await run(sandbox.apiUrl, sandbox.workspace.token);
    expect(result).toMatchObject({ status: 'Pending', texts: ['Hi from a generated client'], code: 'not_found' });
    expect(result.secret).toMatch(/^whsec_/);
  });
});
