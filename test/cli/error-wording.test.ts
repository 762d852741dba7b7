import { describe, expect, it } from 'vitest';
import { inFlags } from '../../src/cli/field-flags.js';
import { SvcError } from '../../src/wire/errors.js';
import { closest } from '../../src/wire/suggest.js';
import { fakeClient, sampleMessage } from '../support/fake-client.js';
import { runSvc } from '../support/run-cli.js';

describe('errors speak in flags', () => {
  it('wire field names in validation messages become the flags a CLI user typed', () => {
    expect(inFlags('body field "text" must NOT have more than 4096 characters')).toBe('--text must NOT have more than 4096 characters');
    expect(inFlags('text may be at most 4096 characters')).toBe('--text may be at most 4096 characters');
    expect(inFlags('give file_uid or attachment_template_id, not both')).toBe('give --file-uid or --template, not both');
    expect(inFlags('seats_purchased must be a whole number from 0 to 10000')).toBe('--seats must be a whole number from 0 to 10000');
    // Prose keeps its words; unknown snake_case stays as it is.
    expect(inFlags('a message needs some text')).toBe('a message needs some text');
    expect(inFlags('unknown messenger_account:connected')).toBe('unknown messenger_account:connected');
  });

  it('a validation error from the engine or a server reaches the user in flags', async () => {
    const client = fakeClient({
      overrides: { sendToPhone: async () => Promise.reject(new SvcError('validation_error', 'body field "reply_to" must be string')) },
    });
    const run = await runSvc(['send', '--phone', '+14155550123', '--text', 'Hi', '--reply-to', 'x'], { client });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('error: --reply-to must be string');
  });

  it('"did you mean" suggests only a near miss', () => {
    const events = ['message:new', 'chat:created', 'chat:assigned'];
    expect(closest('message:nwe', events)).toBe('message:new');
    expect(closest('CHAT:CREATED', events)).toBe('chat:created');
    expect(closest('totally-different', events)).toBeUndefined();
  });
});

describe('errors name the cause', () => {
  it('a remote without a token says so before any request (exit 4)', async () => {
    const client = fakeClient();
    const run = await runSvc(['workspace', '--base-url', 'http://127.0.0.1:1/api'], { client });
    expect(run.code).toBe(4);
    expect(run.stderr).toContain('no API token for http://127.0.0.1:1/api');
    expect(run.stderr).toContain('svc login');
    expect(run.configs).toEqual([]);
  });

  it('a send still queued behind a suspended account names the account', async () => {
    const pending = sampleMessage({ status: 'Pending', sent_at: null, messenger_account_phone: '+15550001' });
    const client = fakeClient({
      statuses: [pending, pending, pending],
      overrides: { listAccounts: async () => ({ items: [{ id: 1, phone: '+15550001', full_name: 'A', email: 'a@sim.invalid', status: 'suspended', connected_at: '2026-01-15T12:00:00.000Z', is_default_sender: true }], page: 1, has_more_pages: false }) },
    });
    const run = await runSvc(['send', '--phone', '+14155550123', '--text', 'Hi', '--wait-timeout', '1'], { client });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('its sending account +15550001 is suspended');
  });
});
