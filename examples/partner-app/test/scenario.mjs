// The scenario both runners execute: provision, scan the QR link, hear the webhook, send with the token.
import { SvcClient } from 'svc';
import { startSandbox } from 'svc/testing';
import { startPartnerApp } from '../app.mjs';

export async function onboardingScenario(check) {
  const sandbox = await startSandbox();
  const app = await startPartnerApp({ partnerUrl: sandbox.partnerUrl, ...sandbox.partner });
  try {
    const { workspaceId, qrLink } = await app.provision('Bakery Ltd');
    check.match(qrLink, /\/connect\/[A-Za-z0-9_-]+$/);
    await sandbox.scanQr(qrLink, '+15550009001');
    check.equal(await app.connectedPhone(workspaceId), '+15550009001');

    const customer = new SvcClient({ baseUrl: sandbox.apiUrl, token: await app.apiToken(workspaceId) });
    const sent = await customer.sendToPhone({ phone: '+14155550123', text: 'Your order is ready' });
    check.equal(sent.status, 'Pending');
    await customer.close();

    // QR links expire: one made now no longer connects a week later.
    const late = await app.provision('Late Ltd');
    await sandbox.clock.advance('169h');
    await check.rejects(sandbox.scanQr(late.qrLink, '+15550009002'));
  } finally {
    await app.close();
    await sandbox.stop();
  }
}
