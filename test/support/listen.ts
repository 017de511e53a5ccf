import { createServer, type RequestListener, type Server } from "node:http";
import { type AddressInfo, createServer as createTcpServer, type Server as TcpServer } from "node:net";

/**
 * A local HTTP server for a test (a host page, a stub API, the app's listener) on a free port of 127.0.0.1, and its
 * origin, named by `hostname` (another name for the loopback address makes another origin for the browser).
 */
export async function listen(
  handler: RequestListener,
  hostname = "127.0.0.1",
): Promise<{ server: Server; origin: string }> {
  const server = createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { server, origin: `http://${hostname}:${(server.address() as AddressInfo).port}` };
}

/** Starts an already made server (http, https, net or tls) on `host`:`port`, 0 for a free port; the port. */
export function listenOn(server: Server | TcpServer, host: string, port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => {
      server.off("error", reject);
      resolve((server.address() as AddressInfo).port);
    });
  });
}

/** Closes a server, ending an HTTP server's open (keep-alive) connections first so the close does not wait on them. */
export function closeServer(server: Server | TcpServer): Promise<void> {
  (server as Server).closeAllConnections?.();
  return new Promise((resolve) => server.close(() => resolve()));
}

/** Where listenWithTrap puts the allowed server, and what it tells the test. */
export interface TrapOptions {
  /** The allowed server's address: a loopback address other than 127.0.0.1 (127.0.0.2), standing for a public one. */
  host: string;
  /** Called for every connection the trap is offered. */
  onTrapped: () => void;
  /** The server and its trap are added here once both listen, for the test to close. */
  servers: (Server | TcpServer)[];
}

/**
 * Starts `server` on a free port of `options.host` and a trap on 127.0.0.1 on the same port (Linux routes all of
 * 127/8 to lo) that hangs up on every connection and reports it; the port. A redirect or a second DNS answer that
 * swaps the allowed address for 127.0.0.1 lands in the trap. Another free port is tried while 127.0.0.1's is taken.
 */
export async function listenWithTrap(server: Server | TcpServer, options: TrapOptions): Promise<number> {
  for (let attempt = 0; ; attempt++) {
    const port = await listenOn(server, options.host, 0);
    const trap = createTcpServer((socket) => socket.destroy());
    trap.on("connection", () => options.onTrapped());
    try {
      await listenOn(trap, "127.0.0.1", port);
      options.servers.push(server, trap);
      return port;
    } catch (error) {
      await closeServer(server);
      if (attempt >= 20) throw error;
    }
  }
}
