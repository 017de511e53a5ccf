import { brotliCompressSync, constants, gzipSync } from "node:zlib";

/**
 * Content codings, for every answer the server keeps as bytes: which one a request accepts (negotiateEncoding),
 * and each body's compressed forms, made on first use and kept with the body (Encodings), never per request.
 */

export type Encoding = "br" | "gzip" | "identity";

/**
 * How hard to compress. `max`: bytes made once per process and downloaded by every visitor (the element's
 * scripts): brotli 11 and gzip 9, tens of milliseconds each. `fast`: read models rebuilt as often as the page's
 * data moves (views, hosted pages, feeds): brotli 8 and gzip 6, a few milliseconds for a 10-item page's 140 KB of
 * HTML (brotli 5 takes one but sends 6% more; brotli 11 takes 180 ms for a fifth less).
 */
export type Effort = "max" | "fast";

const LEVELS: Record<Effort, { br: number; gzip: number }> = { max: { br: 11, gzip: 9 }, fast: { br: 8, gzip: 6 } };

/** What an Accept-Encoding header is read up to: longer ones are a client's mistake or an attack. */
const MAX_ACCEPT_ENCODING = 1024;

/**
 * The coding to send: br when the client accepts it at least as much as gzip (br is about a tenth smaller), else
 * gzip, else the plain bytes. q-values are honoured (`q=0` refuses a coding), `*` stands for any coding not
 * named, and `x-gzip` is gzip. An answer chosen this way carries `Vary: Accept-Encoding`.
 */
export function negotiateEncoding(acceptEncoding: string | undefined): Encoding {
  if (!acceptEncoding) return "identity";
  const weights = new Map<string, number>();
  for (const part of acceptEncoding.slice(0, MAX_ACCEPT_ENCODING).split(",")) {
    const [coding = "", ...parameters] = part.split(";").map((s) => s.trim().toLowerCase());
    if (!coding) continue;
    const q = parameters.find((p) => p.startsWith("q="));
    const weight = q === undefined ? 1 : Number(q.slice(2));
    weights.set(coding === "x-gzip" ? "gzip" : coding, Number.isFinite(weight) ? weight : 0);
  }
  const any = weights.get("*") ?? 0;
  const br = weights.get("br") ?? any;
  const gzip = weights.get("gzip") ?? any;
  if (br > 0 && br >= gzip) return "br";
  if (gzip > 0) return "gzip";
  return "identity";
}

/** The bytes in a coding, compressed at an effort. */
export function compress(
  bytes: Uint8Array,
  encoding: Exclude<Encoding, "identity">,
  effort: Effort,
): Uint8Array<ArrayBuffer> {
  const level = LEVELS[effort];
  const out =
    encoding === "br"
      ? brotliCompressSync(bytes, {
          params: {
            [constants.BROTLI_PARAM_QUALITY]: level.br,
            [constants.BROTLI_PARAM_SIZE_HINT]: bytes.byteLength,
          },
        })
      : gzipSync(bytes, { level: level.gzip });
  return new Uint8Array(out.buffer, out.byteOffset, out.byteLength) as Uint8Array<ArrayBuffer>;
}

/**
 * One body and its compressed forms: each coding is made the first time a request asks for it and then kept, as
 * long as the body is (a view's build, an element file for the process's life).
 */
export class Encodings {
  private readonly bodies: Partial<Record<Encoding, Uint8Array<ArrayBuffer>>>;

  constructor(
    readonly identity: Uint8Array<ArrayBuffer>,
    private readonly effort: Effort,
  ) {
    this.bodies = { identity };
  }

  get(encoding: Encoding): Uint8Array<ArrayBuffer> {
    let body = this.bodies[encoding];
    if (body === undefined) {
      body = compress(this.identity, encoding as Exclude<Encoding, "identity">, this.effort);
      this.bodies[encoding] = body;
    }
    return body;
  }
}

/**
 * What one answer kept as bytes sends for each coding: its body and its headers (the shared ones, then
 * Content-Encoding and Content-Length), as an object and as node's flat list. Made once per coding, on first use.
 */
export interface Encoded {
  bytes: Uint8Array<ArrayBuffer>;
  headers: Record<string, string>;
  rawHeaders: string[];
}

export class EncodedAnswer {
  private readonly answers: Partial<Record<Encoding, Encoded>> = {};

  /**
   * `headers` go on every answer (304 included); `extra` only in the flat list, for a 200 answered straight from
   * node:http (on the other path the app's middleware adds them: CORS). Answers with other headers may share one
   * `body`, and so its compressed forms.
   */
  constructor(
    readonly body: Encodings,
    readonly headers: Record<string, string>,
    private readonly extra: Record<string, string> = {},
  ) {}

  /** The identity bytes. */
  get bytes(): Uint8Array<ArrayBuffer> {
    return this.body.identity;
  }

  encoded(encoding: Encoding): Encoded {
    let answer = this.answers[encoding];
    if (answer === undefined) {
      const bytes = this.body.get(encoding);
      const headers = { ...this.headers };
      if (encoding !== "identity") headers["content-encoding"] = encoding;
      headers["content-length"] = String(bytes.byteLength);
      answer = { bytes, headers, rawHeaders: Object.entries({ ...headers, ...this.extra }).flat() };
      this.answers[encoding] = answer;
    }
    return answer;
  }
}
