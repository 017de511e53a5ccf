/**
 * Whether an answer comes from WordPress, by the traces it leaves in headers (the REST API link, pingback, its
 * cookies) and in HTML (the generator tag, wp-content and wp-includes paths). Pure.
 */
export function detectWordPress(headers: Record<string, string>, body: string): boolean {
  if (/rel="?https:\/\/api\.w\.org\/"?/i.test(headers.link ?? "")) return true;
  if (/xmlrpc\.php/i.test(headers["x-pingback"] ?? "")) return true;
  if (/wordpress/i.test(headers["x-powered-by"] ?? "")) return true;
  if (/(?:^|[\s,;])(?:wordpress_|wp-settings-)/i.test(headers["set-cookie"] ?? "")) return true;
  if (metaTags(body).some((tag) => /name=["']generator["'][^>]*content=["']WordPress/i.test(tag))) return true;
  return /\/wp-(?:content|includes)\/[\w./-]+/i.test(body);
}

const META_TAG_MAX = 512;
/** Meta tags read, from the top of the page, where they belong. */
const META_TAGS_MAX = 256;

/**
 * The page's `<meta …>` tags, each cut at META_TAG_MAX characters and closed with ">". A bounded scanner, not a
 * regex: the body may be 256 KiB of "<meta " with no ">" anywhere, and each step moves forward.
 */
export function metaTags(body: string): string[] {
  const lower = body.toLowerCase();
  const tags: string[] = [];
  let from = 0;
  let close = -2;
  while (tags.length < META_TAGS_MAX) {
    const start = lower.indexOf("<meta", from);
    if (start < 0) break;
    // The next ">" is found once and reused until passed, so a page without one is scanned once, not per tag.
    if (close !== -1 && close < start) close = lower.indexOf(">", start);
    const end = close === -1 ? start + META_TAG_MAX : Math.min(close, start + META_TAG_MAX);
    tags.push(`${body.slice(start, end)}>`);
    from = Math.max(end, start + 5);
  }
  return tags;
}
