/**
 * The targets of npm run bench:engine, in their own process so that their CPU time is not counted as the
 * engine's: a plain HTTP server and an HTTPS server (certificate from the parent's test CA, in the environment),
 * whose /health answers JSON with a header for the assertions; a TCP listener that accepts and closes; and a DNS
 * server on UDP answering bench.test A 127.0.0.1. Prints {"http","https","tcp","dns"} ports once listening.
 */
import { createServer as createHttpServer, type IncomingMessage, type ServerResponse } from "node:http";
import { createServer as createHttpsServer } from "node:https";
import { type AddressInfo, createServer as createTcpServer } from "node:net";
import { startDnsServer } from "../test/support/dns-server.ts";

const page = Buffer.from("<!doctype html><title>ok</title><p>Everything is fine.</p>");
const health = Buffer.from(JSON.stringify({ status: "ok", checks: [{ name: "db", status: "ok" }] }));
const answer = (req: IncomingMessage, res: ServerResponse) => {
  const json = req.url === "/health";
  const body = json ? health : page;
  res.writeHead(200, {
    "content-type": json ? "application/json" : "text/html",
    "content-length": body.length,
    "x-served-by": "bench-target",
  });
  res.end(body);
};
const http = createHttpServer(answer);
const https = createHttpsServer(
  { key: process.env.BENCH_TLS_KEY as string, cert: process.env.BENCH_TLS_CERT as string },
  answer,
);
const tcp = createTcpServer((socket) => {
  socket.on("error", () => {});
  socket.end();
});
for (const s of [http, https, tcp]) s.listen(0, "127.0.0.1");
await Promise.all([http, https, tcp].map((s) => new Promise((resolve) => s.once("listening", resolve))));
const dns = await startDnsServer({ "bench.test": { A: ["127.0.0.1"] } });
// The DNS server keeps every question for the tests; here that would only grow.
setInterval(() => {
  dns.questions.length = 0;
}, 1000).unref();
const port = (s: { address(): unknown }) => (s.address() as AddressInfo).port;
process.stdout.write(`${JSON.stringify({ http: port(http), https: port(https), tcp: port(tcp), dns: dns.port })}\n`);
