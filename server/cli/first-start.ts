/** The hosts that mean "every address of this machine". */
const EVERY_ADDRESS = new Set(["0.0.0.0", "::"]);

/** The address to reach a server listening on `host`: one listening on every address is reached as localhost. */
export function listeningUrl(host: string, port: number): string {
  if (EVERY_ADDRESS.has(host)) return `http://localhost:${port}`;
  return host.includes(":") ? `http://[${host}]:${port}` : `http://${host}:${port}`;
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

/**
 * The one-time message of a first start, framed in plain characters (`+`, `-`, `|`) so that it stands out among
 * the JSON log lines around it and survives any terminal or log collector. Ends with a newline.
 */
export function firstStartMessage({ ownerEmail, token, setupUrl, host, port }: FirstStart): string {
  const url = listeningUrl(host, port);
  const lines = [
    `Porchlight is listening on ${url}${EVERY_ADDRESS.has(host) ? " (and every other address of this machine)" : ""}.`,
    "",
    `It created the owner account ${ownerEmail} (plan stack). Open this link to choose its dashboard password`,
    "(it works once, within 7 days; `porchlight user link` makes a new one):",
    "",
    `  ${setupUrl}`,
    "",
    "and its first API token, for scripts:",
    "",
    `  ${token}`,
    "",
    "It is shown only this once. Use it as a bearer token, for example:",
    `  curl -H "Authorization: Bearer ${token}" ${url}/public/v1/sites`,
  ];
  const width = Math.max(...lines.map((line) => line.length));
  const rule = `+${"-".repeat(width + 4)}+`;
  const row = (line: string) => `|  ${line.padEnd(width)}  |`;
  return `${["", rule, row(""), ...lines.map(row), row(""), rule].join("\n")}\n`;
}
