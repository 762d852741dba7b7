/** Files (docs/api-behaviour.md): upload, list, get with a pre-signed link that downloads, delete. */
import { expect, it } from 'vitest';
import type { CaseGroup } from '../contract-cases.js';
import { bytes, expectCode } from '../contract-target.js';

export const fileCases: CaseGroup = (target) => {
  it('uploadFile: returns the file record with a uid', async () => {
    const ws = await target().workspace();
    const file = await ws.client.uploadFile({ filename: 'notes.txt', mimetype: 'text/plain', content: bytes('hello files') });
    expect(file).toMatchObject({ filename: 'notes.txt', mimetype: 'text/plain', size: 11 });
    expect(file.uid).toMatch(/^[0-9a-f-]{36}$/);
    expect(file.created_at).toMatch(/^\d{4}-\d\d-\d\dT/);
    expect(file.temporary_download_url).toBeUndefined();
  });

  it('getFile: carries a 15-minute temporary_download_url that serves the bytes', async () => {
    const ws = await target().workspace();
    const content = new Uint8Array([0, 1, 2, 250, 255, 10, 13]);
    const file = await ws.client.uploadFile({ filename: 'data.bin', mimetype: 'application/octet-stream', content });
    const fetched = await ws.client.getFile(file.uid);
    expect(fetched).toMatchObject({ uid: file.uid, filename: 'data.bin', size: content.byteLength });
    const url = fetched.temporary_download_url ?? '';
    expect(url).toMatch(new RegExp(`^https?://[^/]+/files/${file.uid}\\?expires=\\d+&signature=[\\w-]+$`));
    const expiresIn = Date.parse(fetched.expires_at ?? '') - Date.now();
    expect(expiresIn).toBeGreaterThan(14 * 60_000);
    expect(expiresIn).toBeLessThanOrEqual(15 * 60_000);

    const downloaded = await target().download(url);
    expect(downloaded.mimetype).toBe('application/octet-stream');
    expect(new Uint8Array(downloaded.content)).toEqual(content);
    await expect(target().download(url.replace(/signature=[\w-]+/, 'signature=forged'))).rejects.toThrow();
  });

  it('listFiles: lists the uploaded files, 50 a page', async () => {
    const ws = await target().workspace();
    const a = await ws.client.uploadFile({ filename: 'a.txt', mimetype: 'text/plain', content: bytes('a') });
    const b = await ws.client.uploadFile({ filename: 'b.csv', mimetype: 'text/csv', content: bytes('b,c') });
    const page = await ws.client.listFiles();
    expect(page).toMatchObject({ page: 1, has_more_pages: false });
    expect(page.items.map((f) => f.uid).sort()).toEqual([a.uid, b.uid].sort());
    expect(page.items.find((f) => f.uid === b.uid)).toEqual(b);
  });

  it('deleteFile: removes the file from get, list and sends', async () => {
    const ws = await target().workspace();
    const file = await ws.client.uploadFile({ filename: 'gone.txt', mimetype: 'text/plain', content: bytes('bye') });
    expect(await ws.client.deleteFile(file.uid)).toEqual({ deleted: true, uid: file.uid });
    await expectCode(ws.client.getFile(file.uid), 'not_found');
    expect((await ws.client.listFiles()).items).toEqual([]);
    await expectCode(ws.client.sendToPhone({ phone: ws.newPhone(), file_uid: file.uid }), 'not_found');
    await expectCode(ws.client.deleteFile(file.uid), 'not_found');
  });

  it('uploadFile: names with quotes and non-ASCII keep their spelling; the media type loses its parameters', async () => {
    const ws = await target().workspace();
    const quoted = await ws.client.uploadFile({ filename: 'Prospekt "für" Ärzte 📄.txt', mimetype: 'Text/Plain; charset=utf-8', content: bytes('x') });
    expect(quoted).toMatchObject({ filename: 'Prospekt "für" Ärzte 📄.txt', mimetype: 'text/plain' });
    const untyped = await ws.client.uploadFile({ filename: 'blob', mimetype: '', content: new Uint8Array() });
    expect(untyped).toMatchObject({ filename: 'blob', mimetype: 'application/octet-stream', size: 0 });
    const fetched = await ws.client.getFile(quoted.uid);
    const downloaded = await target().download(fetched.temporary_download_url ?? '');
    expect(downloaded.mimetype).toBe('text/plain');
  });

  it('uploadFile: a name with a slash is validation_error', async () => {
    const ws = await target().workspace();
    await expectCode(ws.client.uploadFile({ filename: 'a/b.txt', mimetype: 'text/plain', content: bytes('x') }), 'validation_error');
  });
};
