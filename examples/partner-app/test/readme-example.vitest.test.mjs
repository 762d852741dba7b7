// The example test of docs/testing.md, run as it is printed there (test/testing/sandbox.test.ts checks the two match).
import { it, expect } from 'vitest';
import { SvcClient } from 'svc';
import { startSandbox } from 'svc/testing';

it('hears about an incoming message', async () => {
  const sandbox = await startSandbox();
  const client = new SvcClient({ baseUrl: sandbox.apiUrl, token: sandbox.workspace.token });
  await sandbox.connectAccount('+15550001001');
  const delivery = sandbox.nextDelivery({ event: 'message:received:new' });
  await sandbox.receiveMessage({ from: '+4915112345', to: '+15550001001', text: 'Hi' });
  expect((await delivery).payload.message.text).toBe('Hi');
  expect((await client.listChats()).items).toHaveLength(1);
  await client.close(); await sandbox.stop();
});
