import { randomBytes } from "node:crypto";
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import nodemailer from "nodemailer";
import type { Logger } from "../log.ts";

/** One e-mail as the anonymous-report feature writes it: both parts are always sent. */
export interface MailMessage {
  /** A bare address (`ada@example.com`). */
  to: string;
  subject: string;
  text: string;
  html: string;
  headers?: Record<string, string>;
  /** The sender's display name for this message (a status page's name), before PORCHLIGHT_MAIL_FROM's address. */
  fromName?: string;
}

export interface SentMail {
  messageId: string;
  /** The .eml path in file mode. */
  file?: string;
}

/**
 * Sends mail through SMTP, or writes it as .eml files when no SMTP server is configured.
 *
 * `send` resolves once the server accepted the message (or the file is written) and rejects with a MailSendError
 * otherwise. `close` ends the SMTP connection, if any.
 */
export interface Mailer {
  send(message: MailMessage): Promise<SentMail>;
  close(): void;
  readonly mode: "smtp" | "file";
}

/**
 * A send that failed. The message says what failed, with the SMTP reply when there is one; it never holds the SMTP
 * password or the recipient's full address, so it may be logged and shown as is.
 */
export class MailSendError extends Error {
  override name = "MailSendError";
  /** Nodemailer's code (`EENVELOPE`, `EAUTH`, `ECONNECTION`, `ETIMEDOUT`...) or the file system's (`EACCES`). */
  readonly code: string | undefined;
  /** The SMTP reply code, e.g. 550. */
  readonly responseCode: number | undefined;
  /** True for a 5xx reply: sending the same message again will fail again. */
  readonly permanent: boolean;

  constructor(message: string, details: { code?: string; responseCode?: number } = {}) {
    super(message);
    this.code = details.code;
    this.responseCode = details.responseCode;
    this.permanent = details.responseCode !== undefined && details.responseCode >= 500 && details.responseCode < 600;
  }
}

// A dead or stalled server must fail the job, not hang it: nodemailer's own defaults are minutes long.
/**
 * SMTP connections one mailer keeps open at once (nodemailer's pool). A process that sends has two mailers: one for
 * owners' alerts, sign-in links and reports, one for subscribers' notices and confirmations (cli/engine.ts).
 */
export const SMTP_POOL_CONNECTIONS = 5;
export const SMTP_CONNECTION_TIMEOUT_MS = 10_000;
export const SMTP_GREETING_TIMEOUT_MS = 10_000;
export const SMTP_SOCKET_TIMEOUT_MS = 30_000;

/**
 * Builds the mailer Porchlight uses for the anonymous report e-mails.
 *
 * - `smtpUrl` (`smtp://` or `smtps://`, optionally `user:password@`): messages go to that server, with connection,
 *   greeting and socket timeouts of 10 s, 10 s and 30 s. Query parameters of the URL are nodemailer options and
 *   take precedence (`?socketTimeout=60000`).
 * - no `smtpUrl`: each message is rendered as it would be sent and written to `<dataDir>/mail/<time>-<random>.eml`
 *   (readable by the owner only: it holds an address), so a local `npm start` needs no mail server.
 *
 * Log lines name the recipient's domain only, never the full address, and never the SMTP credentials.
 *
 * @example
 * const mailer = createMailer({ smtpUrl: config.smtpUrl, from: config.mailFrom, dataDir: config.dataDir, logger });
 * await mailer.send({ to: "ada@example.com", ...confirmationEmail({ domain, confirmUrl, expiresHours: 24 }) });
 */
export function createMailer(options: {
  smtpUrl?: string;
  from: string;
  dataDir: string;
  logger: Logger;
  /** Overrides of the SMTP timeouts, for tests; production uses the defaults above. */
  timeouts?: SmtpTimeouts;
}): Mailer {
  return options.smtpUrl ? smtpMailer({ ...options, smtpUrl: options.smtpUrl }) : fileMailer(options);
}

export interface SmtpTimeouts {
  /** Until the TCP (and, for smtps, TLS) connection is up. */
  connectionMs?: number;
  /** From connecting until the server's 220 greeting. */
  greetingMs?: number;
  /** Longest silence of the server once connected. */
  socketMs?: number;
}

function smtpMailer(options: { smtpUrl: string; from: string; logger: Logger; timeouts?: SmtpTimeouts }): Mailer {
  const { smtpUrl, from, logger, timeouts = {} } = options;
  const secrets = urlSecrets(smtpUrl);
  const server = describeServer(smtpUrl);
  const transport = nodemailer.createTransport({
    url: smtpUrl,
    // A few connections kept open and reused: a fan-out to many subscribers sends over them, not a connection (and
    // a TLS handshake) per message.
    pool: true,
    maxConnections: SMTP_POOL_CONNECTIONS,
    maxMessages: Number.POSITIVE_INFINITY,
    connectionTimeout: timeouts.connectionMs ?? SMTP_CONNECTION_TIMEOUT_MS,
    greetingTimeout: timeouts.greetingMs ?? SMTP_GREETING_TIMEOUT_MS,
    socketTimeout: timeouts.socketMs ?? SMTP_SOCKET_TIMEOUT_MS,
    // Nodemailer's transcript log would carry AUTH exchanges and addresses.
    logger: false,
    debug: false,
  });
  return {
    mode: "smtp",
    async send(message) {
      const toDomain = domainOf(message.to);
      try {
        const info = await transport.sendMail({ from: fromOf(from, message.fromName), ...content(message) });
        logger.info(
          { mail: "smtp", server, toDomain, subject: message.subject, messageId: info.messageId },
          "mail sent",
        );
        return { messageId: info.messageId };
      } catch (cause) {
        const error = smtpError(cause, server, secrets, addressForms(message.to));
        logger.warn(
          {
            mail: "smtp",
            server,
            toDomain,
            subject: message.subject,
            code: error.code,
            responseCode: error.responseCode,
          },
          error.message,
        );
        throw error;
      }
    },
    close() {
      transport.close();
    },
  };
}

function fileMailer(options: { from: string; dataDir: string; logger: Logger }): Mailer {
  const { from, logger } = options;
  const dir = join(options.dataDir, "mail");
  // Renders exactly what SMTP would receive, so the file is the message a recipient would get.
  const transport = nodemailer.createTransport({ streamTransport: true, buffer: true, newline: "windows" });
  return {
    mode: "file",
    async send(message) {
      const toDomain = domainOf(message.to);
      let file: string | undefined;
      try {
        const info = await transport.sendMail({ from: fromOf(from, message.fromName), ...content(message) });
        await mkdir(dir, { recursive: true, mode: 0o700 });
        file = join(dir, `${new Date().toISOString().replace(/[:.]/g, "-")}-${randomBytes(6).toString("hex")}.eml`);
        // "wx": two sends never share a file; 0600: the file holds a personal address.
        await writeFile(file, info.message as Buffer, { flag: "wx", mode: 0o600 });
        logger.info(
          { mail: "file", file, toDomain, subject: message.subject, messageId: info.messageId },
          "mail written",
        );
        return { messageId: info.messageId, file };
      } catch (cause) {
        const code = codeOf(cause);
        const error = new MailSendError(
          `Could not write mail to ${file ?? dir}: ${redact(messageOf(cause), [], addressForms(message.to))}`,
          code ? { code } : {},
        );
        logger.warn({ mail: "file", toDomain, subject: message.subject, code }, error.message);
        throw error;
      }
    },
    close() {
      transport.close();
    },
  };
}

/**
 * The From of a message: the configured one, or its address under the message's own name ("Acme Status
 * <status@example.com>"); nodemailer quotes and encodes the name, so no name can add a header.
 */
function fromOf(from: string, name: string | undefined): string | { name: string; address: string } {
  const flat = name?.replace(/[\r\n\t]+/g, " ").trim();
  if (!flat) return from;
  return { name: flat.slice(0, 100), address: /<([^<>]+)>\s*$/.exec(from)?.[1] ?? from.trim() };
}

/** Nodemailer's message: a Message-ID among the headers (a subscriber notice's, for threading) is its messageId. */
function content(message: MailMessage) {
  const { "Message-ID": messageId, ...headers } = message.headers ?? {};
  return {
    to: message.to,
    subject: message.subject,
    text: message.text,
    html: message.html,
    headers,
    ...(messageId ? { messageId } : {}),
  };
}

function smtpError(cause: unknown, server: string, secrets: string[], addresses: string[]): MailSendError {
  const code = codeOf(cause);
  const responseCode = numberProperty(cause, "responseCode");
  const command = stringProperty(cause, "command");
  // Nodemailer's message already ends with the server's reply ("...: 550 5.1.1 Mailbox unavailable").
  const what = command && command !== "API" && command !== "CONN" ? ` (${command})` : "";
  const message = `SMTP send via ${server} failed${code ? ` [${code}]` : ""}${what}: ${messageOf(cause)}`;
  return new MailSendError(redact(message, secrets, addresses), {
    ...(code ? { code } : {}),
    ...(responseCode !== undefined ? { responseCode } : {}),
  });
}

/** `host:port`, which is all a log line or an error may say about the server. */
function describeServer(smtpUrl: string): string {
  try {
    const url = new URL(smtpUrl);
    return `${url.hostname}:${url.port || (url.protocol === "smtps:" ? "465" : "587")}`;
  } catch {
    return "the SMTP server";
  }
}

/** The URL's password as written and as decoded (nodemailer decodes it), and the URL itself. */
function urlSecrets(smtpUrl: string): string[] {
  const found = [smtpUrl];
  try {
    const { password } = new URL(smtpUrl);
    if (password) found.push(password, safeDecode(password));
  } catch {
    // An unparsable URL is still masked as a whole above.
  }
  return found;
}

/** The recipient's address in the spellings a server reply may quote it in. */
function addressForms(to: string): string[] {
  const address = to.trim();
  return address.includes("@") ? [address, address.toLowerCase()] : [];
}

/** Masks secrets as `***` and addresses as `***@domain`, whatever else the text holds. */
function redact(text: string, secrets: string[], addresses: string[]): string {
  let out = text;
  // Longest first, so a password inside the URL does not leave the rest of the URL behind.
  for (const secret of [...new Set(secrets)].filter(Boolean).sort((a, b) => b.length - a.length)) {
    out = out.split(secret).join("***");
  }
  for (const address of addresses) out = out.split(address).join(`***@${domainOf(address)}`);
  return out;
}

/** The domain part of an address, lowercased: what logs may say about a recipient. */
function domainOf(address: string): string {
  const at = address.lastIndexOf("@");
  if (at < 0) return "(no domain)";
  return address
    .slice(at + 1)
    .replace(/[>\s]+$/, "")
    .toLowerCase();
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

function messageOf(cause: unknown): string {
  return cause instanceof Error ? cause.message : String(cause);
}

function codeOf(cause: unknown): string | undefined {
  return stringProperty(cause, "code");
}

function stringProperty(value: unknown, key: string): string | undefined {
  const found = typeof value === "object" && value !== null ? (value as Record<string, unknown>)[key] : undefined;
  return typeof found === "string" ? found : undefined;
}

function numberProperty(value: unknown, key: string): number | undefined {
  const found = typeof value === "object" && value !== null ? (value as Record<string, unknown>)[key] : undefined;
  return typeof found === "number" ? found : undefined;
}
