/** Pure pieces of the listener: the SSE parser (any chunking) and the --forward-to shorthand. */
import { describe, expect, it } from 'vitest';
import { SseParser } from '../../src/client/sse-parser.js';
import { forwardTarget } from '../../src/cli/commands/webhooks-listen.js';
import { formatListenEvent } from '../../src/webhooks/listen-feed.js';

describe('SseParser', () => {
  const stream =
    ': keep-alive\n\n' +
    formatListenEvent({ type: 'ready', session_id: 'ls_1', heartbeat_ms: 10 }) +
    'event: delivery\r\nid: 7\r\ndata: {"a":1}\r\n\r\n' +
    formatListenEvent({ type: 'heartbeat' });

  it('parse: the same events whatever the chunk boundaries, \\r\\n included', () => {
    const whole = new SseParser().push(stream);
    expect(whole.map((e) => e.event)).toEqual(['ready', 'delivery', 'heartbeat']);
    expect(whole[1]).toEqual({ event: 'delivery', data: '{"a":1}', id: '7' });
    for (let size = 1; size < 12; size += 1) {
      const parser = new SseParser();
      const events = [];
      for (let i = 0; i < stream.length; i += size) events.push(...parser.push(stream.slice(i, i + size)));
      expect(events).toEqual(whole);
    }
  });
});

describe('forwardTarget', () => {
  it('parse: port, port/path, host:port/path and full URLs', () => {
    expect(forwardTarget('3000')).toBe('http://localhost:3000/');
    expect(forwardTarget('3000/hooks')).toBe('http://localhost:3000/hooks');
    expect(forwardTarget('127.0.0.1:3000/hooks')).toBe('http://127.0.0.1:3000/hooks');
    expect(forwardTarget('https://example.test/x')).toBe('https://example.test/x');
    expect(() => forwardTarget('70000')).toThrow(/port/);
    expect(() => forwardTarget('ftp://x')).toThrow();
  });
});
