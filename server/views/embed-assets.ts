import { createHash } from "node:crypto";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { BUILDS, PAGE_BUILD, wordsFile } from "../builds.ts";
import { type Encoding, Encodings } from "./compression.ts";

/**
 * Where `npm run build` writes the element: porchlight.js (the embed), porchlight-page.js (the pages' script), their
 * content-hashed copies and their manifests.
 */
export const EMBED_DIR = fileURLToPath(new URL("../../dist/embed/", import.meta.url));

/** What manifest.json says: the hashed copy's file name and its Subresource Integrity value. */
export interface EmbedManifest {
  file: string;
  integrity: string;
}

export interface Asset {
  type: string;
  etag: string;
  cacheControl: string;
  body: (encoding: Encoding) => Uint8Array;
}

const SHORT = "public, max-age=300, stale-while-revalidate=86400";
const YEAR = "public, max-age=31536000, immutable";

function asset(bytes: Uint8Array, type: string, cacheControl: string, tag: string): Asset {
  // Compressed as tightly as the formats allow, since every visitor of every embedding page downloads these; on
  // first request, once per encoding, so that start-up does not pay for it.
  const bodies = new Encodings(bytes as Uint8Array<ArrayBuffer>, "max");
  return { type, cacheControl, etag: `W/"${tag}"`, body: (encoding) => bodies.get(encoding) };
}

/** A build's manifest, or undefined when it has not been built. */
export function readManifest(manifest: string, dir: string = EMBED_DIR): EmbedManifest | undefined {
  const path = join(dir, manifest);
  return existsSync(path) ? (JSON.parse(readFileSync(path, "utf8")) as EmbedManifest) : undefined;
}

/** The page script's hashed file name in `dir` (from its manifest), or undefined when it has not been built. */
export function pageScriptFile(dir: string = EMBED_DIR): string | undefined {
  return readManifest(PAGE_BUILD.manifest, dir)?.file;
}

/** The built element files by name; empty when the element has not been built. */
export function loadEmbedAssets(dir: string = EMBED_DIR): Map<string, Asset> {
  const assets = new Map<string, Asset>();
  for (const build of BUILDS) {
    const manifestPath = join(dir, build.manifest);
    if (!existsSync(manifestPath)) continue;
    const manifestBytes = readFileSync(manifestPath);
    const manifest = JSON.parse(manifestBytes.toString("utf8")) as EmbedManifest;
    const script = readFileSync(join(dir, `${build.name}.js`));
    const type = "text/javascript; charset=utf-8";
    const tag = manifest.file.split(".")[1] ?? "0";
    assets.set(`${build.name}.js`, asset(script, type, SHORT, tag));
    assets.set(manifest.file, asset(script, type, YEAR, tag));
    assets.set(build.manifest, asset(manifestBytes, "application/json; charset=utf-8", SHORT, tag));
  }
  // The languages the embed script fetches: kept as long as the script that names them, tagged by their own bytes.
  const words = new RegExp(`^${wordsFile("[a-z]+").replace(".", "\\.")}$`);
  for (const name of existsSync(dir) ? readdirSync(dir) : []) {
    if (!words.test(name)) continue;
    const bytes = readFileSync(join(dir, name));
    const tag = createHash("sha256").update(bytes).digest("hex").slice(0, 10);
    assets.set(name, asset(bytes, "application/json; charset=utf-8", SHORT, tag));
  }
  return assets;
}
