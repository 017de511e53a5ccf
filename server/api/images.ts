/**
 * A status page's logo and favicon as uploaded images: what the server accepts (checkImage) and how it serves them
 * (assetPages). An image is stored with the SHA-256 of its bytes and served at /assets/<hash>.<ext>, an address
 * whose bytes never change: browsers and caches keep it for a year, and a new image is a new address.
 *
 * Sanitised, as far as bytes allow without decoding them: a raster image must be what its Content-Type says (its
 * signature read by image-size) and at most MAX_IMAGE_PIXELS wide and tall, so no decompression bomb reaches a
 * visitor; an SVG must be UTF-8 without a DOCTYPE or entities, and it is served with a Content-Security-Policy
 * that forbids script (and, in an <img>, browsers run none anyway).
 */
import { createHash } from "node:crypto";
import { DOMParser } from "@xmldom/xmldom";
import { imageSize } from "image-size";
import type { Clock } from "../clock.ts";
import { IMAGE_TYPES, type ImageExtension, MAX_IMAGE_BYTES, MAX_IMAGE_PIXELS } from "../contract/status-page.ts";
import { ApiError, badRequest, notFound } from "../http/errors.ts";
import { matchesEtag } from "../http/headers.ts";
import { type PageRoute, PageRoutes } from "../http/route.ts";
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

const NS = {
  svg: "http://www.w3.org/2000/svg",
  xlink: "http://www.w3.org/1999/xlink",
  xml: "http://www.w3.org/XML/1998/namespace",
  xmlns: "http://www.w3.org/2000/xmlns/",
};

/**
 * Editors' namespaces (Inkscape, Sodipodi, RDF metadata, Creative Commons, Dublin Core, Adobe Illustrator, Sketch,
 * Affinity): data that browsers never draw or run, which exported logos carry.
 */
const INERT = new Set([
  "http://www.inkscape.org/namespaces/inkscape",
  "http://sodipodi.sourceforge.net/DTD/sodipodi-0.dtd",
  "http://www.w3.org/1999/02/22-rdf-syntax-ns#",
  "http://creativecommons.org/ns#",
  "http://web.resource.org/cc/",
  "http://purl.org/dc/elements/1.1/",
  "http://ns.adobe.com/AdobeIllustrator/10.0/",
  "http://ns.adobe.com/AdobeSVGViewerExtensions/3.0/",
  "http://ns.adobe.com/Extensibility/1.0/",
  "http://ns.adobe.com/Graphs/1.0/",
  "http://ns.adobe.com/SaveForWeb/1.0/",
  "http://ns.adobe.com/Variables/1.0/",
  "http://ns.adobe.com/ImageReplacement/1.0/",
  "http://ns.adobe.com/GenericCustomNamespace/1.0/",
  "http://ns.adobe.com/XPath/1.0/",
  "http://www.bohemiancoding.com/sketch/ns",
  "http://www.serif.com/",
]);

/**
 * The SVG elements a logo may use: shapes, text, paint servers, clipping, masking, filters, styles, grouping and
 * reuse. Not script, foreign content, links, animation (SMIL can set a link) or fonts and cursors by address.
 */
const SVG_ELEMENTS = new Set(
  (
    "svg g defs symbol use title desc metadata switch path rect circle ellipse line polyline polygon text tspan textPath " +
    "linearGradient radialGradient stop pattern clipPath mask marker image style filter feBlend feColorMatrix " +
    "feComponentTransfer feComposite feConvolveMatrix feDiffuseLighting feDisplacementMap feDistantLight feDropShadow " +
    "feFlood feFuncA feFuncB feFuncG feFuncR feGaussianBlur feImage feMerge feMergeNode feMorphology feOffset " +
    "fePointLight feSpecularLighting feSpotLight feTile feTurbulence"
  ).split(" "),
);

/** A link a logo may hold: to a part of itself, or an embedded raster image (as exporters write image fills). */
const LOCAL_HREF = /^\s*(?:#|data:image\/(?:png|jpeg|gif|webp);base64,[\sA-Za-z0-9+/=]*$)/;

/**
 * Why a style (an element's text or a style attribute) could load or run anything, or null: url() only to a part of
 * the file (url(#id)), no @import or image-set(), and no CSS escapes (which could spell either).
 */
function styleProblem(css: string): string | null {
  if (css.includes("\\")) return "a style with an escape (\\)";
  if (/@import|image-set|expression\s*\(|-moz-binding|behavior\s*:/i.test(css))
    return "a style that loads or runs something";
  for (const match of css.matchAll(/url\s*\(\s*["']?\s*(.)/gi)) {
    if (match[1] !== "#") return "a style that loads an address (url() may only name a part of the file, url(#id))";
  }
  return null;
}

/** Why an attribute is not allowed, or null. */
function attributeProblem(attr: Attr): string | null {
  const ns = attr.namespaceURI;
  const name = attr.localName;
  if (ns === NS.xmlns || (ns === null && attr.name === "xmlns")) {
    const declared = attr.value;
    return declared === NS.svg || declared === NS.xlink || declared === NS.xml || INERT.has(declared)
      ? null
      : `a namespace other than SVG's and its editors' (${declared.slice(0, 100)})`;
  }
  if (ns !== null && INERT.has(ns)) return null;
  if (ns === NS.xml) return name === "lang" || name === "space" ? null : `the attribute xml:${name}`;
  if (ns === NS.xlink && name !== "href") return name === "title" ? null : `the attribute xlink:${name}`;
  if (ns !== null && ns !== NS.xlink) return `an attribute in another namespace (${attr.name})`;
  if (/^on/i.test(name)) return `an event handler attribute (${attr.name})`;
  if (name === "href" && !LOCAL_HREF.test(attr.value)) {
    return "a link to anything but a part of itself or an embedded image (href must start with # or data:image/…)";
  }
  if (name === "style") return styleProblem(attr.value);
  return null;
}

/** Why an element (and what it holds) is not allowed, or null; walks the tree without recursion. */
function treeProblem(root: Element): string | null {
  const stack: Node[] = [root];
  while (stack.length > 0) {
    const node = stack.pop() as Node;
    if (node.nodeType === 7) return "a processing instruction (a style sheet)";
    if (node.nodeType !== 1) continue;
    const element = node as Element;
    const ns = element.namespaceURI;
    if (ns === NS.svg) {
      if (!SVG_ELEMENTS.has(element.localName)) return `the element <${element.localName}>`;
      if (element.localName === "style") {
        const problem = styleProblem(element.textContent ?? "");
        if (problem) return problem;
      }
    } else if (ns === null || !INERT.has(ns)) {
      return `an element outside SVG (<${element.tagName}>)`;
    }
    for (const attr of Array.from(element.attributes)) {
      const problem = attributeProblem(attr);
      if (problem) return problem;
    }
    for (const child of Array.from(element.childNodes)) stack.push(child);
  }
  return null;
}

/**
 * An SVG's own checks, read as a browser reads the file (parsed as XML, namespaces resolved, character references
 * replaced): UTF-8 (declared or not), no DOCTYPE (so no entities), no processing instruction, an <svg> root, and
 * only what SVG_ELEMENTS, attributeProblem and styleProblem allow. Refused, not cleaned: an owner's logo needs none
 * of what they refuse, and the refusal says what to remove. The static build copies the file to a host that sends no
 * Content-Security-Policy, so the file itself must be harmless when opened on its own.
 */
function checkSvg(bytes: Uint8Array): void {
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true, ignoreBOM: false }).decode(bytes);
  } catch {
    throw refused("an SVG must be UTF-8 text");
  }
  // XML 1.0 allows no other control characters; an escape sequence could change what another encoding reads.
  const control = (ch: string) => (ch < " " && ch !== "\t" && ch !== "\n" && ch !== "\r") || ch === "\u007f";
  if ([...text].some(control)) throw refused("an SVG may not have control characters");
  const encoding = /^\s*<\?xml[^>]*?\bencoding\s*=\s*["']([^"']*)["']/.exec(text)?.[1];
  if (encoding !== undefined && !/^utf-?8$/i.test(encoding)) throw refused("an SVG must declare UTF-8 or no encoding");
  if (/<!(?:DOCTYPE|ENTITY)/i.test(text)) throw refused("an SVG may not have a DOCTYPE or entities");
  // Before the root too, where the walk below does not look: only the XML declaration itself.
  if (/<\?(?!xml[\s?])/i.test(text)) throw refused("an SVG may not have a processing instruction (a style sheet)");
  let root: Element | null;
  try {
    const parser = new DOMParser({
      onError: (level, message) => {
        if (level !== "warning") throw new Error(message);
      },
    });
    root = parser.parseFromString(text, "image/svg+xml").documentElement as unknown as Element | null;
  } catch {
    throw refused("an SVG must be well-formed XML");
  }
  if (!root || root.namespaceURI !== NS.svg || root.localName !== "svg") {
    throw refused("an SVG's root must be <svg> in the SVG namespace");
  }
  const problem = treeProblem(root);
  if (problem) throw refused(`an SVG may not have ${problem}`);
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
export function assetPages(store: Store, cache: ImageCache): PageRoute[] {
  const pages = new PageRoutes();
  pages.get("/assets/:file", async (c) => {
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
  return pages.routes;
}
