import { describe, expect, it } from 'vitest';
import { expectSvcError } from '../support/engine-fixtures.js';
import { webhookEngine } from './engine-helpers.js';

describe('webhook subscriptions', () => {
  it('create: returns the SPEC 2.4 record with the secret, once; get leaves it out', () => {
    const { hooks } = webhookEngine();
    const created = hooks.create({ event_type: 'message:new', url: 'http://127.0.0.1:9/hook' });
    expect(created).toMatchObject({ event_type: 'message:new', enabled: true, url: 'http://127.0.0.1:9/hook', errors_counter: 0 });
    expect(created.secret).toMatch(/^whsec_/);
    expect(hooks.get(created.id)).toEqual({ id: created.id, event_type: 'message:new', enabled: true, url: 'http://127.0.0.1:9/hook', errors_counter: 0 });
    expect(hooks.secret(created.id)).toEqual({ id: created.id, secret: created.secret });
    expect(hooks.list(1)).toEqual({ items: [hooks.get(created.id)], page: 1, has_more_pages: false });
  });

  it('create: enabled false is kept; an unknown event type is a validation error', () => {
    const { hooks } = webhookEngine();
    expect(hooks.create({ event_type: 'chat:created', url: 'http://localhost/x', enabled: false }).enabled).toBe(false);
    expectSvcError(() => hooks.create({ event_type: 'message:deleted', url: 'http://localhost/x' }), 'validation_error');
    expectSvcError(() => hooks.create({ event_type: 'api-token:rotated', url: 'http://localhost/x' }), 'validation_error');
  });

  it('update: is partial; only supplied fields change', () => {
    const { hooks } = webhookEngine();
    const { id } = hooks.create({ event_type: 'message:new', url: 'http://localhost/a' });
    expect(hooks.update(id, { enabled: false })).toMatchObject({ event_type: 'message:new', url: 'http://localhost/a', enabled: false });
    expect(hooks.update(id, { url: 'http://localhost/b' })).toMatchObject({ event_type: 'message:new', url: 'http://localhost/b', enabled: false });
    expect(hooks.update(id, { event_type: 'chat:assigned' })).toMatchObject({ event_type: 'chat:assigned', url: 'http://localhost/b', enabled: false });
    expect(hooks.update(id, {})).toMatchObject({ event_type: 'chat:assigned', url: 'http://localhost/b', enabled: false });
    expectSvcError(() => hooks.update(id, { url: 'ftp://x' }), 'validation_error');
    expect(hooks.get(id).url).toBe('http://localhost/b');
  });

  it('create: the per-workspace limit answers conflict (409) beyond it', () => {
    const { hooks } = webhookEngine(undefined, { config: { webhookSubscriptionLimit: 2 } });
    hooks.create({ event_type: 'message:new', url: 'http://localhost/1' });
    const second = hooks.create({ event_type: 'message:new', url: 'http://localhost/2' });
    expectSvcError(() => hooks.create({ event_type: 'message:new', url: 'http://localhost/3' }), 'conflict');
    hooks.delete(second.id);
    expect(hooks.create({ event_type: 'message:new', url: 'http://localhost/3' }).url).toBe('http://localhost/3');
  });

  it('delete: answers {deleted, id}; afterwards the id is not found', () => {
    const { hooks } = webhookEngine();
    const { id } = hooks.create({ event_type: 'message:new', url: 'http://localhost/a' });
    expect(hooks.delete(id)).toEqual({ deleted: true, id });
    expectSvcError(() => hooks.get(id), 'not_found');
    expectSvcError(() => hooks.delete(id), 'not_found');
  });

  it('isolation: another workspace cannot see or touch a subscription (404)', () => {
    const { engine, hooks } = webhookEngine();
    const { id } = hooks.create({ event_type: 'message:new', url: 'http://localhost/a' });
    const other = engine.webhooks(engine.admin.createWorkspace({ name: 'Other' }).workspace_id);
    expect(other.list(1).items).toEqual([]);
    for (const attempt of [() => other.get(id), () => other.secret(id), () => other.update(id, { enabled: false }), () => other.delete(id),
      () => other.deliveries(id, 1), () => other.test(id)]) {
      expectSvcError(attempt, 'not_found');
    }
    expect(hooks.get(id).enabled).toBe(true);
  });

  it('url policy: strict mode refuses http and private addresses; dev allows them', () => {
    const strict = webhookEngine(undefined, { config: { dev: false } }).hooks;
    expectSvcError(() => strict.create({ event_type: 'message:new', url: 'http://example.com/hook' }), 'validation_error');
    expectSvcError(() => strict.create({ event_type: 'message:new', url: 'https://127.0.0.1/hook' }), 'validation_error');
    expectSvcError(() => strict.create({ event_type: 'message:new', url: 'https://localhost/hook' }), 'validation_error');
    expect(strict.create({ event_type: 'message:new', url: 'https://example.com/hook' }).url).toBe('https://example.com/hook');
    const dev = webhookEngine().hooks;
    expect(dev.create({ event_type: 'message:new', url: 'http://127.0.0.1:3000/hook' }).url).toBe('http://127.0.0.1:3000/hook');
  });

  it('test: a disabled subscription gets no test event (conflict)', () => {
    const { hooks } = webhookEngine();
    const { id } = hooks.create({ event_type: 'message:new', url: 'http://localhost/a', enabled: false });
    expectSvcError(() => hooks.test(id), 'conflict');
  });
});
