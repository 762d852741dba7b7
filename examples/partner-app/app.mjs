// A tiny partner integration: provisions a workspace with one seat for a customer, hands out the QR link that
// connects their messenger account, and learns from a signed partner webhook when the account is connected.
import { createServer } from 'node:http';
import { PartnerClient, verifyPartnerWebhook } from 'svc';

export async function startPartnerApp({ partnerUrl, partnerId, partnerSecret, port = 0 }) {
  const partner = new PartnerClient({ baseUrl: partnerUrl, partnerId, partnerSecret });
  const accounts = new Map(); // workspace id -> connected phone
  const waiting = new Map(); // workspace id -> resolve functions

  const server = createServer(async (req, res) => {
    if (req.method !== 'POST' || req.url !== '/webhooks/svc') return res.writeHead(404).end();
    const chunks = [];
    for await (const chunk of req) chunks.push(chunk);
    let event;
    try {
      event = await verifyPartnerWebhook({ partnerId, partnerSecret, headers: req.headers, body: Buffer.concat(chunks) });
    } catch {
      return res.writeHead(401).end(); // not from svc, or not for this body
    }
    if (event.event_type === 'messenger_account:connected') {
      accounts.set(event.data.workspace_id, event.data.phone);
      for (const resolve of waiting.get(event.data.workspace_id) ?? []) resolve(event.data.phone);
      waiting.delete(event.data.workspace_id);
    }
    res.end('ok');
  });
  await new Promise((resolve) => server.listen(port, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${server.address().port}`;
  await partner.webhooks.create({ event_type: 'messenger_account:connected', url: `${url}/webhooks/svc` });

  return {
    url,
    /** A workspace for a new customer, with one seat and the QR link its owner scans. */
    async provision(customer) {
      const workspace = await partner.createWorkspace({ display_name: customer, seats_purchased: 1 });
      const [user] = await partner.createUsers(workspace.workspace_id, 1);
      const qr = await partner.createQrLink(workspace.workspace_id, user.user_id);
      return { workspaceId: workspace.workspace_id, userId: user.user_id, qrLink: qr.qr_link };
    },
    /** The customer's connected phone, once the webhook said so. */
    connectedPhone(workspaceId) {
      if (accounts.has(workspaceId)) return Promise.resolve(accounts.get(workspaceId));
      return new Promise((resolve) => waiting.set(workspaceId, [...(waiting.get(workspaceId) ?? []), resolve]));
    },
    /** The customer's API token, to send messages with. */
    async apiToken(workspaceId) {
      return (await partner.getApiToken(workspaceId)).api_token;
    },
    async close() {
      await partner.close();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
