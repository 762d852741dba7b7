import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { buildServer } from '../../src/http/server/build-server.js';
import { auth, createFakeEngine, type FakeEngine } from '../support/fake-engine.js';

/** A multipart/form-data body with one part, built by hand so the test controls every byte. */
const multipart = (field: string, filename: string, type: string, content: Buffer) => {
  const boundary = '----svc-test-boundary';
  const head = Buffer.from(
    `--${boundary}\r\nContent-Disposition: form-data; name="${field}"; filename="${filename}"\r\nContent-Type: ${type}\r\n\r\n`,
  );
  const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
  return { payload: Buffer.concat([head, content, tail]), headers: { 'content-type': `multipart/form-data; boundary=${boundary}` } };
};

describe('files', () => {
  let engine: FakeEngine;
  let app: FastifyInstance;
  beforeAll(() => {
    engine = createFakeEngine();
    app = buildServer({ engine, fileLimitBytes: 1024 });
  });
  afterAll(() => app.close());

  const upload = (field: string, filename: string, type: string, content: Buffer) => {
    const body = multipart(field, filename, type, content);
    return app.inject({ method: 'POST', url: '/api/files_upload', headers: { ...auth(), ...body.headers }, payload: body.payload });
  };

  it('POST /api/files_upload: passes the bytes, name and type through to the engine', async () => {
    const bytes = Buffer.from([0, 1, 2, 255, 13, 10, 45, 45]);
    const res = await upload('file', 'photo.jpg', 'image/jpeg', bytes);
    expect(res.statusCode).toBe(200);
    const data = res.json().data;
    expect(data).toMatchObject({ filename: 'photo.jpg', mimetype: 'image/jpeg', size: bytes.length });
    expect(engine.files.get(data.uid)?.content.equals(bytes)).toBe(true);
  });

  it('POST /api/files_upload: a file over the limit is 413 payload_too_large', async () => {
    const res = await upload('file', 'big.bin', 'application/octet-stream', Buffer.alloc(4096, 1));
    expect(res.statusCode).toBe(413);
    expect(res.json().error_code).toBe('payload_too_large');
  });

  it('POST /api/files_upload: a part under another name is a 400 naming "file"', async () => {
    const res = await upload('attachment', 'a.txt', 'text/plain', Buffer.from('hi'));
    expect(res.statusCode).toBe(400);
    expect(res.json().message).toMatch(/"file" is required/);
  });

  it('POST /api/files_upload: a JSON body is a 400', async () => {
    const res = await app.inject({ method: 'POST', url: '/api/files_upload', headers: auth(), payload: { file: 'x' } });
    expect(res.statusCode).toBe(400);
    expect(res.json().message).toBe('Request is not multipart/form-data');
  });

  it('POST /api/files_upload: without a token the upload is refused before it is read', async () => {
    const body = multipart('file', 'a.txt', 'text/plain', Buffer.from('hi'));
    const res = await app.inject({ method: 'POST', url: '/api/files_upload', headers: body.headers, payload: body.payload });
    expect(res.statusCode).toBe(401);
    expect(res.body).toBe('');
  });

  it('GET /api/files/:uid then /files/:uid: the pre-signed link downloads the bytes without a token', async () => {
    const bytes = Buffer.from('%PDF-1.7 hello');
    const uid = (await upload('file', 'Prospekt für Ärzte.pdf', 'application/pdf', bytes)).json().data.uid;
    const file = await app.inject({ method: 'GET', url: `/api/files/${uid}`, headers: { ...auth(), host: 'dl.example' } });
    const link = new URL(file.json().data.temporary_download_url);
    expect(link.origin).toBe('http://dl.example');
    const res = await app.inject({ method: 'GET', url: `${link.pathname}${link.search}` });
    expect(res.statusCode).toBe(200);
    expect(res.rawPayload.equals(bytes)).toBe(true);
    expect(res.headers['content-type']).toBe('application/pdf');
    expect(res.headers['content-disposition']).toBe(
      `attachment; filename="Prospekt f_r _rzte.pdf"; filename*=UTF-8''Prospekt%20f%C3%BCr%20%C3%84rzte.pdf`,
    );
    expect(res.headers['x-content-type-options']).toBe('nosniff');
  });

  it('GET /files/:uid: a bad signature is a 404 error body', async () => {
    const uid = (await upload('file', 'a.txt', 'text/plain', Buffer.from('hi'))).json().data.uid;
    const res = await app.inject({ method: 'GET', url: `/files/${uid}?expires=9999999999&signature=forged` });
    expect(res.statusCode).toBe(404);
    expect(res.json().error_code).toBe('not_found');
  });

  it('GET /files/:uid: missing expires or signature is a 400', async () => {
    const res = await app.inject({ method: 'GET', url: '/files/file_1?signature=sig' });
    expect(res.statusCode).toBe(400);
    expect(res.json().message).toBe('query field "expires" is required');
  });

  it('GET /api/files and DELETE /api/files/:uid: list, then delete', async () => {
    const uid = (await upload('file', 'b.txt', 'text/plain', Buffer.from('b'))).json().data.uid;
    const list = await app.inject({ method: 'GET', url: '/api/files', headers: auth() });
    expect(list.json().data.items.map((f: { uid: string }) => f.uid)).toContain(uid);
    const del = await app.inject({ method: 'DELETE', url: `/api/files/${uid}`, headers: auth() });
    expect(del.json()).toEqual({ status: 'ok', data: { deleted: true, uid } });
    const again = await app.inject({ method: 'DELETE', url: `/api/files/${uid}`, headers: auth() });
    expect(again.statusCode).toBe(404);
  });
});
