/**
 * npm run bench:subscribers — an incident published on a page with BENCH_SUBSCRIBERS confirmed e-mail subscribers
 * (default 100,000), told through the senders as `porchlight worker` wires them (createSenders: the subscribers'
 * notices over SMTP connections of their own, the owners' alerts over the server's mailer) on a SQLite store, to an SMTP sink in a child process (this file again, role "sink"), so the
 * CPU time measured here is the fan-out's and the sender's.
 *
 * Prints: messages received by the sink (and how many addresses got more than one), the time from publication to the
 * last message, messages per second and CPU time per message (overall, and once the read and alert windows are over:
 * the fan-out alone), the process's peak RSS; and, measured in the same run
 * before the incident and during its fan-out, status-page reads per second (GET /public/v1/status-page/{slug} through
 * the app, in process) and an owner's alerts (an e-mail channel's and a webhook channel's test deliveries, through
 * the API, to the same SMTP sink and to a local receiver) p50 and max latency, with their ratios. It waits at most BENCH_SUBSCRIBERS_WAIT seconds (default 600);
 * what is then undelivered is reported with the rate reached. No figure is judged here; figures compare within one
 * run only (the machine is shared).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { availableParallelism, tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { SMTPServer } from "smtp-server";
import { createToken, createUser } from "../server/accounts/accounts.ts";
import { createMailer } from "../server/anon/mail.ts";
import { createApp } from "../server/app.ts";
import { createSenders } from "../server/cli/engine.ts";
import { loadConfig } from "../server/config.ts";
import { createLogger } from "../server/log.ts";
import { openStore } from "../server/store/store.ts";
import { insertConfirmedSubscribers } from "../test/support/fixtures.ts";
import { ask, child, load, quantile, round, sleep } from "./stats.ts";

const SUBSCRIBERS = Number(process.env.BENCH_SUBSCRIBERS ?? 100_000);
const WAIT_S = Number(process.env.BENCH_SUBSCRIBERS_WAIT ?? 600);
const READ_WINDOW_MS = 3000;

/**
 * The SMTP sink: accepts every message, counts the subscribers' (at bench.test) per recipient, answers the parent's
 * questions over IPC.
 */
function runSink(): void {
  const perAddress = new Map<string, number>();
  let messages = 0;
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ["STARTTLS"],
    logger: false,
    maxClients: 1000,
    onData(stream, session, callback) {
      stream.on("data", () => {});
      stream.on("end", () => {
        for (const rcpt of session.envelope.rcptTo) {
          if (!rcpt.address.endsWith("@bench.test")) continue;
          messages++;
          perAddress.set(rcpt.address, (perAddress.get(rcpt.address) ?? 0) + 1);
        }
        callback();
      });
    },
  });
  process.on("message", () => {
    let repeated = 0;
    for (const n of perAddress.values()) if (n > 1) repeated++;
    process.send?.({ messages, addresses: perAddress.size, repeated });
  });
  server.listen(0, "127.0.0.1", () => process.send?.({ port: (server.server.address() as AddressInfo).port }));
}

async function main(): Promise<void> {
  console.log(
    `bench:subscribers — ${SUBSCRIBERS} confirmed e-mail subscribers, one published incident; ${availableParallelism()} cores, load average ${load()}, Node ${process.version}`,
  );
  const dataDir = mkdtempSync(join(tmpdir(), "porchlight-bench-subscribers-"));
  const sink = await child<{ port: number }>(fileURLToPath(import.meta.url), "sink");
  const receiver = createServer((req, res) => {
    req.resume();
    req.on("end", () => res.writeHead(200).end("ok"));
  });
  await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
  const config = loadConfig({
    PORCHLIGHT_DATA_DIR: dataDir,
    LOG_LEVEL: process.env.LOG_LEVEL ?? "error",
    PORCHLIGHT_ALLOW_PRIVATE_TARGETS: "true",
    SMTP_URL: `smtp://127.0.0.1:${sink.first.port}`,
    PORCHLIGHT_MAIL_FROM: "Status <status@bench.test>",
  });
  const logger = createLogger(config.logLevel);
  const store = await openStore(config);
  const mailer = createMailer({ smtpUrl: config.smtpUrl, from: config.mailFrom, dataDir, logger });
  const { app } = createApp({ store, config, logger, mailer });
  const user = await createUser(store, { email: "bench-subscribers@example.com", plan: "stack" }, new Date());
  const { token } = await createToken(store, user.email, "bench", new Date());
  const call = async (method: string, path: string, body?: unknown) => {
    const res = await app.request(path, {
      method,
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const json = (await res.json()) as { data: { id: string | number } };
    if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(json)}`);
    return json.data;
  };
  const page = await call("POST", "/public/v1/status-pages", { name: "Bench Status", slug: "bench" });
  for (const name of ["Website", "Checkout", "Search"]) {
    const site = await call("POST", "/public/v1/sites", { url: `https://${name.toLowerCase()}.bench.test`, name });
    await call("POST", `/public/v1/status-pages/${page.id}/items`, { siteId: site.id, label: name });
  }
  await call("PATCH", `/public/v1/status-pages/${page.id}`, { subscriptions: { enabled: true } });
  const hook = await call("POST", "/public/v1/alert-channels", {
    type: "webhook",
    name: "Owner's hook",
    config: { url: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/alert` },
  });
  const inbox = await call("POST", "/public/v1/alert-channels", {
    type: "email",
    name: "Owner's inbox",
    config: { to: ["owner@owner.test"] },
  });

  // The subscribers, written as confirmed sign-ups would leave them.
  const seeded = Date.now();
  await insertConfirmedSubscribers(store, Number(page.id), SUBSCRIBERS);
  console.log(`seeded in ${round((Date.now() - seeded) / 1000)} s`);

  /** Page reads per second over READ_WINDOW_MS, in process, one at a time. */
  const reads = async () => {
    const until = Date.now() + READ_WINDOW_MS;
    let n = 0;
    while (Date.now() < until) {
      const res = await app.request("/public/v1/status-page/bench");
      await res.arrayBuffer();
      if (res.status !== 200) throw new Error(`read: ${res.status}`);
      n++;
    }
    return (n / READ_WINDOW_MS) * 1000;
  };
  /** An owner's alert: a channel's test delivery, five times; its latencies in ms. */
  const alerts = async (channel: { id: string | number }) => {
    const took: number[] = [];
    for (let i = 0; i < 5; i++) {
      const started = performance.now();
      await call("POST", `/public/v1/alert-channels/${channel.id}/test`);
      took.push(performance.now() - started);
      await sleep(200);
    }
    return took;
  };
  const readsBefore = await reads();
  const hookBefore = await alerts(hook);
  const mailBefore = await alerts(inbox);

  let peakRss = process.memoryUsage().rss;
  const sampler = setInterval(() => {
    peakRss = Math.max(peakRss, process.memoryUsage().rss);
  }, 100);
  const senders = createSenders(store, config, logger, mailer);
  const cpu = process.cpuUsage();
  const published = Date.now();
  await call("POST", `/public/v1/status-pages/${page.id}/incidents`, {
    title: "Checkout is slow",
    message: "We are looking into it.",
    impact: "major",
  });
  senders.start();
  const readsDuring = await reads();
  const hookDuring = await alerts(hook);
  const mailDuring = await alerts(inbox);
  let counts = await ask<{ messages: number; addresses: number; repeated: number }>(sink.process, { ask: "count" });
  // From here on the fan-out runs alone: its own rate and CPU per message, without the reads' share.
  const alone = { at: Date.now(), messages: counts.messages, cpu: process.cpuUsage() };
  let last = { at: Date.now(), messages: counts.messages };
  const deadline = published + WAIT_S * 1000;
  while (counts.messages < SUBSCRIBERS && Date.now() < deadline) {
    await sleep(250);
    counts = await ask(sink.process, { ask: "count" });
    if (counts.messages !== last.messages) last = { at: Date.now(), messages: counts.messages };
  }
  const used = process.cpuUsage(cpu);
  const usedAlone = process.cpuUsage(alone.cpu);
  const aloneMessages = Math.max(1, counts.messages - alone.messages);
  clearInterval(sampler);
  await senders.stop();
  const seconds = (last.at - published) / 1000;
  const p = (list: number[], q: number) => round(quantile(list, q), 0);
  console.table({
    "messages received": counts.messages,
    "addresses told more than once": counts.repeated,
    "seconds to the last message": round(seconds),
    "messages/s": round(counts.messages / seconds),
    "CPU ms per message (reads included)": round((used.user + used.system) / 1000 / Math.max(1, counts.messages), 3),
    "messages/s, fan-out alone": round(aloneMessages / Math.max(0.001, (last.at - alone.at) / 1000)),
    "CPU ms per message, fan-out alone": round((usedAlone.user + usedAlone.system) / 1000 / aloneMessages, 3),
    "peak RSS MB": round(peakRss / 2 ** 20),
    "page reads/s before": round(readsBefore, 0),
    "page reads/s during fan-out": round(readsDuring, 0),
    "reads ratio (during / before)": round(readsDuring / readsBefore, 2),
    "owner webhook alert ms p50 / max before": `${p(hookBefore, 0.5)} / ${p(hookBefore, 1)}`,
    "owner webhook alert ms p50 / max during": `${p(hookDuring, 0.5)} / ${p(hookDuring, 1)}`,
    "owner e-mail alert ms p50 / max before": `${p(mailBefore, 0.5)} / ${p(mailBefore, 1)}`,
    "owner e-mail alert ms p50 / max during": `${p(mailDuring, 0.5)} / ${p(mailDuring, 1)}`,
  });
  if (counts.messages < SUBSCRIBERS) console.log(`undelivered after ${WAIT_S} s: ${SUBSCRIBERS - counts.messages}`);
  sink.process.kill();
  receiver.close();
  mailer.close();
  await store.close();
  rmSync(dataDir, { recursive: true, force: true });
}

const role = process.argv[2];
if (role === "sink") runSink();
else
  main().catch((error: unknown) => {
    console.error(error);
    process.exit(1);
  });
