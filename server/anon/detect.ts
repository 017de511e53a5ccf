import { detectWordPress, metaTags } from "../engine/wordpress.ts";

/*
 * What a snapshot tells about a site from one answer: the CDN in front of it, the software behind it, and whether
 * Cloudflare answered with a challenge instead of the page. Pure functions over headers (names lowercased) and
 * the body's first 256 KiB. Bodies and header values are the target's to choose, so every test here is a plain
 * substring search or a pattern that cannot backtrack; meta tags are read by a bounded scanner.
 */

type Headers = Record<string, string>;

const has = (value: string | undefined, needle: string): boolean => (value ?? "").toLowerCase().includes(needle);
const startsWith = (value: string | undefined, prefix: string): boolean =>
  (value ?? "").trimStart().toLowerCase().startsWith(prefix);
const anyHeader = (headers: Headers, prefix: string): boolean => Object.keys(headers).some((n) => n.startsWith(prefix));

/** Each CDN and the headers it is known by; the first that matches wins, outermost layers first. */
const CDNS: [name: string, test: (h: Headers) => boolean][] = [
  // Every answer through Cloudflare carries cf-ray; its edge names itself "cloudflare".
  ["Cloudflare", (h) => "cf-ray" in h || startsWith(h.server, "cloudflare")],
  // Sucuri's firewall adds x-sucuri-id (and x-sucuri-cache); its server is "Sucuri/Cloudproxy".
  ["Sucuri", (h) => "x-sucuri-id" in h || "x-sucuri-cache" in h || startsWith(h.server, "sucuri")],
  // Imperva (Incapsula) adds x-iinfo, and x-cdn: Imperva or Incapsula.
  ["Imperva", (h) => "x-iinfo" in h || has(h["x-cdn"], "imperva") || has(h["x-cdn"], "incapsula")],
  // Akamai: x-akamai-* headers, akamai-grn, or its edge server "AkamaiGHost" (and "AkamaiNetStorage").
  ["Akamai", (h) => anyHeader(h, "x-akamai-") || "akamai-grn" in h || startsWith(h.server, "akamai")],
  // CloudFront: x-amz-cf-id and x-amz-cf-pop; via "1.1 <id>.cloudfront.net (CloudFront)"; x-cache "… from cloudfront".
  [
    "Amazon CloudFront",
    (h) => "x-amz-cf-id" in h || "x-amz-cf-pop" in h || has(h.via, "cloudfront") || has(h["x-cache"], "cloudfront"),
  ],
  // Fastly: x-fastly-request-id, fastly-debug-* headers, or x-served-by naming its cache nodes ("cache-fra-…").
  ["Fastly", (h) => "x-fastly-request-id" in h || anyHeader(h, "fastly-") || startsWith(h["x-served-by"], "cache-")],
  // Azure Front Door: x-azure-ref on every answer.
  ["Azure Front Door", (h) => "x-azure-ref" in h],
  // Google Cloud CDN: via "1.1 google" alone marks Google's load balancer, with or without its CDN, so it counts
  // only with a sign of a cache (an age header) or of Cloud Storage behind it (x-goog-* headers). "server: gws"
  // is Google's own web server, not the CDN, and is not used.
  ["Google Cloud CDN", (h) => has(h.via, "1.1 google") && ("age" in h || anyHeader(h, "x-goog-"))],
  // Vercel: x-vercel-id (and x-vercel-cache); its server says "Vercel".
  ["Vercel", (h) => "x-vercel-id" in h || "x-vercel-cache" in h || startsWith(h.server, "vercel")],
  // Netlify: x-nf-request-id; its server says "Netlify".
  ["Netlify", (h) => "x-nf-request-id" in h || startsWith(h.server, "netlify")],
  // Bunny CDN: server "BunnyCDN-<region>-<id>", cdn-pullzone and cdn-requestid headers.
  ["Bunny CDN", (h) => startsWith(h.server, "bunnycdn") || "cdn-pullzone" in h || "cdn-requestid" in h],
  // KeyCDN: server "keycdn-engine".
  ["KeyCDN", (h) => startsWith(h.server, "keycdn")],
  // StackPath (the Highwinds network): x-hw with its edge's timings and names.
  ["StackPath", (h) => "x-hw" in h],
  // Edgio (Edgecast): its edge servers name themselves "ECS (pop/id)" or "ECAcc (pop/id)".
  ["Edgio", (h) => startsWith(h.server, "ecs (") || startsWith(h.server, "ecacc (")],
];

/** The CDN an answer came through, by the headers each leaves (named above); "None" when none is recognised. */
export function detectCdn(headers: Headers): string {
  return CDNS.find(([, test]) => test(headers))?.[0] ?? "None";
}

/** The content of `<meta name="generator" content="…">`, lowercased; "" when there is none. */
function generator(tags: string[]): string {
  for (const tag of tags) {
    const lower = tag.toLowerCase();
    if (!/\bname\s*=\s*["']?generator\b/.test(lower)) continue;
    const content = /\bcontent\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'>]+))/.exec(tag);
    return (content?.[1] ?? content?.[2] ?? content?.[3] ?? "").toLowerCase();
  }
  return "";
}

/** What one CMS test is given. */
interface Page {
  headers: Headers;
  /** The body as it came. */
  raw: string;
  /** The body lowercased, for the substring tests. */
  body: string;
  /** The generator meta tag's content, lowercased. */
  generator: string;
}

/** WordPress by the engine's own detector (linear on any body: it reads the meta tags with metaTags). */
function wordpress(page: Page): boolean {
  return detectWordPress(page.headers, page.raw);
}

const CMSES: [name: string, test: (p: Page) => boolean][] = [
  // Shopify: its storefront headers (x-shopid, x-shopify-stage, powered-by: Shopify, x-sorting-hat-shopid) or
  // the theme object every storefront defines ("Shopify.theme"). Checked first: a storefront is never WordPress,
  // while a WordPress page may embed Shopify's buy button.
  [
    "Shopify",
    (p) =>
      "x-shopid" in p.headers ||
      "x-shopify-stage" in p.headers ||
      "x-sorting-hat-shopid" in p.headers ||
      has(p.headers["powered-by"], "shopify") ||
      p.body.includes("shopify.theme"),
  ],
  // Wix: x-wix-request-id, its server "Pepyaka", generator "Wix.com Website Builder", its static host.
  [
    "Wix",
    (p) =>
      "x-wix-request-id" in p.headers ||
      startsWith(p.headers.server, "pepyaka") ||
      p.generator.startsWith("wix.com") ||
      p.body.includes("static.parastorage.com"),
  ],
  // Squarespace: server "Squarespace", the "<!-- This is Squarespace. -->" comment, its static host.
  [
    "Squarespace",
    (p) =>
      startsWith(p.headers.server, "squarespace") ||
      p.body.includes("this is squarespace.") ||
      p.body.includes("static1.squarespace.com/static/"),
  ],
  // WordPress: the REST API link, pingback, its cookies, the generator tag, wp-content and wp-includes paths.
  ["WordPress", wordpress],
  // Drupal: x-generator "Drupal 10 (https://www.drupal.org)", x-drupal-cache headers, generator, its settings JSON.
  [
    "Drupal",
    (p) =>
      has(p.headers["x-generator"], "drupal") ||
      anyHeader(p.headers, "x-drupal-") ||
      p.generator.startsWith("drupal") ||
      p.body.includes("data-drupal-selector") ||
      p.body.includes("drupal-settings-json"),
  ],
  // Joomla: generator "Joomla! - Open Source Content Management", Joomla 4's script options, its header.
  [
    "Joomla",
    (p) =>
      p.generator.startsWith("joomla") ||
      p.body.includes("joomla-script-options") ||
      has(p.headers["x-content-encoded-by"], "joomla"),
  ],
  // Ghost: generator "Ghost 5.x", and Ghost(Pro)'s x-ghost-cache-status.
  ["Ghost", (p) => p.generator.startsWith("ghost") || "x-ghost-cache-status" in p.headers],
  // Webflow: generator "Webflow", the data-wf-site and data-wf-page attributes on <html>.
  ["Webflow", (p) => p.generator.startsWith("webflow") || p.body.includes("data-wf-site=")],
  // HubSpot CMS: generator "HubSpot", x-hs-hub-id on hosted pages, x-powered-by: HubSpot. Its tracking script
  // (js.hs-scripts.com) is on many other sites and is not used.
  [
    "HubSpot",
    (p) => p.generator.startsWith("hubspot") || "x-hs-hub-id" in p.headers || has(p.headers["x-powered-by"], "hubspot"),
  ],
  // Magento: x-magento-* headers, the X-Magento-Vary cookie, its "text/x-magento-init" script blocks.
  [
    "Magento",
    (p) =>
      anyHeader(p.headers, "x-magento-") ||
      has(p.headers["set-cookie"], "x-magento-vary") ||
      p.body.includes("text/x-magento-init") ||
      p.generator.startsWith("magento"),
  ],
  // PrestaShop: generator "PrestaShop", its PrestaShop-<hash> cookie, the "var prestashop =" page object.
  [
    "PrestaShop",
    (p) =>
      p.generator.startsWith("prestashop") ||
      has(p.headers["set-cookie"], "prestashop-") ||
      p.body.includes("var prestashop ="),
  ],
  // TYPO3: generator "TYPO3 CMS", its typo3temp/ and typo3conf/ paths.
  ["TYPO3", (p) => p.generator.startsWith("typo3") || p.body.includes("/typo3temp/") || p.body.includes("/typo3conf/")],
  // Static site generators, by their own generator tags ("Hugo 0.x", "Jekyll v4.x", "Gatsby 5.x") and for
  // Gatsby its root element "___gatsby".
  ["Hugo", (p) => p.generator.startsWith("hugo")],
  ["Jekyll", (p) => p.generator.startsWith("jekyll")],
  ["Gatsby", (p) => p.generator.startsWith("gatsby") || p.body.includes('id="___gatsby"')],
  // Next.js: x-powered-by "Next.js" (on by default), its __NEXT_DATA__ script, its /_next/static/ assets.
  [
    "Next.js",
    (p) =>
      has(p.headers["x-powered-by"], "next.js") ||
      p.body.includes('id="__next_data__"') ||
      p.body.includes("/_next/static/"),
  ],
];

/** The software behind a page, by the traces named above; "Unknown" when none is recognised. */
export function detectCms(headers: Headers, body: string): string {
  const page: Page = { headers, raw: body, body: body.toLowerCase(), generator: generator(metaTags(body)) };
  return CMSES.find(([, test]) => test(page))?.[0] ?? "Unknown";
}

/** Statuses Cloudflare answers a challenge or block with. */
const CHALLENGE_STATUSES = new Set([403, 429, 503]);
/**
 * Traces of Cloudflare's challenge and block pages: the interstitial's title "Just a moment...", the challenge
 * scripts under /cdn-cgi/challenge-platform/, the cf-chl names of its widgets and options (cf-chl-widget,
 * _cf_chl_opt), and the block page's title "Attention Required! | Cloudflare".
 */
const CHALLENGE_MARKERS = [
  "just a moment...",
  "/cdn-cgi/challenge-platform/",
  "cf-chl",
  "_cf_chl_opt",
  "attention required! | cloudflare",
];

/**
 * Whether Cloudflare answered with a challenge instead of the page: its `cf-mitigated: challenge` header, or a
 * 403, 429 or 503 from Cloudflare (cf-ray, server: cloudflare) whose page carries a challenge marker.
 */
export function cloudflareChallenge(statusCode: number | null, headers: Headers, body: string): boolean {
  if (headers["cf-mitigated"]?.trim().toLowerCase() === "challenge") return true;
  if (statusCode === null || !CHALLENGE_STATUSES.has(statusCode)) return false;
  if (!("cf-ray" in headers) && !startsWith(headers.server, "cloudflare")) return false;
  const page = body.toLowerCase();
  return CHALLENGE_MARKERS.some((marker) => page.includes(marker));
}
