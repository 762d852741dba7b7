/**
 * The dispatcher reports each message it finishes, with the time since its acceptance
 * (`EngineMetrics.messageFinished`, exported as `svc_send_latency_seconds`), on both stores: once per message,
 * after its completion committed, and never for a message it did not finish.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { noMetrics } from '../../src/engine/engine-metrics.js';
import { FakeClock } from '../../src/wire/clock.js';
import { STORES, storeTestEngine } from '../support/store-engine.js';

const SENDER = '+15550000001';

describe.each(STORES)('the send latency metric on %s', (store) => {
  let drop: (() => Promise<void>) | undefined;
  afterEach(async () => drop?.());

  async function engineReporting() {
    const reported: Array<[string, number]> = [];
    const clock = new FakeClock();
    const t = await storeTestEngine(store, { clock, metrics: { ...noMetrics, messageFinished: (outcome, ms) => void reported.push([outcome, ms]) } });
    drop = t.drop;
    return { ...t, reported };
  }

  it('a sent message is counted once, with the time from its acceptance to its completion', async () => {
    const t = await engineReporting();
    const sent = await t.api.sendToPhone({ phone: '+14155550123', text: 'Hi' });
    t.clock.advance(250);
    expect(await t.engine.workers.runDue()).toBe(1);
    expect(await t.api.getMessage(sent.message_uid)).toMatchObject({ status: 'Sent' });
    expect(t.reported).toEqual([['sent', 250]]);
    // Nothing left to finish: a later run reports nothing more.
    t.clock.advance(5_000);
    await t.engine.workers.runDue();
    expect(t.reported).toEqual([['sent', 250]]);
  });

  it('a message refused by its account is counted as failed', async () => {
    const t = await engineReporting();
    const sent = await t.api.sendToPhone({ phone: '+14155550123', text: 'Hi' });
    await t.sim.disconnect(SENDER);
    t.clock.advance(40);
    await t.engine.workers.runDue();
    expect(await t.api.getMessage(sent.message_uid)).toMatchObject({ status: 'Failed', failure_reason: 'account_not_connected' });
    expect(t.reported).toEqual([['failed', 40]]);
  });

  it('a message another process finished meanwhile is not counted by this one', async () => {
    const t = await engineReporting();
    const sent = await t.api.sendToPhone({ phone: '+14155550123', text: 'Hi' });
    // The network takes it, but before this completion the message was made final elsewhere (a copy of its job).
    const { network, stores } = t.engine.context;
    const deliver = network.deliver.bind(network);
    network.deliverRun = undefined;
    network.deliver = async (request) => {
      const outcome = await deliver(request);
      const { id } = (await stores.messages.byUid(request.messageUid))!;
      await stores.messages.setStatus({ id, status: 'Sent', failureReason: null, networkMessageId: 'elsewhere', sentAt: t.clock.now() });
      return outcome;
    };
    await t.engine.workers.runDue();
    expect(await t.api.getMessage(sent.message_uid)).toMatchObject({ status: 'Sent' });
    expect(t.reported).toEqual([]);
  });
});
