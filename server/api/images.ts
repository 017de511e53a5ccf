/**
 * A status page's logo and favicon as uploaded images: what the server accepts (checkImage) and how it serves them
 * (assetRoutes). An image is stored with the SHA-256 of its bytes and served at /assets/<hash>.<ext>, an address
 * whose bytes never change: browsers and caches keep it for a year, and a new image is a new address.
 *
 * Sanitised, as far as bytes allow without decoding them: a raster image must be what its Content-Type says (its
 * signature read by image-size) and at most MAX_IMAGE_PIXELS wide and tall, so no decompression bomb reaches a
 * visitor; an SVG must be UTF-8 without a DOCTYPE or entities, and it is served with a Content-Security-Policy
 * that forbids script (and, in an <img>, browsers run none anyway).
 */
import { createHash } from "node:crypto";
import { imageSize } from "image-size";
import type { Clock } from "../clock.ts";
import { IMAGE_TYPES, type ImageExtension, MAX_IMAGE_BYTES, MAX_IMAGE_PIXELS } from "../contract/status-page.ts";
import { ApiError, badRequest, notFound } from "../http/errors.ts";
import { matchesEtag } from "../http/headers.ts";
import type { App } from "../http/route.ts";
import type { Store } from "../store/store.ts";
import { ReadModel } from "../views/read-model.ts";

/** The media types an upload may declare, by the extension it is stored with (image/jpg and ICO's other name too). */
const DECLARED = new Map<string, ImageExtension>([
  ...Object.entries(IMAGE_TYPES).map(([ext, type]) => [type, ext as ImageExtension] as const),
  ["image/jpg", "jpg"],
  ["image/vnd.microsoft.icon", "ico"],
]);

/** What image-size calls each type it detects, for the types a page may use. */
const DETECTED = new Map<string, ImageExtension>(
  (["png", "jpg", "gif", "webp", "svg", "ico"] as const).map((ext) => [ext, ext]),
);

const NAMES: Record<ImageExtension, string> = {
  png: "PNG",
  jpg: "JPEG",
  gif: "GIF",
  webp: "WebP",
  svg: "SVG",
  ico: "ICO",
};
const ACCEPTED = Object.values(NAMES).join(", ");

/** An upload that passed: its bytes, its type and where it is served. */
export interface CheckedImage {
  bytes: Uint8Array;
  hash: string;
  contentType: string;
  path: string;
}

/** An image body's problem, as a field detail of the body. */
const refused = (message: string) => badRequest(`Invalid image: ${message}`, [{ field: "(body)", message }]);

/** XML's character references and predefined entities, replaced by what they stand for (a DOCTYPE is refused first). */
function unescapeXml(text: string): string {
  const char = (code: number) => String.fromCodePoint(Math.min(code, 0x10ffff));
  const named: Record<string, string> = { lt: "<", gt: ">", amp: "&", quot: '"', apos: "'" };
  return text.replace(/&(?:#x([0-9a-f]+)|#(\d+)|(lt|gt|amp|quot|apos));?/gi, (all, hex, dec, name) =>
    hex
      ? char(Number.parseInt(hex.slice(0, 8), 16))
      : dec
        ? char(Number(dec.slice(0, 8)))
        : (named[name.toLowerCase()] ?? all),
  );
}

/**
 * What an SVG may not hold, read after its character references are replaced: anything that runs script (script
 * elements, event attributes, a link or an animation to a javascript: address), foreign content (HTML inside it), and
 * anything that loads what is outside it (a link, an image, a style sheet or font by address). Refused, not cleaned:
 * an owner's logo needs none of these, and a refusal says what to remove. The static build copies the file to a host
 * that sends no Content-Security-Policy, so the file itself must be harmless.
 */
const SVG_RULES: [RegExp, string][] = [
  [
    /<\s*(?:[\w.-]+:)?(?:script|foreignobject|iframe|embed|object|handler|listener|audio|video)\b/i,
    "script or foreign content",
  ],
  [/[\s"'/](?:[\w.-]+:)?on[a-z]+\s*=/i, "an event handler attribute (on…)"],
  [/href\s*=\s*["']\s*(?!#)/i, "a link to anything but a part of itself (href must start with #)"],
  [/attributename\s*=\s*["']\s*(?:[\w.-]+:)?href/i, "an animation of a link"],
  [/url\s*\(\s*["']?\s*(?!#)/i, "a style that loads an address (url() must name a part of itself with #)"],
  [/@import/i, "a style sheet import"],
];

/** An SVG's own checks: UTF-8 text, no DOCTYPE (so no entities), no processing instruction but <?xml …?>, SVG_RULES. */
function checkSvg(bytes: Uint8Array): void {
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    throw refused("an SVG must be UTF-8 text");
  }
  if (/<!(?:DOCTYPE|ENTITY)/i.test(text)) throw refused("an SVG may not have a DOCTYPE or entities");
  if (/<\?(?!xml[\s?])/i.test(text)) throw refused("an SVG may not have processing instructions (a style sheet)");
  const plain = unescapeXml(text);
  for (const [rule, what] of SVG_RULES) {
    if (rule.test(plain)) throw refused(`an SVG may not have ${what}`);
  }
}

/**
 * The largest frame a GIF draws, by its frames' image descriptors: a browser grows the canvas to a frame larger than
 * the size the header gives, which is all image-size reads. Blocks are walked as decoders walk them, up to the first
 * they do not know.
 */
function gifExtent(b: Uint8Array): { width: number; height: number } {
  const u16 = (at: number) => (b[at] ?? 0) | ((b[at + 1] ?? 0) << 8);
  let width = u16(6);
  let height = u16(8);
  const table = (flags: number) => (flags & 0x80 ? 3 * 2 ** ((flags & 7) + 1) : 0);
  const skipSubBlocks = (at: number) => {
    let i = at;
    while (i < b.length && b[i] !== 0) i += (b[i] ?? 0) + 1;
    return i + 1;
  };
  let i = 13 + table(b[10] ?? 0);
  while (i < b.length) {
    const block = b[i];
    if (block === 0x21) i = skipSubBlocks(i + 2);
    else if (block === 0x2c) {
      width = Math.max(width, u16(i + 1) + u16(i + 5));
      height = Math.max(height, u16(i + 3) + u16(i + 7));
      i = skipSubBlocks(i + 11 + table(b[i + 9] ?? 0));
    } else break;
  }
  return { width, height };
}

/**
 * The largest image an ICO holds, by its images' own headers: its directory (all image-size reads) says at most 256,
 * but an embedded PNG or bitmap says what it decodes to.
 */
function icoExtent(b: Uint8Array): { width: number; height: number } {
  const view = new DataView(b.buffer, b.byteOffset, b.byteLength);
  const u32 = (at: number, little: boolean) => (at + 4 <= b.length ? view.getUint32(at, little) : 0);
  let width = 0;
  let height = 0;
  const count = b.length >= 6 ? view.getUint16(4, true) : 0;
  for (let n = 0; n < count && 6 + 16 * n + 16 <= b.length; n++) {
    const offset = u32(6 + 16 * n + 12, true);
    const png = b[offset] === 0x89 && b[offset + 1] === 0x50 && b[offset + 2] === 0x4e && b[offset + 3] === 0x47;
    // A PNG's IHDR (big-endian), else a BITMAPINFOHEADER (little-endian; its height counts the mask too).
    const w = png ? u32(offset + 16, false) : Math.abs(view.getInt32(Math.min(offset + 4, b.length - 4), true));
    const h = png ? u32(offset + 20, false) : Math.abs(view.getInt32(Math.min(offset + 8, b.length - 4), true)) / 2;
    width = Math.max(width, w);
    height = Math.max(height, h);
  }
  return { width, height };
}

/**
 * Checks an upload: the declared type (415 when it is not an image type a page may use), then its bytes against it
 * (400). The size limit is the body limit's (bodyLimitOf), answered 413 before this reads anything.
 */
export function checkImage(contentType: string | undefined, bytes: Uint8Array): CheckedImage {
  const declared = DECLARED.get((contentType ?? "").split(";")[0]?.trim().toLowerCase() ?? "");
  if (!declared) {
    throw new ApiError(
      415,
      "unsupported_media_type",
      `Content-Type must be an image type: ${Object.values(IMAGE_TYPES).join(", ")}`,
    );
  }
  if (bytes.length === 0) throw refused("the body is empty; send the image's bytes");
  if (bytes.length > MAX_IMAGE_BYTES) throw refused(`an image may have at most ${MAX_IMAGE_BYTES} bytes`);
  let size: ReturnType<typeof imageSize> | undefined;
  try {
    size = imageSize(bytes);
  } catch {
    size = undefined;
  }
  const detected = size && DETECTED.get(size.type ?? "");
  if (!size || !detected) {
    throw refused(
      `the body is not an image of a type a page may use (${ACCEPTED}; an SVG needs width and height or a viewBox)`,
    );
  }
  if (detected !== declared) {
    throw refused(`Content-Type says ${NAMES[declared]}, but the body is a ${NAMES[detected]} image`);
  }
  if (detected === "svg") checkSvg(bytes);
  else {
    const extent = detected === "gif" ? gifExtent(bytes) : detected === "ico" ? icoExtent(bytes) : size;
    const width = Math.max(size.width ?? 0, extent.width ?? 0);
    const height = Math.max(size.height ?? 0, extent.height ?? 0);
    if (!width || !height || width > MAX_IMAGE_PIXELS || height > MAX_IMAGE_PIXELS) {
      throw refused(
        `an image may be at most ${MAX_IMAGE_PIXELS} x ${MAX_IMAGE_PIXELS} pixels; this one is ${width} x ${height}`,
      );
    }
  }
  const hash = createHash("sha256").update(bytes).digest("hex");
  return { bytes, hash, contentType: IMAGE_TYPES[detected], path: `/assets/${hash}.${detected}` };
}

/** An uploaded image as the store holds it. */
type StoredImage = { content_type: string; bytes: Uint8Array };

/**
 * The images served recently, by hash, for a view's time to live (PORCHLIGHT_VIEW_TTL_SECONDS), so that a page's
 * visitors in an outage cost no query each: dropped at once on any change in this process (app.ts), and within that
 * time on another's.
 */
export class ImageCache extends ReadModel<StoredImage> {
  constructor(clock: Clock, ttlMs: number) {
    super(clock, ttlMs, 32);
  }
}

/**
 * Serves uploaded images at /assets/<hash>.<ext>, to anyone: an address is the hash of the bytes, so only a page's
 * readers learn it. A protected page's logo is as protected as its address. Browsers keep an image for a year; the
 * server, for a view's time to live (ImageCache).
 */
export function assetRoutes(app: App, store: Store, cache: ImageCache): void {
  app.get("/assets/:file", async (c) => {
    const match = /^([0-9a-f]{64})\.(png|jpg|gif|webp|svg|ico)$/.exec(c.req.param("file"));
    const hash = match?.[1] ?? "";
    const ext = match?.[2] as ImageExtension | undefined;
    const image = ext ? await cache.get(hash, async () => (await store.pages.image(hash)) ?? null) : null;
    if (!image || !ext || image.content_type !== IMAGE_TYPES[ext]) throw notFound("Image");
    const etag = `"${hash}"`;
    const headers = {
      "content-type": image.content_type,
      "cache-control": "public, max-age=31536000, immutable",
      etag,
      "x-content-type-options": "nosniff",
      // An SVG opened on its own is a document: it may draw, never run script, load anything or submit a form.
      "content-security-policy": "default-src 'none'; style-src 'unsafe-inline'; sandbox",
      // Custom domains and static hosts show it from another origin.
      "cross-origin-resource-policy": "cross-origin",
    };
    if (matchesEtag(c.req.header("if-none-match"), etag)) return c.body(null, 304, headers);
    return c.body(image.bytes as Uint8Array<ArrayBuffer>, 200, headers);
  });
}
