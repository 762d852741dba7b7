/** `svc serve` logs every request to stderr: a reader of that pipe going away must not stop the server. */
import { afterEach, describe, expect, it } from 'vitest';
import { ProcessSandbox } from '../support/svc-process.js';

describe('svc serve: request log on a closed pipe', () => {
  let box: ProcessSandbox;
  afterEach(async () => box.cleanup());

  it('keeps serving after its stderr reader is gone (EPIPE), and the lines name method, path, status and ms', async () => {
    box = new ProcessSandbox();
    const server = await box.serve(box.tempDir());
    await fetch(`${server.url}/healthz`);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(server.output()).toMatch(/^\S+Z GET \/healthz 200 [\d.]+ms$/m);

    server.child.stderr!.destroy();
    for (let i = 0; i < 50; i++) expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(server.child.exitCode).toBeNull();
    expect((await box.stop(server)).code).toBe(0);
  });
});
