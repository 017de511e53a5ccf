import { createServer, type RequestListener, type Server } from "node:http";
import type { AddressInfo } from "node:net";

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
