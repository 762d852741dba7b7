import { afterEach, describe, expect, it } from 'vitest';
import type { PartnerClient } from '../../src/client/partner-client.js';
import { createPartnerHttpClient } from '../../src/client/partner-http-client.js';
import { createPartnerLocalClient } from '../../src/client/partner-local-client.js';
import { partnerFixture } from '../support/partner-fixtures.js';

let fx: Awaited<ReturnType<typeof partnerFixture>>;
let client: PartnerClient | undefined;
afterEach(async () => {
  await client?.close();
  await fx?.app.close();
  await fx?.engine.close();
});

// One contract, run against both implementations (STYLE.md 4).
const implementations: Array<[string, () => Promise<PartnerClient>]> = [
  ['local', async () => createPartnerLocalClient(fx.engine, fx.partner.partner_id, 'local', async () => {})],
  [
    'http',
    async () => {
      const origin = await fx.app.listen({ host: '127.0.0.1', port: 0 });
      return createPartnerHttpClient({ baseUrl: `${origin}/partner`, partnerId: fx.partner.partner_id, partnerSecret: fx.partner.partner_secret, clock: fx.clock });
    },
  ],
];

describe.each(implementations)('PartnerClient (%s)', (_name, open) => {
  it('workspace, users, QR link, disconnect and token round trip', async () => {
    fx = await partnerFixture();
    client = await open();
    expect(await client.describe()).toMatchObject({ partner_id: fx.partner.partner_id, name: 'Acme' });
    const { workspace_id: ws } = await client.createWorkspace({ display_name: 'Acme Dental', seats_purchased: 2 });
    const users = await client.createUsers(ws, 2);
    await expect(client.createUsers(ws, 1)).rejects.toMatchObject({ code: 'seats_full' });
    const link = await client.createQrLink(ws, users[0]!.user_id, { expires_in_hours: 2 });
    await fx.engine.connect.scan({ qr_link: link.qr_link, phone: '+15550004001' });
    expect((await client.listUsers(ws)).items[0]!.messenger_account).toMatchObject({ phone: '+15550004001' });
    expect(await client.disconnectAccount(ws, users[0]!.user_id)).toMatchObject({ disconnected: true });
    const token = await client.getApiToken(ws);
    expect((await client.rotateApiToken(ws)).token).not.toBe(token.token);
    expect(await client.updateWorkspace(ws, { seats_purchased: 3 })).toMatchObject({ seats_purchased: 3, seats_used: 2 });
    await expect(client.getWorkspace(ws + 100)).rejects.toMatchObject({ code: 'not_found' });
  });
});

describe('PartnerClient (http): refusals', () => {
  it('a wrong secret surfaces as unauthorized with the rule in the message', async () => {
    fx = await partnerFixture();
    const origin = await fx.app.listen({ host: '127.0.0.1', port: 0 });
    client = createPartnerHttpClient({ baseUrl: `${origin}/partner`, partnerId: fx.partner.partner_id, partnerSecret: 'pts_wrong', clock: fx.clock });
    const error = await client.describe().catch((caught: unknown) => caught);
    expect(error).toMatchObject({ code: 'unauthorized' });
    expect(String((error as Error).message)).toContain('invalid_credentials');
    expect(String((error as Error).message)).not.toContain('pts_wrong');
  });
});
