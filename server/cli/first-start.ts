/** The hosts that mean "every address of this machine". */
const EVERY_ADDRESS = new Set(["0.0.0.0", "::"]);

/** The address to reach a server listening on `host`: one listening on every address is reached as localhost. */
export function listeningUrl(host: string, port: number): string {
  if (EVERY_ADDRESS.has(host)) return `http://localhost:${port}`;
  return host.includes(":") ? `http://[${host}]:${port}` : `http://${host}:${port}`;
}

/**
 * The line every start logs for a person: where the dashboard, the hosted status pages and the documentation are,
 * under `base` (the server's public address).
 */
export function startLine(base: string): string {
  return `Porchlight is running: dashboard ${base}/dashboard/, status pages ${base}/<slug>, docs ${base}/docs/`;
}

export interface FirstStart {
  ownerEmail: string;
  token: string;
  /** The one-time link to the dashboard's first password. */
  setupUrl: string;
  /** The HOST the server listens on, and its port. */
  host: string;
  port: number;
}

/** The terminal width the first-start message fits: its frame and every line of words. */
export const MESSAGE_COLUMNS = 80;

/** `text` broken at spaces into lines of at most `width` characters (a longer word keeps a line of its own). */
function wrap(text: string, width: number): string[] {
  const lines: string[] = [];
  let line = "";
  for (const word of text.split(" ")) {
    if (line !== "" && line.length + 1 + word.length > width) {
      lines.push(line);
      line = word;
    } else {
      line = line === "" ? word : `${line} ${word}`;
    }
  }
  return [...lines, line];
}

/**
 * The one-time message of a first start, between two rules of plain characters (`+`, `-`) so that it stands out
 * among the log lines around it and survives any terminal or log collector; it fits MESSAGE_COLUMNS. The words are
 * wrapped to fit; the link, the token and the curl example each start a line of their own, outside any frame, so
 * that a triple click or a drag copies them whole however long the server's address makes them. Ends with a newline.
 */
export function firstStartMessage({ ownerEmail, token, setupUrl, host, port }: FirstStart): string {
  const url = listeningUrl(host, port);
  const words = (text: string) => wrap(text, MESSAGE_COLUMNS);
  const rule = `+${"-".repeat(MESSAGE_COLUMNS - 2)}+`;
  const lines = [
    "",
    rule,
    ...words(
      `Porchlight is listening on ${url}${EVERY_ADDRESS.has(host) ? " (and every other address of this machine)" : ""}.`,
    ),
    "",
    ...words(
      `It created the owner account ${ownerEmail} (plan stack). Open this link to choose its dashboard password (it works once, within 7 days; \`porchlight user link\` makes a new one):`,
    ),
    "",
    setupUrl,
    "",
    ...words("and its first API token, for scripts:"),
    "",
    token,
    "",
    ...words("It is shown only this once. Use it as a bearer token, for example:"),
    "",
    // Broken after the header, so that a token of today's length keeps the command within the columns.
    `curl -H "Authorization: Bearer ${token}" \\`,
    `  ${url}/public/v1/sites`,
    rule,
  ];
  return `${lines.join("\n")}\n`;
}
