/**
 * The targets of npm run bench:engine, in their own process so that their CPU time is not counted as the
 * engine's: one plain HTTP server and one HTTPS server (certificate from the parent's test CA, in the
 * environment). Prints {"http":port,"https":port} once listening.
 */
import { createServer as createHttpServer } from "node:http";
import { createServer as createHttpsServer } from "node:https";
import type { AddressInfo } from "node:net";

const body = Buffer.from("<!doctype html><title>ok</title><p>Everything is fine.</p>");
const answer = (_req: unknown, res: import("node:http").ServerResponse) => {
  res.writeHead(200, { "content-type": "text/html", "content-length": body.length });
  res.end(body);
};
const http = createHttpServer(answer);
const https = createHttpsServer(
  { key: process.env.BENCH_TLS_KEY as string, cert: process.env.BENCH_TLS_CERT as string },
  answer,
);
for (const s of [http, https]) s.listen(0, "127.0.0.1");
await Promise.all([http, https].map((s) => new Promise((resolve) => s.once("listening", resolve))));
process.stdout.write(
  `${JSON.stringify({ http: (http.address() as AddressInfo).port, https: (https.address() as AddressInfo).port })}\n`,
);
