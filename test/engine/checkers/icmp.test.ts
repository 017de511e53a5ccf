import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { networkInterfaces, tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import ipaddr from "ipaddr.js";
import { afterAll, describe, expect, test } from "vitest";
import type { CheckContext } from "../../../server/engine/checkers/checker.ts";
import { checkIcmp, createIcmpChecker, parsePing, pingAvailable } from "../../../server/engine/checkers/icmp.ts";
import type { DueCheck } from "../../../server/engine/outcome.ts";
import { refusedByPolicy } from "../../../server/net/address-policy.ts";
import type { CheckPolicy } from "../../../server/net/http-check.ts";
import { dueCheck as baseDueCheck } from "../../support/due-check.ts";

/** Set (CI, or .ci/run's PORCHLIGHT_REQUIRE_PING): a machine where ping cannot run fails these tests, never skips. */
const setting = (value: string | undefined) =>
  value !== undefined && value !== "" && value !== "0" && value !== "false";
const PING_REQUIRED = setting(process.env.CI) || setting(process.env.PORCHLIGHT_REQUIRE_PING);
const pingMissing = await pingAvailable();
const skipPing = pingMissing !== null && !PING_REQUIRED;
if (skipPing) console.warn(`icmp tests that need ping are skipped: ${pingMissing}`);
const needsPing = skipPing ? ` (skipped: ${pingMissing})` : "";
/** First line of every test that pings for real: where ping is required, its absence is the failure. */
const requirePing = () =>
  expect(pingMissing, "ping is required here (CI or PORCHLIGHT_REQUIRE_PING is set)").toBeNull();

const ACCESS_HINT = "checking private, loopback and link-local addresses needs PORCHLIGHT_ALLOW_PRIVATE_TARGETS=true";

/** A check of `url` with five seconds for ping to answer. */
const dueCheck = (url: string, overrides: Partial<DueCheck> = {}): DueCheck =>
  baseDueCheck(url, { timeoutMs: 5000, ...overrides });

const context = (policy: Partial<CheckPolicy> = {}): CheckContext => ({
  policy: { allowPrivate: false, ...policy },
  region: "local",
  now: () => 0,
});

/**
 * A reserved documentation address (RFC 5737) outside every subnet of this machine's interfaces: 192.0.2.1 is the
 * first choice, but some sandboxes use TEST-NET-1 for their own link, where it is the gateway and answers.
 */
function silentAddress(): string {
  const local = Object.values(networkInterfaces())
    .flat()
    .flatMap((i) => (i?.family === "IPv4" && i.cidr ? [ipaddr.parseCIDR(i.cidr)] : []));
  const candidates = ["192.0.2.1", "198.51.100.1", "203.0.113.1"];
  const free = candidates.find((a) => !local.some((cidr) => ipaddr.IPv4.parse(a).match(cidr)));
  return free ?? "198.51.100.1";
}

/** Stand-ins for ping: shell scripts that log their arguments and print what iputils prints. */
const scripts = mkdtempSync(join(tmpdir(), "porchlight-icmp-"));
afterAll(() => rmSync(scripts, { recursive: true, force: true }));
let scriptCount = 0;
function fakePing(body: string): { command: string; log: string } {
  scriptCount++;
  const command = join(scripts, `ping-${scriptCount}`);
  const log = join(scripts, `ping-${scriptCount}.log`);
  writeFileSync(log, "");
  writeFileSync(command, `#!/bin/sh\nLOG='${log}'\n${body}\n`);
  chmodSync(command, 0o755);
  return { command, log };
}
const logLines = (log: string) => readFileSync(log, "utf8").split("\n").filter(Boolean);
const SUMMARY_ALL = `printf '%s\\n' '--- 127.0.0.1 ping statistics ---' '3 packets transmitted, 3 received, 0% packet loss, time 402ms' 'rtt min/avg/max/mdev = 0.030/0.040/0.050/0.010 ms'`;

describe("the ICMP checker with the system's ping", () => {
  test(`pings 127.0.0.1 when private targets are allowed: up, a small response time, no loss${needsPing}`, async (ctx) => {
    if (skipPing) return ctx.skip();
    requirePing();
    const outcome = await checkIcmp(dueCheck("icmp://127.0.0.1"), context({ allowPrivate: true }));
    expect(outcome).toMatchObject({ ok: true, slow: false, statusCode: null, error: null, certificate: null });
    expect(outcome.responseMs).toBeGreaterThanOrEqual(0);
    expect(outcome.responseMs).toBeLessThan(100);
    expect(outcome.timings).toMatchObject({ dnsMs: null, lossPercent: 0 });
    expect(typeof outcome.timings.rttMs).toBe("number");
    expect(outcome.timings.totalMs).toBeLessThan(5000);
  });

  test(`an address that never answers is down with a plain reason, within its timeout${needsPing}`, async (ctx) => {
    if (skipPing) return ctx.skip();
    requirePing();
    const address = silentAddress();
    const started = performance.now();
    const outcome = await checkIcmp(
      dueCheck(`icmp://${address}`, { timeoutMs: 3000 }),
      context({ allowPrivate: true }),
    );
    const elapsed = performance.now() - started;
    expect(outcome.ok).toBe(false);
    expect(outcome.responseMs).toBeNull();
    // Silence ("no reply to 3 pings (100% loss)"), an ICMP error from a router, or no route at all.
    expect(outcome.error).toMatch(
      /^(no reply to \d+ pings? \(100% loss\)|ping failed: .*unreachable|timed out after)/i,
    );
    expect(outcome.error).not.toMatch(/^not checked|^refused/);
    expect(elapsed).toBeLessThan(3000 + 500);
  });

  test(`icmp://[::ffff:127.0.0.1] pings the IPv4 host inside${needsPing}`, async (ctx) => {
    if (skipPing) return ctx.skip();
    requirePing();
    const outcome = await checkIcmp(dueCheck("icmp://[::ffff:127.0.0.1]"), context({ allowPrivate: true }));
    expect(outcome).toMatchObject({ ok: true, error: null, timings: { lossPercent: 0 } });
  });
});

describe("the ICMP checker's address policy", () => {
  test("loopback is refused without PORCHLIGHT_ALLOW_PRIVATE_TARGETS, in the HTTP checker's words", async () => {
    const { command, log } = fakePing(`echo "$@" >> "$LOG"\n${SUMMARY_ALL}`);
    const outcome = await createIcmpChecker({ command })(dueCheck("icmp://127.0.0.1"), context());
    expect(outcome.ok).toBe(false);
    expect(outcome.error).toBe(`refused: 127.0.0.1 is 127.0.0.1 (loopback, not a public address); ${ACCESS_HINT}`);
    expect(refusedByPolicy(outcome.error)).toBe(true);
    expect(logLines(log)).toEqual([]);
  });

  test("a name resolving to 169.254.169.254 is refused, and nothing is pinged", async () => {
    const { command, log } = fakePing(`echo "$@" >> "$LOG"\n${SUMMARY_ALL}`);
    const resolve = async () => ["169.254.169.254"];
    const outcome = await createIcmpChecker({ command })(dueCheck("icmp://metadata.example"), context({ resolve }));
    expect(outcome.error).toBe(
      `refused: metadata.example is 169.254.169.254 (link-local, not a public address); ${ACCESS_HINT}`,
    );
    expect(refusedByPolicy(outcome.error)).toBe(true);
    expect(typeof outcome.timings.dnsMs).toBe("number");
    expect(logLines(log)).toEqual([]);
  });

  test("the policy's own refuseAddress is used in place of the private-targets rule", async () => {
    const { command } = fakePing(SUMMARY_ALL);
    const refuseAddress = (address: string) => (address === "203.0.113.10" ? "not on the list" : null);
    const outcome = await createIcmpChecker({ command })(dueCheck("icmp://203.0.113.10"), context({ refuseAddress }));
    expect(outcome.error).toBe("refused: 203.0.113.10 is 203.0.113.10 (not on the list)");
  });

  test("the resolved address is pinged, never the name (no second lookup)", async () => {
    const { command, log } = fakePing(`echo "$@" >> "$LOG"\n${SUMMARY_ALL}`);
    const resolve = async () => ["203.0.113.10", "127.0.0.1"];
    const policy = { resolve, allowPrivate: true };
    const outcome = await createIcmpChecker({ command })(dueCheck("icmp://router.example"), context(policy));
    expect(outcome).toMatchObject({ ok: true, responseMs: 0, timings: { rttMs: 0.04, lossPercent: 0 } });
    expect(logLines(log)).toHaveLength(1);
    expect(logLines(log)[0]).toMatch(/^-4 -n -c 3 -i 0\.2 -W 4\.\d -- 203\.0\.113\.10$/);
  });
});

describe("the ICMP checker's outcomes from ping's output", () => {
  test("a ping command that does not exist: not checked, never down", async () => {
    const command = join(scripts, "no-such-ping");
    const outcome = await createIcmpChecker({ command })(dueCheck("icmp://127.0.0.1"), context({ allowPrivate: true }));
    expect(outcome.ok).toBe(false);
    expect(outcome.error).toBe(`not checked: ping is not available on this machine (no ${command} program found)`);
    expect(await pingAvailable(command)).toBe(`no ${command} program found`);
  });

  test("a ping program that may not be executed: not checked", async () => {
    const { command } = fakePing(SUMMARY_ALL);
    chmodSync(command, 0o644);
    const outcome = await createIcmpChecker({ command })(dueCheck("icmp://127.0.0.1"), context({ allowPrivate: true }));
    expect(outcome.error).toBe(
      `not checked: ping is not available on this machine (${command} may not be run (EACCES: not executable))`,
    );
    expect(await pingAvailable(command)).toMatch(/EACCES/);
  });

  test("ping without the right to open an ICMP socket: not checked, with iputils' reason", async () => {
    const { command } = fakePing(
      "echo 'ping: socket: Operation not permitted' >&2\necho 'ping: => missing cap_net_raw+p capability or setuid?' >&2\nexit 2",
    );
    const outcome = await createIcmpChecker({ command })(dueCheck("icmp://127.0.0.1"), context({ allowPrivate: true }));
    expect(outcome.error).toBe(
      "not checked: ping is not available on this machine (ping: socket: Operation not permitted; ping: => missing cap_net_raw+p capability or setuid?)",
    );
  });

  test("partial loss is up but degraded; a mean above slowMs is degraded", async () => {
    const { command } = fakePing(
      `printf '%s\\n' '3 packets transmitted, 2 received, 33.3333% packet loss, time 404ms' 'rtt min/avg/max/mdev = 1.000/2.400/3.000/0.500 ms'`,
    );
    const checker = createIcmpChecker({ command });
    const lossy = await checker(dueCheck("icmp://203.0.113.10"), context({ allowPrivate: true }));
    expect(lossy).toMatchObject({ ok: true, slow: true, responseMs: 2, error: null });
    expect(lossy.timings).toMatchObject({ rttMs: 2.4, lossPercent: 33, dnsMs: null });
    const { command: slowPing } = fakePing(
      `printf '%s\\n' '3 packets transmitted, 3 received, 0% packet loss, time 404ms' 'rtt min/avg/max/mdev = 150.1/180.6/200.2/20.0 ms'`,
    );
    const slow = await createIcmpChecker({ command: slowPing })(
      dueCheck("icmp://203.0.113.10", { slowMs: 100 }),
      context({ allowPrivate: true }),
    );
    expect(slow).toMatchObject({ ok: true, slow: true, responseMs: 181, timings: { lossPercent: 0 } });
  });

  test("every ping lost is down, with the ICMP error a router sent back", async () => {
    const { command } = fakePing(
      `printf '%s\\n' 'From 192.0.2.1 icmp_seq=1 Destination Host Unreachable' '--- 203.0.113.10 ping statistics ---' '3 packets transmitted, 0 received, +3 errors, 100% packet loss, time 404ms'\nexit 1`,
    );
    const outcome = await createIcmpChecker({ command })(
      dueCheck("icmp://203.0.113.10"),
      context({ allowPrivate: true }),
    );
    expect(outcome).toMatchObject({
      ok: false,
      slow: false,
      responseMs: null,
      timings: { lossPercent: 100, rttMs: null },
    });
    expect(outcome.error).toBe("no reply to 3 pings (100% loss): Destination Host Unreachable from 192.0.2.1");
  });

  test("a ping that outlives the timeout is stopped at it", async () => {
    const { command } = fakePing("exec sleep 30");
    const started = performance.now();
    const outcome = await createIcmpChecker({ command })(
      dueCheck("icmp://203.0.113.10", { timeoutMs: 400 }),
      context({ allowPrivate: true }),
    );
    // Stopped at its timeout, not when the 30-second ping ended: room for a busy machine.
    expect(performance.now() - started).toBeLessThan(10_000);
    expect(outcome.error).toBe("timed out after 400 ms");
  });

  test.each([
    [
      "all answered",
      "3 packets transmitted, 3 received, 0% packet loss, time 408ms\nrtt min/avg/max/mdev = 0.037/0.213/0.544/0.233 ms\n",
      { transmitted: 3, received: 3, lossPercent: 0, avgMs: 0.213, icmpError: null },
    ],
    [
      "IPv6 unreachable",
      "From fe80::fc:ff:fe00:1%eth0 icmp_seq=1 Destination unreachable: Address unreachable\n\n1 packets transmitted, 0 received, +1 errors, 100% packet loss, time 0ms\n",
      {
        transmitted: 1,
        received: 0,
        lossPercent: 100,
        avgMs: null,
        icmpError: "Destination unreachable: Address unreachable from fe80::fc:ff:fe00:1%eth0",
      },
    ],
    ["no summary", "PING 127.0.0.1 (127.0.0.1) 56(84) bytes of data.\n", null],
  ])("parsePing: %s", (_, stdout, expected) => {
    expect(parsePing(stdout)).toEqual(expected);
  });
});

describe("pings in flight", () => {
  test("no more run at once than the limit; the rest wait their turn and all finish", async () => {
    const { command, log } = fakePing(`echo start >> "$LOG"\nsleep 0.3\necho end >> "$LOG"\n${SUMMARY_ALL}`);
    const checker = createIcmpChecker({ command, inFlight: 2 });
    const outcomes = await Promise.all(
      Array.from({ length: 6 }, () => checker(dueCheck("icmp://203.0.113.10"), context({ allowPrivate: true }))),
    );
    expect(outcomes.every((o) => o.ok)).toBe(true);
    let running = 0;
    let most = 0;
    for (const line of logLines(log)) {
      running += line === "start" ? 1 : -1;
      most = Math.max(most, running);
    }
    expect(most).toBe(2);
    expect(logLines(log).filter((l) => l === "start")).toHaveLength(6);
  });

  test("a check that cannot get a turn within its timeout gives up at it: not checked", async () => {
    const { command } = fakePing(`sleep 4\n${SUMMARY_ALL}`);
    const checker = createIcmpChecker({ command, inFlight: 1 });
    const first = checker(dueCheck("icmp://203.0.113.10", { timeoutMs: 15_000 }), context({ allowPrivate: true }));
    const started = performance.now();
    const second = await checker(dueCheck("icmp://203.0.113.10", { timeoutMs: 300 }), context({ allowPrivate: true }));
    // Refused at its own timeout, not when the first ping (4 s) let go of the turn.
    expect(performance.now() - started).toBeLessThan(3_000);
    expect(second.error).toBe("not checked: no turn to ping within 300 ms (at most 1 ping run at once)");
    expect((await first).ok).toBe(true);
  });
});
