import { describe, expect, it } from 'vitest';
import { SvcError } from '../../src/wire/errors.js';
import { validateWebhookUrl } from '../../src/webhooks/url-policy.js';

const rejection = (url: string, mode: 'strict' | 'dev'): SvcError => {
  try {
    validateWebhookUrl(url, mode);
  } catch (error) {
    if (error instanceof SvcError) return error;
    throw error;
  }
  throw new Error(`${url} was accepted in ${mode} mode`);
};

describe('validateWebhookUrl', () => {
  it('validateWebhookUrl: strict accepts public https URLs and normalises them', () => {
    expect(validateWebhookUrl('https://example.com/hooks', 'strict')).toBe('https://example.com/hooks');
    expect(validateWebhookUrl(' HTTPS://Example.COM:8443/a?b=1 ', 'strict')).toBe('https://example.com:8443/a?b=1');
    expect(validateWebhookUrl('https://8.8.8.8/x', 'strict')).toBe('https://8.8.8.8/x');
    expect(validateWebhookUrl('https://[2606:4700:4700::1111]/x', 'strict')).toBe('https://[2606:4700:4700::1111]/x');
  });

  it('validateWebhookUrl: strict refuses http with a hint about --dev', () => {
    const error = rejection('http://example.com/hooks', 'strict');
    expect(error.code).toBe('validation_error');
    expect(error.message).toBe('url must use https on this server');
    expect(error.hint).toMatch(/--dev/);
  });

  it('validateWebhookUrl: strict refuses private, loopback and local hosts, however they are spelled', () => {
    for (const url of [
      'https://127.0.0.1/x', 'https://localhost/x', 'https://api.localhost/x', 'https://10.0.0.8/x', 'https://[::1]/x',
      'https://[::ffff:127.0.0.1]/x', 'https://[::ffff:7f00:1]/x', 'https://0x7f.1/x', 'https://2130706433/x',
      'https://169.254.169.254/latest', 'https://printer.local/x', 'https://intranet/x', 'https://[fe80::1]/x',
    ]) {
      const error = rejection(url, 'strict');
      expect(error.code, url).toBe('validation_error');
      expect(error.message, url).toMatch(/not a public (address|host)/);
      expect(error.hint, url).toMatch(/svc webhooks listen/);
    }
  });

  it('validateWebhookUrl: dev allows http and private addresses', () => {
    expect(validateWebhookUrl('http://localhost:3000/hooks', 'dev')).toBe('http://localhost:3000/hooks');
    expect(validateWebhookUrl('http://127.0.0.1:3000', 'dev')).toBe('http://127.0.0.1:3000/');
    expect(validateWebhookUrl('https://192.168.1.5/h', 'dev')).toBe('https://192.168.1.5/h');
  });

  it('validateWebhookUrl: both modes refuse garbage, other schemes and credentials', () => {
    for (const mode of ['strict', 'dev'] as const) {
      expect(rejection('', mode).message).toBe('url is required');
      expect(rejection('example.com/hooks', mode).message).toMatch(/not an absolute URL/);
      expect(rejection('ftp://example.com/x', mode).message).toMatch(/must use https \(got ftp\)/);
      expect(rejection('file:///etc/passwd', mode).message).toMatch(/got file/);
      expect(rejection('https://user:pw@example.com/x', mode).message).toMatch(/user name or password/);
      expect(rejection(`https://example.com/${'a'.repeat(2100)}`, mode).message).toMatch(/longer than 2048/);
    }
  });
});
