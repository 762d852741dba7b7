import { describe, expect, it } from 'vitest';
import { expectSvcError } from '../support/engine-fixtures.js';
import { webhookEngine } from '../support/webhook-engine.js';

describe('webhook subscriptions', () => {
  it('create: returns the SPEC 2.4 record with the secret, once; get leaves it out', async () => {
    const { hooks } = await webhookEngine();
    const created = await hooks.create({ event_type: 'message:new', url: 'http://127.0.0.1:9/hook' });
    expect(created).toMatchObject({ event_type: 'message:new', enabled: true, url: 'http://127.0.0.1:9/hook', errors_counter: 0 });
    expect(created.secret).toMatch(/^whsec_/);
    expect(await hooks.get(created.id)).toEqual({ id: created.id, event_type: 'message:new', enabled: true, url: 'http://127.0.0.1:9/hook', errors_counter: 0 });
    expect(await hooks.secret(created.id)).toEqual({ id: created.id, secret: created.secret });
    expect(await hooks.list(1)).toEqual({ items: [await hooks.get(created.id)], page: 1, has_more_pages: false });
  });

  it('create: enabled false is kept; an unknown event type is a validation error', async () => {
    const { hooks } = await webhookEngine();
    expect((await hooks.create({ event_type: 'chat:created', url: 'http://localhost/x', enabled: false })).enabled).toBe(false);
    await expectSvcError(() => hooks.create({ event_type: 'message:deleted', url: 'http://localhost/x' }), 'validation_error');
    await expectSvcError(() => hooks.create({ event_type: 'api-token:rotated', url: 'http://localhost/x' }), 'validation_error');
  });

  it('update: is partial; only supplied fields change', async () => {
    const { hooks } = await webhookEngine();
    const { id } = await hooks.create({ event_type: 'message:new', url: 'http://localhost/a' });
    expect(await hooks.update(id, { enabled: false })).toMatchObject({ event_type: 'message:new', url: 'http://localhost/a', enabled: false });
    expect(await hooks.update(id, { url: 'http://localhost/b' })).toMatchObject({ event_type: 'message:new', url: 'http://localhost/b', enabled: false });
    expect(await hooks.update(id, { event_type: 'chat:assigned' })).toMatchObject({ event_type: 'chat:assigned', url: 'http://localhost/b', enabled: false });
    expect(await hooks.update(id, {})).toMatchObject({ event_type: 'chat:assigned', url: 'http://localhost/b', enabled: false });
    await expectSvcError(() => hooks.update(id, { url: 'ftp://x' }), 'validation_error');
    expect((await hooks.get(id)).url).toBe('http://localhost/b');
  });

  it('create: the per-workspace limit answers conflict (409) beyond it', async () => {
    const { hooks } = await webhookEngine(undefined, { config: { webhookSubscriptionLimit: 2 } });
    await hooks.create({ event_type: 'message:new', url: 'http://localhost/1' });
    const second = await hooks.create({ event_type: 'message:new', url: 'http://localhost/2' });
    await expectSvcError(() => hooks.create({ event_type: 'message:new', url: 'http://localhost/3' }), 'conflict');
    await hooks.delete(second.id);
    expect((await hooks.create({ event_type: 'message:new', url: 'http://localhost/3' })).url).toBe('http://localhost/3');
  });

  it('create: concurrent creates at the limit cannot both get in (the count and the insert are one transaction)', async () => {
    const { hooks } = await webhookEngine(undefined, { config: { webhookSubscriptionLimit: 2 } });
    await hooks.create({ event_type: 'message:new', url: 'http://localhost/1' });
    const results = await Promise.allSettled([1, 2, 3, 4].map((i) => hooks.create({ event_type: 'message:new', url: `http://localhost/x${i}` })));
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    for (const r of results) if (r.status === 'rejected') expect((r.reason as { code?: string }).code).toBe('conflict');
    expect((await hooks.list(1)).items).toHaveLength(2);
  });

  it('delete: answers {deleted, id}; afterwards the id is not found', async () => {
    const { hooks } = await webhookEngine();
    const { id } = await hooks.create({ event_type: 'message:new', url: 'http://localhost/a' });
    expect(await hooks.delete(id)).toEqual({ deleted: true, id });
    await expectSvcError(() => hooks.get(id), 'not_found');
    await expectSvcError(() => hooks.delete(id), 'not_found');
  });

  it('isolation: another workspace cannot see or touch a subscription (404)', async () => {
    const { engine, hooks } = await webhookEngine();
    const { id } = await hooks.create({ event_type: 'message:new', url: 'http://localhost/a' });
    const other = engine.webhooks((await engine.admin.createWorkspace({ name: 'Other' })).workspace_id);
    expect((await other.list(1)).items).toEqual([]);
    for (const attempt of [() => other.get(id), () => other.secret(id), () => other.update(id, { enabled: false }), () => other.delete(id),
      () => other.deliveries(id, 1), () => other.test(id)]) {
      await expectSvcError(attempt, 'not_found');
    }
    expect((await hooks.get(id)).enabled).toBe(true);
  });

  it('url policy: strict mode refuses http and private addresses; dev allows them', async () => {
    const strict = (await webhookEngine(undefined, { config: { dev: false } })).hooks;
    await expectSvcError(() => strict.create({ event_type: 'message:new', url: 'http://example.com/hook' }), 'validation_error');
    await expectSvcError(() => strict.create({ event_type: 'message:new', url: 'https://127.0.0.1/hook' }), 'validation_error');
    await expectSvcError(() => strict.create({ event_type: 'message:new', url: 'https://localhost/hook' }), 'validation_error');
    expect((await strict.create({ event_type: 'message:new', url: 'https://example.com/hook' })).url).toBe('https://example.com/hook');
    const dev = (await webhookEngine()).hooks;
    expect((await dev.create({ event_type: 'message:new', url: 'http://127.0.0.1:3000/hook' })).url).toBe('http://127.0.0.1:3000/hook');
  });

  it('test: a disabled subscription gets no test event (conflict)', async () => {
    const { hooks } = await webhookEngine();
    const { id } = await hooks.create({ event_type: 'message:new', url: 'http://localhost/a', enabled: false });
    await expectSvcError(() => hooks.test(id), 'conflict');
  });
});
