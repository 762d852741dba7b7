/**
 * Integrators' TypeScript: the sandbox example the docs print (the block after `<!-- typed-example -->` in
 * README.md or docs/testing.md) compiles under `strict` with no cast, against the built package as a project
 * that installed svc sees it; and the types are narrow enough to refuse a wrong field or the wrong event's
 * field. One tsc run compiles every file; each file's errors are then read off its output.
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../support/run-cli.js';
import { typedExample } from '../support/typed-example.js';

const run = promisify(execFile);
// A receiver's own code: the union narrows on event_type, and `event` checks and types one event.
const RECEIVER = `import { verifyPartnerWebhook, verifyWebhook, type WebhookEvent, type WebhookEventOf } from 'svc';

export function describe(event: WebhookEvent): string {
  switch (event.event_type) {
    case 'message:received:new': return event.message.text + event.chat.phone;
    case 'messenger:account:suspended': return event.messenger_account.status;
    case 'workspace:seats_full': return String(event.data.seats_used);
    default: return event.event_type;
  }
}

export function one(headers: Record<string, string>, body: string): string {
  const event = verifyWebhook({ secret: 'whsec_x', headers, body, event: 'chat:assigned' });
  const assigned: WebhookEventOf<'chat:assigned'> = event;
  return assigned.chat.responsible_name ?? '';
}

export async function partner(headers: Record<string, string>, body: string): Promise<string> {
  const event = await verifyPartnerWebhook({ partnerId: 'p', partnerSecret: 's', headers, body });
  if (event.event_type === 'messenger_account:connected' && event.test === undefined) return event.data.phone;
  return event.occurred_at;
}
`;

interface Compiled {
  errorsOf(file: string): string[];
}

async function compile(files: Record<string, string>): Promise<Compiled> {
  const dir = tempDir('svc-typed-');
  const modules = join(dir, 'node_modules');
  mkdirSync(join(modules, '@types'), { recursive: true });
  // As an installed package: `svc` resolves through its package.json exports to dist/*.d.ts.
  symlinkSync(resolve('.'), join(modules, 'svc'));
  symlinkSync(resolve('node_modules/vitest'), join(modules, 'vitest'));
  symlinkSync(resolve('node_modules/@types/node'), join(modules, '@types/node'));
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ type: 'module' }));
  const compilerOptions = {
    strict: true, target: 'ES2022', module: 'NodeNext', moduleResolution: 'NodeNext', types: ['node'], noEmit: true, skipLibCheck: true,
  };
  writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify({ compilerOptions, files: Object.keys(files) }));
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  const output = await run(process.execPath, [resolve('node_modules/typescript/bin/tsc'), '-p', dir], { cwd: dir }).then(
    (done) => done.stdout,
    (failed: { stdout: string }) => failed.stdout,
  );
  return { errorsOf: (file) => output.split('\n').filter((line) => line.startsWith(`${file}(`)) };
}

describe('typed webhook events under strict TypeScript', () => {
  let compiled: Compiled;
  let example: string;
  beforeAll(async () => {
    expect(existsSync('dist/index.d.ts'), 'run `npm run build` first: the test compiles against dist').toBe(true);
    example = typedExample().code;
    expect(example).toContain(".payload.message.text");
    compiled = await compile({
      'example.test.ts': example,
      'wrong-field.test.ts': example.replace('.payload.message.text', '.payload.message.txt'),
      'wrong-event.test.ts': example.replace("'message:received:new'", "'chat:created'"),
      'receiver.ts': RECEIVER,
      'wrong-partner-field.ts': RECEIVER.replace('event.data.seats_used', 'event.data.quota_used'),
    });
  }, 120_000);

  it('the docs\' sandbox example compiles as printed, with no cast', () => {
    expect(example).not.toMatch(/\bas\s+(any|unknown)\b|@ts-/);
    expect(compiled.errorsOf('example.test.ts')).toEqual([]);
  });

  it('a field the event does not have fails to compile', () => {
    expect(compiled.errorsOf('wrong-field.test.ts').join('\n')).toMatch(/error TS2551: Property 'txt' does not exist/);
  });

  it('the body is narrowed to the event asked for: a chat event has no message', () => {
    expect(compiled.errorsOf('wrong-event.test.ts').join('\n')).toMatch(/error TS2339: Property 'message' does not exist/);
  });

  it('verifyWebhook and verifyPartnerWebhook return the union, narrowed on event_type or by `event`', () => {
    expect(compiled.errorsOf('receiver.ts')).toEqual([]);
    expect(compiled.errorsOf('wrong-partner-field.ts').join('\n')).toMatch(/Property 'quota_used' does not exist/);
  });
});
