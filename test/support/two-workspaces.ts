/**
 * Two workspaces on one real engine and server (inject), A full of data and B with a token and an account
 * of its own, and a snapshot of everything A owns so a test can prove B changed none of it.
 */
import type { FastifyInstance } from 'fastify';
import { buildServer } from '../../src/http/server/build-server.js';
import { testEngine } from './test-engine.js';
import { fakeSender } from './webhook-engine.js';

export interface RouteEntry {
  method: string;
  url: string;
}

export async function twoWorkspaces() {
  const sender = fakeSender();
  const t = await testEngine({ webhookSend: sender.send });
  const { engine } = t;
  const a = { ...t.local, api: t.api, phone: '+15550000001' };
  const createdB = await engine.admin.createWorkspace({ name: 'B' });
  const b = { ...createdB, api: engine.workspace(createdB.workspace_id), phone: '+15550000777' };
  await engine.sim(b.workspace_id).connect({ phone: b.phone });

  // A's resources: a chat with messages, a file, a template, a subscription with a delivery, a listen session.
  const sent = await a.api.sendToPhone({ phone: '+14155550123', text: 'A private text', chat_name: 'Alice of A' });
  const incoming = await engine.sim(a.workspace_id).receive({ from: '+14155550123', to: a.phone, text: 'A incoming' });
  const file = await a.api.uploadFile({ filename: 'a-secret.txt', mimetype: 'text/plain', content: Buffer.from('A file content') });
  const fileUrl = (await a.api.getFile(file.uid)).temporary_download_url!;
  const template = await a.api.createTemplate({ file_uid: file.uid, name: 'A template' });
  const hooks = engine.webhooks(a.workspace_id);
  const hook = await hooks.create({ event_type: 'message:new', url: 'https://example.com/a-hook', enabled: true });
  const delivery = await hooks.test(hook.id);
  const session = await engine.listen(a.workspace_id).open({});
  const listenSecret = (await engine.listen(a.workspace_id).secret()).secret;

  const routes: RouteEntry[] = [];
  const app: FastifyInstance = buildServer({ engine, rateLimitPerMinute: 0 });
  app.addHook('onRoute', (route) => {
    if (route.config?.skipAuth === true) return;
    for (const method of [route.method].flat()) if (method !== 'HEAD') routes.push({ method, url: route.url });
  });
  await app.ready();

  const resources = {
    messageUid: sent.message_uid,
    incomingUid: incoming.message_uid,
    chatId: sent.chat_id,
    chatName: 'Alice of A',
    fileUid: file.uid,
    fileUrl,
    templateId: template.id,
    hookId: hook.id,
    hookSecret: hook.secret,
    deliveryId: delivery.id,
    sessionId: session.id,
    listenSecret,
    contactPhone: '+14155550123',
  };

  /** Everything of A that B must neither read nor change. */
  const snapshot = async () => {
    const api = a.api;
    const chats = await api.listChats(1);
    return JSON.stringify({
      workspace: await api.getWorkspace(),
      accounts: await api.listAccounts(),
      chats,
      chatMessages: await Promise.all(chats.items.map((chat) => api.listChatMessages(chat.id, 1))),
      messages: [await api.getMessage(sent.message_uid), await api.getMessage(incoming.message_uid)],
      files: await api.listFiles(1),
      templates: await api.listTemplates(1),
      hooks: await hooks.list(1),
      hookSecret: await hooks.secret(hook.id),
      deliveries: (await hooks.deliveries(hook.id, 1)).items.map(({ id, status, webhook_id }) => ({ id, status, webhook_id })),
      session: await engine.listen(a.workspace_id).get(session.id),
      listenSecret: await engine.listen(a.workspace_id).secret(),
      contactUnreachable: await engine.context.stores.sim.isUnreachable(a.phone, '+14155550123'),
      token: await engine.authenticate(a.token),
    });
  };

  return { ...t, app, a, b, resources, routes, snapshot, sender };
}
