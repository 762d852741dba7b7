/**
 * Sends claimed as they are accepted (`SendHandOff`, src/engine/send-hand-off.ts). On PostgreSQL, while this
 * process's worker loop runs, a send to an idle account (no send queued, connected, its slot open) is leased to
 * the dispatcher by the accept's own flush and handed to it after the commit: no claim in its path. SQLite claims
 * in a fraction of a millisecond and does not do this. Either way each message reaches the network once, in its
 * account's order, and ends as before. These tests run the real worker loop on both stores, with a network that
 * holds deliveries until told, so what is claimed while the dispatcher is busy can be looked at.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { NetworkDriver } from '../../src/network/driver.js';
import { query } from '../../src/store/sql.js';
import { FakeClock } from '../../src/wire/clock.js';
import { STORES, storeTestEngine } from '../support/store-engine.js';

const SENDER = '+15550000001';
const JOB_OF = query<{ lease_owner: string | null; lease_until: number | null }>(
  "SELECT lease_owner, lease_until FROM jobs WHERE kind = 'send' AND ref_id = @id",
);

/** Holds every delivery until `open()`; `seen` lists the message uids handed to the network, in order. */
function gate(network: NetworkDriver) {
  const seen: string[] = [];
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  const deliver = network.deliver.bind(network);
  network.deliverRun = undefined;
  network.deliver = async (request) => {
    seen.push(request.messageUid);
    await opened;
    return deliver(request);
  };
  return { seen, open: () => open() };
}

describe.each(STORES)('sends claimed at acceptance on %s', (store) => {
  let t: Awaited<ReturnType<typeof storeTestEngine>> | undefined;
  let network: ReturnType<typeof gate> | undefined;
  afterEach(async () => {
    network?.open();
    await t?.drop();
    t = undefined;
  });

  async function started() {
    t = await storeTestEngine(store, { clock: new FakeClock(), deliverWebhooks: false });
    network = gate(t.ctx.network);
    return { t, network };
  }
  const unspaced = (workspaceId: number) => t!.engine.admin.updateWorkspace(workspaceId, { plan: 'business', send_interval_ms: 0 });
  const stateOf = async (uid: string) => {
    const message = (await t!.ctx.stores.messages.byUid(uid))!;
    return { status: message.status, job: await t!.ctx.sql.get(JOB_OF, { id: message.id }) };
  };
  const statusOf = async (uid: string) => (await t!.ctx.stores.messages.byUid(uid))?.status;
  async function otherWorkspace(name: string, phone: string) {
    const ws = (await t!.engine.admin.createWorkspace({ name, quota: 100 })).workspace_id;
    await t!.engine.sim(ws).connect({ phone });
    await unspaced(ws);
    return t!.engine.workspace(ws);
  }

  /** An engine whose dispatcher is held inside its delivery of `first` (to the unspaced local workspace): it claims nothing meanwhile. */
  async function heldDispatcher(phone: string) {
    const { t, network } = await started();
    await unspaced(t.local.workspace_id);
    t.engine.workers.start();
    const first = await t.api.sendToPhone({ phone, text: 'first' });
    await vi.waitFor(() => expect(network.seen).toEqual([first.message_uid]));
    return { t, network, first };
  }

  it('an idle account\'s send is leased as it is accepted (PostgreSQL), one queued behind another is not, and each reaches the network once, in order', async () => {
    const { t, network, first } = await heldDispatcher('+14155550101');
    const idle = await (await otherWorkspace('Idle', '+15550007301')).sendToPhone({ phone: '+14155550102', text: 'idle' });
    const behind = await t.api.sendToPhone({ phone: '+14155550103', text: 'behind' });

    const idleState = await stateOf(idle.message_uid);
    if (store === 'postgres') {
      expect(idleState.status).toBe('Sending');
      expect(idleState.job?.lease_owner).toEqual(expect.any(String));
      expect(Number(idleState.job?.lease_until)).toBe(t.clock.now() + t.ctx.config.sendLeaseMs);
    } else {
      expect(idleState).toEqual({ status: 'Pending', job: { lease_owner: null, lease_until: null } });
    }
    // Its account's queue held `first`: left for the dispatcher's claim once `first` is done, on both stores.
    expect(await stateOf(behind.message_uid)).toEqual({ status: 'Pending', job: { lease_owner: null, lease_until: null } });

    network.open();
    for (const { message_uid: uid } of [first, idle, behind]) await vi.waitFor(async () => expect(await statusOf(uid)).toBe('Sent'));
    expect([...network.seen].sort()).toEqual([first, idle, behind].map((s) => s.message_uid).sort());
    expect(network.seen.indexOf(behind.message_uid)).toBeGreaterThan(network.seen.indexOf(first.message_uid));
  });

  it('a spaced account whose next slot is not open yet keeps its send Pending until the slot opens', async () => {
    const { t, network } = await started();
    network.open();
    t.engine.workers.start();
    const first = await t.api.sendToPhone({ phone: '+14155550111', text: 'first' });
    await vi.waitFor(async () => expect(await statusOf(first.message_uid)).toBe('Sent'));
    // Its queue is empty again, but its spacing (about 2 s) has not passed on the test's clock.
    const second = await t.api.sendToPhone({ phone: '+14155550112', text: 'second' });
    expect(await stateOf(second.message_uid)).toEqual({ status: 'Pending', job: { lease_owner: null, lease_until: null } });
    t.clock.advance(3_000);
    await vi.waitFor(async () => expect(await statusOf(second.message_uid)).toBe('Sent'));
    expect(network.seen).toEqual([first.message_uid, second.message_uid]);
  });

  it('a suspended account\'s send is not claimed ahead: it waits for the account to resume, as before', async () => {
    const { t, network } = await started();
    network.open();
    t.engine.workers.start();
    await t.sim.suspend(SENDER);
    const held = await t.api.sendToPhone({ phone: '+14155550121', text: 'held', messenger_account_phone: SENDER });
    expect(await stateOf(held.message_uid)).toEqual({ status: 'Pending', job: { lease_owner: null, lease_until: null } });
    await t.sim.resume(SENDER);
    t.engine.context.wake('send');
    await vi.waitFor(async () => expect(await statusOf(held.message_uid)).toBe('Sent'));
    expect(network.seen).toEqual([held.message_uid]);
  });

  it('a send to an account whose queue holds a message no dispatcher holds yet is not claimed ahead of it', async () => {
    const { t, network, first: busy } = await heldDispatcher('+14155550141');
    // Queued while its account was suspended; resumed while the dispatcher is held: nobody has claimed it.
    const other = await otherWorkspace('Queued', '+15550007304');
    const otherSim = t.engine.sim((await t.ctx.stores.accounts.byPhone('+15550007304'))!.workspace_id);
    await otherSim.suspend('+15550007304');
    const queued = await other.sendToPhone({ phone: '+14155550142', text: 'queued', messenger_account_phone: '+15550007304' });
    await otherSim.resume('+15550007304');
    const next = await other.sendToPhone({ phone: '+14155550143', text: 'next' });
    expect(await stateOf(next.message_uid)).toEqual({ status: 'Pending', job: { lease_owner: null, lease_until: null } });

    network.open();
    for (const { message_uid: uid } of [busy, queued, next]) await vi.waitFor(async () => expect(await statusOf(uid)).toBe('Sent'));
    expect(network.seen.indexOf(next.message_uid)).toBeGreaterThan(network.seen.indexOf(queued.message_uid));
  });

  it('a send handed over but not yet taken when the loop stops is released for the next claim; one accepted after is not leased', async () => {
    const { t, network, first } = await heldDispatcher('+14155550131');
    const other = await otherWorkspace('Handed', '+15550007302');
    const waiting = await other.sendToPhone({ phone: '+14155550132', text: 'waiting' });

    const woken: string[] = [];
    const wake = t.ctx.wake;
    t.ctx.wake = (name) => (woken.push(name), wake(name));
    const stopping = t.engine.workers.stop();
    network.open();
    await stopping;
    // Its accept woke no dispatcher (it was claimed): the others are woken for it now.
    expect(woken).toEqual(store === 'postgres' ? ['send'] : []);
    expect(await statusOf(first.message_uid)).toBe('Sent');
    // Never handed to the network, and no longer leased: the next claim takes it at once.
    expect(network.seen).toEqual([first.message_uid]);
    const released = await stateOf(waiting.message_uid);
    expect(Number(released.job?.lease_until ?? 0)).toBeLessThanOrEqual(t.clock.now());
    const late = await (await otherWorkspace('Late', '+15550007303')).sendToPhone({ phone: '+14155550133', text: 'late' });
    expect(await stateOf(late.message_uid)).toEqual({ status: 'Pending', job: { lease_owner: null, lease_until: null } });

    expect(await t.engine.workers.runDue()).toBe(2);
    for (const { message_uid: uid } of [waiting, late]) expect(await statusOf(uid)).toBe('Sent');
    expect(network.seen).toEqual([first.message_uid, waiting.message_uid, late.message_uid]);
  });
});
