import { describe, expect, test } from "vitest";
import { cloudflareChallenge, detectCdn, detectCms } from "../../server/anon/detect.ts";

/** Headers every answer carries, whoever serves it: none of them names a CDN or a CMS. */
const PLAIN = {
  date: "Sat, 21 Nov 2026 12:00:00 GMT",
  "content-type": "text/html; charset=utf-8",
  "cache-control": "max-age=600",
  "content-length": "1256",
};

describe("detectCdn", () => {
  test.each<[string, Record<string, string>]>([
    ["Cloudflare", { server: "cloudflare", "cf-ray": "8e5a1b2c3d4e5f60-FRA", "cf-cache-status": "HIT" }],
    ["Cloudflare", { "cf-ray": "8e5a1b2c3d4e5f60-AMS", server: "nginx" }],
    ["Cloudflare", { server: "cloudflare" }],
    [
      "Amazon CloudFront",
      {
        server: "AmazonS3",
        "x-cache": "Hit from cloudfront",
        via: "1.1 5f1b2c3d4e5f6a7b8c9d0e1f2a3b4c5d.cloudfront.net (CloudFront)",
        "x-amz-cf-pop": "FRA56-P5",
        "x-amz-cf-id": "x7N0aZp2Vd3yQ4bRkLm8sT9uWcE1fG6hJ5iK0lMnOpQrS2tUvWxYz==",
      },
    ],
    ["Amazon CloudFront", { via: "1.1 abc.cloudfront.net (CloudFront)" }],
    [
      "Fastly",
      {
        via: "1.1 varnish",
        "x-served-by": "cache-fra-eddf8230048-FRA",
        "x-cache": "HIT",
        "x-cache-hits": "1",
        "x-timer": "S1700000000.123456,VS0,VE1",
      },
    ],
    ["Fastly", { "x-fastly-request-id": "5d8f3e3c0b4a2d1e9f8a7b6c5d4e3f2a1b0c9d8e" }],
    ["Fastly", { "fastly-debug-digest": "0123456789abcdef" }],
    ["Akamai", { server: "AkamaiGHost", "content-length": "0" }],
    ["Akamai", { "x-akamai-transformed": "9 - 0 pmb=mRUM,1", server: "Apache" }],
    ["Akamai", { "akamai-grn": "0.1a2b3c4d.1700000000.5e6f7a8b" }],
    ["Google Cloud CDN", { via: "1.1 google", age: "173", "cache-control": "public, max-age=3600" }],
    [
      "Google Cloud CDN",
      { via: "1.1 google", "x-goog-generation": "1700000000000000", "x-goog-storage-class": "STANDARD" },
    ],
    ["Azure Front Door", { "x-azure-ref": "20261121T120000Z-17b5c9d8f7abc6d5hC1FRA4yag0000000ab0000000000abc1" }],
    [
      "Vercel",
      { server: "Vercel", "x-vercel-id": "fra1::iad1::abcde-1700000000000-0123456789ab", "x-vercel-cache": "HIT" },
    ],
    ["Netlify", { server: "Netlify", "x-nf-request-id": "01HX0ABCDE1234567890FGHIJK" }],
    ["Bunny CDN", { server: "BunnyCDN-DE1-1054", "cdn-pullzone": "123456", "cdn-cache": "HIT" }],
    ["KeyCDN", { server: "keycdn-engine", "x-edge-location": "defr", "x-cache": "HIT" }],
    ["Sucuri", { server: "Sucuri/Cloudproxy", "x-sucuri-id": "18015", "x-sucuri-cache": "HIT" }],
    ["Imperva", { "x-cdn": "Imperva", "x-iinfo": "12-34567890-0 0NNN RT(1700000000000 0) q(0 0 0 -1) r(0 0) U6" }],
    ["StackPath", { "x-hw": "1700000000.cds057.fr8.hn,1700000000.cds139.fr8.c" }],
    ["Edgio", { server: "ECS (dcb/7EA3)", "x-cache": "HIT" }],
  ])("%s", (cdn, headers) => {
    expect(detectCdn({ ...PLAIN, ...headers })).toBe(cdn);
  });

  test.each<[string, Record<string, string>]>([
    ["plain nginx", { server: "nginx/1.25.3" }],
    ["plain Apache with Varnish", { server: "Apache", via: "1.1 varnish (Varnish/7.4)", "x-varnish": "32770" }],
    ["Google's load balancer without a cache", { via: "1.1 google", server: "Google Frontend" }],
    ["Google's own web server", { server: "gws" }],
    ["a cache named elsewise", { "x-served-by": "my-origin-01" }],
  ])("None: %s", (_, headers) => {
    expect(detectCdn({ ...PLAIN, ...headers })).toBe("None");
  });

  test("the outer layer wins: Cloudflare in front of Vercel is Cloudflare", () => {
    expect(detectCdn({ "cf-ray": "8e5a1b2c3d4e5f60-FRA", server: "cloudflare", "x-vercel-id": "fra1::abc" })).toBe(
      "Cloudflare",
    );
  });
});

const page = (head: string, body = "<p>Hello</p>") =>
  `<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n<title>Example</title>\n${head}\n</head>\n<body>\n${body}\n</body>\n</html>\n`;

describe("detectCms", () => {
  test.each<[string, Record<string, string>, string]>([
    ["WordPress", {}, page('<meta name="generator" content="WordPress 6.5.2" />')],
    [
      "WordPress",
      { link: '<https://example.com/wp-json/>; rel="https://api.w.org/"' },
      page("<link rel=stylesheet href=/style.css>"),
    ],
    ["WordPress", {}, page("", '<img src="https://example.com/wp-content/uploads/2024/05/logo.png" alt="">')],
    ["WordPress", { "x-pingback": "https://example.com/xmlrpc.php" }, page("")],
    [
      "Drupal",
      { "x-generator": "Drupal 10 (https://www.drupal.org)", "x-drupal-cache": "HIT" },
      page('<meta name="Generator" content="Drupal 10 (https://www.drupal.org)" />'),
    ],
    ["Drupal", {}, page('<script type="application/json" data-drupal-selector="drupal-settings-json">{}</script>')],
    ["Drupal", { "x-drupal-dynamic-cache": "MISS" }, page("")],
    ["Joomla", {}, page('<meta name="generator" content="Joomla! - Open Source Content Management" />')],
    [
      "Joomla",
      {},
      page('<script type="application/json" class="joomla-script-options new">{"system.paths":{}}</script>'),
    ],
    [
      "Shopify",
      { "x-shopid": "12345678", "x-shopify-stage": "production", "powered-by": "Shopify" },
      page('<link rel="preconnect" href="https://cdn.shopify.com">'),
    ],
    ["Shopify", {}, page('<script>window.Shopify = window.Shopify || {}; Shopify.theme = {"name":"Dawn"};</script>')],
    [
      "Wix",
      { "x-wix-request-id": "1700000000.1234567890", server: "Pepyaka" },
      page('<meta name="generator" content="Wix.com Website Builder"/>'),
    ],
    [
      "Squarespace",
      { server: "Squarespace" },
      page('<!-- This is Squarespace. --><!-- example -->\n<link href="https://static1.squarespace.com/static/x.css">'),
    ],
    ["Ghost", {}, page('<meta name="generator" content="Ghost 5.82">')],
    ["Webflow", {}, page('<meta content="Webflow" name="generator"/>', '<div data-wf-site="64a1b2c3d4e5f6">x</div>')],
    ["HubSpot", { "x-hs-hub-id": "1234567" }, page('<meta name="generator" content="HubSpot">')],
    [
      "Magento",
      { "set-cookie": "X-Magento-Vary=abc123; path=/; HttpOnly" },
      page('<script type="text/x-magento-init">{"*":{"Magento_Ui/js/core/app":{}}}</script>'),
    ],
    ["PrestaShop", {}, page('<meta name="generator" content="PrestaShop">')],
    ["PrestaShop", {}, page('<script type="text/javascript">var prestashop = {"cart":{}};</script>')],
    ["TYPO3", {}, page('<meta name="generator" content="TYPO3 CMS" />')],
    ["TYPO3", {}, page('<link rel="stylesheet" href="/typo3temp/assets/css/7015c8c4ac.css" />')],
    ["Hugo", {}, page('<meta name="generator" content="Hugo 0.125.4">')],
    ["Jekyll", {}, page('<meta name="generator" content="Jekyll v4.3.3" />')],
    ["Gatsby", {}, page('<meta name="generator" content="Gatsby 5.13.3"/>', '<div id="___gatsby"></div>')],
    ["Next.js", { "x-powered-by": "Next.js" }, page("")],
    ["Next.js", {}, page('<script src="/_next/static/chunks/main-abc.js" defer></script>')],
  ])("%s", (cms, headers, body) => {
    expect(detectCms({ ...PLAIN, ...headers }, body)).toBe(cms);
  });

  test.each<[string, Record<string, string>, string]>([
    ["a hand-written page", { server: "nginx" }, page('<meta name="description" content="WordPress tips">')],
    ["a generator named in text, not a tag", {}, page("", "<p>name=generator content=Hugo</p>")],
    ["HubSpot's tracking script on another site", {}, page('<script src="//js.hs-scripts.com/1234.js"></script>')],
    ["an empty body", {}, ""],
  ])("Unknown: %s", (_, headers, body) => {
    expect(detectCms({ ...PLAIN, ...headers }, body)).toBe("Unknown");
  });

  test("Shopify wins over a stray wp-content link; WordPress over a Shopify buy button", () => {
    expect(
      detectCms({ "x-shopid": "1" }, page("", '<img src="https://blog.example.com/wp-content/uploads/a.png">')),
    ).toBe("Shopify");
    expect(
      detectCms(
        {},
        page('<meta name="generator" content="WordPress 6.5">', '<script src="https://cdn.shopify.com/buy.js">'),
      ),
    ).toBe("WordPress");
  });
});

describe("cloudflareChallenge", () => {
  const CF = { server: "cloudflare", "cf-ray": "8e5a1b2c3d4e5f60-FRA" };
  const interstitial = `<!DOCTYPE html><html lang="en-US"><head><title>Just a moment...</title>
<meta http-equiv="refresh" content="390"></head><body><div class="main-wrapper" role="main">
<noscript><div class="h2"><span id="challenge-error-text">Enable JavaScript and cookies to continue</span></div></noscript>
</div><script>(function(){window._cf_chl_opt={cvId: '3',cZone: "example.com",cType: 'managed'};
var cpo=document.createElement('script');cpo.src='/cdn-cgi/challenge-platform/h/g/orchestrate/chl_page/v1?ray=8e5a1b2c3d4e5f60';
document.getElementsByTagName('head')[0].appendChild(cpo);}());</script></body></html>`;
  const blocked = `<!DOCTYPE html><html><head><title>Attention Required! | Cloudflare</title></head>
<body><h1>Sorry, you have been blocked</h1></body></html>`;

  test("the cf-mitigated: challenge header alone is a challenge, whatever the status and body", () => {
    expect(cloudflareChallenge(200, { ...CF, "cf-mitigated": "challenge" }, "")).toBe(true);
    expect(cloudflareChallenge(403, { "cf-mitigated": "Challenge" }, "")).toBe(true);
  });

  test.each([403, 429, 503])("a %i from Cloudflare with the interstitial is a challenge", (status) => {
    expect(cloudflareChallenge(status, CF, interstitial)).toBe(true);
  });

  test("each marker alone, from Cloudflare with a 403", () => {
    for (const marker of [
      "<title>Just a moment...</title>",
      '<script src="/cdn-cgi/challenge-platform/scripts/jsd/main.js"></script>',
      '<div id="cf-chl-widget-abc"></div>',
      "<script>window._cf_chl_opt={}</script>",
    ]) {
      expect(cloudflareChallenge(403, CF, `<html><body>${marker}</body></html>`)).toBe(true);
    }
    expect(cloudflareChallenge(403, { server: "cloudflare" }, blocked)).toBe(true);
  });

  test("not a challenge: the real page, an ordinary error, or the markers without Cloudflare", () => {
    expect(cloudflareChallenge(200, CF, interstitial)).toBe(false);
    expect(cloudflareChallenge(403, CF, page("", "<h1>Forbidden</h1>"))).toBe(false);
    expect(cloudflareChallenge(503, CF, page("", "<h1>Down for maintenance</h1>"))).toBe(false);
    expect(cloudflareChallenge(403, { server: "nginx" }, interstitial)).toBe(false);
    expect(cloudflareChallenge(404, CF, interstitial)).toBe(false);
    expect(cloudflareChallenge(null, CF, interstitial)).toBe(false);
    expect(cloudflareChallenge(200, { ...CF, "cf-mitigated": "none" }, "")).toBe(false);
  });
});

describe("attacker-shaped answers finish fast", () => {
  /** Long header values, as far as an HTTP client lets them through. */
  const heavyHeaders: Record<string, string> = {
    "set-cookie": "a=".repeat(4000),
    link: 'rel="'.repeat(2000),
    server: " ".repeat(8000),
    via: "1.1 ".repeat(2000),
  };
  const cap = 256 * 1024;
  const fill = (unit: string) => unit.repeat(Math.ceil(cap / unit.length)).slice(0, cap);
  test.each([
    ["<meta ", fill("<meta ")],
    ['<meta name="generator" ', fill('<meta name="generator" ')],
    ['<meta name=generator content="', fill('<meta name=generator content="')],
    ["<", fill("<")],
    ["wp-content paths", fill("/wp-content/")],
    ["spaces", fill(" ")],
  ])(
    "256 KiB of %j",
    (_, body) => {
      // Linear work here takes milliseconds; a pattern that backtracks takes minutes on 256 KiB and fails on the test's
      // timeout (no wall-clock assertion: these machines are shared).
      const headers = heavyHeaders;
      expect(detectCms(headers, body)).toBeTypeOf("string");
      expect(detectCdn(headers)).toBeTypeOf("string");
      cloudflareChallenge(403, headers, body);
    },
    10_000,
  );

  test("the generator tag is still found after 100 KB of decoys", () => {
    const body = `${fill("<meta ").slice(0, 100_000)}><meta name="generator" content="Hugo 0.125">`;
    expect(detectCms({}, body)).toBe("Hugo");
  });
});
