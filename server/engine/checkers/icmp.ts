import { type ChildProcess, execFile } from "node:child_process";
import { isIP } from "node:net";
import { performance } from "node:perf_hooks";
import ipaddr from "ipaddr.js";
import { hostOf } from "../../contract/monitor.ts";
import { targetRefusal } from "../../net/address-policy.ts";
import { resolveAll } from "../../net/dns-cache.ts";
import type { CheckPolicy } from "../../net/http-check.ts";
import type { Checker, CheckerResult } from "./checker.ts";
import { failed, wholeMs } from "./checker.ts";

/**
 * An icmp:// site: three echo requests sent by the system's `ping` (iputils), run without a shell on the address
 * the policy judged, never on the name again (a second lookup could answer something else). Node has no ICMP
 * socket of its own, and iputils already knows how to open one unprivileged (an ICMP datagram socket where
 * net.ipv4.ping_group_range allows it) or privileged (a raw socket through its capability or setuid bit).
 */
export const ICMP = {
  /** Echo requests per check. */
  count: 3,
  /** Seconds between them: the shortest interval iputils allows an unprivileged user. */
  intervalSeconds: 0.2,
  /** Longest wait for a reply after the last request, whatever the site's timeout: past it a reply is lost. */
  maxWaitMs: 5000,
  /** Pings running at once in this process; the rest wait their turn within their own timeout. */
  inFlight: 32,
  /** After the deadline's SIGINT (ping prints its summary on it), how long before SIGKILL. */
  killGraceMs: 250,
  /** ping's output read at most: three replies and a summary take a few hundred bytes. */
  maxOutputBytes: 64 * 1024,
} as const;

/** Options of an ICMP checker; production uses the defaults. */
export interface IcmpOptions {
  /** The ping program (a path or a name looked up on PATH); tests pass one that does not exist or a stand-in. */
  command?: string;
  /** Pings in flight at once for this checker (ICMP.inFlight). */
  inFlight?: number;
}

const round = (ms: number) => Math.round(ms * 10) / 10;
const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? "" : "s"}`;

/** A counting semaphore whose waiters give up at their own deadline (they never hold a turn they cannot use). */
class Turns {
  private running = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(readonly limit: number) {}

  get inFlight(): number {
    return this.running;
  }

  /** Resolves true with a turn taken, or false when `waitMs` passed first. */
  take(waitMs: number): Promise<boolean> {
    if (this.running < this.limit) {
      this.running++;
      return Promise.resolve(true);
    }
    return new Promise((resolve) => {
      const grant = () => {
        clearTimeout(timer);
        this.running++;
        resolve(true);
      };
      const timer = setTimeout(
        () => {
          const at = this.waiting.indexOf(grant);
          if (at !== -1) this.waiting.splice(at, 1);
          resolve(false);
        },
        Math.max(0, waitMs),
      );
      this.waiting.push(grant);
    });
  }

  give(): void {
    this.running--;
    this.waiting.shift()?.();
  }
}

/** What one run of ping printed and how it ended. */
interface PingRun {
  stdout: string;
  stderr: string;
  /** The spawn's own error code (ENOENT, EACCES), when the program could not start. */
  code: string | null;
  /** Whether the deadline ended the run. */
  stopped: boolean;
}

/**
 * Runs the ping program with these arguments until it exits or `deadlineMs` passes: then SIGINT, on which iputils
 * prints its summary of what it saw so far, and SIGKILL shortly after if it still runs.
 */
function runPing(command: string, args: string[], deadlineMs: number): Promise<PingRun> {
  return new Promise((resolve) => {
    let stopped = false;
    let kill: NodeJS.Timeout | undefined;
    // C locale: the summary is parsed, and a translated one would not be.
    const env = { PATH: process.env.PATH ?? "/usr/bin:/bin", LC_ALL: "C" };
    let child: ChildProcess;
    try {
      child = execFile(
        command,
        args,
        { env, encoding: "utf8", maxBuffer: ICMP.maxOutputBytes, windowsHide: true },
        (error, stdout, stderr) => {
          clearTimeout(stop);
          clearTimeout(kill);
          const code = error && typeof error.code === "string" ? error.code : null;
          resolve({ stdout: String(stdout), stderr: String(stderr), code, stopped });
        },
      );
    } catch (error) {
      // EACCES and EPERM (a file capability the runtime's bounding set lacks) are thrown by spawn itself; ENOENT
      // arrives through the callback.
      const code = (error as { code?: unknown }).code;
      resolve({ stdout: "", stderr: "", code: typeof code === "string" ? code : "spawn failed", stopped: false });
      return;
    }
    const stop = setTimeout(
      () => {
        stopped = true;
        child.kill("SIGINT");
        kill = setTimeout(() => child.kill("SIGKILL"), ICMP.killGraceMs);
      },
      Math.max(0, deadlineMs),
    );
  });
}

/** ping's summary: requests sent, replies received, the mean round trip; null where it printed none. */
export interface PingSummary {
  transmitted: number;
  received: number;
  lossPercent: number;
  /** The mean round trip in ms; null without a reply. */
  avgMs: number | null;
  /** The first ICMP error a router or the host sent back ("Destination Host Unreachable from 192.0.2.1"). */
  icmpError: string | null;
}

/** Reads iputils' output (C locale): the statistics lines and the first "From ... icmp_seq=N <error>" line. */
export function parsePing(stdout: string): PingSummary | null {
  const counts = /(\d+) packets transmitted, (\d+) received/.exec(stdout);
  if (!counts) return null;
  const transmitted = Number(counts[1]);
  const received = Number(counts[2]);
  const rtt = /min\/avg\/max(?:\/mdev)? = [\d.]+\/([\d.]+)\//.exec(stdout);
  const from = /^From (\S+) icmp_seq=\d+ (.+)$/m.exec(stdout);
  return {
    transmitted,
    received,
    lossPercent: transmitted === 0 ? 100 : Math.round(((transmitted - received) / transmitted) * 100),
    avgMs: rtt ? Number(rtt[1]) : null,
    icmpError: from ? `${from[2]?.trim()} from ${from[1]?.replace(/:$/, "")}` : null,
  };
}

/**
 * Why ping cannot run on this machine, in a few words, or null when the run says nothing of the kind: no program,
 * no right to open an ICMP socket (neither a capability nor net.ipv4.ping_group_range), no IPv6 on this machine.
 */
function unavailable(run: PingRun, command: string): string | null {
  if (run.code === "ENOENT") return `no ${command} program found`;
  if (run.code === "EACCES") return `${command} may not be run (EACCES: not executable)`;
  // Debian's ping carries the cap_net_raw file capability; exec fails where the runtime withholds NET_RAW.
  if (run.code === "EPERM") return `${command} may not be run (EPERM: the runtime withholds NET_RAW)`;
  if (run.code === "spawn failed") return `${command} could not be started`;
  // iputils says e.g. "ping: socket: Operation not permitted" then "ping: => missing cap_net_raw+p capability or
  // setuid?": both lines are the reason.
  const lines = run.stderr
    .split("\n")
    .map((l) => l.trim())
    .filter((l) => /operation not permitted|permission denied|address family not supported|cap_net_raw/i.test(l));
  return lines.length > 0 ? lines.join("; ").slice(0, 240) : null;
}

/** The address ping is given: an IPv4-mapped IPv6 address is the IPv4 host inside (ICMPv6 never reaches it). */
function pingTarget(address: string): string {
  if (isIP(address) !== 6) return address;
  try {
    // The URL parser's spelling first, as address-policy.ts does: `::a.b.c.d` is IPv4-compatible, not mapped.
    const [bare = ""] = address.split("%");
    const parsed = ipaddr.IPv6.parse(new URL(`http://[${bare}]/`).hostname.slice(1, -1));
    return parsed.isIPv4MappedAddress() ? parsed.toIPv4Address().toString() : address;
  } catch {
    return address;
  }
}

/** ping's arguments for one check: -n (no reverse lookups), -4 or -6 by the address, a wait within the budget. */
function pingArgs(target: string, budgetMs: number): string[] {
  const sendingMs = (ICMP.count - 1) * ICMP.intervalSeconds * 1000;
  const waitMs = Math.min(ICMP.maxWaitMs, Math.max(100, budgetMs - sendingMs - ICMP.killGraceMs));
  // No -w: with a deadline, iputils keeps sending past -c to a host that never answers (ten requests in two
  // seconds instead of three); the deadline is ours (runPing's SIGINT) instead.
  return [
    isIP(target) === 6 ? "-6" : "-4",
    "-n",
    "-c",
    String(ICMP.count),
    "-i",
    String(ICMP.intervalSeconds),
    "-W",
    (waitMs / 1000).toFixed(1),
    "--",
    target,
  ];
}

/**
 * Whether `ping` can run here: null when it does (one echo request to 127.0.0.1 answered), else the reason in a
 * few words. Tests ask it to skip what needs ping where it cannot run.
 */
export async function pingAvailable(command = "ping"): Promise<string | null> {
  const run = await runPing(command, ["-4", "-n", "-c", "1", "-W", "1", "--", "127.0.0.1"], 3000);
  const why = unavailable(run, command);
  if (why !== null) return why;
  const summary = parsePing(run.stdout);
  if (summary && summary.received > 0) return null;
  return run.stderr.trim().split("\n")[0] || `${command} got no reply from 127.0.0.1`;
}

/** Resolves and judges the host as checkHttp does; the error of a refused or unresolved host, else the address. */
async function addressOf(
  host: string,
  policy: CheckPolicy,
): Promise<{ address: string; error: null } | { address: null; error: string }> {
  let addresses: string[];
  try {
    addresses = isIP(host) ? [host] : await (policy.resolve ?? resolveAll)(host);
  } catch (error) {
    const code = (error as { code?: string }).code;
    if (code === "ENOTFOUND") return { address: null, error: "DNS: host not found" };
    if (code === "EAI_AGAIN") return { address: null, error: "DNS: lookup failed (temporary)" };
    return { address: null, error: `DNS: ${error instanceof Error ? error.message : String(error)}` };
  }
  const chosen = addresses[0];
  if (!chosen) return { address: null, error: `DNS: ${host} has no address` };
  const refused = targetRefusal(host, chosen, policy);
  if (refused !== null) return { address: null, error: refused };
  // A caller's own rule might let through what is not an address; ping must only ever see one.
  if (isIP(chosen) === 0) return { address: null, error: `refused: ${host} is ${chosen} (not an IP address)` };
  return { address: chosen, error: null };
}

/**
 * An ICMP checker. Up when at least one of three echo requests is answered, with the mean round trip as its
 * response time; degraded (slow) on partial loss or a mean above the site's slowMs; down when none is answered.
 * Where ping cannot run on this machine the outcome starts with "not checked:" and counts as no downtime. Ends
 * within the site's timeout (a turn waited for included) plus ICMP.killGraceMs at worst.
 */
export function createIcmpChecker(options: IcmpOptions = {}): Checker {
  const command = options.command ?? "ping";
  const turns = new Turns(options.inFlight ?? ICMP.inFlight);
  return async (check, { policy }) => {
    const started = performance.now();
    const timings: CheckerResult["timings"] = { dnsMs: null, rttMs: null, lossPercent: null, totalMs: null };
    const done = (result: CheckerResult): CheckerResult => {
      result.timings = { ...timings, totalMs: round(performance.now() - started) };
      return result;
    };
    let host: string;
    try {
      host = hostOf(check.url);
    } catch {
      return done(failed(`refused: ${check.url} is not an icmp:// address`));
    }
    const dnsStarted = performance.now();
    const judged = await addressOf(host, policy);
    if (!isIP(host)) timings.dnsMs = round(performance.now() - dnsStarted);
    if (judged.address === null) return done(failed(judged.error));
    const target = pingTarget(judged.address);

    const left = () => check.timeoutMs - (performance.now() - started);
    if (left() <= 0) return done(failed(`timed out after ${check.timeoutMs} ms (DNS)`));
    if (!(await turns.take(left()))) {
      return done(
        failed(
          `not checked: no turn to ping within ${check.timeoutMs} ms (at most ${plural(turns.limit, "ping")} run at once)`,
        ),
      );
    }
    let run: PingRun;
    try {
      run = await runPing(command, pingArgs(target, left()), left());
    } finally {
      turns.give();
    }

    const why = unavailable(run, command);
    if (why !== null) return done(failed(`not checked: ping is not available on this machine (${why})`));
    const summary = parsePing(run.stdout);
    if (summary === null) {
      if (run.stopped) return done(failed(`timed out after ${check.timeoutMs} ms`));
      const line = run.stderr
        .trim()
        .split("\n")[0]
        ?.replace(/^\S*ping6?: /, "");
      return done(failed(line ? `ping failed: ${line}` : `ping failed (${run.code ?? "no summary printed"})`));
    }
    timings.lossPercent = summary.lossPercent;
    if (summary.transmitted === 0) return done(failed(`timed out after ${check.timeoutMs} ms before a ping was sent`));
    if (summary.received === 0 || summary.avgMs === null) {
      const answer = summary.icmpError ? `: ${summary.icmpError}` : "";
      return done(failed(`no reply to ${plural(summary.transmitted, "ping")} (100% loss)${answer}`));
    }
    timings.rttMs = summary.avgMs;
    const responseMs = wholeMs(summary.avgMs);
    return done({
      ok: true,
      slow: summary.lossPercent > 0 || responseMs > check.slowMs,
      statusCode: null,
      responseMs,
      error: null,
      timings,
      certificate: null,
      wordpress: null,
    });
  };
}

/** The engine's ICMP checker: the system's ping, ICMP.inFlight at once in this process. */
export const checkIcmp: Checker = createIcmpChecker();
