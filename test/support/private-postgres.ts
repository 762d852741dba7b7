/**
 * A PostgreSQL server of a test's own (initdb in a temporary directory, its own port on 127.0.0.1), for tests
 * that stop and restart the server: doing that to the machine's shared server would break every other test
 * file running at the same time. The binaries are the Debian package's; as root they run as `postgres`.
 */
import { execFileSync } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';

function binDir(): string {
  const root = '/usr/lib/postgresql';
  const versions = existsSync(root) ? readdirSync(root).sort((a, b) => Number(b) - Number(a)) : [];
  if (versions.length === 0) throw new Error('PostgreSQL server binaries not found under /usr/lib/postgresql (apt-get install postgresql)');
  return join(root, versions[0]!, 'bin');
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

export interface PrivatePostgres {
  url: string;
  port: number;
  start(): void;
  /** Fast shutdown: open connections are cut, as in a real restart. */
  stop(): void;
  destroy(): void;
  /** Creates the database `name` on this server and returns its URL. */
  createDatabase(name: string): Promise<string>;
}

export async function startPrivatePostgres(): Promise<PrivatePostgres> {
  const bin = binDir();
  const dir = mkdtempSync(join(tmpdir(), 'svc-pg-'));
  const asRoot = process.getuid?.() === 0;
  if (asRoot) chownSync(dir, Number(execFileSync('id', ['-u', 'postgres']).toString().trim()), Number(execFileSync('id', ['-g', 'postgres']).toString().trim()));
  const run = (program: string, args: string[]) => {
    const [command, argv] = asRoot ? ['runuser', ['-u', 'postgres', '--', join(bin, program), ...args]] : [join(bin, program), args];
    execFileSync(command as string, argv as string[], { stdio: 'pipe', timeout: 30_000 });
  };
  const data = join(dir, 'data');
  run('initdb', ['-D', data, '-A', 'trust', '-U', 'postgres', '--no-sync']);
  const port = await freePort();
  const options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=100`;
  let running = false;
  const instance: PrivatePostgres = {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    port,
    start() {
      run('pg_ctl', ['-D', data, '-o', options, '-l', join(dir, 'log'), '-w', 'start']);
      running = true;
    },
    stop() {
      run('pg_ctl', ['-D', data, '-m', 'fast', '-w', 'stop']);
      running = false;
    },
    destroy() {
      if (running) {
        try {
          instance.stop();
        } catch {
          // Already gone; the directory goes anyway.
        }
      }
      rmSync(dir, { recursive: true, force: true });
    },
    async createDatabase(name) {
      const admin = new pg.Client({ connectionString: instance.url });
      await admin.connect();
      try {
        await admin.query(`CREATE DATABASE ${name}`);
      } finally {
        await admin.end();
      }
      const url = new URL(instance.url);
      url.pathname = `/${name}`;
      return url.toString();
    },
  };
  instance.start();
  return instance;
}
