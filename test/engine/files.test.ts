import { describe, expect, it } from 'vitest';
import { expectSvcError } from '../support/engine-fixtures.js';
import { testEngine } from '../support/test-engine.js';

const CONTENT = Buffer.from('attachment bytes \u0000\u00ff');

async function uploaded() {
  const t = await testEngine();
  const file = await t.api.uploadFile({ filename: 'report.bin', mimetype: 'application/octet-stream', content: CONTENT });
  return { ...t, file };
}

/** The uid, expires and signature of a temporary_download_url. */
function linkParts(url: string) {
  const parsed = new URL(url);
  return {
    uid: decodeURIComponent(parsed.pathname.split('/').pop() ?? ''),
    expires: Number(parsed.searchParams.get('expires')),
    signature: parsed.searchParams.get('signature') ?? '',
  };
}

describe('files: upload and pre-signed download', () => {
  it('getFile: has a temporary_download_url valid 15 minutes; download returns the bytes', async () => {
    const { api, engine, file, clock } = await uploaded();
    expect(file).toMatchObject({ filename: 'report.bin', size: CONTENT.byteLength });
    const got = await api.getFile(file.uid);
    expect(got.temporary_download_url).toMatch(/^http:\/\/127\.0\.0\.1:8080\/files\//);
    expect(Date.parse(got.expires_at ?? '')).toBe(clock.now() + 15 * 60 * 1000);
    const { uid, expires, signature } = linkParts(got.temporary_download_url ?? '');
    expect(uid).toBe(file.uid);
    const downloaded = await engine.download(uid, expires, signature);
    expect(downloaded).toMatchObject({ filename: 'report.bin', mimetype: 'application/octet-stream' });
    expect(Buffer.compare(downloaded.content, CONTENT)).toBe(0);
  });

  it('getFile: links start with the linkBase given to the workspace API', async () => {
    const { engine, local, file } = await uploaded();
    const url = (await engine.workspace(local.workspace_id, { linkBase: 'https://svc.example.com/' }).getFile(file.uid)).temporary_download_url;
    expect(url).toMatch(/^https:\/\/svc\.example\.com\/files\/[^/]+\?expires=\d+&signature=/);
  });

  it('download: a tampered signature, a moved expiry or another uid is not_found', async () => {
    const { api, engine, file } = await uploaded();
    const other = await api.uploadFile({ filename: 'other', mimetype: 'text/plain', content: Buffer.from('o') });
    const { uid, expires, signature } = linkParts((await api.getFile(file.uid)).temporary_download_url ?? '');
    const flipped = (signature[0] === 'A' ? 'B' : 'A') + signature.slice(1);
    await expectSvcError(() => engine.download(uid, expires, flipped), 'not_found');
    await expectSvcError(() => engine.download(uid, expires, ''), 'not_found');
    await expectSvcError(() => engine.download(uid, expires + 3600, signature), 'not_found');
    await expectSvcError(() => engine.download(other.uid, expires, signature), 'not_found');
  });

  it('download: valid until 15 minutes, not_found 15 minutes and 1 second later', async () => {
    const { api, engine, file, clock } = await uploaded();
    const { uid, expires, signature } = linkParts((await api.getFile(file.uid)).temporary_download_url ?? '');
    clock.advance(15 * 60 * 1000 - 1);
    expect((await engine.download(uid, expires, signature)).content.byteLength).toBe(CONTENT.byteLength);
    clock.advance(1001);
    await expectSvcError(() => engine.download(uid, expires, signature), 'not_found');
  });

  it('deleteFile: then getFile, download and sending it are not_found', async () => {
    const { api, engine, file } = await uploaded();
    const { uid, expires, signature } = linkParts((await api.getFile(file.uid)).temporary_download_url ?? '');
    expect(await api.deleteFile(file.uid)).toEqual({ deleted: true, uid: file.uid });
    await expectSvcError(() => api.getFile(file.uid), 'not_found');
    await expectSvcError(() => engine.download(uid, expires, signature), 'not_found');
    await expectSvcError(() => api.sendToPhone({ phone: '+14155550123', file_uid: file.uid }), 'not_found');
    await expectSvcError(() => api.deleteFile(file.uid), 'not_found');
    expect((await api.listFiles(1)).items).toEqual([]);
  });

  it('getFile: a file of another workspace is not_found, and is not listed or deletable there', async () => {
    const { engine, file } = await uploaded();
    const other = engine.workspace((await engine.admin.createWorkspace({ name: 'Other' })).workspace_id);
    await expectSvcError(() => other.getFile(file.uid), 'not_found');
    await expectSvcError(() => other.deleteFile(file.uid), 'not_found');
    expect((await other.listFiles(1)).items).toEqual([]);
  });
});
