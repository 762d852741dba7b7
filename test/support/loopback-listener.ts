import net, { type AddressInfo } from 'node:net';

/**
 * A TCP listener on 127.0.0.1 that counts the connections made to it: any delivery attempt reaching loopback.
 * `cleanups` gets its close.
 */
export async function loopbackListener(cleanups: Array<() => unknown>): Promise<{ port: number; connections: () => number }> {
  let connections = 0;
  const server = net.createServer((socket) => {
    connections += 1;
    socket.destroy();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cleanups.push(() => new Promise((resolve) => server.close(resolve)));
  return { port: (server.address() as AddressInfo).port, connections: () => connections };
}
