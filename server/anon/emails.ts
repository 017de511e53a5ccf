/**
 * The two e-mails of the anonymous 24-hour domain report: the double opt-in confirmation and the report itself.
 *
 * Pure functions from data to `{ subject, text, html, headers }`. Every value that came from outside (the domain,
 * what the checks found, the URLs) is escaped for HTML here, in one place; nothing else builds these bodies
 * (no user-supplied templates). The HTML is a complete document with inline styles only (no images, no SVG, no
 * remote resources), width-limited, and readable in light and dark mode.
 */
import { escapeHtml } from "../html.ts";

export interface Email {
  subject: string;
  text: string;
  html: string;
  headers: Record<string, string>;
}

export interface ReportCheck {
  /** ISO 8601 time of the check. */
  at: string;
  ok: boolean;
  statusCode: number | null;
  responseTimeMs: number | null;
  error: string | null;
}

export interface ReportData {
  domain: string;
  startedAt: string;
  endedAt: string;
  intervalMinutes: number;
  checks: ReportCheck[];
  ssl: { valid: boolean; daysLeft: number | null } | null;
  domainMeta: { registrar: string | null; expirationDate: string | null; daysLeft: number | null } | null;
  cdn: string;
  cms: string;
}

export interface Outage {
  /** `at` of the first failed check of the period. */
  from: string;
  /** `at` of the last failed check of the period. */
  to: string;
  checks: number;
  /** What most of the period's checks reported: their error, or `HTTP <status>`. */
  error: string;
}

export interface Summary {
  total: number;
  up: number;
  /** up / total × 100, unrounded; null when no check ran. */
  uptimePercent: number | null;
  /** Response-time statistics of the successful checks, in whole milliseconds; null when there is none. */
  avgMs: number | null;
  p95Ms: number | null;
  minMs: number | null;
  maxMs: number | null;
  outages: Outage[];
}

/** The report covers this many hours, one chart bar each. */
export const REPORT_HOURS = 24;
/** A certificate or a domain expiring within this many days is flagged. */
export const EXPIRY_WARNING_DAYS = 14;
/** A flapping site could fail hundreds of separate times; the e-mail lists this many periods and counts the rest. */
export const MAX_OUTAGES_LISTED = 50;
/** Errors come from remote servers; longer ones are cut. */
const MAX_ERROR_CHARS = 200;
const CHART_HEIGHT_PX = 60;
const BLOCKS = ["▁", "▂", "▃", "▄", "▅", "▆", "▇", "█"];
const NO_CHECKS_MARK = "·";
const ALL_FAILED_MARK = "×";

/**
 * Confirmation of a report request (double opt-in).
 *
 * The link opens a page with a confirm button; the link itself confirms nothing, because mail scanners open links.
 * It has no List-Unsubscribe header: it is a single transactional message sent because someone asked for it, there
 * is no list to leave, and ignoring it is the opt-out (nothing runs and nothing more is sent without the button).
 * `Auto-Submitted` keeps vacation responders from answering it.
 */
export function confirmationEmail(input: { domain: string; confirmUrl: string; expiresHours: number }): Email {
  const domain = oneLine(input.domain, 253);
  const url = httpUrl(input.confirmUrl);
  const expires = plural(input.expiresHours, "hour");
  const subject = headerText(`Confirm your 24-hour report for ${domain}`);

  const text = [
    `Someone (hopefully you) asked Porchlight for a 24-hour report on ${domain}, to be sent to this address.`,
    "",
    "Nothing happens unless you confirm. To confirm, open this link and press the button on the page:",
    "",
    url,
    "",
    "Opening the link does not start anything; the button on that page does.",
    `The link expires in ${expires}.`,
    "",
    "If you did not ask for this, ignore this e-mail: without confirmation no checks run and no report is sent.",
    "",
    "-- ",
    "Porchlight",
  ].join("\n");

  const body = [
    heading(`Confirm your report for ${domain}`),
    paragraph(
      `Someone (hopefully you) asked Porchlight for a 24-hour report on <strong>${escapeHtml(domain)}</strong>, to be sent to this address.`,
    ),
    paragraph("Nothing happens unless you confirm. To confirm, open this page and press the button on it:"),
    `<p style="margin:24px 0;"><a href="${escapeHtml(url)}" class="pl-button" style="display:inline-block;padding:12px 20px;border-radius:6px;background:#0b57d0;color:#ffffff;text-decoration:none;font-weight:600;">Open the confirmation page</a></p>`,
    paragraph(
      `Or copy this address into your browser:<br><a href="${escapeHtml(url)}" class="pl-link" style="color:#0b57d0;word-break:break-all;">${escapeHtml(url)}</a>`,
    ),
    paragraph(
      `<strong>Opening the link does not start anything; the button on that page does.</strong> The link expires in ${escapeHtml(expires)}.`,
    ),
    paragraph(
      "If you did not ask for this, ignore this e-mail: without confirmation no checks run and no report is sent.",
      true,
    ),
  ].join("\n");

  return {
    subject,
    text,
    html: htmlDocument(subject, body),
    headers: { "Auto-Submitted": "auto-generated" },
  };
}

/**
 * The one report, sent once after 24 hours of checks.
 *
 * Headers: `List-Unsubscribe` with the given URL and `List-Unsubscribe-Post: List-Unsubscribe=One-Click` (RFC
 * 8058), so mail clients offer a one-click unsubscribe that POSTs to that URL.
 */
export function reportEmail(data: ReportData, unsubscribeUrl: string): Email {
  const unsubscribe = httpUrl(unsubscribeUrl);
  const summary = summarize(data.checks);
  const hours = hourlyBuckets(data);
  const facts = reportFacts(data, summary, hours);
  const uptime = facts.hasChecks ? `${formatPercent(summary.up, summary.total)}% up` : "no checks ran";
  const subject = headerText(`24-hour report for ${facts.domain}: ${uptime}`);

  return {
    subject,
    text: reportText(facts, hours, unsubscribe),
    html: htmlDocument(subject, reportHtml(facts, hours, unsubscribe)),
    headers: {
      "List-Unsubscribe": `<${unsubscribe}>`,
      "List-Unsubscribe-Post": "List-Unsubscribe=One-Click",
      "Auto-Submitted": "auto-generated",
    },
  };
}

/**
 * Uptime, response times and failure periods of a series of checks, in time order whatever the input order.
 *
 * Response times count successful checks only: a fast error page or a slow timeout says nothing about how fast the
 * site serves. p95 is the nearest-rank percentile. Consecutive failed checks form one outage.
 */
export function summarize(checks: ReportCheck[]): Summary {
  const ordered = inTimeOrder(checks);
  const total = ordered.length;
  const up = ordered.filter((c) => c.ok).length;
  const times = ordered
    .filter((c) => c.ok && isMs(c.responseTimeMs))
    .map((c) => c.responseTimeMs as number)
    .sort((a, b) => a - b);

  const outages: Outage[] = [];
  let run: ReportCheck[] = [];
  const flush = () => {
    const first = run[0];
    const last = run[run.length - 1];
    if (first && last) outages.push({ from: first.at, to: last.at, checks: run.length, error: mostCommonError(run) });
    run = [];
  };
  for (const check of ordered) {
    if (check.ok) flush();
    else run.push(check);
  }
  flush();

  return {
    total,
    up,
    uptimePercent: total > 0 ? (up / total) * 100 : null,
    avgMs: times.length > 0 ? Math.round(times.reduce((sum, t) => sum + t, 0) / times.length) : null,
    p95Ms: percentile(times, 95),
    minMs: times.length > 0 ? Math.round(times[0] as number) : null,
    maxMs: times.length > 0 ? Math.round(times[times.length - 1] as number) : null,
    outages,
  };
}

/** One hour of the chart. */
interface HourBucket {
  /** ISO start of the hour. */
  start: string;
  checks: number;
  failed: number;
  /** Average response time of the hour's successful checks. */
  avgMs: number | null;
}

/** 24 one-hour buckets from `startedAt`; a check at or after the 24th hour (up to `endedAt`) counts in the last. */
function hourlyBuckets(data: ReportData): HourBucket[] {
  const start = Date.parse(data.startedAt);
  const sums = Array.from({ length: REPORT_HOURS }, () => ({ checks: 0, failed: 0, ms: 0, timed: 0 }));
  if (Number.isFinite(start)) {
    for (const check of data.checks) {
      const at = Date.parse(check.at);
      if (!Number.isFinite(at) || at < start) continue;
      const bucket = sums[Math.min(REPORT_HOURS - 1, Math.floor((at - start) / 3_600_000))];
      if (!bucket) continue;
      bucket.checks++;
      if (!check.ok) bucket.failed++;
      else if (isMs(check.responseTimeMs)) {
        bucket.ms += check.responseTimeMs;
        bucket.timed++;
      }
    }
  }
  return sums.map((s, i) => ({
    start: Number.isFinite(start) ? new Date(start + i * 3_600_000).toISOString() : "",
    checks: s.checks,
    failed: s.failed,
    avgMs: s.timed > 0 ? Math.round(s.ms / s.timed) : null,
  }));
}

/** Bar height as a fraction of the slowest hour, so the chart shows the shape whatever the scale. */
function barLevel(bucket: HourBucket, slowest: number): number {
  if (bucket.avgMs === null || slowest <= 0) return 0;
  return Math.max(0.05, bucket.avgMs / slowest);
}

function sparkline(hours: HourBucket[]): string {
  const slowest = Math.max(0, ...hours.map((h) => h.avgMs ?? 0));
  return hours
    .map((h) => {
      if (h.checks === 0) return NO_CHECKS_MARK;
      if (h.avgMs === null) return ALL_FAILED_MARK;
      const index = Math.min(BLOCKS.length - 1, Math.max(0, Math.ceil(barLevel(h, slowest) * BLOCKS.length) - 1));
      return BLOCKS[index];
    })
    .join("");
}

function hourDescription(h: HourBucket): string {
  const label = h.start ? formatClock(h.start) : "?";
  if (h.checks === 0) return `${label} no checks`;
  if (h.avgMs === null) return `${label} every check failed`;
  return `${label} ${h.avgMs} ms${h.failed > 0 ? ` (${h.failed} failed)` : ""}`;
}

/** The lines both parts share, already worded; HTML escapes them on output. */
interface ReportFacts {
  /** The domain, on one line. */
  domain: string;
  /** Between two checks, e.g. "5 minutes". */
  interval: string;
  /** Whether any check ran: without one there is no chart. */
  hasChecks: boolean;
  period: string;
  uptime: string;
  responseTimes: string | null;
  responseTimesMissing: string;
  ssl: string;
  registrar: string;
  domainExpiry: string;
  cdn: string;
  cms: string;
  nothingWrong: string;
  outages: { when: string; what: string }[];
  moreOutages: number;
  chartLabel: string;
}

function reportFacts(data: ReportData, summary: Summary, hours: HourBucket[]): ReportFacts {
  const interval = plural(data.intervalMinutes, "minute");
  const every = `one check every ${interval}`;
  const uptime =
    summary.total === 0
      ? "No checks ran in this period, so there is no uptime to report."
      : `${formatPercent(summary.up, summary.total)}% up: ${summary.up} of ${plural(summary.total, "check")} succeeded (${every}).`;
  const responseTimes =
    summary.avgMs === null
      ? null
      : `Average ${summary.avgMs} ms, p95 ${summary.p95Ms} ms, fastest ${summary.minMs} ms, slowest ${summary.maxMs} ms.`;
  const listed = summary.outages.slice(0, MAX_OUTAGES_LISTED);
  return {
    domain: oneLine(data.domain, 253),
    interval,
    hasChecks: summary.total > 0,
    period: `${formatTime(data.startedAt)} to ${formatTime(data.endedAt)}`,
    uptime,
    responseTimes,
    responseTimesMissing:
      summary.total === 0
        ? "No checks ran, so there are no response times."
        : "No check succeeded, so there are no response times.",
    ssl: describeSsl(data.ssl),
    registrar: data.domainMeta?.registrar ? oneLine(data.domainMeta.registrar, 200) : "unknown",
    domainExpiry: describeDomainExpiry(data.domainMeta),
    cdn: oneLine(data.cdn, 200) || "none detected",
    cms: oneLine(data.cms, 200) || "none detected",
    nothingWrong: summary.total === 0 ? "Nothing to report: no checks ran." : "Nothing: every check succeeded.",
    outages: listed.map((o) => ({
      when: o.from === o.to ? `At ${formatTime(o.from)}` : `${formatTime(o.from)} to ${formatTime(o.to)}`,
      what: `${plural(o.checks, "failed check")}: ${o.error}`,
    })),
    moreOutages: summary.outages.length - listed.length,
    chartLabel: `Average response time of successful checks per hour (UTC): ${hours.map(hourDescription).join("; ")}.`,
  };
}

function reportText(facts: ReportFacts, hours: HourBucket[], unsubscribe: string): string {
  const lines = [`24-hour report for ${facts.domain}`, facts.period, "", "UPTIME", facts.uptime, ""];
  lines.push("RESPONSE TIME (successful checks)");
  if (facts.responseTimes) lines.push(facts.responseTimes);
  else lines.push(facts.responseTimesMissing);
  if (facts.hasChecks) {
    lines.push(
      `Per hour from ${hours[0]?.start ? formatClock(hours[0].start) : "the start"}, one character each:`,
      sparkline(hours),
      `(taller is slower; ${ALL_FAILED_MARK} every check that hour failed; ${NO_CHECKS_MARK} no checks that hour)`,
    );
  }
  lines.push("", "CERTIFICATE (SSL/TLS)", facts.ssl, "");
  lines.push("DOMAIN", `Registrar: ${facts.registrar}`, `Expires: ${facts.domainExpiry}`, "");
  lines.push("CDN AND CMS", `CDN: ${facts.cdn}`, `CMS: ${facts.cms}`, "");
  lines.push("WHAT WENT WRONG WHEN");
  if (facts.outages.length === 0) lines.push(facts.nothingWrong);
  for (const o of facts.outages) lines.push(`- ${o.when}: ${o.what}`);
  if (facts.moreOutages > 0) lines.push(`- and ${plural(facts.moreOutages, "more period")} with failures`);
  lines.push(
    "",
    "-- ",
    `This was a one-time report on ${facts.domain} (checked every ${facts.interval}): nothing more will be sent.`,
    `Unsubscribe: ${unsubscribe}`,
  );
  return lines.join("\n");
}

function reportHtml(facts: ReportFacts, hours: HourBucket[], unsubscribe: string): string {
  const parts = [
    heading(`24-hour report for ${facts.domain}`),
    paragraph(escapeHtml(facts.period), true),
    subheading("Uptime"),
    paragraph(escapeHtml(facts.uptime)),
    subheading("Response time"),
    paragraph(escapeHtml(facts.responseTimes ?? facts.responseTimesMissing)),
  ];
  if (facts.hasChecks) parts.push(chartHtml(hours, facts.chartLabel));
  parts.push(
    subheading("Certificate (SSL/TLS)"),
    paragraph(escapeHtml(facts.ssl)),
    subheading("Domain"),
    factTable([
      ["Registrar", facts.registrar],
      ["Expires", facts.domainExpiry],
    ]),
    subheading("CDN and CMS"),
    factTable([
      ["CDN", facts.cdn],
      ["CMS", facts.cms],
    ]),
    subheading("What went wrong when"),
  );
  if (facts.outages.length === 0) parts.push(paragraph(escapeHtml(facts.nothingWrong)));
  else {
    const items = facts.outages
      .map((o) => `<li style="margin:0 0 6px;">${escapeHtml(o.when)}: ${escapeHtml(o.what)}</li>`)
      .join("\n");
    const more =
      facts.moreOutages > 0
        ? `<li style="margin:0 0 6px;">and ${escapeHtml(plural(facts.moreOutages, "more period"))} with failures</li>`
        : "";
    parts.push(`<ul style="margin:0 0 16px;padding-left:20px;">\n${items}${more}\n</ul>`);
  }
  parts.push(
    `<hr style="border:0;border-top:1px solid #d0d4da;margin:24px 0;">`,
    paragraph(
      `This was a one-time report on ${escapeHtml(facts.domain)} (checked every ${escapeHtml(facts.interval)}): nothing more will be sent. <a href="${escapeHtml(unsubscribe)}" class="pl-link" style="color:#0b57d0;">Unsubscribe</a>`,
      true,
    ),
  );
  return parts.join("\n");
}

/**
 * 24 table cells with bars of inline-styled heights: no image and no SVG (Gmail drops SVG). The caption says what
 * it shows and the table's label lists every hour's value for screen readers.
 */
function chartHtml(hours: HourBucket[], label: string): string {
  const slowest = Math.max(0, ...hours.map((h) => h.avgMs ?? 0));
  const cells = hours
    .map((h) => {
      const title = escapeHtml(hourDescription(h));
      let bar: string;
      if (h.checks === 0) bar = barDiv(1, "#d0d4da", "pl-bar-none");
      else if (h.avgMs === null) bar = barDiv(CHART_HEIGHT_PX, "#c62828", "pl-bar-down");
      else
        bar = barDiv(
          Math.max(2, Math.round(barLevel(h, slowest) * CHART_HEIGHT_PX)),
          h.failed > 0 ? "#c62828" : "#2f7d4f",
          h.failed > 0 ? "pl-bar-down" : "pl-bar-up",
        );
      return `<td title="${title}" style="vertical-align:bottom;height:${CHART_HEIGHT_PX}px;width:4%;padding:0 1px;">${bar}</td>`;
    })
    .join("");
  const marks = [0, 6, 12, 18]
    .map((i) => {
      const start = hours[i]?.start;
      return `<td colspan="6" class="pl-muted" style="padding-top:4px;font-size:11px;color:#5b616b;text-align:left;">${escapeHtml(start ? formatClock(start) : "")}</td>`;
    })
    .join("");
  return [
    `<table role="img" aria-label="${escapeHtml(label)}" cellpadding="0" cellspacing="0" border="0" style="width:100%;border-collapse:collapse;table-layout:fixed;margin:0 0 8px;">`,
    `<caption class="pl-muted" style="caption-side:top;text-align:left;font-size:13px;color:#5b616b;padding-bottom:6px;">Average response time per hour (UTC), taller is slower; red: checks failed that hour; grey: no checks.</caption>`,
    `<tr>${cells}</tr>`,
    `<tr>${marks}</tr>`,
    "</table>",
  ].join("\n");
}

function barDiv(heightPx: number, color: string, className: string): string {
  return `<div class="${className}" style="height:${heightPx}px;line-height:${heightPx}px;font-size:0;background:${color};border-radius:2px 2px 0 0;">&nbsp;</div>`;
}

function factTable(rows: [string, string][]): string {
  const body = rows
    .map(
      ([name, value]) =>
        `<tr><th scope="row" class="pl-muted" style="text-align:left;font-weight:normal;color:#5b616b;padding:2px 16px 2px 0;vertical-align:top;">${escapeHtml(name)}</th><td style="padding:2px 0;">${escapeHtml(value)}</td></tr>`,
    )
    .join("\n");
  return `<table cellpadding="0" cellspacing="0" border="0" style="border-collapse:collapse;margin:0 0 16px;">\n${body}\n</table>`;
}

function heading(text: string): string {
  return `<h1 style="font-size:22px;line-height:1.3;margin:0 0 8px;">${escapeHtml(text)}</h1>`;
}

function subheading(text: string): string {
  return `<h2 style="font-size:16px;line-height:1.3;margin:24px 0 8px;">${escapeHtml(text)}</h2>`;
}

/** A paragraph of HTML the caller has already escaped. */
function paragraph(html: string, muted = false): string {
  return muted
    ? `<p class="pl-muted" style="margin:0 0 16px;color:#5b616b;">${html}</p>`
    : `<p style="margin:0 0 16px;">${html}</p>`;
}

/**
 * The document around a body: light colours inline, dark ones for clients that honour prefers-color-scheme, one
 * column of at most 600 px, no remote resources.
 */
function htmlDocument(title: string, body: string): string {
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark">
<meta name="supported-color-schemes" content="light dark">
<title>${escapeHtml(title)}</title>
<style>
@media (prefers-color-scheme: dark) {
  .pl-page { background: #111315 !important; }
  .pl-card { background: #1c1f23 !important; color: #e6e8eb !important; border-color: #2c3035 !important; }
  .pl-muted { color: #a9afb8 !important; }
  .pl-link { color: #8ab4ff !important; }
  .pl-button { background: #8ab4ff !important; color: #0b1a33 !important; }
  .pl-bar-up { background: #4fbf7f !important; }
  .pl-bar-down { background: #ef6b6b !important; }
  .pl-bar-none { background: #3a3f45 !important; }
}
</style>
</head>
<body class="pl-page" style="margin:0;padding:0;background:#f3f4f6;">
<div class="pl-page" style="background:#f3f4f6;padding:24px 12px;">
<div role="article" aria-label="${escapeHtml(title)}" lang="en" class="pl-card" style="max-width:600px;margin:0 auto;padding:24px;background:#ffffff;color:#1d1f23;border:1px solid #e1e4e8;border-radius:8px;font-family:-apple-system,BlinkMacSystemFont,'Segoe UI',Roboto,Helvetica,Arial,sans-serif;font-size:15px;line-height:1.5;">
${body}
</div>
</div>
</body>
</html>
`;
}

function describeSsl(ssl: ReportData["ssl"]): string {
  if (!ssl) return "No certificate information: the site may not use HTTPS, or the check could not reach it.";
  if (!ssl.valid) return "Not valid: browsers will warn visitors.";
  return `Valid${ssl.daysLeft === null ? "." : `, ${describeDaysLeft(ssl.daysLeft)}.`}`;
}

function describeDomainExpiry(meta: ReportData["domainMeta"]): string {
  if (!meta || (meta.expirationDate === null && meta.daysLeft === null)) return "unknown";
  const date = meta.expirationDate ? formatDate(meta.expirationDate) : null;
  const left = meta.daysLeft === null ? null : describeDaysLeft(meta.daysLeft, "left");
  return [date, left && date ? `(${left})` : left].filter(Boolean).join(" ");
}

/** `expires in 45 days` (or `45 days left`), flagged within EXPIRY_WARNING_DAYS; `expired 2 days ago`. */
function describeDaysLeft(days: number, style: "expires" | "left" = "expires"): string {
  const d = Math.round(days);
  if (d < 0) return `expired ${plural(-d, "day")} ago`;
  if (d === 0) return "expires today, renew now";
  const warning = d <= EXPIRY_WARNING_DAYS ? ", renew soon" : "";
  return style === "left" ? `${plural(d, "day")} left${warning}` : `expires in ${plural(d, "day")}${warning}`;
}

function mostCommonError(run: ReportCheck[]): string {
  const counts = new Map<string, number>();
  for (const check of run) {
    const label = failureLabel(check);
    counts.set(label, (counts.get(label) ?? 0) + 1);
  }
  let best = "";
  let bestCount = 0;
  // Map keeps insertion order, so a tie goes to the error seen first.
  for (const [label, count] of counts) {
    if (count > bestCount) {
      best = label;
      bestCount = count;
    }
  }
  return best;
}

function failureLabel(check: ReportCheck): string {
  const error = check.error ? oneLine(check.error, MAX_ERROR_CHARS) : "";
  if (error) return error;
  if (check.statusCode !== null) return `HTTP ${check.statusCode}`;
  return "failed";
}

function inTimeOrder(checks: ReportCheck[]): ReportCheck[] {
  // An unparsable time sorts last rather than poisoning the comparison with NaN.
  const key = (at: string) => {
    const t = Date.parse(at);
    return Number.isFinite(t) ? t : Number.POSITIVE_INFINITY;
  };
  return checks
    .map((check, index) => ({ check, index, at: key(check.at) }))
    .sort((a, b) => (a.at < b.at ? -1 : a.at > b.at ? 1 : a.index - b.index))
    .map((entry) => entry.check);
}

function percentile(sorted: number[], p: number): number | null {
  if (sorted.length === 0) return null;
  const rank = Math.ceil((p / 100) * sorted.length);
  return Math.round(sorted[Math.min(sorted.length, Math.max(1, rank)) - 1] as number);
}

function isMs(value: number | null): value is number {
  return value !== null && Number.isFinite(value) && value >= 0;
}

/**
 * One decimal, but never "100%" while a check failed nor "0%" while one succeeded: 2879 of 2880 is 99.9%, not 100%.
 */
function formatPercent(up: number, total: number): string {
  let shown = ((up / total) * 100).toFixed(1);
  if (shown === "100.0" && up < total) shown = "99.9";
  if (shown === "0.0" && up > 0) shown = "0.1";
  return shown.replace(/\.0$/, "");
}

function plural(count: number, word: string): string {
  return `${count} ${word}${count === 1 ? "" : "s"}`;
}

/** `2024-05-01 14:05 UTC`; the value as given when it is not a date. */
function formatTime(iso: string): string {
  const t = Date.parse(iso);
  if (!Number.isFinite(t)) return oneLine(iso, 40);
  return `${new Date(t).toISOString().slice(0, 16).replace("T", " ")} UTC`;
}

function formatDate(iso: string): string {
  const t = Date.parse(iso);
  if (!Number.isFinite(t)) return oneLine(iso, 40);
  return new Date(t).toISOString().slice(0, 10);
}

function formatClock(iso: string): string {
  return new Date(iso).toISOString().slice(11, 16);
}

/** Text from outside on one line: control characters and runs of whitespace become one space, then cut. */
function oneLine(value: string, max: number): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: removing control characters is the point.
  const flat = value.replace(/[\u0000-\u001f\u007f-\u009f\s]+/g, " ").trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

/** A subject line: one line, bounded. */
function headerText(value: string): string {
  return oneLine(value, 300);
}

/** Our own links only: an http(s) URL, normalised so it can sit in an attribute or between `<` and `>`. */
function httpUrl(value: string): string {
  const url = new URL(value);
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new TypeError(`E-mail links must be http or https URLs, not ${url.protocol}`);
  }
  return url.href;
}
