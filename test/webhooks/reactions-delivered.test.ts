/**
 * `reactions` in delivered message bodies, on both stores: present (emoji -> count as a string) whenever the
 * message has reactions when its event happens, absent otherwise, and shown by the sample a test event sends.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { STORES, storeDatabase, type Store } from '../support/store-engine.js';
import { webhookEngine } from '../support/webhook-engine.js';

const drops: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const drop of drops.splice(0)) await drop();
});

async function engineOn(store: Store) {
  const { database, drop } = await storeDatabase(store);
  const t = await webhookEngine(undefined, { database });
  drops.push(async () => {
    await t.engine.close();
    await drop();
  });
  return t;
}

for (const store of STORES) {
  describe(`reactions in delivered messages on ${store}`, () => {
    it('a message with reactions when its event happens carries them; one without has no reactions key', async () => {
      const t = await engineOn(store);
      for (const event of ['message:new', 'message:sent:new']) await t.hooks.create({ event_type: event, url: `http://127.0.0.1:9/${event}` });
      // Reacted to while still queued: the reactions exist when the message is sent and its events happen.
      const reacted = await t.api.sendToPhone({ phone: '+14155550123', text: 'reacted' });
      await t.sim.react({ message_uid: reacted.message_uid, emoji: '👍' });
      await t.sim.react({ message_uid: reacted.message_uid, emoji: '👍' });
      await t.sim.react({ message_uid: reacted.message_uid, emoji: '❤️' });
      const plain = await t.api.sendToPhone({ phone: '+14155550124', text: 'plain' });
      for (let i = 0; i < 4; i += 1) {
        await t.engine.workers.runDue();
        t.clock.advance(10_000);
      }
      const bodies = t.sender.bodies();
      const of = (uid: string) => bodies.filter((b) => b.message.message_uid === uid);
      expect(of(reacted.message_uid).map((b) => b.event_type).sort()).toEqual(['message:new', 'message:sent:new']);
      for (const body of of(reacted.message_uid)) expect(body.message.reactions).toEqual({ '👍': '2', '❤️': '1' });
      expect(of(plain.message_uid)).toHaveLength(2);
      for (const body of of(plain.message_uid)) expect(body.message).not.toHaveProperty('reactions');
    });

    it('a test event of a message subscription shows the reactions key in its real shape', async () => {
      const t = await engineOn(store);
      const hook = await t.hooks.create({ event_type: 'message:received:new', url: 'http://127.0.0.1:9/in' });
      await t.hooks.test(hook.id);
      await t.engine.workers.runDue();
      const [sample] = t.sender.bodies();
      expect(sample).toMatchObject({ test: true, event_type: 'message:received:new' });
      expect(sample!.message.reactions).toEqual({ '👍': '1' });
      expect(sample!.message).not.toHaveProperty('reply_to_uid');
      expect(sample!.chat).not.toHaveProperty('responsible_email');
    });
  });
}
