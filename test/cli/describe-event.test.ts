import { describe, expect, it } from 'vitest';
import { describeEvent } from '../../src/cli/describe-event.js';

describe('describeEvent', () => {
  it('describeEvent: reads the top-level docs/api-behaviour.md shape', () => {
    const payload = {
      event_type: 'message:received:new',
      chat: { chat_id: 42, full_name: 'Alice' },
      messenger_account: { phone: '+15550001000' },
      message: { message_uid: 'uid-1', text: 'Hi' },
    };
    expect(describeEvent(payload)).toEqual({
      eventType: 'message:received:new', id: 'uid-1', idKind: 'message_uid', chatId: '42', chatName: 'Alice', text: 'Hi', shape: 'top-level',
    });
  });

  it('describeEvent: reads the nested data shape', () => {
    const payload = { event_type: 'message:new', data: { chat_id: 7, chat_name: 'Bob', text: 'Yo', message_uid: 'uid-2' } };
    expect(describeEvent(payload)).toEqual({
      eventType: 'message:new', id: 'uid-2', idKind: 'message_uid', chatId: '7', chatName: 'Bob', text: 'Yo', shape: 'nested',
    });
    expect(describeEvent({ event: 'chat:created', data: { chat_id: 7 } })).toMatchObject({ eventType: 'chat:created', id: '7', idKind: 'chat_id' });
  });

  it('describeEvent: falls back to chat id, then account phone, then id', () => {
    expect(describeEvent({ event_type: 'chat:assigned', chat: { chat_id: 9 } })).toMatchObject({ id: '9', idKind: 'chat_id' });
    expect(describeEvent({ event_type: 'messenger:account:connected', messenger_account: { phone: '+1555' } })).toMatchObject({ id: '+1555', idKind: 'phone' });
    expect(describeEvent({ type: 'ping', id: 'evt_1' })).toMatchObject({ eventType: 'ping', id: 'evt_1', idKind: 'id', shape: 'unknown' });
  });

  it('describeEvent: accepts raw JSON text and never throws on junk', () => {
    expect(describeEvent('{"event_type":"message:new","message":{"message_uid":"u"}}')).toMatchObject({ eventType: 'message:new', id: 'u' });
    expect(describeEvent(Buffer.from('{"event_type":"x"}'))).toMatchObject({ eventType: 'x' });
    for (const junk of ['not json', null, undefined, 42, [], { message: 'string', data: [1] }, { event_type: {} }]) {
      expect(describeEvent(junk)).toMatchObject({ eventType: null, id: null, shape: 'unknown' });
    }
  });
});
