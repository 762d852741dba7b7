/**
 * `svc serve` on a data directory remembers the tokens it has checked (SQLite reads of api_tokens are cached
 * until the table is written). A rotation by another process on the same directory, the CLI here, must still
 * be refused at the server's very next request, and the new token accepted.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { ProcessSandbox } from '../support/svc-process.js';

describe('svc serve and a token rotated by another process', () => {
  let box: ProcessSandbox;
  afterEach(async () => box.cleanup());

  it('the old token is refused at the next request, the new one works', async () => {
    box = new ProcessSandbox();
    const dataDir = box.tempDir('svc-rotate-');
    const json = async <T>(args: string[], env: Record<string, string> = {}) =>
      JSON.parse((await box.ok([...args, '--data', dataDir, '--json'], { env })).stdout) as T;
    const partner = await json<{ partner_id: string; partner_secret: string }>(['admin', 'partner', 'create', '--name', 'Rotations']);
    const env = { SVC_PARTNER_ID: partner.partner_id, SVC_PARTNER_SECRET: partner.partner_secret };
    const { workspace_id: ws } = await json<{ workspace_id: number }>(['partner', 'workspace', 'create', '--name', 'Rotating', '--seats', '1'], env);
    const { token } = await json<{ token: string }>(['partner', 'token', 'get', String(ws)], env);

    const server = await box.serve(dataDir);
    const status = async (bearer: string) => {
      const res = await fetch(`${server.url}/api/workspace`, { headers: { authorization: `Bearer ${bearer}` }, signal: AbortSignal.timeout(10_000) });
      await res.arrayBuffer();
      return res.status;
    };
    // Enough requests for the server to have remembered the token.
    for (let i = 0; i < 20; i += 1) expect(await status(token)).toBe(200);

    let current = token;
    for (let round = 0; round < 3; round += 1) {
      const { token: rotated } = await json<{ token: string }>(['partner', 'token', 'rotate', String(ws), '--yes'], env);
      expect(await status(current)).toBe(401);
      expect(await status(rotated)).toBe(200);
      expect(await status(rotated)).toBe(200);
      current = rotated;
    }
    expect(await status(token)).toBe(401);
  });
});
