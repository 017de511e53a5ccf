import { z } from "zod";

/**
 * What a site is checked with, read from its address's scheme (as Gatus does): `https://shop.example/` is an HTTP
 * check, `tcp://mail.example:587` a TCP connect, `tls://mail.example:465` a TCP connect with a TLS handshake,
 * `dns://example.com` a DNS query, `icmp://host.example` a ping, `push://` a heartbeat the owner's job sends.
 */
export const PROTOCOLS = ["http", "https", "tcp", "tls", "dns", "icmp", "push"] as const;
export const Protocol = z.enum(PROTOCOLS).meta({
  description:
    "Derived from url's scheme: http and https (an HTTP request), tcp (a connect), tls (a connect and a TLS handshake), dns (a query), icmp (ping), push (a heartbeat your job sends)",
});
export type Protocol = z.infer<typeof Protocol>;

/** The checker a protocol runs: one per kind (engine/checkers/). */
export const CHECKER_OF = {
  http: "http",
  https: "http",
  tcp: "tcp",
  tls: "tcp",
  dns: "dns",
  icmp: "icmp",
  push: "push",
} as const satisfies Record<Protocol, string>;
export type CheckerKind = (typeof CHECKER_OF)[Protocol];

/** The protocol of a stored or submitted address; null for a scheme Porchlight does not check. */
export function protocolOf(url: string): Protocol | null {
  const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(url)?.[1]?.toLowerCase();
  return (PROTOCOLS as readonly string[]).includes(scheme ?? "") ? (scheme as Protocol) : null;
}

/** Where a tcp, tls or dns address's port may be; ports 1 to 65535. */
const hasPort = (u: URL) => u.port !== "" && Number(u.port) >= 1 && Number(u.port) <= 65_535;

/**
 * Why an address cannot be checked, in a sentence; null when it can. Each scheme has its own shape: a host for all
 * but push, a port for tcp and tls, no path for tcp, tls, dns and icmp, no credentials anywhere.
 */
export function monitorUrlProblem(value: string): string | null {
  let u: URL;
  try {
    u = new URL(value);
  } catch {
    return "Enter an address such as https://example.com, tcp://mail.example.com:587, dns://example.com, icmp://example.com or push://.";
  }
  const protocol = protocolOf(value);
  if (protocol === null) {
    return "Start the address with http://, https://, tcp://, tls://, dns://, icmp:// or push://.";
  }
  if (u.username !== "" || u.password !== "") {
    return "Remove the user name and password from the URL; send credentials in a header instead.";
  }
  if (protocol === "push") {
    return u.hostname === "" && (u.pathname === "" || u.pathname === "/") && u.search === ""
      ? null
      : "A push site's address is push:// alone: Porchlight gives it its own secret address to call.";
  }
  if (u.hostname === "") return "Enter the host to check after the scheme, such as tcp://mail.example.com:587.";
  if (protocol === "http" || protocol === "https") return null;
  if (u.search !== "" || u.hash !== "" || (u.pathname !== "" && u.pathname !== "/")) {
    return `A ${protocol}:// address is a host${protocol === "tcp" || protocol === "tls" ? " and a port" : ""} only, without a path or query.`;
  }
  if ((protocol === "tcp" || protocol === "tls") && !hasPort(u)) {
    return `Add the port to check, such as ${protocol}://mail.example.com:${protocol === "tls" ? 465 : 587}.`;
  }
  if ((protocol === "dns" || protocol === "icmp") && u.port !== "") {
    return `A ${protocol}:// address has no port${protocol === "dns" ? ": name a resolver in dns.resolver instead" : ""}.`;
  }
  return null;
}

/** The kinds each setting belongs to. */
const SETTING_KINDS = {
  assertions: ["http", "https"],
  request: ["http", "https"],
  dns: ["dns"],
  push: ["push"],
} as const;

/** A setting sent for a site of another kind (assertions for a dns:// site...), named with the reason; else null. */
export function misplacedSetting(
  url: string,
  site: { assertions?: unknown; request?: unknown; dns?: unknown; push?: unknown },
): { field: string; message: string } | null {
  const protocol = protocolOf(url);
  if (protocol === null) return null;
  for (const [field, kinds] of Object.entries(SETTING_KINDS)) {
    if (site[field as keyof typeof SETTING_KINDS] !== undefined && !(kinds as readonly string[]).includes(protocol)) {
      return {
        field,
        message: `Leave ${field} out: it applies to ${kinds.map((k) => `${k}://`).join(" and ")} sites only.`,
      };
    }
  }
  return null;
}

/** The host a non-HTTP address names (brackets of an IPv6 literal removed). */
export function hostOf(url: string): string {
  return new URL(url).hostname.replace(/^\[|\]$/g, "");
}

/** The port of a tcp or tls address. */
export function portOf(url: string): number {
  return Number(new URL(url).port);
}

/**
 * A JSON query on an HTTP answer's body: a small path syntax evaluated by our own code (no expressions, no
 * regular expressions): `$`, then `.name` or `["name"]` or `[index]`, repeated; e.g. `$.status`,
 * `$.checks[0].state`, `$["x-ray"].ok`.
 */
export const JSON_PATH = /^\$(?:\.[A-Za-z_$][\w$-]*|\[\d{1,6}\]|\["(?:[^"\\]|\\.){1,128}"\])*$/;

export const HTTP_ASSERTIONS_LIMITS = { keyword: 256, value: 1024, path: 256 } as const;

/** What an http(s) check asserts of the answer beyond its status code (each is off when null). */
export const HttpAssertions = z
  .strictObject({
    keyword: z
      .strictObject({
        text: z.string().min(1).max(HTTP_ASSERTIONS_LIMITS.keyword),
        absent: z.boolean().default(false).meta({ description: "true: the check fails when the text IS found" }),
        caseSensitive: z.boolean().default(false),
      })
      .nullable()
      .default(null)
      .meta({ description: "Text that must be in the body (the first 256 KiB), or must not be (absent)" }),
    json: z
      .strictObject({
        path: z
          .string()
          .max(HTTP_ASSERTIONS_LIMITS.path)
          .regex(JSON_PATH, 'Write the path as $ followed by .name, ["name"] or [index], such as $.checks[0].status.'),
        equals: z
          .union([z.string().max(HTTP_ASSERTIONS_LIMITS.value), z.number(), z.boolean(), z.null()])
          .optional()
          .meta({ description: "The value expected there; left out, the path only has to exist" }),
      })
      .nullable()
      .default(null)
      .meta({ description: "A value the JSON body must have at a path" }),
    header: z
      .strictObject({
        name: z
          .string()
          .min(1)
          .max(256)
          .regex(
            /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/,
            "Use a header name of letters, digits and - _ . ! # $ % & ' * + ^ ` | ~ only.",
          ),
        contains: z.string().max(HTTP_ASSERTIONS_LIMITS.value).meta({
          description: "Text the header's value must contain (case-insensitive); empty: the header must be there",
        }),
      })
      .nullable()
      .default(null)
      .meta({ description: "A header the answer must carry" }),
  })
  .meta({ id: "HttpAssertions" });
export type HttpAssertions = z.infer<typeof HttpAssertions>;
export const NO_ASSERTIONS: HttpAssertions = { keyword: null, json: null, header: null };

export const HTTP_REQUEST_LIMITS = { body: 16_384, username: 256, password: 1024 } as const;

/**
 * How an http(s) check asks, beyond its method and headers: a request body, basic auth and whether redirects are
 * followed. The basic-auth password is sealed at rest like an alert channel's secrets and never shown again.
 */
export const HttpRequestInput = z
  .strictObject({
    body: z.string().max(HTTP_REQUEST_LIMITS.body).nullable().default(null).meta({
      description: "Sent with every method but GET and HEAD (set a Content-Type header to match); null: none",
    }),
    followRedirects: z.boolean().default(true).meta({
      description:
        "false: a redirect is the answer, judged by its status code like any other (a 301 is up unless listed in errorCodes)",
    }),
    basicAuth: z
      .strictObject({
        username: z
          .string()
          .min(1)
          .max(HTTP_REQUEST_LIMITS.username)
          .regex(/^[^:\r\n\0]*$/, "Remove the colon and line breaks: a basic-auth user name cannot hold them."),
        password: z
          .string()
          .max(HTTP_REQUEST_LIMITS.password)
          .regex(/^[^\r\n\0]*$/, "Remove the line breaks.")
          .optional()
          .meta({ description: "Sealed at rest, never shown again; left out, the stored password is kept" }),
      })
      .nullable()
      .default(null)
      .meta({
        description: "Sent as an Authorization header to the site's own origin only (never on a hop to another one)",
      }),
  })
  .meta({ id: "HttpRequestInput" });
export type HttpRequestInput = z.infer<typeof HttpRequestInput>;

/** An http(s) site's request settings as answers show them: the basic-auth password never, only whether one is set. */
export const HttpRequest = z
  .object({
    body: z.string().nullable(),
    followRedirects: z.boolean(),
    basicAuth: z
      .object({
        username: z.string(),
        passwordSet: z.boolean().meta({ description: "Whether a non-empty password is stored (it is never shown)" }),
      })
      .nullable(),
  })
  .meta({ id: "HttpRequest" });
export type HttpRequest = z.infer<typeof HttpRequest>;

/** An http(s) site's request settings as stored: the password sealed (accounts/sealed.ts). */
export interface StoredHttpRequest {
  body: string | null;
  followRedirects: boolean;
  /** sealedPassword null: an empty password. */
  basicAuth: { username: string; sealedPassword: string | null } | null;
}
export const REQUEST_DEFAULTS: StoredHttpRequest = { body: null, followRedirects: true, basicAuth: null };

export const DNS_RECORD_TYPES = ["A", "AAAA", "CNAME", "MX", "TXT", "NS", "SOA", "CAA"] as const;

/**
 * A resolver written `IP`, `IP:port`, `[v6]` or `[v6]:port`, as its address and port (53 unless named); null when
 * it is not one (an octet over 255, a port outside 1-65535, a host name). The URL parser checks the address, so
 * that the browser's form and the server agree without node:net.
 */
export function resolverParts(resolver: string): { address: string; port: number } | null {
  const m = /^(\d{1,3}(?:\.\d{1,3}){3}|\[[0-9a-fA-F:.]+\])(?::(\d{1,5}))?$/.exec(resolver);
  if (!m) return null;
  const written = m[1] as string;
  let host: string;
  try {
    host = new URL(`http://${written}/`).hostname;
  } catch {
    return null;
  }
  // "010.1.1.1" parses as octal: a different address from the one written.
  if (!written.startsWith("[") && host !== written) return null;
  const port = m[2] === undefined ? 53 : Number(m[2]);
  if (port < 1 || port > 65_535) return null;
  return { address: host.replace(/^\[|\]$/g, ""), port };
}

/** A DNS check's question and what the answer must hold. */
export const DnsSettings = z
  .strictObject({
    recordType: z.enum(DNS_RECORD_TYPES).default("A"),
    resolver: z
      .string()
      .max(64)
      .refine(
        (value) => resolverParts(value) !== null,
        "Name the resolver by its IP address, optionally with a port: 1.1.1.1, 1.1.1.1:53 or [2606:4700:4700::1111]:53.",
      )
      .nullable()
      .default(null)
      .meta({ description: "A resolver's address (IP[:port]); null: the server's system resolver" }),
    expected: z.array(z.string().trim().min(1).max(512)).max(20).default([]).meta({
      description:
        "Values the answer must hold, as the answer shows them (an address, a host name, `10 mx.example.com` for MX, the text of a TXT record); empty: any answer is up",
    }),
    match: z.enum(["contains", "exact"]).default("contains").meta({
      description: "contains: every expected value is in the answer; exact: the answer is exactly those values",
    }),
  })
  .meta({ id: "DnsSettings" });
export type DnsSettings = z.infer<typeof DnsSettings>;
export const DNS_DEFAULTS: DnsSettings = { recordType: "A", resolver: null, expected: [], match: "contains" };

/** How long after the expected call a push site waits before the silence is an outage. */
export const PUSH_GRACE = { min: 0, max: 86_400, default: 60 } as const;

export const PushSettings = z
  .strictObject({
    graceSeconds: z
      .int()
      .min(PUSH_GRACE.min)
      .max(PUSH_GRACE.max)
      .default(PUSH_GRACE.default)
      .meta({
        description: `Seconds of lateness allowed after checkInterval before silence is an outage, ${PUSH_GRACE.min} to ${PUSH_GRACE.max}`,
      }),
  })
  .meta({ id: "PushSettings" });
export type PushSettings = z.infer<typeof PushSettings>;
export const PUSH_DEFAULTS: PushSettings = { graceSeconds: PUSH_GRACE.default };

/** A push site's state as answers show it (never the token: it is shown once, at creation or rotation). */
export const PushState = PushSettings.extend({
  lastCallAt: z
    .string()
    .nullable()
    .meta({ description: "When the job last called (ISO 8601); null before the first call" }),
  tokenHint: z.string().meta({ description: "The token's last 4 characters, to tell tokens apart" }),
}).meta({ id: "PushState" });
export type PushState = z.infer<typeof PushState>;

/** A push call's query: `?status=down&msg=...&ms=...` (all optional; up by default). */
export const PushCall = z.object({
  status: z
    .enum(["up", "down"])
    .default("up")
    .meta({ description: "What the job says: up (the default) or down (an outage at once)" }),
  msg: z
    .string()
    .max(200)
    .optional()
    .meta({ description: "The job's own words, up to 200 characters, shown to the owner" }),
  ms: z.coerce
    .number()
    .int()
    .min(0)
    .max(86_400_000)
    .optional()
    .meta({ description: "How long the job took, in ms: the site's response time" }),
});
export type PushCall = z.infer<typeof PushCall>;

/** The answer to a push call. */
export const PushAck = z.object({ received: z.literal(true), status: z.enum(["up", "down"]) }).meta({ id: "PushAck" });

/** A push site's secret address, shown once. */
export const PushToken = z
  .object({
    pushUrl: z.string().meta({ description: "The address your job calls (GET or POST); shown once, keep it secret" }),
    token: z.string(),
  })
  .meta({ id: "PushToken" });
export type PushToken = z.infer<typeof PushToken>;
