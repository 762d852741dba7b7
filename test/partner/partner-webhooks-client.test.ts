import { afterEach, describe, expect, it } from 'vitest';
import type { PartnerClient } from '../../src/client/partner-client.js';
import { createPartnerHttpClient } from '../../src/client/partner-http-client.js';
import { createPartnerLocalClient } from '../../src/client/partner-local-client.js';
import type { CreatedPartner } from '../../src/wire/partner-types.js';
import { partnerFixture } from '../support/partner-fixtures.js';

let fx: Awaited<ReturnType<typeof partnerFixture>>;
const clients: PartnerClient[] = [];
afterEach(async () => {
  for (const client of clients.splice(0)) await client.close();
  await fx?.app.close();
  await fx?.engine.close();
});

let origin: string | undefined;
// One contract, run against both implementations; `who` picks the partner.
const implementations: Array<[string, (who: CreatedPartner) => Promise<PartnerClient>]> = [
  ['local', async (who) => createPartnerLocalClient(fx.engine, who.partner_id, 'local', async () => {})],
  [
    'http',
    async (who) => {
      origin ??= await fx.app.listen({ host: '127.0.0.1', port: 0 });
      return createPartnerHttpClient({ baseUrl: `${origin}/partner`, partnerId: who.partner_id, partnerSecret: who.partner_secret, clock: fx.clock });
    },
  ],
];

describe.each(implementations)('PartnerClient.webhooks (%s)', (_name, open) => {
  it('create, list, get, update, secret, test, deliveries, redeliver, delete; another partner gets not_found', async () => {
    fx = await partnerFixture();
    origin = undefined;
    const client = await open(fx.partner);
    const other = await open(fx.other);
    clients.push(client, other);
    await expect(client.webhooks.create({ event_type: 'message:new', url: 'https://hooks.example.com/a' })).rejects.toMatchObject({ code: 'validation_error' });
    const created = await client.webhooks.create({ event_type: 'api-token:rotated', url: 'https://hooks.example.com/a' });
    expect(created.secret).toMatch(/^whsec_/);
    expect((await client.webhooks.list()).items.map((w) => w.id)).toEqual([created.id]);
    expect(await client.webhooks.get(created.id)).toMatchObject({ event_type: 'api-token:rotated' });
    expect(await client.webhooks.update(created.id, { url: 'https://hooks.example.com/b' })).toMatchObject({ url: 'https://hooks.example.com/b' });
    expect((await client.webhooks.secret(created.id)).secret).toBe(created.secret);
    const test = await client.webhooks.test(created.id);
    expect((await client.webhooks.deliveries(created.id)).items[0]).toMatchObject({ id: test.id });
    expect(await client.webhooks.redeliver(created.id, test.id)).toMatchObject({ webhook_id: test.webhook_id });

    expect((await other.webhooks.list()).items).toEqual([]);
    await expect(other.webhooks.get(created.id)).rejects.toMatchObject({ code: 'not_found' });
    await expect(other.webhooks.delete(created.id)).rejects.toMatchObject({ code: 'not_found' });
    await expect(other.webhooks.update(created.id, { enabled: false })).rejects.toMatchObject({ code: 'not_found' });

    expect(await client.webhooks.delete(created.id)).toEqual({ deleted: true, id: created.id });
    await expect(client.webhooks.get(created.id)).rejects.toMatchObject({ code: 'not_found' });
  });
});
