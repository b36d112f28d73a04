import { startForwardProxy, type ForwardProxy } from '../../src/testkit/forward-proxy.ts';
/** Servers on 127.0.0.1 that misbehave below HTTP (raw sockets), and a forward proxy that also tunnels. */
import net from 'node:net';

export interface RawServer {
  port: number;
  close(): Promise<void>;
}

/** A TCP server that hands each connection to `onSocket` and destroys every socket on close. */
export async function startRawServer(onSocket: (socket: net.Socket) => void, host = '127.0.0.1'): Promise<RawServer> {
  const sockets = new Set<net.Socket>();
  const server = net.createServer((socket) => {
    sockets.add(socket);
    socket.on('error', () => undefined);
    socket.on('close', () => sockets.delete(socket));
    onSocket(socket);
  });
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  return {
    port: (server.address() as net.AddressInfo).port,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

/** Writes `text` one byte per `everyMs` until it is written or the socket closes. */
export function trickle(socket: net.Socket, text: string, everyMs: number): void {
  let i = 0;
  const timer = setInterval(() => {
    if (i < text.length && !socket.destroyed) socket.write(text[i++]);
  }, everyMs);
  socket.on('close', () => clearInterval(timer));
}

/** After the request arrives, `then` answers on the raw socket. */
export const onRequest = (then: (socket: net.Socket) => void) => (socket: net.Socket) => socket.once('data', () => then(socket));

export type TestProxy = ForwardProxy;

/** The testkit's forward proxy (src/testkit/forward-proxy.ts): every name to 127.0.0.1 at the URL's port. */
export const startProxy = (options: { silentConnect?: boolean } = {}): Promise<TestProxy> => startForwardProxy(options);
