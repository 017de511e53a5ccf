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
import { IMAGE_TYPES, type ImageExtension, MAX_IMAGE_BYTES, MAX_IMAGE_PIXELS } from "../contract/status-page.ts";
import { ApiError, badRequest, notFound } from "../http/errors.ts";
import { matchesEtag } from "../http/headers.ts";
import type { App } from "../http/route.ts";
import type { Store } from "../store/store.ts";

/** The media types an upload may declare, by the extension it is stored with (image/jpg and ICO's other name too). */
const DECLARED: Record<string, ImageExtension> = {
  ...Object.fromEntries(Object.entries(IMAGE_TYPES).map(([ext, type]) => [type, ext as ImageExtension])),
  "image/jpg": "jpg",
  "image/vnd.microsoft.icon": "ico",
};

/** What image-size calls each type it detects, for the types a page may use. */
const DETECTED: Record<string, ImageExtension> = {
  png: "png",
  jpg: "jpg",
  gif: "gif",
  webp: "webp",
  svg: "svg",
  ico: "ico",
};

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

/** An SVG's own checks: text in UTF-8, with no DOCTYPE (and so no entities, which can expand without bound). */
function checkSvg(bytes: Uint8Array): void {
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    throw refused("an SVG must be UTF-8 text");
  }
  if (/<!(?:DOCTYPE|ENTITY)/i.test(text)) throw refused("an SVG may not have a DOCTYPE or entities");
}

/**
 * Checks an upload: the declared type (415 when it is not an image type a page may use), then its bytes against it
 * (400). The size limit is the body limit's (bodyLimitOf), answered 413 before this reads anything.
 */
export function checkImage(contentType: string | undefined, bytes: Uint8Array): CheckedImage {
  const declared = DECLARED[(contentType ?? "").split(";")[0]?.trim().toLowerCase() ?? ""];
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
  const detected = size && DETECTED[size.type ?? ""];
  if (!size || !detected) throw refused(`the body is not an image of a type a page may use (${ACCEPTED})`);
  if (detected !== declared) {
    throw refused(`Content-Type says ${NAMES[declared]}, but the body is a ${NAMES[detected]} image`);
  }
  if (detected === "svg") checkSvg(bytes);
  else if (!size.width || !size.height || size.width > MAX_IMAGE_PIXELS || size.height > MAX_IMAGE_PIXELS) {
    throw refused(
      `an image may be at most ${MAX_IMAGE_PIXELS} x ${MAX_IMAGE_PIXELS} pixels; this one is ${size.width ?? 0} x ${size.height ?? 0}`,
    );
  }
  const hash = createHash("sha256").update(bytes).digest("hex");
  return { bytes, hash, contentType: IMAGE_TYPES[detected], path: `/assets/${hash}.${detected}` };
}

/**
 * Serves uploaded images at /assets/<hash>.<ext>, to anyone: an address is the hash of the bytes, so only a page's
 * readers learn it. A protected page's logo is as protected as its address. Read from the store each time (one
 * indexed row; browsers keep it for a year), so a removed image is gone at once.
 */
export function assetRoutes(app: App, store: Store): void {
  app.get("/assets/:file", async (c) => {
    const match = /^([0-9a-f]{64})\.(png|jpg|gif|webp|svg|ico)$/.exec(c.req.param("file"));
    const hash = match?.[1] ?? "";
    const ext = match?.[2] as ImageExtension | undefined;
    const image = ext ? await store.pages.image(hash) : undefined;
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
