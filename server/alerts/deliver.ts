/**
 * Sends what a provider made: an HTTP request through the engine's checker (the address each socket connects to is
 * judged, private ones only where the operator allows them; bounded time and answer; no redirect followed; a
 * certificate that does not verify refuses the request before anything is sent), or an e-mail through the server's
 * mail transport. Never throws: every outcome is a DeliveryResult, and no result holds a credential (errors name
 * hosts, never paths, tokens or bodies sent).
 */
import { basename } from "node:path";
import { performance } from "node:perf_hooks";
import type { DeliveryResult } from "../contract/alerts.ts";
import { storableText } from "../contract/common.ts";
import { DEFAULT_SUCCESS_CODES } from "../contract/site.ts";
import { type CheckPolicy, checkHttp } from "../net/http-check.ts";
import type { Outbound } from "./outbound.ts";

/** The part of the mail transport alerts use (server/anon/mail.ts's Mailer is one). */
export interface AlertMailer {
  send(message: {
    to: string;
    subject: string;
    text: string;
    html: string;
    headers?: Record<string, string>;
  }): Promise<{ messageId: string; file?: string }>;
}

export interface DeliveryDeps {
  mailer: AlertMailer;
  /** PORCHLIGHT_ALLOW_PRIVATE_TARGETS: receivers on private, loopback and link-local addresses. */
  allowPrivate: boolean;
  /** A whole delivery's time, at most: an HTTP request's is 10 s or less, an e-mail's 30 s or less. */
  timeoutMs?: number;
  /** Tests: their CA, their resolver. */
  policy?: Pick<CheckPolicy, "extraCa" | "resolve">;
}

/** How much of a receiver's answer is kept. */
const ANSWER_CHARS = 1000;
export const DELIVERY_TIMEOUT_MS = 10_000;
/** An e-mail's: SMTP's own timeouts add up to more (connection, greeting, an idle socket). */
export const MAIL_TIMEOUT_MS = 30_000;

/**
 * An error or answer as stored and shown: text any store can hold (a receiver may answer NUL or binary), and never the
 * address it was sent to beyond its origin (its path or query may be the credential).
 */
function shown(text: string, url?: string): string {
  let out = storableText(text);
  if (url) {
    const { origin, pathname } = new URL(url);
    for (const part of [url, pathname.length > 1 ? pathname : null]) {
      if (part) out = out.split(part).join(part === url ? `${origin}/…` : "/…");
    }
  }
  return out;
}

export async function deliver(outbound: Outbound, deps: DeliveryDeps): Promise<DeliveryResult> {
  const started = performance.now();
  const ms = () => Math.round(performance.now() - started);
  if (outbound.kind === "email") {
    let timer: ReturnType<typeof setTimeout> | undefined;
    try {
      const sent = await Promise.race([
        deps.mailer.send({
          to: outbound.to.join(", "),
          subject: outbound.subject,
          text: outbound.text,
          html: outbound.html,
          headers: outbound.headers,
        }),
        new Promise<never>((_, reject) => {
          const ms = Math.min(deps.timeoutMs ?? MAIL_TIMEOUT_MS, MAIL_TIMEOUT_MS);
          timer = setTimeout(() => reject(new Error(`the mail server did not accept it within ${ms / 1000} s`)), ms);
        }),
      ]);
      // Without SMTP_URL the message is a file in the data directory: said so, not taken for a sent mail.
      // The file's name only: an answer to a client never shows the server's paths.
      const response = sent.file
        ? `written to the server's mail folder as ${basename(sent.file)} (no SMTP_URL is set)`
        : sent.messageId;
      return { ok: true, statusCode: null, error: null, responseTimeMs: ms(), response: shown(response) };
    } catch (error) {
      return {
        ok: false,
        statusCode: null,
        error: shown((error as Error).message),
        responseTimeMs: ms(),
        response: "",
      };
    } finally {
      clearTimeout(timer);
    }
  }
  const result = await checkHttp(
    {
      url: outbound.url,
      method: "POST",
      headers: Object.entries(outbound.headers).map(([name, value]) => ({ name, value })),
      timeoutMs: Math.min(deps.timeoutMs ?? DELIVERY_TIMEOUT_MS, DELIVERY_TIMEOUT_MS),
      successCodes: DEFAULT_SUCCESS_CODES,
      errorCodes: [],
      body: outbound.body,
    },
    {
      allowPrivate: deps.allowPrivate,
      maxRedirects: 0,
      bodyCapBytes: ANSWER_CHARS * 4,
      verifyTls: true,
      ...deps.policy,
    },
  );
  const code = result.statusCode;
  const delivered = result.ok && code !== null && code >= 200 && code < 300;
  return {
    ok: delivered,
    statusCode: code,
    error: delivered ? null : shown(result.error ?? `HTTP ${code}: the receiver did not accept it`, outbound.url),
    responseTimeMs: ms(),
    response: shown(result.body.slice(0, ANSWER_CHARS), outbound.url),
  };
}
