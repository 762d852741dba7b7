/**
 * A pass-through HTTP proxy that records every JSON answer (method, path, status, body): the contract suite
 * runs through it, and the recording is then checked against the served OpenAPI document.
 */
import { createServer, request, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RecordedResponse {
  method: string;
  path: string;
  status: number;
  contentType: string;
  /** Response headers, names in lower case. */
  headers: Record<string, string>;
  body: string;
}

export interface RecordingProxy {
  url: string;
  recorded: RecordedResponse[];
  close(): Promise<void>;
}

export async function startRecordingProxy(target: string): Promise<RecordingProxy> {
  const upstream = new URL(target);
  const recorded: RecordedResponse[] = [];
  const server = createServer((incoming, outgoing) => {
    const forwarded = request(
      { host: upstream.hostname, port: upstream.port, method: incoming.method, path: incoming.url, headers: incoming.headers },
      (answer: IncomingMessage) => {
        outgoing.writeHead(answer.statusCode ?? 502, answer.headers);
        const contentType = String(answer.headers['content-type'] ?? '');
        // Streams (text/event-stream) pass through unrecorded: only their status is of interest.
        const record = !contentType.startsWith('text/event-stream');
        const headers = Object.fromEntries(Object.entries(answer.headers).map(([name, value]) => [name, String(value)]));
        const entry = { method: incoming.method ?? 'GET', path: incoming.url ?? '/', status: answer.statusCode ?? 0, contentType, headers };
        if (!record) recorded.push({ ...entry, body: '' });
        const chunks: Buffer[] = [];
        answer.on('data', (chunk: Buffer) => {
          if (record) chunks.push(chunk);
          outgoing.write(chunk);
        });
        answer.on('end', () => {
          if (record) {
            recorded.push({ ...entry, body: Buffer.concat(chunks).toString('utf8') });
          }
          outgoing.end();
        });
      },
    );
    forwarded.on('error', () => outgoing.destroy());
    incoming.pipe(forwarded);
    outgoing.on('close', () => forwarded.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    recorded,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
