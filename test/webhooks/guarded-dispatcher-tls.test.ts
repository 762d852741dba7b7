import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGuardedDispatcher } from '../../src/webhooks/guarded-dispatcher.js';
import { sendWebhook } from '../../src/webhooks/http-sender.js';

/** A self-signed certificate for hooks.example.test, made with the openssl binary when it is installed. */
function makeCertificate(): { key: string; cert: string } | null {
  const dir = mkdtempSync(join(tmpdir(), 'svc-tls-'));
  try {
    execFileSync('openssl', [
      'req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '1', '-subj', '/CN=hooks.example.test',
      '-addext', 'subjectAltName=DNS:hooks.example.test', '-keyout', join(dir, 'key.pem'), '-out', join(dir, 'cert.pem'),
    ], { stdio: 'ignore' });
    return { key: readFileSync(join(dir, 'key.pem'), 'utf8'), cert: readFileSync(join(dir, 'cert.pem'), 'utf8') };
  } catch {
    return null;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const tls = makeCertificate();

describe.skipIf(tls === null)('createGuardedDispatcher over https', () => {
  let server: Server;
  let port: number;
  const servernames: Array<string | false | null> = [];
  beforeAll(async () => {
    server = createServer({ key: tls!.key, cert: tls!.cert }, (req, res) => {
      servernames.push((req.socket as import('node:tls').TLSSocket).servername);
      req.resume().on('end', () => res.end('ok'));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  const dispatcher = () =>
    createGuardedDispatcher({
      resolveHost: async () => [{ address: '127.0.0.1', family: 4 }],
      isAllowedAddress: (ip) => ip === '127.0.0.1',
      connect: { ca: tls!.cert },
    });

  it('createGuardedDispatcher: dials the checked IP but sends SNI and verifies the certificate for the host name', async () => {
    const d = dispatcher();
    const outcome = await sendWebhook({ url: `https://hooks.example.test:${port}/h`, headers: {}, body: '{}', timeoutMs: 3000, dispatcher: d });
    expect(outcome).toMatchObject({ ok: true, statusCode: 200 });
    expect(servernames).toEqual(['hooks.example.test']);
    await d.close();
  });

  it('createGuardedDispatcher: a certificate for another name is still refused', async () => {
    const d = dispatcher();
    const outcome = await sendWebhook({ url: `https://evil.example.test:${port}/h`, headers: {}, body: '{}', timeoutMs: 3000, dispatcher: d });
    expect(outcome.ok).toBe(false);
    expect(outcome.error).toMatch(/does not match certificate|ERR_TLS_CERT_ALTNAME_INVALID/);
    await d.close();
  });
});
