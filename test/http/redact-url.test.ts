import { describe, expect, it } from 'vitest';
import { redactUrl } from '../../src/http/server/redact-url.js';

describe('redactUrl', () => {
  it.each([
    ['/files/f_1?expires=1&signature=abc', '/files/f_1?expires=1&signature=[redacted]'],
    ['/api/chats?token=t0k&page=2', '/api/chats?token=[redacted]&page=2'],
    ['/api/chats?access_token=t0k&api_key=k&X-Api-Key=k2&client_secret=s&sig=x&code=c', '/api/chats?access_token=[redacted]&api_key=[redacted]&X-Api-Key=[redacted]&client_secret=[redacted]&sig=[redacted]&code=[redacted]'],
    ['/api/chats?%74oken=t0k', '/api/chats?%74oken=[redacted]'],
    ['/connect/abcdefghijklmnop', '/connect/[redacted]'],
    ['/connect/abcdefghijklmnop/events', '/connect/[redacted]/events'],
    ['/Connect/abcdefghijklmnop?display_mode=embedding', '/Connect/[redacted]?display_mode=embedding'],
    ['//connect/abcdefghijklmnop', '//connect/[redacted]'],
    ['/%63onnect/abcdefghijklmnop', '/%63onnect/[redacted]'],
    ['/connect/', '/connect/'],
    ['/api/messages/m_1?page=1&design=x', '/api/messages/m_1?page=1&design=x'],
    ['/healthz', '/healthz'],
  ])('%s -> %s', (url, expected) => {
    expect(redactUrl(url)).toBe(expected);
  });
});
